"""What a measured run achieved: its FLOP/s and bytes per second, and their shares of a chip's.

A kernel whose cost (FLOPs and bytes, from the cost models) took ``seconds`` achieved
``flops / seconds`` FLOP/s and ``bytes / seconds`` B/s. Over the chip's peak the first is its
*model FLOPs utilization* (MFU); over the chip's bandwidth the second is its *memory bandwidth
utilization* (MBU). The limit the kernel is closest to is the one of which it uses the larger
share. Their ratio, MFU / MBU, is the kernel's intensity over the chip's critical intensity,
whatever the time: the limit a kernel is closest to is its roofline bound, and the time says how
close it comes.

>>> from rooflinekit.costs import matmul_cost
>>> u = utilization(matmul_cost(8, 8192, 8192), 60e-6, "h100-sxm")
>>> round(u.mfu, 3), round(u.mbu, 3), u.closest
(0.018, 0.669, 'memory')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rooflinekit._arrays import plain
from rooflinekit._validate import check_figure
from rooflinekit.analysis import hardware
from rooflinekit.catalog import Chip
from rooflinekit.costs import Cost
from rooflinekit.dtypes import DType
from rooflinekit.errors import RooflineInputError

__all__ = ["Utilization", "utilization"]


@dataclass(frozen=True)
class Utilization:
    """A run's achieved rates and the chip's ``peak`` (FLOP/s) and ``bandwidth`` (B/s)."""

    achieved_flops: Any
    achieved_bandwidth: Any
    peak: float
    bandwidth: float

    @property
    def mfu(self) -> Any:
        """Model FLOPs utilization: the share of the peak the run achieved."""
        return self.achieved_flops / self.peak

    @property
    def mbu(self) -> Any:
        """Memory bandwidth utilization: the share of the bandwidth the run achieved."""
        return self.achieved_bandwidth / self.bandwidth

    @property
    def closest(self) -> Any:
        """``"compute"`` when the run uses a larger share of the peak than of the bandwidth,
        ``"memory"`` otherwise (an array of words for arrays of runs).

        >>> Utilization(5e14, 1e12, peak=1e15, bandwidth=4e12).closest
        'compute'
        """
        return plain(np.where(np.asarray(self.mfu) > np.asarray(self.mbu), "compute", "memory"))


def utilization(
    cost: Cost,
    seconds: Any,
    on: str | Chip | None = None,
    *,
    compute: str | DType = "bf16",
    peak: float | None = None,
    bandwidth: float | None = None,
) -> Utilization:
    """What ``cost`` achieved in ``seconds`` on a chip (``on``), whose ``peak``/``bandwidth`` may
    override its figures (with no chip, both are needed).

    >>> from rooflinekit.costs import Cost
    >>> u = utilization(Cost(flops=1e12, bytes_read=1e9, bytes_written=0.0), 2e-3, peak=1e15, bandwidth=2e12)
    >>> u.achieved_flops, u.mfu, u.mbu
    (500000000000000.0, 0.5, 0.25)
    """
    if not isinstance(cost, Cost):
        raise RooflineInputError("cost", "a Cost (from matmul_cost, dot_cost, ...)", cost)
    time = check_figure("seconds", seconds, allow_array=True)
    hw = hardware(on, compute=compute, peak=peak, bandwidth=bandwidth)
    return Utilization(
        achieved_flops=plain(cost.flops / time),
        achieved_bandwidth=plain(cost.bytes / time),
        peak=hw.peak,
        bandwidth=hw.bandwidth,
    )
