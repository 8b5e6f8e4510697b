"""Exercise 8's model answers, one function per graded part: what its key calls right.

Each is computed by ``rooflinekit``'s general functions (a run's utilization), never typed in;
those that take the datasheet's figures default to the exercise's own (:mod:`.given`).

>>> flops, moved, microseconds, datasheet_flops, terabytes = figures("decode")
>>> round(mfu(flops, microseconds, datasheet_flops), 3), round(mbu(moved, microseconds, terabytes), 3)
(0.018, 0.669)
>>> [closest_limit(*figures(kernel)) for kernel in ("prefill", "decode")]
['compute', 'memory']
"""

from __future__ import annotations

from typing import Any

from roofline_grading.authoring import TERABYTE, dense_peak
from rooflinekit.costs import Cost, matmul_cost
from rooflinekit.utilization import Utilization, utilization

from .given import DATASHEET_BF16, DATASHEET_TB, KERNELS

__all__ = [
    "MICROSECOND",
    "achieved_bandwidth",
    "achieved_flops",
    "closest_limit",
    "figures",
    "mbu",
    "mfu",
]

MICROSECOND = 1e-6


def figures(kernel: str) -> tuple[float, float, float, float, float]:
    """(FLOPs, bytes, microseconds, datasheet FLOP/s, datasheet TB/s) of one of the kernels
    (``"prefill"`` or ``"decode"``)."""
    cost = matmul_cost(*KERNELS[kernel][0])
    microseconds = KERNELS[kernel][1]
    return (float(cost.flops), float(cost.bytes), microseconds, DATASHEET_BF16, DATASHEET_TB)


def _used(
    flops: Any,
    bytes_moved: Any,
    microseconds: Any,
    datasheet_flops: float = DATASHEET_BF16,
    terabytes_per_second: float = DATASHEET_TB,
) -> Utilization:
    """The run at the dense peak (half the datasheet's sparse figure) and the bandwidth in B/s."""
    return utilization(
        Cost(flops=flops, bytes_read=bytes_moved, bytes_written=0.0),
        microseconds * MICROSECOND,
        peak=dense_peak(datasheet_flops),
        bandwidth=terabytes_per_second * TERABYTE,
    )


def achieved_flops(flops: Any, microseconds: Any) -> Any:
    """FLOP/s achieved: the FLOPs over the time in seconds."""
    return _used(flops, 1.0, microseconds).achieved_flops


def achieved_bandwidth(bytes_moved: Any, microseconds: Any) -> Any:
    """B/s achieved: the bytes over the time in seconds."""
    return _used(1.0, bytes_moved, microseconds).achieved_bandwidth


def mfu(flops: Any, microseconds: Any, datasheet_flops: float = DATASHEET_BF16) -> Any:
    """The share of the dense peak achieved (the datasheet's figure assumes 2:4 sparsity)."""
    return _used(flops, 1.0, microseconds, datasheet_flops).mfu


def mbu(bytes_moved: Any, microseconds: Any, terabytes_per_second: float = DATASHEET_TB) -> Any:
    """The share of the memory bandwidth achieved."""
    return _used(1.0, bytes_moved, microseconds, terabytes_per_second=terabytes_per_second).mbu


def closest_limit(
    flops: Any,
    bytes_moved: Any,
    microseconds: Any,
    datasheet_flops: float = DATASHEET_BF16,
    terabytes_per_second: float = DATASHEET_TB,
) -> str:
    """``"compute"`` or ``"memory"``: the limit of which the run uses the larger share."""
    return str(_used(flops, bytes_moved, microseconds, datasheet_flops, terabytes_per_second).closest)
