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
    return plain(exact_crossover(D, F, sx, sw, so, hw.peak, hw.bandwidth))


def exact_crossover(D: Any, F: Any, sx: float, sw: float, so: float, peak: Any, bandwidth: Any) -> Any:
    """The exact crossover for element sizes ``sx``, ``sw``, ``so`` in bytes: the formula alone.

    No checks: :func:`matmul_critical_batch` checks its arguments and calls this. Every
    argument may be a numpy array (they broadcast), so a whole grid of sizes and figures is
    one call, as the explorer's tests use it.

    >>> exact_crossover(4096.0, 4096.0, 2.0, 1.0, 2.0, 1.97e14, 8.2e11).round(1)
    np.float64(136.1)
    """
    numerator = peak * sw * D * F
    denominator = 2 * D * F * bandwidth - peak * (sx * D + so * F)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), np.inf)


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
    return float(rule_of_thumb(dtype_bytes(w, "w"), hw.peak, hw.bandwidth))


def rule_of_thumb(sw: float, peak: Any, bandwidth: Any) -> Any:
    """The ``B << D, F`` rule for weights of ``sw`` bytes: the formula alone, arrays broadcast.

    >>> rule_of_thumb(2.0, 1.97e14, 8.2e11)
    240.2439024390244
    """
    return peak * sw / (2 * bandwidth)
