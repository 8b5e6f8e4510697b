"""Exercise 10's model answers, one function per graded part: what its key calls right.

Each is computed by ``rooflinekit``: the expected tokens and the speedup by
:mod:`rooflinekit.transformer.speculative` (its :class:`~rooflinekit.transformer.speculative.Speculation`
round), each step by the roofline of :func:`rooflinekit.analysis.analyze` on a
:class:`~rooflinekit.costs.Cost`, the largest batch by
:class:`~rooflinekit.transformer.memory.MemoryCheck`. The step is the statement's: the weight
matmuls on the roofline, then every sequence's cache read once (exercise 7's decode step, with
``tokens`` positions a sequence).

>>> round(expected_tokens(4, 0.8), 4)
3.3616
>>> round(speedup(4, 0.8, 1, 512, *H100), 3), best_draft_length(0.8, 1, 512, *H100)
(2.079, 5)
>>> stops_paying(4, 0.8, 512, *H100, CHIP.hbm_bytes), stops_paying(4, 0.8, 2048, *H100, CHIP.hbm_bytes)
(245.0, inf)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from rooflinekit.analysis import analyze, t_comms
from rooflinekit.costs import Cost
from rooflinekit.dtypes import dtype_bytes
from rooflinekit.transformer import speculative
from rooflinekit.transformer.memory import MemoryCheck

from .given import CHIP, DRAFT, DRAFT_KV, DRAFT_PARAMS, MAX_K, TARGET, TARGET_KV, TARGET_PARAMS

__all__ = [
    "H100",
    "WEIGHT_BYTES",
    "best_draft_length",
    "draft_time",
    "expected_tokens",
    "largest_batch",
    "speculation_round",
    "speedup",
    "step_time",
    "stops_paying",
    "verify_time",
]

WEIGHT_BYTES = dtype_bytes("bf16")
"""Both models' weights are bf16."""
H100 = (CHIP.peak("bf16"), CHIP.hbm_bandwidth)
"""(peak, bandwidth) of the exercise's chip."""


def expected_tokens(k: Any, alpha: Any) -> float:
    """Tokens one target step yields on average: ``(1 - alpha^(k+1)) / (1 - alpha)``."""
    return speculative.expected_tokens(int(k), float(alpha))


def step_time(params: float, kv_bytes_per_token: float, batch: Any, tokens: Any, context: Any,
              peak: float, bandwidth: float) -> Any:
    """One step of a model over ``batch`` sequences, ``tokens`` new positions each: the weight
    matmuls (2 FLOPs a parameter a position, the bf16 weights read once) on the roofline, then each
    sequence's cache of ``context`` tokens read once."""
    matmuls = Cost(flops=2 * params * batch * tokens, bytes_read=WEIGHT_BYTES * params, bytes_written=0.0)
    cache = t_comms(batch * context * kv_bytes_per_token, bandwidth)
    return analyze(matmuls, peak=peak, bandwidth=bandwidth).t_lower + cache


def verify_time(k: Any, batch: Any, context: Any, peak: float, bandwidth: float) -> Any:
    """The target's step that checks ``k`` drafted tokens: ``k + 1`` positions a sequence."""
    return step_time(TARGET_PARAMS, TARGET_KV, batch, k + 1, context, peak, bandwidth)


def draft_time(batch: Any, context: Any, peak: float, bandwidth: float) -> Any:
    """One decode step of the draft model (one position a sequence)."""
    return step_time(DRAFT_PARAMS, DRAFT_KV, batch, 1, context, peak, bandwidth)


def speculation_round(k: Any, alpha: Any, batch: Any, context: Any, peak: float, bandwidth: float) -> Any:
    """One round, ``k`` draft steps and one verification, as the library's ``Speculation`` (its
    times arrays where ``batch`` is one)."""
    return speculative.Speculation(
        TARGET, DRAFT, int(k), float(alpha), batch,
        t_draft=draft_time(batch, context, peak, bandwidth),
        t_verify=verify_time(k, batch, context, peak, bandwidth),
        t_target=verify_time(0, batch, context, peak, bandwidth),
    )


def speedup(k: Any, alpha: Any, batch: Any, context: Any, peak: float, bandwidth: float) -> Any:
    """Tokens a second with speculation over tokens a second without."""
    return speculation_round(k, alpha, batch, context, peak, bandwidth).speedup


def best_draft_length(alpha: Any, batch: Any, context: Any, peak: float, bandwidth: float, *,
                      by: Callable[..., Any] = speedup) -> int:
    """The draft length from 0 to ``MAX_K`` with the largest speedup (``by``: its function of
    ``(k, alpha, batch, context, peak, bandwidth)``), the shorter at a tie."""
    return max(range(MAX_K + 1), key=lambda k: float(by(k, alpha, batch, context, peak, bandwidth)))


def largest_batch(context: Any, hbm_bytes: float) -> int:
    """Sequences of ``context`` tokens whose target caches fit beside its bf16 weights."""
    return MemoryCheck(hbm_bytes, WEIGHT_BYTES * TARGET_PARAMS, 0.0, 0.0, context * TARGET_KV).max_batch


def stops_paying(k: Any, alpha: Any, context: Any, peak: float, bandwidth: float, hbm_bytes: float, *,
                 by: Callable[..., Any] = speedup) -> float:
    """The smallest batch, from 1 to :func:`largest_batch`, at which the speedup (``by``) is at
    most 1; infinity if speculation pays at every batch that fits."""
    batches = np.arange(1, largest_batch(context, hbm_bytes) + 1)
    stopped = np.flatnonzero(np.asarray(by(k, alpha, batches, context, peak, bandwidth)) <= 1.0)
    return float(batches[stopped[0]]) if stopped.size else math.inf
