"""Serving as a decision: the latency-throughput curve, latency targets, and the cost of a token.

A server chooses a batch and a number of chips; each choice trades the speed each request sees
(**per-request tokens/s**, one over the decode step's time) against the tokens the whole batch
produces (**total tokens/s**, the batch over the step's time). :func:`latency_throughput` walks
the decode batch from 1 to the largest that fits and names two points of that curve:

- the **knee**: the largest batch at which every request still gets at least ``knee_fraction``
  (0.9 by default) of a lone request's tokens/s. Up to the knee, batching is nearly free for
  each request, and the total grows almost in proportion to the batch.
- the **plateau**: the smallest batch at which the weight matmuls that are compute-bound hold
  at least half of the weight bytes the step reads. From there on, a matmul's time grows with
  the batch, and the total tokens/s grows by at most a third per doubling of the batch (the
  step's time that does not grow with the batch, the rest of the weights' reads, is at most
  the time the compute-bound half takes; ``tests/rooflinekit/test_decisions.py`` checks this law over models
  and chips). ``None`` when memory runs out first.

:func:`serving_search` finds the batch sizes and chip counts that meet a time-to-first-token
(TTFT) and a time-per-output-token (TPOT) target under one stated scheduling assumption,
:data:`SCHEDULING`: **separate prefill and decode** (disaggregated serving). Each prompt is
prefilled alone on a group of ``prefill_chips`` chips; its TTFT is that prefill's time. There is no
queueing because requests are taken to arrive steadily, evenly spaced: a pool with exactly the
groups the load keeps busy then always has one free when a prompt comes. Random arrivals would
queue without bound at that utilisation, so a real pool needs spare groups, and the prefill share
below is a lower bound. Nor does TTFT count the hand-off of the prompt's KV cache from the prefill
chips to the decode chips, :attr:`ServingConfig.handoff_bytes`, to add at the bandwidth of the link
between them (:meth:`ServingConfig.handoff_time`). Decode runs ``batch``
requests at once on ``decode_chips`` chips; its TPOT is the decode step with every request's cache
at its longest, ``prompt + output`` tokens (the slowest token of a request). A decode group
finishes ``batch / (output * TPOT)`` requests a second, and a prefill group prefills one prompt
per TTFT, so it keeps ``batch * TTFT / (output * TPOT)`` prefill groups busy: the configuration
counts that share of the prefill pool's chips (``prefill_share``), the pool being shared.

Cost is never built in: :attr:`ServingConfig.chip_hours_per_million_tokens` is what a million
output tokens take, and :func:`cost_per_million_tokens` multiplies it by the price of a chip-hour
the caller gives.

Every time comes in two, bracketing how communication overlaps computation (:data:`OVERLAPS`):
``"none"``, the step's ``t_sequential`` (collectives one after another with the rest), and
``"full"``, its ``t_collectives_hidden`` (every collective hidden behind the other operations,
memory-bound ones included). In tensor-parallel decode each all-reduce feeds the next operation, so
an engine hides it only by running two micro-batches in turn or with asynchronous tensor
parallelism; ``"full"`` is the bound such a schedule approaches.

>>> curve = latency_throughput("llama-3.1-8b", "h100-sxm", context=512)
>>> curve.knee, curve.plateau, curve.max_batch
(22, 326, 946)
>>> search = serving_search("llama-3.1-8b", "h100-sxm", ttft=0.2, tpot=0.03, prompt=1024, output=256)
>>> best = search.cheapest          # memory, not the TPOT target, caps its batch
>>> best.prefill_chips, best.decode_chips, best.batch, round(best.tpot * 1e3, 1)
(1, 1, 380, 25.5)
>>> round(cost_per_million_tokens(best, price_per_chip_hour=2.0), 4)   # at 2 a chip-hour (an example)
0.0735
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rooflinekit._validate import check_count, check_figure, check_fraction
from rooflinekit.catalog import Chip
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.memory import memory_check
from rooflinekit.transformer.mixed import check_shared_prefix, prefix_prefill
from rooflinekit.transformer.setup import make_setup
from rooflinekit.transformer.step import TransformerStep, transformer_step

OVERLAPS = ("none", "full")
"""How a step's communication overlaps its other operations: ``"none"`` is the step's
``t_sequential``, ``"full"`` its ``t_collectives_hidden``."""

SCHEDULING = (
    "separate prefill and decode: each prompt prefilled alone on its own chips (TTFT = that "
    "prefill; no queueing, requests arriving evenly spaced; the KV cache's hand-off to the decode "
    "chips not counted), decode batches on other chips (TPOT = the decode step at the longest "
    "cache, prompt + output tokens); the prefill pool is shared by the decode groups"
)
"""The scheduling assumption of :func:`serving_search`, in words."""

SHARED_PREFIX = (
    "every prompt starts with the same {tokens} tokens (a system prompt), whose KV cache every chip "
    "holds once, computed once and never counted again; a prompt prefills only its new "
    "tokens, attending over the cached prefix, and hands only their cache to the decode chips; a "
    "decode step still reads each sequence's whole cache, the prefix included"
)
"""What a ``shared_prefix`` of the serving searches assumes, in words (``{tokens}`` to fill)."""

PLATEAU_SHARE = 0.5
"""The plateau: the compute-bound weight matmuls hold at least this share of the weight bytes."""

SECONDS_PER_HOUR = 3600.0


def step_time(step: TransformerStep, overlap: str = "none") -> float:
    """The step's seconds with no overlap of collectives and the other operations, or with full overlap.

    >>> step = transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, phase="prefill")
    >>> step_time(step, "full") < step_time(step, "none")
    True
    """
    if overlap not in OVERLAPS:
        raise RooflineInputError("overlap", "one of " + ", ".join(OVERLAPS), overlap)
    return step.t_collectives_hidden if overlap == "full" else step.t_sequential


def compute_bound_weight_share(step: TransformerStep) -> float:
    """Share of the weight bytes the step reads that are read by compute-bound matmuls.

    >>> small = transformer_step("llama-3.1-8b", "h100-sxm", batch=1)
    >>> compute_bound_weight_share(small)
    0.0
    """
    weights = [(p.op.count * p.op.weight_bytes, p.bound) for p in step.ops if p.op.weight_bytes]
    total = sum(w for w, _ in weights)
    return sum(w for w, bound in weights if bound == "compute") / total


@dataclass(frozen=True)
class CurvePoint:
    """Decode at one batch: the step's time with no overlap and with full overlap (seconds)."""

    batch: int
    t_no_overlap: float
    t_full_overlap: float
    compute_bound_weights: float

    def time(self, overlap: str = "none") -> float:
        """TPOT: the step's seconds under ``overlap``."""
        if overlap not in OVERLAPS:
            raise RooflineInputError("overlap", "one of " + ", ".join(OVERLAPS), overlap)
        return self.t_full_overlap if overlap == "full" else self.t_no_overlap

    def per_request(self, overlap: str = "none") -> float:
        """Tokens per second each request gets: one token per step."""
        return 1.0 / self.time(overlap)

    def total(self, overlap: str = "none") -> float:
        """Tokens per second over the batch."""
        return self.batch / self.time(overlap)

    def to_dict(self) -> dict[str, Any]:
        return {
            "batch": self.batch,
            "compute_bound_weight_share": self.compute_bound_weights,
            **{f"{key}_{overlap}_overlap": value
               for overlap in OVERLAPS
               for key, value in (("tpot", self.time(overlap)),
                                  ("per_request_tokens_per_second", self.per_request(overlap)),
                                  ("total_tokens_per_second", self.total(overlap)))},
        }


def _point(step: TransformerStep) -> CurvePoint:
    return CurvePoint(step.setup.batch, step.t_sequential, step.t_collectives_hidden,
                      compute_bound_weight_share(step))


@dataclass(frozen=True)
class LatencyThroughput:
    """The decode latency-throughput curve of a model on chips, with its knee and plateau.

    ``points`` run over ``batches`` (the knee and the plateau among them); ``knee`` and
    ``plateau`` are defined in the module's docstring (``plateau`` is None when memory runs out
    first); ``max_batch`` is the largest batch that fits.
    """

    model: TransformerShape
    chip: Chip
    n_chips: int
    context: int
    points: tuple[CurvePoint, ...]
    knee: int
    plateau: int | None
    max_batch: int
    knee_fraction: float

    def at(self, batch: int) -> CurvePoint:
        """The point at ``batch`` (one of the curve's batches)."""
        for point in self.points:
            if point.batch == batch:
                return point
        raise RooflineInputError("batch", "one of the curve's batches", batch)

    def chip_hours_per_million_tokens(self, batch: int, overlap: str = "none") -> float:
        """Chip-hours of decode alone (prefill aside) per million output tokens at ``batch``.

        >>> curve = latency_throughput("llama-3.1-8b", "h100-sxm", batches=[1, 64])
        >>> curve.chip_hours_per_million_tokens(1) > 20 * curve.chip_hours_per_million_tokens(64)
        True
        """
        return self.n_chips / self.at(batch).total(overlap) * 1e6 / SECONDS_PER_HOUR

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model.name,
            "chip": self.chip.id,
            "chips": self.n_chips,
            "context": self.context,
            "knee": self.knee,
            "knee_fraction": self.knee_fraction,
            "plateau": self.plateau,
            "plateau_share": PLATEAU_SHARE,
            "max_batch": self.max_batch,
            "points": [p.to_dict() for p in self.points],
        }


def _first(test: Callable[[int], bool], high: int) -> int | None:
    """The smallest batch in 1..high for which ``test`` holds (``test`` monotone), or None."""
    if high < 1 or not test(high):
        return None
    low = 0  # test(high) holds; test(low) is taken not to hold
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if test(middle) else (middle, high)
    return high


def latency_throughput(
    model: str | TransformerShape,
    on: str | Chip,
    batches: Iterable[int] | None = None,
    knee_fraction: float = 0.9,
    **settings: Any,
) -> LatencyThroughput:
    """Decode at every batch of ``batches`` (default: about 40 from 1 to the largest that fits),
    with the curve's knee and plateau (module docstring).

    ``settings`` are :func:`~rooflinekit.transformer.step.transformer_step`'s (``n_chips``,
    ``context``, dtypes...), in decode; ``batch`` and ``phase`` are set here.

    >>> curve = latency_throughput("llama-3.1-70b", "h100-sxm", n_chips=8, batches=[1, 64])
    >>> curve.knee, curve.plateau    # both on the curve, with the batches asked for
    (14, 335)
    >>> [(p.batch, round(p.total())) for p in curve.points]
    [(1, 191), (14, 2414), (64, 8019), (335, 16902)]
    """
    fraction = check_fraction("knee_fraction", knee_fraction)
    shape = transformer_shape(model)
    for fixed in ("batch", "phase"):
        if fixed in settings:
            accepted = "left out (the curve runs decode over every batch)"
            raise RooflineInputError(fixed, accepted, settings[fixed])
    setup = make_setup(on, **settings)
    max_batch = memory_check(shape, setup).max_batch
    step = transformer_step(shape, on, **settings)  # refuses a model or a context that does not fit

    def at(batch: int) -> TransformerStep:
        return transformer_step(shape, on, batch=batch, **settings)

    lone = step.t_sequential
    knee = _first(lambda b: at(b).t_sequential * fraction > lone, max_batch)
    knee = max_batch if knee is None else knee - 1
    plateau = _first(lambda b: compute_bound_weight_share(at(b)) >= PLATEAU_SHARE, max_batch)
    chosen = _batches(batches, max_batch) | {knee} | ({plateau} if plateau else set())
    points = tuple(_point(at(b)) for b in sorted(chosen))
    return LatencyThroughput(shape, setup.chip, setup.n_chips, setup.context, points, knee, plateau,
                             max_batch, fraction)


def _batches(batches: Iterable[int] | None, max_batch: int) -> set[int]:
    if batches is None:
        return {int(b) for b in np.unique(np.geomspace(1, max_batch, 40).astype(int))}
    chosen = {check_count("batches", b) for b in batches}
    if max(chosen) > max_batch:
        raise RooflineInputError("batches", f"batches of at most {max_batch} (what fits)", max(chosen))
    return chosen


@dataclass(frozen=True)
class ServingConfig:
    """One configuration under :data:`SCHEDULING`: prefill chips, decode chips and the decode batch.

    Each time is kept with no overlap of collectives and the other operations and with full overlap;
    ``overlap`` says which one :attr:`ttft` and :attr:`tpot` (and the targets) use.
    ``handoff_bytes`` is one prompt's KV cache, which the prefill chips send to the decode chips.
    """

    prefill_chips: int
    decode_chips: int
    batch: int
    output: int
    ttft_no_overlap: float
    ttft_full_overlap: float
    tpot_no_overlap: float
    tpot_full_overlap: float
    overlap: str = "none"
    handoff_bytes: float = 0.0

    @property
    def ttft(self) -> float:
        """Seconds to the first token: the prompt's prefill under :attr:`overlap`."""
        return self.ttft_full_overlap if self.overlap == "full" else self.ttft_no_overlap

    @property
    def tpot(self) -> float:
        """Seconds per output token: the decode step at the longest cache under :attr:`overlap`."""
        return self.tpot_full_overlap if self.overlap == "full" else self.tpot_no_overlap

    def handoff_time(self, link_bandwidth: float, links: int = 1) -> float:
        """Seconds to send one prompt's KV cache from prefill to decode over ``links`` links of
        ``link_bandwidth`` (bytes a second) each, side by side, which TTFT leaves out.

        One link is the upper bound. Each prefill chip holds its share of the KV heads and sends
        it over a link of its own (its NIC) to the decode chips that hold those heads, so
        :attr:`handoff_links` links can carry the hand-off at once.

        >>> found = serving_search("llama-3.1-70b", "h100-sxm", ttft=0.5, tpot=0.05, prompt=2048, output=512)
        >>> best = found.cheapest
        >>> round(best.handoff_bytes / 1e6), round(best.handoff_time(50e9) * 1e3, 1), best.handoff_links
        (671, 13.4, 2)
        >>> round(best.handoff_time(50e9, links=best.handoff_links) * 1e3, 1)
        6.7
        """
        count = check_count("links", links)
        return float(self.handoff_bytes / check_figure("link_bandwidth", link_bandwidth) / count)

    @property
    def handoff_links(self) -> int:
        """Links that can carry the hand-off at once, one a chip: the fewer of the prefill and the
        decode chips (each side's chips hold the KV heads in shares)."""
        return min(self.prefill_chips, self.decode_chips)

    @property
    def tokens_per_second(self) -> float:
        """Output tokens per second of one decode group."""
        return self.batch / self.tpot

    @property
    def prefill_share(self) -> float:
        """Prefill groups one decode group keeps busy: requests per second times one prefill."""
        return self.batch / (self.output * self.tpot) * self.ttft

    @property
    def chips(self) -> float:
        """Chips one decode group takes, its share of the prefill pool included."""
        return self.decode_chips + self.prefill_share * self.prefill_chips

    @property
    def chip_hours_per_million_tokens(self) -> float:
        """Chip-hours per million output tokens: the configuration's cost without a price."""
        return self.chips / self.tokens_per_second * 1e6 / SECONDS_PER_HOUR

    def to_dict(self, price_per_chip_hour: float | None = None) -> dict[str, Any]:
        data = {
            "prefill_chips": self.prefill_chips,
            "decode_chips": self.decode_chips,
            "batch": self.batch,
            "overlap": self.overlap,
            "ttft": self.ttft,
            "tpot": self.tpot,
            "ttft_no_overlap": self.ttft_no_overlap,
            "ttft_full_overlap": self.ttft_full_overlap,
            "tpot_no_overlap": self.tpot_no_overlap,
            "tpot_full_overlap": self.tpot_full_overlap,
            "tokens_per_second": self.tokens_per_second,
            "prefill_share": self.prefill_share,
            "chips": self.chips,
            "chip_hours_per_million_tokens": self.chip_hours_per_million_tokens,
            "handoff_bytes": self.handoff_bytes,
        }
        if price_per_chip_hour is not None:
            data["cost_per_million_tokens"] = cost_per_million_tokens(self, price_per_chip_hour)
        return data


def cost_per_million_tokens(config: ServingConfig, price_per_chip_hour: float) -> float:
    """What a million output tokens cost at ``price_per_chip_hour`` (the caller's price, in any
    currency): chip-hours per million tokens times the price. No price is built in.

    >>> config = ServingConfig(1, 1, batch=100, output=100, ttft_no_overlap=0.1, ttft_full_overlap=0.1,
    ...                        tpot_no_overlap=0.02, tpot_full_overlap=0.02)
    >>> config.tokens_per_second, config.prefill_share, round(config.chips, 2)
    (5000.0, 5.0, 6.0)
    >>> round(cost_per_million_tokens(config, price_per_chip_hour=3.0), 3)
    1.0
    """
    price = check_figure("price_per_chip_hour", price_per_chip_hour)
    return float(config.chip_hours_per_million_tokens * price)


@dataclass(frozen=True)
class ServingSearch:
    """The configurations that meet the targets (all of them) and the cheapest one (None if none does)."""

    model: TransformerShape
    chip: Chip
    ttft_target: float
    tpot_target: float
    prompt: int
    output: int
    overlap: str
    configs: tuple[ServingConfig, ...]
    shared_prefix: int = 0

    @property
    def cheapest(self) -> ServingConfig | None:
        """The configuration with the fewest chip-hours per million output tokens."""
        if not self.configs:
            return None
        return min(self.configs, key=lambda c: c.chip_hours_per_million_tokens)

    def to_dict(self, price_per_chip_hour: float | None = None) -> dict[str, Any]:
        cheapest = self.cheapest
        return {
            "model": self.model.name,
            "chip": self.chip.id,
            "ttft_target": self.ttft_target,
            "tpot_target": self.tpot_target,
            "prompt": self.prompt,
            "output": self.output,
            "overlap": self.overlap,
            "shared_prefix": self.shared_prefix,
            "scheduling": SCHEDULING,
            **({"prefix_caching": SHARED_PREFIX.format(tokens=self.shared_prefix)}
               if self.shared_prefix else {}),
            "price_per_chip_hour": price_per_chip_hour,
            "configs": [c.to_dict(price_per_chip_hour) for c in self.configs],
            "cheapest": None if cheapest is None else cheapest.to_dict(price_per_chip_hour),
        }


def _fits(shape: TransformerShape, on: str | Chip, n_chips: int, **settings: Any) -> bool:
    """Whether the model splits over ``n_chips`` and a step with ``settings`` fits."""
    try:
        transformer_step(shape, on, n_chips=n_chips, **settings)
    except RooflineInputError:
        return False
    return True


_SEARCH_FIXED = ("n_chips", "batch", "phase", "context")


def serving_search(
    model: str | TransformerShape,
    on: str | Chip,
    *,
    ttft: float,
    tpot: float,
    prompt: int,
    output: int,
    chip_counts: Sequence[int] = (1, 2, 4, 8),
    batches: Iterable[int] | None = None,
    overlap: str = "none",
    shared_prefix: int = 0,
    **settings: Any,
) -> ServingSearch:
    """Every configuration under :data:`SCHEDULING` whose TTFT and TPOT meet ``ttft`` and ``tpot``
    (seconds), for requests of ``prompt`` tokens in and ``output`` tokens out.

    Prefill and decode groups each take a count of ``chip_counts`` that splits the model and fits;
    the decode batch runs over ``batches`` (default: the powers of two) up to the largest batch
    that meets the TPOT target and fits, which is always tried too (the cheapest of its group).
    ``overlap`` (:data:`OVERLAPS`) says which time must meet the targets; both are kept.
    ``shared_prefix`` is how many of each prompt's first tokens every request shares, cached once
    (:data:`SHARED_PREFIX`). ``settings`` are :func:`~rooflinekit.transformer.step.transformer_step`'s
    dtypes, efficiency and collective latency.

    >>> found = serving_search("llama-3.1-70b", "h100-sxm", ttft=0.5, tpot=0.05, prompt=2048, output=512)
    >>> sorted({(c.prefill_chips, c.decode_chips) for c in found.configs})[:3]
    [(2, 2), (2, 4), (2, 8)]
    >>> all(c.ttft <= 0.5 and c.tpot <= 0.05 for c in found.configs)
    True

    With 1,536 of its tokens shared, a prompt prefills a quarter, and 4 decode chips fit what 8 did:

    >>> hit = serving_search("llama-3.1-70b", "h100-sxm", ttft=0.5, tpot=0.05, prompt=2048, output=512,
    ...                      shared_prefix=1536)
    >>> [(c.prefill_chips, c.decode_chips, c.batch, round(c.ttft, 4)) for c in (found.cheapest, hit.cheapest)]
    [(2, 8, 594, 0.169), (2, 4, 443, 0.0431)]
    """
    shape = transformer_shape(model)
    ttft_target = check_figure("ttft", ttft, unit="seconds")
    tpot_target = check_figure("tpot", tpot, unit="seconds")
    prompt, output = check_count("prompt", prompt), check_count("output", output)
    _check_search(overlap, settings)
    shared = check_shared_prefix(shared_prefix, prompt)
    counts = sorted({check_count("chip_counts", n) for n in chip_counts})
    prefills = [p for n in counts if (p := _prefill(shape, on, n, (prompt, shared), settings))
                and step_time(p, overlap) <= ttft_target]
    grid = None if batches is None else sorted({check_count("batches", b) for b in batches})
    setup = make_setup(on, **settings)
    handoff = (prompt - shared) * shape.kv_cache_bytes_per_token(setup.kv_cache)  # the prefix is there
    decoding = {**settings, "shared_prefix": shared}
    configs = [
        ServingConfig(p.setup.n_chips, d.setup.n_chips, d.setup.batch, output, p.t_sequential,
                      p.t_collectives_hidden, d.t_sequential, d.t_collectives_hidden, overlap, handoff)
        for n in counts
        for d in _decode_steps(shape, on, n, prompt + output, (tpot_target, overlap), grid, decoding)
        for p in prefills
    ]
    return ServingSearch(shape, setup.chip, ttft_target, tpot_target, prompt, output, overlap, tuple(configs),
                         shared)


def _check_search(overlap: str, settings: dict[str, Any]) -> None:
    """Refuse an unknown overlap, and a setting the search chooses itself."""
    if overlap not in OVERLAPS:
        raise RooflineInputError("overlap", "one of " + ", ".join(OVERLAPS), overlap)
    for fixed in _SEARCH_FIXED:
        if fixed in settings:
            raise RooflineInputError(fixed, "left out (the search chooses it)", settings[fixed])


def _prefill(shape: TransformerShape, on: str | Chip, n_chips: int, lengths: tuple[int, int],
             settings: dict[str, Any]) -> TransformerStep | None:
    """A prompt's prefill on ``n_chips`` (only its tokens after a cached shared prefix), or None when
    the chips do not split the model or the prompt does not fit (as :func:`_fits`)."""
    prompt, shared = lengths
    try:
        if shared:
            return prefix_prefill(shape, on, prompt=prompt, shared=shared, n_chips=n_chips,
                                  shared_prefix=shared, **settings).step
        return transformer_step(shape, on, n_chips=n_chips, phase="prefill", context=prompt, **settings)
    except RooflineInputError:
        return None


def _decode_steps(shape: TransformerShape, on: str | Chip, n_chips: int, context: int,
                  target: tuple[float, str], grid: list[int] | None,
                  settings: dict[str, Any]) -> list[TransformerStep]:
    """Decode steps on ``n_chips`` at the batches of ``grid`` (or the powers of two) that meet the
    TPOT target, and at the largest batch that does."""
    if not _fits(shape, on, n_chips, context=context, **settings):
        return []
    max_batch = memory_check(shape, make_setup(on, n_chips=n_chips, context=context, **settings)).max_batch

    def at(batch: int) -> TransformerStep:
        return transformer_step(shape, on, n_chips=n_chips, batch=batch, context=context, **settings)

    tpot, overlap = target
    missing = _first(lambda b: step_time(at(b), overlap) > tpot, max_batch)
    largest = max_batch if missing is None else missing - 1
    if largest < 1:
        return []
    tried = grid if grid is not None else [2**i for i in range(largest.bit_length())]
    return [at(b) for b in sorted({b for b in tried if b <= largest} | {largest})]
