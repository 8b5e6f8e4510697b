"""Critical batch sizes: the token batch above which a matmul becomes compute-bound.

For ``x[B,D] . w[D,F] -> out[B,F]`` the math takes ``2BDF / peak`` and the memory traffic
``(sx*B*D + sw*D*F + so*B*F) / bandwidth`` (``s`` = bytes per element). Setting them equal
gives the exact crossover::

    B* = peak * sw * D * F / (2 * D * F * bandwidth - peak * (sx * D + so * F))

When ``B << D, F`` the weights dominate the traffic and the rule of thumb is
``B* = peak * sw / (2 * bandwidth)``: the chip's critical intensity for bf16 weights.

>>> round(matmul_critical_batch_approx("tpu-v5e"))
240
>>> round(matmul_critical_batch(4096, 4096, "tpu-v5e", w="int8"), 1)
136.1
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rooflinekit._arrays import plain
from rooflinekit._validate import check_size
from rooflinekit.analysis import hardware
from rooflinekit.catalog import Chip
from rooflinekit.dtypes import DType, dtype_bytes


def matmul_critical_batch(
    D: Any,
    F: Any,
    on: str | Chip | None = None,
    *,
    x: str | DType = "bf16",
    w: str | DType = "bf16",
    out: str | DType = "bf16",
    compute: str | DType = "bf16",
    peak: float | None = None,
    bandwidth: float | None = None,
) -> Any:
    """Exact batch at which ``T_math == T_comms`` for this ``D`` and ``F``.

    Returns ``inf`` where no batch is large enough: the intensity's limit as ``B`` grows,
    ``2DF / (sx*D + so*F)``, stays at or below the chip's critical intensity.

    >>> round(matmul_critical_batch(1024, 1024, "tpu-v5e", w="int8"), 1)
    226.3
    >>> matmul_critical_batch(128, 128, "tpu-v5e")
    inf
    """
    D, F = check_size("D", D), check_size("F", F)
    hw = hardware(on, compute=compute, peak=peak, bandwidth=bandwidth)
    sx, sw, so = dtype_bytes(x, "x"), dtype_bytes(w, "w"), dtype_bytes(out, "out")
    numerator = hw.peak * sw * D * F
    denominator = 2 * D * F * hw.bandwidth - hw.peak * (sx * D + so * F)
    with np.errstate(divide="ignore", invalid="ignore"):
        batch = np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), np.inf)
    return plain(batch)


def matmul_critical_batch_approx(
    on: str | Chip | None = None,
    *,
    w: str | DType = "bf16",
    compute: str | DType = "bf16",
    peak: float | None = None,
    bandwidth: float | None = None,
) -> float:
    """The ``B << D, F`` rule: ``peak * bytes(w) / (2 * bandwidth)``.

    >>> round(matmul_critical_batch_approx("tpu-v5e", w="int8"), 1)
    120.1
    >>> round(matmul_critical_batch_approx("tpu-v5e", w="int8", compute="int8", bandwidth=8.1e11), 1)
    243.2
    """
    hw = hardware(on, compute=compute, peak=peak, bandwidth=bandwidth)
    return hw.peak * dtype_bytes(w, "w") / (2 * hw.bandwidth)
