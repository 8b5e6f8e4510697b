"""Co-located serving: continuous batching with chunked prefill (Sarathi-Serve) on the roofline.

Instead of separate prefill and decode chips (:func:`~rooflinekit.transformer.decisions.serving_search`),
one group of chips runs **mixed steps**: each step carries one new token for each of the
``decode_batch`` sequences being decoded and a **chunk** of ``chunk`` prompt tokens being prefilled
(Agrawal et al., 2024, *Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve*,
Sections 4.1 and 4.2: stall-free batching with chunked prefills).

:func:`mixed_step` places such a step, operation by operation, with the same per-operation model as
every other step: the matmuls, norms and collectives see ``decode_batch + chunk`` tokens at once
(their weights read once for all of them), and attention is the sum of the decode tokens'
attention over their caches and the chunk's attention over the prompt's earlier tokens and itself
(causal), fused in one kernel as engines run it. The roofline explains the paper's token budget:
while ``decode_batch + chunk`` stays below the chip's critical batch (about ``peak / bandwidth``
tokens for bf16 weights), the step's weight matmuls are memory-bound and the chunk rides on the
decode tokens' weight reads almost for free; past it every token costs math.

:func:`largest_chunk` finds the largest chunk that keeps the decode tokens' time per output token
(the mixed step's time) under a target. :func:`colocated_search` searches co-located
configurations under stated assumptions (:data:`COLOCATED`) for the same targets as the
disaggregated search, so the two can be compared (:func:`compare_scheduling`).

>>> lone = transformer_step("llama-3.1-8b", "h100-sxm", batch=32, context=2048)
>>> mixed = mixed_step("llama-3.1-8b", "h100-sxm", decode_batch=32, context=2048, chunk=256)
>>> round(mixed.t_sequential / lone.t_sequential, 2)    # 256 prompt tokens ride along for 12 % more
1.12
>>> largest_chunk("llama-3.1-8b", "h100-sxm", tpot=0.02, decode_batch=32, context=2048, prompt=4096)
1036
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rooflinekit._validate import check_count, check_figure
from rooflinekit.catalog import Chip
from rooflinekit.costs import Cost
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.decisions import SECONDS_PER_HOUR, ServingConfig, serving_search
from rooflinekit.transformer.op import Op
from rooflinekit.transformer.step import TransformerStep, place, transformer_step

COLOCATED = (
    "co-located, chunked prefill: one group of chips runs steps that each carry one token for every "
    "request being decoded and a chunk of prompt tokens; in the steady state the chunk admits "
    "prompts as fast as requests finish (chunk = batch x prompt / output tokens a step); TPOT = the "
    "mixed step with every decode cache at its longest (prompt + output tokens); TTFT = the steps a "
    "prompt's chunks take, the last chunk attending over the whole prompt; requests arriving evenly "
    "spaced, no queueing"
)
"""The assumptions of :func:`colocated_search`, in words."""


HEAD = ("final norm", "LM head", "logits all-gather")
"""The operations of the model's head (:func:`~rooflinekit.transformer.operations.head_ops`)."""


@dataclass(frozen=True)
class MixedStep:
    """One mixed step: ``decode_batch`` decode tokens and a chunk of ``chunk`` prompt tokens.

    ``step`` holds the merged operations (placed on one chip's roofline) and the memory check of
    the decode sequences with the chunk's; its times are the mixed step's.
    """

    step: TransformerStep
    decode_batch: int
    context: int
    chunk: int
    prefix: int

    @property
    def t_sequential(self) -> float:
        """Seconds with the operations one after another: every decode token's TPOT in this step."""
        return self.step.t_sequential

    @property
    def t_collectives_hidden(self) -> float:
        return self.step.t_collectives_hidden

    @property
    def bound(self) -> str:
        return self.step.bound

    def to_dict(self) -> dict[str, Any]:
        return {"decode_batch": self.decode_batch, "context": self.context, "chunk": self.chunk,
                "prefix": self.prefix, "t_sequential": self.t_sequential,
                "t_collectives_hidden": self.t_collectives_hidden, "bound": self.bound,
                "step": self.step.to_dict()}


def _attention(step: TransformerStep | None) -> dict[str, Op]:
    return {} if step is None else {p.op.name: p.op for p in step.ops if p.op.kind == "attention"}


def _merged(a: Op, b: Op | None = None) -> Op:
    """Two operations of one name run as one kernel: their FLOPs and bytes add."""
    if b is None:
        return a
    cost = Cost(a.flops + b.flops, a.cost.bytes_read + b.cost.bytes_read,
                a.cost.bytes_written + b.cost.bytes_written, a.name)
    return Op(a.name, a.kind, cost, a.count)


def _chunk_step(shape: TransformerShape, on: str | Chip, chunk: int, prefix: int,
                settings: dict[str, Any]) -> TransformerStep | None:
    """The chunk alone: ``chunk`` new tokens over ``prefix`` cached ones of the same prompt (at least
    one, a first chunk counting one key too many); the mixed step takes its attention."""
    if not chunk:
        return None
    return transformer_step(shape, on, context=max(prefix, 1), step_tokens=chunk, **settings)


def mixed_step(model: str | TransformerShape, on: str | Chip, *, decode_batch: int, context: int,
               chunk: int, prefix: int = 0, **settings: Any) -> MixedStep:
    """A step with ``decode_batch`` sequences decoding over ``context`` cached tokens each and a chunk
    of ``chunk`` prompt tokens after ``prefix`` of the same prompt already prefilled.

    ``settings`` are :func:`~rooflinekit.transformer.step.transformer_step`'s (``n_chips``, dtypes,
    efficiency, collective latency). ``decode_batch`` or ``chunk`` may be 0, not both.

    >>> mixed_step("llama-3.1-8b", "h100-sxm", decode_batch=0, context=1, chunk=0)
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: chunk must be at least 1 when decode_batch is 0 (got 0)
    """
    shape = transformer_shape(model)
    for fixed in ("batch", "phase", "step_tokens"):
        if fixed in settings:
            raise RooflineInputError(fixed, "left out (a mixed step sets it)", settings[fixed])
    batch, chunk_tokens, done = (_count0(name, v) for name, v in
                                 (("decode_batch", decode_batch), ("chunk", chunk), ("prefix", prefix)))
    if not batch and not chunk_tokens:
        raise RooflineInputError("chunk", "at least 1 when decode_batch is 0", chunk)
    # Memory: the decoded sequences and the prompt being prefilled, each at its longest.
    longest = max(check_count("context", context), done + chunk_tokens)
    transformer_step(shape, on, batch=batch + (1 if chunk_tokens else 0), context=longest, **settings)
    linear = transformer_step(shape, on, step_tokens=batch + chunk_tokens, context=1, **settings)
    decode = transformer_step(shape, on, batch=batch, context=context, **settings) if batch else None
    parts = (_attention(decode), _attention(_chunk_step(shape, on, chunk_tokens, done, settings)))
    names = list(dict.fromkeys([*parts[0], *parts[1]]))
    joined = [_merged(*[part[name] for part in parts if name in part]) for name in names]
    # Logits for the decode tokens and the chunk's last token only, as engines compute them.
    head = transformer_step(shape, on, batch=batch + (1 if chunk_tokens else 0), context=1, **settings)
    ops = [p.op for p in linear.ops if p.op.kind != "attention" and p.op.name not in HEAD]
    ops += [p.op for p in head.ops if p.op.name in HEAD]
    first = next(i for i, p in enumerate(linear.ops) if p.op.kind == "attention")
    ops[first:first] = joined
    setup = linear.setup
    step = TransformerStep(shape, setup, tuple(place(op, setup) for op in ops), linear.memory)
    return MixedStep(step, batch, context, chunk_tokens, done)


def _count0(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RooflineInputError(name, "an integer, 0 or more", value)
    return value


def largest_chunk(model: str | TransformerShape, on: str | Chip, *, tpot: float, decode_batch: int,
                  context: int, prompt: int, **settings: Any) -> int | None:
    """The largest chunk (at most ``prompt``) whose mixed step with ``decode_batch`` decode tokens
    stays within ``tpot`` seconds, the chunk taken last in its prompt (attending over the rest of
    it, the slowest); ``None`` when even a chunk of one token misses the target.

    >>> largest_chunk("llama-3.1-70b", "h100-sxm", tpot=0.03, decode_batch=64, context=2048,
    ...               prompt=8192, n_chips=8)
    791
    """
    target = float(check_figure("tpot", tpot, unit="seconds"))
    length = check_count("prompt", prompt)

    def meets(chunk: int) -> bool:
        step = mixed_step(model, on, decode_batch=decode_batch, context=context, chunk=chunk,
                          prefix=length - chunk, **settings)
        return step.t_sequential <= target

    if not meets(1):
        return None
    low, high = 1, length
    if meets(high):
        return high
    while high - low > 1:  # meets(low), not meets(high)
        middle = (low + high) // 2
        low, high = (middle, high) if meets(middle) else (low, middle)
    return low


@dataclass(frozen=True)
class ColocatedConfig:
    """One co-located configuration under :data:`COLOCATED`: chips, decode batch, chunk, times."""

    n_chips: int
    batch: int
    chunk: int
    output: int
    tpot: float
    ttft: float
    prompt: int = 0

    @property
    def chip_hours_per_million_tokens(self) -> float:
        """Chip-hours a million output tokens take: each step yields ``batch`` of them."""
        return self.n_chips * self.tpot / self.batch * 1e6 / SECONDS_PER_HOUR

    def to_dict(self) -> dict[str, Any]:
        return {"n_chips": self.n_chips, "batch": self.batch, "chunk": self.chunk, "tpot": self.tpot,
                "ttft": self.ttft, "chip_hours_per_million_tokens": self.chip_hours_per_million_tokens}


def colocated_config(model: str | TransformerShape, on: str | Chip, *, n_chips: int, batch: int,
                     prompt: int, output: int, chunk: int | None = None, **settings: Any) -> ColocatedConfig:
    """:data:`COLOCATED` on ``n_chips`` chips decoding ``batch`` requests with prompt chunks of
    ``chunk`` tokens (by default the steady state's least, ``batch x prompt / output``; a chunk
    larger than a prompt holds several prompts).

    >>> c = colocated_config("llama-3.1-8b", "h100-sxm", n_chips=1, batch=64, prompt=1024, output=256)
    >>> c.chunk, round(c.tpot * 1e3, 1), round(c.ttft * 1e3, 1)
    (256, 8.8, 35.2)

    The least chunk is SARATHI's balance of prefill and decode tokens in a step (Agrawal et al., 2023,
    the P:D ratio): ``chunk / batch = prompt / output``, so the prompts enter as fast as requests leave.

    >>> c.chunk / c.batch == 1024 / 256
    True
    """
    count, length, out = (check_count(n, v) for n, v in (("batch", batch), ("prompt", prompt),
                                                          ("output", output)))
    least = math.ceil(count * length / out)
    size = least if chunk is None else check_count("chunk", chunk)
    if size < least:
        raise RooflineInputError("chunk", f"at least {least} tokens (batch x prompt / output)", size)
    step = mixed_step(model, on, n_chips=n_chips, decode_batch=count, context=length + out,
                      chunk=min(size, length), prefix=max(0, length - size), **settings)
    t = step.t_sequential
    if size > length:  # several whole prompts a step: their prefill, beside the first one's
        extra = transformer_step(model, on, n_chips=n_chips, phase="prefill", context=length,
                                 batch=math.ceil(size / length) - 1, **settings)
        t += extra.t_sequential - _weights_time(extra)
    return ColocatedConfig(n_chips, count, size, out, t, t * max(1, math.ceil(length / size)), length)


def _weights_time(step: TransformerStep) -> float:
    """The share of a step's memory time spent reading weights, which a mixed step reads only once."""
    return sum(p.op.count * p.op.weight_bytes for p in step.ops) / step.setup.hbm_bandwidth


@dataclass(frozen=True)
class ColocatedSearch:
    """The co-located configurations that meet the targets, and the cheapest (None if none does)."""

    model: TransformerShape
    ttft_target: float
    tpot_target: float
    configs: tuple[ColocatedConfig, ...]

    @property
    def cheapest(self) -> ColocatedConfig | None:
        return min(self.configs, key=lambda c: c.chip_hours_per_million_tokens) if self.configs else None

    def to_dict(self) -> dict[str, Any]:
        cheapest = self.cheapest
        return {"model": self.model.name, "ttft_target": self.ttft_target, "tpot_target": self.tpot_target,
                "scheduling": COLOCATED, "configs": [c.to_dict() for c in self.configs],
                "cheapest": None if cheapest is None else cheapest.to_dict()}


def colocated_search(model: str | TransformerShape, on: str | Chip, *, ttft: float, tpot: float,
                     prompt: int, output: int, chip_counts: Sequence[int] = (1, 2, 4, 8),
                     batches: Iterable[int] | None = None, **settings: Any) -> ColocatedSearch:
    """Every co-located configuration (:data:`COLOCATED`) whose TTFT and TPOT meet the targets, over
    ``chip_counts`` and ``batches`` (default: the powers of two that fit).

    >>> found = colocated_search("llama-3.1-8b", "h100-sxm", ttft=0.2, tpot=0.03, prompt=1024, output=256)
    >>> best = found.cheapest
    >>> best.n_chips, best.batch, best.chunk
    (1, 228, 918)
    """
    shape = transformer_shape(model)
    ttft_target = check_figure("ttft", ttft, unit="seconds")
    tpot_target = check_figure("tpot", tpot, unit="seconds")
    grid = sorted({check_count("batches", b) for b in batches}) if batches is not None else None
    configs = []
    for n in sorted({check_count("chip_counts", c) for c in chip_counts}):
        def at(batch: int, n: int = n) -> ColocatedConfig | None:
            try:
                config = _fastest_first_token(shape, on, n, batch, (prompt, output), tpot_target, settings)
            except RooflineInputError as error:
                if error.argument in ("batch", "context", "n_chips"):
                    return None  # does not fit, or the chips do not split the model
                raise
            return config if config and config.tpot <= tpot_target and config.ttft <= ttft_target else None

        configs += _meeting(at, grid)
    return ColocatedSearch(shape, ttft_target, tpot_target, tuple(configs))


def _fastest_first_token(shape: TransformerShape, on: str | Chip, n_chips: int, batch: int,
                         lengths: tuple[int, int], tpot: float,
                         settings: dict[str, Any]) -> ColocatedConfig | None:
    """The configuration with the largest chunk that keeps TPOT under ``tpot`` (the shortest TTFT),
    or None when that chunk cannot keep up with the prompts (under the steady state's least)."""
    prompt, output = lengths
    least = math.ceil(batch * prompt / output)
    chunk = least
    if least < prompt:
        found = largest_chunk(shape, on, tpot=tpot, decode_batch=batch, context=prompt + output,
                              prompt=prompt, n_chips=n_chips, **settings)
        if found is None or found < least:
            return None
        chunk = found
    return colocated_config(shape, on, n_chips=n_chips, batch=batch, prompt=prompt, output=output,
                            chunk=chunk, **settings)


def _meeting(at: Callable[[int], ColocatedConfig | None], grid: list[int] | None) -> list[ColocatedConfig]:
    """The configurations of ``grid`` that meet the targets, or by default those of the powers of two
    and of the largest batch that does (a larger batch meets them no better: its step is longer)."""
    if grid is not None:
        return [c for c in map(at, grid) if c is not None]
    found, batch = [], 1
    while (config := at(batch)) is not None:
        found.append(config)
        batch *= 2
    low, high = batch // 2, batch
    while low and high - low > 1:  # at(low) meets the targets, at(high) does not
        middle = (low + high) // 2
        low, high = (middle, high) if at(middle) is not None else (low, middle)
    if low > found[-1].batch if found else False:
        found.append(at(low))  # type: ignore[arg-type]
    return found


@dataclass(frozen=True)
class SchedulingComparison:
    """The cheapest configuration of each scheduling for the same model, chip and targets."""

    colocated: ColocatedConfig | None
    disaggregated: ServingConfig | None

    def to_dict(self) -> dict[str, Any]:
        return {"colocated": None if self.colocated is None else self.colocated.to_dict(),
                "disaggregated": None if self.disaggregated is None else self.disaggregated.to_dict()}


def compare_scheduling(model: str | TransformerShape, on: str | Chip, *, ttft: float, tpot: float,
                       prompt: int, output: int, **settings: Any) -> SchedulingComparison:
    """The cheapest co-located (chunked) and disaggregated configurations for the same targets.

    >>> both = compare_scheduling("llama-3.1-8b", "h100-sxm", ttft=0.2, tpot=0.03, prompt=1024, output=256)
    >>> [round(c.chip_hours_per_million_tokens, 4) for c in (both.colocated, both.disaggregated)]
    [0.0365, 0.0368]
    """
    together = colocated_search(model, on, ttft=ttft, tpot=tpot, prompt=prompt, output=output, **settings)
    apart = serving_search(model, on, ttft=ttft, tpot=tpot, prompt=prompt, output=output, **settings)
    return SchedulingComparison(together.cheapest, apart.cheapest)
