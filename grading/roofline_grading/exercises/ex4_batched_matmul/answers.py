"""Exercise 4's model answers, one function per graded part: what its key calls right.

Each is computed by ``rooflinekit``'s general functions (a batched matmul's cost), never typed in.

>>> round(float(intensity(64, 8192, 8192)), 2), critical_batch(8192, 8192)
(2.0, inf)
"""

from __future__ import annotations

import math
from typing import Any

from rooflinekit.costs import Cost, batched_matmul_cost

from .given import CHIP, INT8

__all__ = ["bytes_read", "bytes_written", "cost", "critical_batch", "intensity", "ops"]


def cost(B: Any, D: Any, F: Any) -> Cost:
    """Bytes ``BD + BDF`` read (the weights grow with the batch), ``BF`` written, ``2BDF`` operations."""
    return batched_matmul_cost(B, D, F, **INT8)


def bytes_read(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).bytes_read


def bytes_written(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).bytes_written


def ops(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).flops


def intensity(B: Any, D: Any, F: Any) -> Any:
    return cost(B, D, F).intensity


def critical_batch(
    D: Any, F: Any, int8_peak: float = CHIP.peak("int8"), hbm_bandwidth: float = CHIP.hbm_bandwidth
) -> float:
    """Smallest batch at which the batched matmul is compute-bound, ``inf`` if none.

    Its intensity ``2DF / (D + DF + F)`` does not depend on ``B``: if one example is below the
    chip's critical intensity, every batch is.
    """
    if cost(1, D, F).intensity > int8_peak / hbm_bandwidth:
        return 1.0
    return math.inf
