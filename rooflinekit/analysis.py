"""Time bounds and the roofline: is a cost limited by math or by memory on a chip?

``T_math = FLOPs / peak`` and ``T_comms = bytes / bandwidth``. With perfect overlap the
runtime is at least ``max(T_math, T_comms)``; with none it is at most their sum.

>>> from rooflinekit.costs import matmul_cost
>>> r = analyze(matmul_cost(4096, 8192, 8192), "tpu-v5e")
>>> r.bound
'compute'
>>> r.t_lower <= r.t_upper <= 2 * r.t_lower
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from rooflinekit._arrays import plain
from rooflinekit._validate import check_figure, check_fraction
from rooflinekit.bounds import Bounds
from rooflinekit.catalog import Chip, chip
from rooflinekit.costs import Cost
from rooflinekit.dtypes import DType
from rooflinekit.errors import RooflineInputError


class Hardware(NamedTuple):
    """The two figures a single-chip roofline needs: a peak in FLOP/s and a bandwidth in B/s."""

    peak: float
    bandwidth: float

    @property
    def critical_intensity(self) -> float:
        """FLOPs per byte at which math and memory take equally long."""
        return self.peak / self.bandwidth


def hardware(
    on: str | Chip | None = None,
    *,
    compute: str | DType = "bf16",
    peak: float | None = None,
    bandwidth: float | None = None,
    link: bool = False,
    achieved: float = 1.0,
) -> Hardware:
    """Resolve a chip (by id or object) and optional overrides into a peak and a bandwidth.

    The bandwidth is the chip's HBM bandwidth, or with ``link=True`` its inter-chip link
    (one way), as the network roofline needs. Without a chip both ``peak`` and
    ``bandwidth`` must be given. ``achieved`` is the share of the peak that real kernels
    reach (1, the datasheet, by default; see ``rk.catalog.achievable``): the roof drops to
    it, and so does the critical intensity.

    >>> hardware("tpu-v5e", compute="int8", bandwidth=8.1e11)
    Hardware(peak=394000000000000.0, bandwidth=810000000000.0)
    >>> hardware("tpu-v5e", link=True).bandwidth
    45000000000.0
    >>> round(hardware("h100-sxm", achieved=0.8).critical_intensity, 1)
    236.2
    """
    bandwidth_name = "link_bandwidth" if link else "bandwidth"
    if on is None and (peak is None or bandwidth is None):
        given = f"chip={on}, peak={peak}, {bandwidth_name}={bandwidth}"
        raise RooflineInputError("chip", f"a chip id, or both peak and {bandwidth_name}", given)
    found = chip(on) if on is not None else None
    if peak is not None:
        resolved_peak = check_figure("peak", peak)
    else:
        assert found is not None
        resolved_peak = found.peak(compute)
    resolved_peak *= check_fraction("achieved", achieved)
    if bandwidth is not None:
        resolved_bandwidth = check_figure(bandwidth_name, bandwidth)
    else:
        assert found is not None
        resolved_bandwidth = found.link_bandwidth if link else found.hbm_bandwidth
    return Hardware(peak=resolved_peak, bandwidth=resolved_bandwidth)


def t_math(flops: Any, peak: float) -> Any:
    """Seconds to do ``flops`` at ``peak`` FLOP/s.

    >>> t_math(2e14, 1e14)
    2.0
    """
    return flops / check_figure("peak", peak)


def t_comms(bytes_moved: Any, bandwidth: float) -> Any:
    """Seconds to move ``bytes_moved`` at ``bandwidth`` bytes per second.

    >>> t_comms(8.1e11, 8.1e11)
    1.0
    """
    return bytes_moved / check_figure("bandwidth", bandwidth)


def attainable_flops(intensity: Any, peak: float, bandwidth: float) -> Any:
    """The roofline: ``min(peak, intensity * bandwidth)`` FLOP/s.

    >>> attainable_flops(100.0, peak=1e14, bandwidth=1e12)
    100000000000000.0
    >>> attainable_flops(50.0, peak=1e14, bandwidth=1e12)
    50000000000000.0
    """
    intensity = check_figure("intensity", intensity, allow_array=True)
    return _roof(intensity, check_figure("peak", peak), check_figure("bandwidth", bandwidth))


def _roof(intensity: Any, peak: Any, bandwidth: Any) -> Any:
    return plain(np.minimum(peak, intensity * bandwidth))


@dataclass(frozen=True)
class Roofline(Bounds):
    """A cost placed on a chip: two-term :class:`~rooflinekit.bounds.Bounds`, memory and compute.

    ``t_comms`` (``times["memory"]``) is the cost's bytes over the bandwidth, ``t_math``
    (``times["compute"]``) its FLOPs over the peak. Figures are floats for scalar sizes and
    numpy arrays for array sizes; ``bound`` is ``"compute"`` or ``"memory"``.
    """

    cost: Cost
    hardware: Hardware
    times: Mapping[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        times = {
            "memory": self.cost.bytes / self.hardware.bandwidth,
            "compute": self.cost.flops / self.hardware.peak,
        }
        object.__setattr__(self, "times", times)

    @property
    def flops(self) -> Any:
        return self.cost.flops

    @property
    def bytes_read(self) -> Any:
        return self.cost.bytes_read

    @property
    def bytes_written(self) -> Any:
        return self.cost.bytes_written

    @property
    def intensity(self) -> Any:
        return self.cost.intensity

    @property
    def critical_intensity(self) -> float:
        return self.hardware.critical_intensity

    @property
    def t_comms(self) -> Any:
        """Seconds the bytes take to move at the bandwidth."""
        return self.times["memory"]

    @property
    def attainable(self) -> Any:
        """FLOP/s the roofline allows at this intensity."""
        return _roof(self.intensity, self.hardware.peak, self.hardware.bandwidth)


def analyze(
    cost: Cost,
    on: str | Chip | None = None,
    *,
    compute: str | DType = "bf16",
    peak: float | None = None,
    bandwidth: float | None = None,
    achieved: float = 1.0,
) -> Roofline:
    """Place ``cost`` on a chip (``on``), whose figures ``peak``/``bandwidth`` may override;
    ``achieved`` is the share of the peak real kernels reach (see :func:`hardware`).

    >>> from rooflinekit.costs import dot_cost, matmul_cost
    >>> analyze(dot_cost(10**6), "h100-sxm").bound
    'memory'
    >>> big = matmul_cost(4096, 8192, 8192)
    >>> round(analyze(big, "h100-sxm", achieved=0.8).t_lower / analyze(big, "h100-sxm").t_lower, 2)
    1.25
    """
    if not isinstance(cost, Cost):
        raise RooflineInputError("cost", "a Cost (from matmul_cost, dot_cost, ...)", cost)
    return Roofline(cost, hardware(on, compute=compute, peak=peak, bandwidth=bandwidth, achieved=achieved))
