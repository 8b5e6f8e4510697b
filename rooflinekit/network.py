"""The network roofline: a matmul sharded over chips along its contracting dimension D.

``x[B,D] . w[D,F]`` split along ``D`` over ``n`` chips: each chip multiplies its
``D/n`` slice (``2BDF/n`` FLOPs), then the chips sum their ``[B,F]`` partial results. With
a ring all-reduce (the course's one model of collectives, :mod:`rooflinekit.collectives`)
each chip sends ``2 (n-1)/n`` times the partial result's bytes over its link, which for two
chips is the whole ``2BF``-byte (bf16) partial sum, as the course's source puts it. The
threshold depends on ``D``, not on ``B``.

>>> round(network_critical_d("tpu-v5e"))
8756
>>> analyze_sharded_matmul(512, 16384, 8192, "tpu-v5e").bound
'compute'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rooflinekit._validate import check_count, check_size
from rooflinekit.analysis import hardware
from rooflinekit.bounds import Bounds
from rooflinekit.catalog import Chip
from rooflinekit.collectives import ring_all_reduce_bytes
from rooflinekit.dtypes import DType, dtype_bytes


@dataclass(frozen=True)
class ShardedMatmul(Bounds):
    """One chip's share of a sharded matmul: two-term :class:`~rooflinekit.bounds.Bounds`.

    ``t_comms`` (``times["network"]``) is the bytes the chip sends over its link at
    ``link_bandwidth``, ``t_math`` (``times["compute"]``) its FLOPs at ``peak``; ``bound``
    is ``"compute"`` or ``"network"``.
    """

    flops_per_chip: Any
    bytes_sent_per_chip: Any
    peak: float
    link_bandwidth: float
    times: Mapping[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        times = {
            "network": self.bytes_sent_per_chip / self.link_bandwidth,
            "compute": self.flops_per_chip / self.peak,
        }
        object.__setattr__(self, "times", times)

    @property
    def t_comms(self) -> Any:
        """Seconds one chip's share of the all-reduce takes over its link."""
        return self.times["network"]


def analyze_sharded_matmul(
    B: Any,
    D: Any,
    F: Any,
    on: str | Chip | None = None,
    *,
    n_chips: int = 2,
    out: str | DType = "bf16",
    compute: str | DType = "bf16",
    peak: float | None = None,
    link_bandwidth: float | None = None,
) -> ShardedMatmul:
    """Times for ``x[B,D] . w[D,F]`` split along ``D`` over ``n_chips`` chips.

    >>> r = analyze_sharded_matmul(1024, 8192, 8192, "tpu-v5e")
    >>> r.bytes_sent_per_chip == 2 * 1024 * 8192
    True
    """
    B, D, F = check_size("B", B), check_size("D", D), check_size("F", F)
    n = check_count("n_chips", n_chips, minimum=2)
    hw = hardware(on, compute=compute, peak=peak, bandwidth=link_bandwidth, link=True)
    so = dtype_bytes(out, "out")
    return ShardedMatmul(
        flops_per_chip=2 * B * D * F / n,
        bytes_sent_per_chip=ring_all_reduce_bytes(so * B * F, n),
        peak=hw.peak,
        link_bandwidth=hw.bandwidth,
    )


def network_critical_d(
    on: str | Chip | None = None,
    *,
    n_chips: int = 2,
    out: str | DType = "bf16",
    compute: str | DType = "bf16",
    peak: float | None = None,
    link_bandwidth: float | None = None,
) -> float:
    """The ``D`` above which the sharded matmul is compute-bound: ``(n-1) * so * peak / link``.

    For two chips in bf16 this is ``D / 2 > peak / link``.

    >>> round(network_critical_d(peak=1.97e14, link_bandwidth=4.5e10), 1)
    8755.6
    """
    n = check_count("n_chips", n_chips, minimum=2)
    hw = hardware(on, compute=compute, peak=peak, bandwidth=link_bandwidth, link=True)
    return (n - 1) * dtype_bytes(out, "out") * hw.peak / hw.bandwidth
