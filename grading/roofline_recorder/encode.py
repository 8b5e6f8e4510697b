"""The exact, plain format in which answers leave the grading kernel.

A record holds only plain values: ``None``, booleans, integers, floats (written as
hexadecimal, so nothing is rounded), strings, float64 or int64 arrays (their raw bytes),
and lists and dicts of these. :func:`encode` writes them; :func:`decode` reads them back and
refuses anything else, anything deeper than ``MAX_DEPTH`` and any array larger than
``MAX_ELEMENTS``, so a crafted record cannot make the grader do unbounded work.

This module imports only the standard library and numpy: it runs inside the grading kernel.

>>> import numpy as np
>>> encode(np.arange(3))
{'t': 'array', 'dtype': 'int64', 'shape': [3], 'data': 'AAAAAAAAAAABAAAAAAAAAAIAAAAAAAAA'}
>>> decode(encode(0.1)) == 0.1, decode(encode((1, "memory")))
(True, [1, 'memory'])
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

__all__ = ["MAX_DEPTH", "MAX_ELEMENTS", "RecordError", "decode", "encode"]

MAX_DEPTH = 8
"""Nesting a record may have (lists in dicts in lists...)."""
MAX_ELEMENTS = 1 << 20
"""Numbers an array in a record may hold."""

_DTYPES = {"int64": np.dtype("<i8"), "float64": np.dtype("<f8")}


class RecordError(ValueError):
    """A record is not in the format :func:`encode` writes."""


def encode(value: Any) -> dict[str, Any]:
    """``value`` (None, bool, int, float, str, numpy scalars and arrays, lists, tuples and
    dicts of these) as JSON-ready data that :func:`decode` turns back into the same value."""
    if value is None:
        return {"t": "none"}
    if isinstance(value, bool | np.bool_):
        return {"t": "bool", "v": bool(value)}
    if isinstance(value, int | np.integer):
        return {"t": "int", "v": str(int(value))}
    if isinstance(value, float | np.floating):
        return {"t": "float", "v": float(value).hex()}
    if isinstance(value, str):
        return {"t": "str", "v": str.__str__(value)}
    if isinstance(value, np.ndarray):
        kind = "int64" if np.issubdtype(value.dtype, np.integer) else "float64"
        array = np.array(value, dtype=_DTYPES[kind], order="C", copy=True)
        data = base64.b64encode(array.tobytes()).decode("ascii")
        return {"t": "array", "dtype": kind, "shape": list(array.shape), "data": data}
    if isinstance(value, list | tuple):
        return {"t": "list", "v": [encode(item) for item in value]}
    if isinstance(value, dict):
        return {"t": "dict", "v": {str(key): encode(item) for key, item in value.items()}}
    raise RecordError(f"cannot record a {type(value).__name__}")


def decode(data: Any, _depth: int = 0) -> Any:
    """The value :func:`encode` encoded; :class:`RecordError` for anything else.

    >>> decode({"t": "float", "v": "inf"})
    inf
    >>> decode({"t": "pickle"})
    Traceback (most recent call last):
    ...
    roofline_recorder.encode.RecordError: not a record value: {'t': 'pickle'}
    """
    if _depth > MAX_DEPTH:
        raise RecordError("a record nested too deeply")
    try:
        kind = data["t"]
        if kind == "none":
            return None
        if kind == "bool":
            return _typed(data["v"], bool)
        if kind == "int":
            return int(_typed(data["v"], str)[:40])
        if kind == "float":
            return float.fromhex(_typed(data["v"], str)[:40])
        if kind == "str":
            return _typed(data["v"], str)
        if kind == "array":
            return _array(data)
        if kind == "list":
            return [decode(item, _depth + 1) for item in _typed(data["v"], list)]
        if kind == "dict":
            return {str(key): decode(item, _depth + 1) for key, item in _typed(data["v"], dict).items()}
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as error:
        raise RecordError(f"not a record value: {data!r:.80}") from error
    raise RecordError(f"not a record value: {data!r:.80}")


def _typed(value: Any, kind: type) -> Any:
    if type(value) is not kind:
        raise TypeError(f"expected {kind.__name__}")
    return value


def _array(data: dict[str, Any]) -> np.ndarray[Any, Any]:
    dtype = _DTYPES[data["dtype"]]
    shape = tuple(int(n) for n in _typed(data["shape"], list))
    if len(shape) > MAX_DEPTH or any(n < 0 for n in shape) or int(np.prod(shape)) > MAX_ELEMENTS:
        raise ValueError("array too large")
    raw = base64.b64decode(_typed(data["data"], str), validate=True)
    array = np.frombuffer(raw, dtype=dtype)
    return array.reshape(shape).astype(dtype.newbyteorder("="), copy=True)
