"""Number formats and their sizes in bytes.

>>> dtype("bf16").bytes
2.0
>>> dtype("int4").bytes
0.5
>>> dtype("bfloat16").name
'bf16'
"""

from __future__ import annotations

from typing import NamedTuple

from rooflinekit.errors import UnknownNameError


class DType(NamedTuple):
    """A number format: its short name, its size in bytes, a description and other names for it."""

    name: str
    bytes: float
    description: str
    aliases: tuple[str, ...] = ()


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("fp64", 8.0, "IEEE double precision", ("float64", "f64")),
        DType("fp32", 4.0, "IEEE single precision", ("float32", "f32")),
        DType("tf32", 4.0, "TensorFloat-32: fp32 storage, 10-bit mantissa math", ()),
        DType("bf16", 2.0, "bfloat16: fp32's exponent, 7-bit mantissa", ("bfloat16",)),
        DType("fp16", 2.0, "IEEE half precision", ("float16", "f16", "half")),
        DType("fp8", 1.0, "8-bit float (e4m3 or e5m2)", ("float8", "e4m3", "e5m2")),
        DType("int8", 1.0, "8-bit integer", ("i8",)),
        DType("fp4", 0.5, "4-bit float (e2m1)", ("float4",)),
        DType("int4", 0.5, "4-bit integer", ("i4",)),
    )
}

_BY_ALIAS: dict[str, DType] = {alias: d for d in DTYPES.values() for alias in (d.name, *d.aliases)}


def dtype(name: str | DType, argument: str = "dtype") -> DType:
    """Look up a dtype by name or alias (case-insensitive); a ``DType`` passes through.

    An unknown name raises ``UnknownNameError`` listing the known ones, naming
    ``argument`` (e.g. ``"x"`` or ``"--compute"``) as the culprit.

    >>> dtype("FP8").bytes
    1.0
    """
    if isinstance(name, DType):
        return name
    if isinstance(name, str) and name.lower() in _BY_ALIAS:
        return _BY_ALIAS[name.lower()]
    raise UnknownNameError(argument, list(DTYPES), name)


def dtype_bytes(name: str | DType, argument: str = "dtype") -> float:
    """Size in bytes of one element of ``name``.

    >>> dtype_bytes("fp32")
    4.0
    """
    return float(dtype(name, argument).bytes)
