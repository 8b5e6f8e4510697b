"""Exercise 1's model answers, one function per graded part: what its key calls right.

Each is computed by ``rooflinekit``'s general functions at the figures the statement gives
(:mod:`.given`), never typed in.

>>> round(critical_batch(), 1), limited_by(*SHAPE)
(243.2, 'memory')
"""

from __future__ import annotations

from typing import Any

from rooflinekit.analysis import Roofline, analyze
from rooflinekit.costs import Cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch_approx

from .given import CHIP, HBM_BANDWIDTH, INT8, SHAPE

__all__ = [
    "SHAPE",
    "bytes_read",
    "bytes_written",
    "cost",
    "critical_batch",
    "intensity",
    "limited_by",
    "ops",
    "roofline",
    "t_comms",
    "t_lower",
    "t_math",
    "t_upper",
]


def cost(B: Any, D: Any, F: Any) -> Cost:
    """Bytes ``BD + DF`` read, ``BF`` written, ``2BDF`` operations: all int8."""
    return matmul_cost(B, D, F, **INT8)


def roofline(B: Any, D: Any, F: Any) -> Roofline:
    """``t_math``, ``t_comms``, ``t_lower``, ``t_upper`` and ``bound`` for one shape."""
    return analyze(cost(B, D, F), CHIP, compute="int8")


def bytes_read(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).bytes_read


def bytes_written(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).bytes_written


def ops(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).flops


def intensity(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).intensity


def critical_batch(int8_peak: float = CHIP.peak("int8"), hbm_bandwidth: float = HBM_BANDWIDTH) -> float:
    """``int8_peak / hbm_bandwidth / 2``: above it the int8 matmul is compute-bound (B << D, F)."""
    return matmul_critical_batch_approx(peak=int8_peak, bandwidth=hbm_bandwidth, w="int8")


def t_math(B: Any, D: Any, F: Any) -> Any:
    return roofline(B, D, F).t_math


def t_comms(B: Any, D: Any, F: Any) -> Any:
    return roofline(B, D, F).t_comms


def t_lower(B: Any, D: Any, F: Any) -> Any:
    return roofline(B, D, F).t_lower


def t_upper(B: Any, D: Any, F: Any) -> Any:
    return roofline(B, D, F).t_upper


def limited_by(B: Any, D: Any, F: Any) -> str:
    return str(roofline(B, D, F).bound)
