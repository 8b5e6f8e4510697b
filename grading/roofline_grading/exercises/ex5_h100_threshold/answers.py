"""Exercise 5's model answers, one function per graded part: what its key calls right.

Each is computed by ``rooflinekit``'s general functions, never typed in; each but ``dense_peak`` (the
datasheet's convention that exercise 8 reads too, :mod:`roofline_grading.authoring`) defaults to the
exercise's own figures (:mod:`.given`).

>>> round(critical_batch(), 1), round(global_batch())
(295.4, 2363)
"""

from __future__ import annotations

from roofline_grading.authoring import TERABYTE, dense_peak
from rooflinekit.critical import matmul_critical_batch_approx

from .given import CHIP, DATASHEET_BF16, REPLICAS

__all__ = ["critical_batch", "dense_peak", "global_batch", "hbm_bandwidth"]


def hbm_bandwidth(terabytes_per_second: float) -> float:
    """A datasheet's TB/s in B/s: powers of ten."""
    return terabytes_per_second * TERABYTE


def critical_batch(
    datasheet_flops: float = DATASHEET_BF16, hbm_bandwidth: float = CHIP.hbm_bandwidth
) -> float:
    """Dense bf16 peak over HBM bandwidth (2 FLOPs per multiply-add, 2 bytes per weight): about 295."""
    return matmul_critical_batch_approx(peak=dense_peak(datasheet_flops), bandwidth=hbm_bandwidth)


def global_batch(
    replicas: int = REPLICAS,
    datasheet_flops: float = DATASHEET_BF16,
    hbm_bandwidth: float = CHIP.hbm_bandwidth,
) -> float:
    """Tokens per step over ``replicas`` data-parallel replicas: each needs its own critical batch."""
    return replicas * critical_batch(datasheet_flops, hbm_bandwidth)
