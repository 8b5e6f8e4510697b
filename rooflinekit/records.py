"""Exact, plain records of graded answers, so they can be judged again outside the student's kernel.

A hidden test runs in the student's kernel after the student's own code, which could have
changed anything there: numpy, this package, the comparison itself. So every ``assert_*`` of
:mod:`rooflinekit.grading` that passes also leaves a *record* in the test cell's output: the
plain numbers and words it judged, encoded exactly (numbers as hexadecimal floats, arrays as
their raw bytes). The instructor's grading driver (:mod:`rooflinekit.autograde`) reads the
records from the graded notebook and judges them again in its own clean process; a test that
passed in the kernel without a record that checks out there scores nothing.

Records are written only when the grading driver asks for them (``ROOFLINEKIT_GRADING_RECORDS=1``
in the kernel's environment) and only inside IPython; anywhere else :func:`emit` does nothing.

>>> encode(np.arange(3))
{'t': 'array', 'dtype': 'int64', 'shape': [3], 'data': 'AAAAAAAAAAABAAAAAAAAAAIAAAAAAAAA'}
>>> decode(encode(0.1)) == 0.1, decode(encode((1, "memory")))
(True, [1, 'memory'])
"""

from __future__ import annotations

import base64
import hashlib
import os
import zlib
from typing import Any

import numpy as np

__all__ = ["ENABLE", "MIMETYPE", "SEED", "RecordError", "decode", "emit", "encode", "grading_rng"]

MIMETYPE = "application/vnd.rooflinekit.check+json"
"""The output type of a record (JupyterLab and nbconvert show nothing for it)."""
ENABLE = "ROOFLINEKIT_GRADING_RECORDS"
"""Environment variable: ``1`` makes :func:`emit` write records."""
SEED = "ROOFLINEKIT_GRADING_SEED"
"""Environment variable: hexadecimal seed of the random sizes a function is checked at."""

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


def decode(data: Any) -> Any:
    """The value :func:`encode` encoded; :class:`RecordError` for anything else.

    >>> decode({"t": "float", "v": "inf"})
    inf
    >>> decode({"t": "pickle"})
    Traceback (most recent call last):
    ...
    rooflinekit.records.RecordError: not a record value: {'t': 'pickle'}
    """
    try:
        kind = data["t"]
        if kind == "none":
            return None
        if kind == "bool":
            return bool(data["v"])
        if kind == "int":
            return int(data["v"])
        if kind == "float":
            return float.fromhex(data["v"])
        if kind == "str":
            return str(data["v"])
        if kind == "array":
            dtype = _DTYPES[data["dtype"]]
            shape = tuple(int(n) for n in data["shape"])
            array = np.frombuffer(base64.b64decode(data["data"], validate=True), dtype=dtype)
            return array.reshape(shape).astype(dtype.newbyteorder("="), copy=True)
        if kind == "list":
            return [decode(item) for item in data["v"]]
        if kind == "dict":
            return {str(key): decode(item) for key, item in data["v"].items()}
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise RecordError(f"not a record value: {data!r:.80}") from error
    raise RecordError(f"not a record value: {data!r:.80}")


def emit(kind: str, question: str, fields: dict[str, Any]) -> None:
    """Show a record of a passed check in the current cell's output, if grading asked for it."""
    if os.environ.get(ENABLE) != "1":
        return
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # not in IPython: nobody reads records here
        return
    if get_ipython() is None:
        return
    record = {"kind": kind, "question": question, "fields": encode(fields)}
    display({MIMETYPE: record}, raw=True)  # type: ignore[no-untyped-call]


def grading_rng(question: str, seed: str | None = None) -> np.random.Generator:
    """The generator a check draws its random sizes from: seeded by ``seed`` (hexadecimal) or by
    ``$ROOFLINEKIT_GRADING_SEED`` and the question's name, so that a regrade draws the same
    sizes and the driver can draw them again; fresh entropy when neither is set.

    >>> a, b = grading_rng("ops", seed="2a"), grading_rng("ops", seed="2a")
    >>> int(a.integers(1 << 30)) == int(b.integers(1 << 30))
    True
    """
    seed = os.environ.get(SEED) if seed is None else seed
    if not seed:
        return np.random.default_rng()
    try:
        entropy = int(seed, 16)
    except ValueError:  # not hexadecimal: any text will do, as long as it is the same each time
        entropy = int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:16], "big")
    return np.random.default_rng([entropy, zlib.crc32(question.encode("utf-8"))])
