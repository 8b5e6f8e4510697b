"""Exercise 3's model answers, one function per graded part: what its key calls right.

Each is computed by ``rooflinekit``'s general functions for exercise 2's matmul with exact bytes, at
the figures the statement gives (:mod:`.given`), never typed in.

>>> [round(crossover(D), 1) for D in SIZES]
[136.1, 226.3]
>>> attainable(1024, 1024) == CHIP.peak("bf16")
True
"""

from __future__ import annotations

from typing import Any

from rooflinekit.analysis import attainable_flops
from rooflinekit.costs import matmul_cost
from rooflinekit.critical import matmul_critical_batch

from .given import CHIP, MIXED, SIZES

__all__ = ["SIZES", "attainable", "crossover"]


def attainable(B: Any, D: Any, F: Any | None = None, *, compute: str = "bf16") -> Any:
    """Attainable FLOP/s of exercise 2's matmul with exact bytes (``F`` defaults to ``D``)."""
    F = D if F is None else F
    return attainable_flops(matmul_cost(B, D, F, **MIXED).intensity, CHIP.peak(compute), CHIP.hbm_bandwidth)


def crossover(D: Any, F: Any | None = None, *, compute: str = "bf16") -> Any:
    """Exact batch at which the curve reaches the peak (``F`` defaults to ``D``)."""
    F = D if F is None else F
    return matmul_critical_batch(D, F, CHIP, x=MIXED["x"], w=MIXED["w"], out=MIXED["out"], compute=compute)
