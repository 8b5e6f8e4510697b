"""The graded exercises' model answers, as functions: what the answer key calls right.

Every answer is computed by ``rooflinekit``'s general functions at the figures the exercise's
statement gives (``rooflinekit.exercises``), never typed in. Answers that the exercises ask as
functions of the given figures take those figures as arguments, with the exercise's own as
defaults, so the grader can ask the same question at other figures. They live in the grading
package, which only instructors install: the library every student installs holds none
(the public edition of the course is written without this package).

>>> from rooflinekit.exercises import EX3_SIZES
>>> round(ex1_critical_batch(), 1)
243.2
>>> round(ex2_critical_batch(), 1)
120.1
>>> [round(ex3_crossover(d), 1) for d in EX3_SIZES]
[136.1, 226.3]
"""

from __future__ import annotations

from typing import Any

from rooflinekit.analysis import Roofline, analyze, attainable_flops
from rooflinekit.costs import Cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch, matmul_critical_batch_approx
from rooflinekit.exercises import (
    EX1_CHIP,
    EX2_CHIP,
    EXERCISE_1_HBM_BANDWIDTH,
    INT8,
    MIXED,
)

__all__ = [
    "ex1_cost",
    "ex1_critical_batch",
    "ex1_roofline",
    "ex2_cost",
    "ex2_critical_batch",
    "ex3_attainable",
    "ex3_crossover",
]


# --- Exercise 1: int8[B,D] . int8[D,F] -> int8[B,F] on a TPU v5e -------------------------


def ex1_cost(B: Any, D: Any, F: Any) -> Cost:
    """Bytes ``BD + DF`` read, ``BF`` written, ``2BDF`` operations: all int8."""
    return matmul_cost(B, D, F, **INT8)


def ex1_roofline(B: Any, D: Any, F: Any) -> Roofline:
    """``t_math``, ``t_comms``, ``t_lower``, ``t_upper`` and ``bound`` for one shape."""
    return analyze(ex1_cost(B, D, F), EX1_CHIP, compute="int8")


def ex1_critical_batch(
    int8_peak: float = EX1_CHIP.peak("int8"), hbm_bandwidth: float = EXERCISE_1_HBM_BANDWIDTH
) -> float:
    """``int8_peak / hbm_bandwidth / 2``: above it the int8 matmul is compute-bound (B << D, F)."""
    return matmul_critical_batch_approx(peak=int8_peak, bandwidth=hbm_bandwidth, w="int8")


# --- Exercise 2: bf16[B,D] . int8[D,F] -> bf16[B,F], bf16 compute ------------------------


def ex2_cost(B: Any, D: Any, F: Any) -> Cost:
    """Bytes ``2BD + DF`` read, ``2BF`` written, ``2BDF`` FLOPs done in bf16."""
    return matmul_cost(B, D, F, **MIXED)


def ex2_critical_batch(
    bf16_peak: float = EX2_CHIP.peak("bf16"), hbm_bandwidth: float = EX2_CHIP.hbm_bandwidth
) -> float:
    """``bf16_peak / hbm_bandwidth / 2``: half the bf16 figure, since a weight takes one byte."""
    return matmul_critical_batch_approx(peak=bf16_peak, bandwidth=hbm_bandwidth, w="int8")


# --- Exercise 3: the plot of exercise 2's setup with exact bytes --------------------------


def ex3_attainable(B: Any, D: Any, F: Any | None = None) -> Any:
    """Attainable FLOP/s of exercise 2's matmul with exact bytes (``F`` defaults to ``D``)."""
    F = D if F is None else F
    return attainable_flops(ex2_cost(B, D, F).intensity, EX2_CHIP.peak("bf16"), EX2_CHIP.hbm_bandwidth)


def ex3_crossover(D: Any, F: Any | None = None, *, compute: str = "bf16") -> Any:
    """Exact batch at which the curve reaches the peak (``F`` defaults to ``D``)."""
    F = D if F is None else F
    return matmul_critical_batch(D, F, EX2_CHIP, x="bf16", w="int8", out="bf16", compute=compute)
