"""Co-located serving: continuous batching with chunked prefill (Sarathi-Serve) on the roofline.

Instead of separate prefill and decode chips (:func:`~rooflinekit.transformer.decisions.serving_search`),
one group of chips runs **mixed steps**: each step carries one new token for each of the
``decode_batch`` sequences being decoded and a **chunk** of ``chunk`` prompt tokens being prefilled
(Agrawal et al., 2024, *Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve*,
Sections 4.1 and 4.2: stall-free batching with chunked prefills).

:func:`mixed_step` (:mod:`rooflinekit.transformer.mixed`) places such a step, operation by operation.
The roofline explains the paper's token budget:
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
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.decisions import SECONDS_PER_HOUR, ServingConfig, serving_search
from rooflinekit.transformer.mixed import (
    MixedStep,
    check_shared_prefix,
    largest_chunk,
    mixed_step,
    prefix_prefill,
)
from rooflinekit.transformer.step import TransformerStep, transformer_step

__all__ = ["COLOCATED", "ColocatedConfig", "ColocatedSearch", "MixedStep", "SchedulingComparison",
           "colocated_config", "colocated_search", "compare_scheduling", "largest_chunk", "mixed_step"]

COLOCATED = (
    "co-located, chunked prefill: one group of chips runs steps that each carry one token for every "
    "request being decoded and a chunk of prompt tokens; in the steady state the chunk admits "
    "prompts as fast as requests finish (chunk = batch x prompt / output tokens a step); TPOT = the "
    "mixed step with every decode cache at its longest (prompt + output tokens); TTFT = the steps a "
    "prompt's chunks take, the last chunk attending over the whole prompt; requests arriving evenly "
    "spaced, no queueing"
)
"""The assumptions of :func:`colocated_search`, in words."""


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
    shared_prefix: int = 0

    @property
    def chip_hours_per_million_tokens(self) -> float:
        """Chip-hours a million output tokens take: each step yields ``batch`` of them."""
        return self.n_chips * self.tpot / self.batch * 1e6 / SECONDS_PER_HOUR

    def to_dict(self) -> dict[str, Any]:
        return {"n_chips": self.n_chips, "batch": self.batch, "chunk": self.chunk, "tpot": self.tpot,
                "ttft": self.ttft, "shared_prefix": self.shared_prefix,
                "chip_hours_per_million_tokens": self.chip_hours_per_million_tokens}


def colocated_config(model: str | TransformerShape, on: str | Chip, *, n_chips: int, batch: int,
                     prompt: int, output: int, chunk: int | None = None, shared_prefix: int = 0,
                     **settings: Any) -> ColocatedConfig:
    """:data:`COLOCATED` on ``n_chips`` chips decoding ``batch`` requests with prompt chunks of
    ``chunk`` tokens (by default the steady state's least, ``batch x prompt / output``; a chunk
    larger than a prompt holds several prompts). With a ``shared_prefix`` cached once
    (:data:`~rooflinekit.transformer.decisions.SHARED_PREFIX`), only a prompt's other tokens are
    chunked: the least chunk is ``batch x (prompt - shared_prefix) / output``.

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
    shared = check_shared_prefix(shared_prefix, length)
    new = length - shared
    least = math.ceil(count * new / out)
    size = least if chunk is None else check_count("chunk", chunk)
    if size < least:
        accepted = f"at least {least} tokens (batch x new prompt tokens / output)"
        raise RooflineInputError("chunk", accepted, size)
    on_chips = {"n_chips": n_chips, **settings}
    step = mixed_step(model, on, decode_batch=count, context=length + out, chunk=min(size, new),
                      prefix=length - min(size, new), shared_prefix=shared, **on_chips)
    t = step.t_sequential + _more_prompts(model, on, math.ceil(size / new) - 1, (length, shared), on_chips)
    return ColocatedConfig(n_chips, count, size, out, t, t * max(1, math.ceil(new / size)), length, shared)


def _more_prompts(model: str | TransformerShape, on: str | Chip, count: int, lengths: tuple[int, int],
                  settings: dict[str, Any]) -> float:
    """Seconds the prefill of ``count`` more whole prompts (their new tokens) adds to a step whose
    chunk holds several, their weights being read once for the step."""
    if count < 1:
        return 0.0
    length, shared = lengths
    if not shared:
        extra = transformer_step(model, on, phase="prefill", context=length, batch=count, **settings)
        return extra.t_sequential - _weights_time(extra)
    one = prefix_prefill(model, on, prompt=length, shared=shared, **settings).step
    return count * (one.t_sequential - _weights_time(one))


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
    shared_prefix: int = 0

    @property
    def cheapest(self) -> ColocatedConfig | None:
        return min(self.configs, key=lambda c: c.chip_hours_per_million_tokens) if self.configs else None

    def to_dict(self) -> dict[str, Any]:
        cheapest = self.cheapest
        return {"model": self.model.name, "ttft_target": self.ttft_target, "tpot_target": self.tpot_target,
                "scheduling": COLOCATED, "shared_prefix": self.shared_prefix,
                "configs": [c.to_dict() for c in self.configs],
                "cheapest": None if cheapest is None else cheapest.to_dict()}


def colocated_search(model: str | TransformerShape, on: str | Chip, *, ttft: float, tpot: float,
                     prompt: int, output: int, chip_counts: Sequence[int] = (1, 2, 4, 8),
                     batches: Iterable[int] | None = None, shared_prefix: int = 0,
                     **settings: Any) -> ColocatedSearch:
    """Every co-located configuration (:data:`COLOCATED`) whose TTFT and TPOT meet the targets, over
    ``chip_counts`` and ``batches`` (default: the powers of two that fit), each prompt's first
    ``shared_prefix`` tokens cached once (:data:`~rooflinekit.transformer.decisions.SHARED_PREFIX`).

    >>> found = colocated_search("llama-3.1-8b", "h100-sxm", ttft=0.2, tpot=0.03, prompt=1024, output=256)
    >>> best = found.cheapest
    >>> best.n_chips, best.batch, best.chunk
    (1, 228, 918)

    With 768 of the 1,024 prompt tokens shared, a step admits a quarter of the prompt tokens, so the
    same TPOT target carries a larger batch:

    >>> hit = colocated_search("llama-3.1-8b", "h100-sxm", ttft=0.2, tpot=0.03, prompt=1024, output=256,
    ...                        shared_prefix=768).cheapest
    >>> hit.n_chips, hit.batch, hit.chunk          # a chunk of 372 tokens: a prompt and a half
    (1, 372, 372)
    """
    shape = transformer_shape(model)
    ttft_target = check_figure("ttft", ttft, unit="seconds")
    tpot_target = check_figure("tpot", tpot, unit="seconds")
    grid = sorted({check_count("batches", b) for b in batches}) if batches is not None else None
    lengths = (check_count("prompt", prompt), check_count("output", output),
               check_shared_prefix(shared_prefix, prompt))
    configs = []
    for n in sorted({check_count("chip_counts", c) for c in chip_counts}):
        def at(batch: int, n: int = n) -> ColocatedConfig | None:
            try:
                config = _fastest_first_token(shape, on, n, batch, lengths, tpot_target, settings)
            except RooflineInputError as error:
                if error.argument in ("batch", "context", "n_chips"):
                    return None  # does not fit, or the chips do not split the model
                raise
            return config if config and config.tpot <= tpot_target and config.ttft <= ttft_target else None

        configs += _meeting(at, grid)
    return ColocatedSearch(shape, ttft_target, tpot_target, tuple(configs), lengths[2])


def _fastest_first_token(shape: TransformerShape, on: str | Chip, n_chips: int, batch: int,
                         lengths: tuple[int, int, int], tpot: float,
                         settings: dict[str, Any]) -> ColocatedConfig | None:
    """The configuration with the largest chunk that keeps TPOT under ``tpot`` (the shortest TTFT),
    or None when that chunk cannot keep up with the prompts (under the steady state's least)."""
    prompt, output, shared = lengths
    least = math.ceil(batch * (prompt - shared) / output)
    chunk = least
    if least < prompt - shared:
        found = largest_chunk(shape, on, tpot=tpot, decode_batch=batch, context=prompt + output,
                              prompt=prompt, shared_prefix=shared, n_chips=n_chips, **settings)
        if found is None or found < least:
            return None
        chunk = found
    return colocated_config(shape, on, n_chips=n_chips, batch=batch, prompt=prompt, output=output,
                            chunk=chunk, shared_prefix=shared, **settings)


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
    """The cheapest co-located (chunked) and disaggregated configurations for the same targets
    (``settings`` go to both searches: their ``shared_prefix`` too).

    >>> both = compare_scheduling("llama-3.1-8b", "h100-sxm", ttft=0.2, tpot=0.03, prompt=1024, output=256)
    >>> [round(c.chip_hours_per_million_tokens, 4) for c in (both.colocated, both.disaggregated)]
    [0.0365, 0.0368]
    """
    together = colocated_search(model, on, ttft=ttft, tpot=tpot, prompt=prompt, output=output, **settings)
    apart = serving_search(model, on, ttft=ttft, tpot=tpot, prompt=prompt, output=output, **settings)
    return SchedulingComparison(together.cheapest, apart.cheapest)
