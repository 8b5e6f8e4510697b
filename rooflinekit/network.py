"""The network roofline: a matmul sharded over chips along its contracting dimension D.

``x[B,D] . w[D,F]`` split along ``D`` over ``n`` chips: each chip multiplies its
``D/n`` slice (``2BDF/n`` FLOPs), then the chips sum their ``[B,F]`` partial results. With
a ring all-reduce each chip sends ``2 (n-1)/n`` times the partial result's bytes over its
link, which for two chips is the whole ``2BF``-byte (bf16) partial sum, as the course's
source puts it. The threshold depends on ``D``, not on ``B``.

>>> round(network_critical_d("tpu-v5e"))
8756
>>> analyze_sharded_matmul(512, 16384, 8192, "tpu-v5e").bound
'compute'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rooflinekit._arrays import plain
from rooflinekit._validate import check_count, check_figure, check_size
from rooflinekit.catalog import Chip, chip
from rooflinekit.dtypes import DType, dtype_bytes
from rooflinekit.errors import RooflineInputError


@dataclass(frozen=True)
class ShardedMatmul:
    """Per-chip FLOPs and bytes sent over the link, with the resulting times."""

    flops_per_chip: Any
    bytes_sent_per_chip: Any
    peak: float
    link_bandwidth: float

    @property
    def t_math(self) -> Any:
        return self.flops_per_chip / self.peak

    @property
    def t_comms(self) -> Any:
        return self.bytes_sent_per_chip / self.link_bandwidth

    @property
    def t_lower(self) -> Any:
        return plain(np.maximum(self.t_math, self.t_comms))

    @property
    def t_upper(self) -> Any:
        return self.t_math + self.t_comms

    @property
    def bound(self) -> Any:
        return plain(np.where(self.t_math > self.t_comms, "compute", "network"))


def _link_figures(
    on: str | Chip | None, compute: str | DType, peak: float | None, link_bandwidth: float | None
) -> tuple[float, float]:
    if on is None and (peak is None or link_bandwidth is None):
        raise RooflineInputError(
            "chip", "a chip id, or both peak and link_bandwidth", f"chip={on}, peak={peak}"
        )
    found = chip(on) if on is not None else None
    resolved_peak = check_figure("peak", peak) if peak is not None else found.peak(compute)  # type: ignore[union-attr]
    resolved_link = (
        check_figure("link_bandwidth", link_bandwidth) if link_bandwidth is not None else found.link_bandwidth  # type: ignore[union-attr]
    )
    return resolved_peak, resolved_link


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
    resolved_peak, resolved_link = _link_figures(on, compute, peak, link_bandwidth)
    so = dtype_bytes(out, "out")
    return ShardedMatmul(
        flops_per_chip=2 * B * D * F / n,
        bytes_sent_per_chip=2 * (n - 1) / n * so * B * F,
        peak=resolved_peak,
        link_bandwidth=resolved_link,
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
    resolved_peak, resolved_link = _link_figures(on, compute, peak, link_bandwidth)
    return (n - 1) * dtype_bytes(out, "out") * resolved_peak / resolved_link
