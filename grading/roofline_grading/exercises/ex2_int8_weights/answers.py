"""Exercise 2's model answers, one function per graded part: what its key calls right.

Each is computed by ``rooflinekit``'s general functions at the figures the statement gives
(:mod:`.given`), never typed in.

>>> round(critical_batch(), 1), bytes_read(2, 3, 4)
(120.1, 24.0)
"""

from __future__ import annotations

from typing import Any

from rooflinekit.costs import Cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch_approx

from .given import CHIP, MIXED

__all__ = ["bytes_read", "bytes_written", "compute_peak", "cost", "critical_batch", "intensity"]


def cost(B: Any, D: Any, F: Any) -> Cost:
    """Bytes ``2BD + DF`` read, ``2BF`` written, ``2BDF`` FLOPs done in bf16."""
    return matmul_cost(B, D, F, **MIXED)


def bytes_read(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).bytes_read


def bytes_written(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).bytes_written


def intensity(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).intensity


def compute_peak(bf16_peak: float, int8_peak: float) -> float:
    """The math is done in bf16, so the bf16 peak limits it, whatever the weights' type."""
    return bf16_peak


def critical_batch(bf16_peak: float = CHIP.peak("bf16"), hbm_bandwidth: float = CHIP.hbm_bandwidth) -> float:
    """``bf16_peak / hbm_bandwidth / 2``: half the bf16 figure, since a weight takes one byte."""
    return matmul_critical_batch_approx(peak=bf16_peak, bandwidth=hbm_bandwidth, w="int8")
