"""Cost models: how many FLOPs an operation does and how many bytes it moves.

Sizes may be Python integers or numpy arrays of them, so one call covers a whole range
of batch sizes. Every count is a float64 (a Python float for scalar sizes).

>>> c = matmul_cost(4096, 8192, 8192)           # bf16[B,D] . bf16[D,F] -> bf16[B,F]
>>> c.flops == 2 * 4096 * 8192 * 8192
True
>>> round(dot_cost(10**6).intensity, 4)          # tends to 1/2
0.5
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rooflinekit._validate import check_figure, check_size
from rooflinekit.dtypes import DType, dtype_bytes

Size = Any  # an int, or a numpy array of positive integers


@dataclass(frozen=True)
class Cost:
    """FLOPs done and bytes read and written by one operation (scalars or arrays)."""

    flops: Any
    bytes_read: Any
    bytes_written: Any
    name: str = "operation"

    @property
    def bytes(self) -> Any:
        """All bytes moved: read plus written."""
        return self.bytes_read + self.bytes_written

    @property
    def intensity(self) -> Any:
        """Arithmetic intensity, FLOPs per byte moved.

        >>> Cost(flops=100.0, bytes_read=40.0, bytes_written=10.0).intensity
        2.0
        """
        return self.flops / self.bytes


def dot_cost(n: Size, dtype: str | DType = "bf16") -> Cost:
    """Dot product of two length-``n`` vectors: ``n`` multiplies, ``n - 1`` adds.

    In bf16 the intensity is ``(2n - 1) / (4n + 2)``.

    >>> c = dot_cost(4)
    >>> (c.flops, c.bytes_read, c.bytes_written)
    (7.0, 16.0, 2.0)
    """
    n = check_size("N", n)
    size = dtype_bytes(dtype, "dtype")
    return Cost(flops=2 * n - 1, bytes_read=2 * n * size, bytes_written=size + 0 * n, name="dot")


def matmul_cost(
    B: Size,
    D: Size,
    F: Size,
    *,
    x: str | DType = "bf16",
    w: str | DType = "bf16",
    out: str | DType = "bf16",
) -> Cost:
    """``x[B,D] . w[D,F] -> out[B,F]``: reads both operands once, writes the output once.

    >>> c = matmul_cost(2, 3, 4, x="int8", w="int8", out="int8")
    >>> (c.flops, c.bytes_read, c.bytes_written)
    (48.0, 18.0, 8.0)
    """
    return _matmul(B, D, F, x, w, out, weights_per_example=False)


def matmul_flops_exact(B: Size, D: Size, F: Size) -> Any:
    """The FLOPs of ``x[B,D] . w[D,F]`` counted exactly: ``B*D*F`` multiplies and ``B*F*(D - 1)``
    additions, ``B*F*(2D - 1)`` in all.

    :func:`matmul_cost` counts ``2*B*D*F``, as the roofline literature does: it adds ``B*F``
    FLOPs, a share of ``1 / (2D)`` of its count, which no roofline question notices.

    >>> matmul_flops_exact(2, 3, 4), matmul_cost(2, 3, 4).flops
    (40.0, 48.0)
    """
    B, D, F = check_size("B", B), check_size("D", D), check_size("F", F)
    return B * F * (2 * D - 1)


def batched_matmul_cost(
    B: Size,
    D: Size,
    F: Size,
    *,
    x: str | DType = "bf16",
    w: str | DType = "bf16",
    out: str | DType = "bf16",
) -> Cost:
    """``x[B,D] . w[B,D,F] -> out[B,F]``: every example has its own weight matrix.

    The weights grow with ``B`` too, so the intensity stays near ``2 / bytes(w)`` for any
    batch: such an operation is memory-bound on every accelerator.

    >>> c = batched_matmul_cost(2, 3, 4, x="int8", w="int8", out="int8")
    >>> (c.flops, c.bytes_read, c.bytes_written)
    (48.0, 30.0, 8.0)
    """
    return _matmul(B, D, F, x, w, out, weights_per_example=True)


def _matmul(
    B: Size, D: Size, F: Size, x: str | DType, w: str | DType, out: str | DType, *, weights_per_example: bool
) -> Cost:
    B, D, F = check_size("B", B), check_size("D", D), check_size("F", F)
    sx, sw, so = dtype_bytes(x, "x"), dtype_bytes(w, "w"), dtype_bytes(out, "out")
    weight_matrices = B if weights_per_example else 1.0
    return Cost(
        flops=2 * B * D * F,
        bytes_read=sx * B * D + sw * weight_matrices * D * F,
        bytes_written=so * B * F,
        name="batched matmul" if weights_per_example else "matmul",
    )


def elementwise_cost(
    n: Size,
    *,
    dtype: str | DType = "bf16",
    flops_per_element: float = 1.0,
    inputs: int = 1,
    outputs: int = 1,
) -> Cost:
    """An elementwise op over ``n`` elements, reading ``inputs`` arrays, writing ``outputs``.

    >>> elementwise_cost(1000, inputs=2).intensity   # c = a + b in bf16
    0.16666666666666666
    """
    n = check_size("n", n)
    flops_per_element = check_figure("flops_per_element", flops_per_element)
    inputs, outputs = int(check_size("inputs", inputs)), int(check_size("outputs", outputs))
    size = dtype_bytes(dtype, "dtype")
    return Cost(
        flops=flops_per_element * n,
        bytes_read=inputs * n * size,
        bytes_written=outputs * n * size,
        name="elementwise",
    )


LAYER_NORM_FLOPS_PER_ELEMENT = 8.0
"""Mean (1 add), variance (subtract, square, add), then normalise (subtract, scale by the
reciprocal standard deviation, multiply by gamma, add beta): about 8 FLOPs per element."""


def layer_norm_cost(tokens: Size, width: Size, dtype: str | DType = "bf16") -> Cost:
    """Layer norm of a ``[tokens, width]`` activation with learned ``gamma`` and ``beta``.

    >>> round(layer_norm_cost(4096, 8192).intensity, 2)
    2.0
    """
    tokens, width = check_size("tokens", tokens), check_size("width", width)
    size = dtype_bytes(dtype, "dtype")
    return Cost(
        flops=LAYER_NORM_FLOPS_PER_ELEMENT * tokens * width,
        bytes_read=size * (tokens * width + 2 * width),
        bytes_written=size * tokens * width,
        name="layer norm",
    )


RMS_NORM_FLOPS_PER_ELEMENT = 4.0
"""Square and sum (2), scale by the reciprocal root mean square, multiply by gamma: about 4
FLOPs per element; no mean is subtracted and there is no beta."""


def rms_norm_cost(tokens: Size, width: Size, dtype: str | DType = "bf16") -> Cost:
    """RMSNorm of a ``[tokens, width]`` activation with a learned scale ``gamma``.

    >>> c = rms_norm_cost(1, 4096)
    >>> (c.flops, c.bytes_read, c.bytes_written)
    (16384.0, 16384.0, 8192.0)
    """
    tokens, width = check_size("tokens", tokens), check_size("width", width)
    size = dtype_bytes(dtype, "dtype")
    return Cost(
        flops=RMS_NORM_FLOPS_PER_ELEMENT * tokens * width,
        bytes_read=size * (tokens * width + width),
        bytes_written=size * tokens * width,
        name="RMS norm",
    )


def tiled_matmul_intensity(bm: Size, bk: Size, bn: Size, dtype: str | DType = "bf16") -> Any:
    """Intensity of one tile step: ``x[bm,bk] . w[bk,bn]`` accumulated on chip.

    Each step loads ``bm*bk + bk*bn`` elements and does ``2*bm*bk*bn`` FLOPs, so in bf16 the
    intensity is ``bm*bn / (bm + bn)``; ``bk`` cancels.

    >>> tiled_matmul_intensity(128, 128, 128)
    64.0
    """
    bm, bk, bn = check_size("bm", bm), check_size("bk", bk), check_size("bn", bn)
    size = dtype_bytes(dtype, "dtype")
    return 2 * bm * bk * bn / (size * (bm * bk + bk * bn))


def tiled_matmul_cost(
    m: Size, k: Size, n: Size, bm: Size, bk: Size, bn: Size, dtype: str | DType = "bf16"
) -> Cost:
    """An ``(m,k).(k,n)`` matmul done tile by tile, counting every tile load from HBM.

    Each of the ``ceil(m/bm) * ceil(n/bn)`` output tiles loads its ``bm`` rows of ``x`` and its
    ``bn`` columns of ``w``, ``bk`` at a time, then writes itself once: ``x`` moves ``ceil(n/bn)``
    times, ``w`` ``ceil(m/bm)`` times (so ``bk`` changes no byte). Edge tiles move only their real
    elements (masked loads, not padding), the count of
    :func:`rooflinekit.hierarchy.tiled_matmul_bytes` for HBM.

    >>> c = tiled_matmul_cost(4096, 4096, 4096, 512, 512, 512)
    >>> round(c.intensity, 1)
    240.9
    >>> tiled_matmul_cost(4, 8, 4, 2, 8, 4, "int8").bytes   # x once, w twice, out once
    112.0
    """
    m, k, n = check_size("m", m), check_size("k", k), check_size("n", n)
    bm, bn = check_size("bm", bm), check_size("bn", bn)
    check_size("bk", bk)
    size = dtype_bytes(dtype, "dtype")
    tiles_m, tiles_n = -(-m // bm), -(-n // bn)  # ceil, keeping floats
    return Cost(
        flops=2 * m * k * n,
        bytes_read=size * (m * k * tiles_n + k * n * tiles_m),
        bytes_written=size * m * n,
        name="tiled matmul",
    )
