"""The recorder's records (roofline_recorder.encode): what a kernel sends round-trips exactly;
anything else is refused."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from roofline_recorder.encode import RecordError, decode, encode


@pytest.mark.parametrize(
    "value",
    [
        0.1,
        -0.0,
        float("inf"),
        7,
        2**70,
        "memory",
        None,
        True,
        np.arange(5),
        np.array(2.5),
        np.full((2, 3), 1e300),
    ],
    ids=repr,
)
def test_records_round_trip_exactly(value: Any) -> None:
    back = decode(json.loads(json.dumps(encode(value))))
    if isinstance(value, np.ndarray):
        assert (
            back.shape == value.shape and back.dtype.kind == value.dtype.kind and np.array_equal(back, value)
        )
    else:
        assert back == value and type(back) is type(value)
    assert decode(encode(float("nan"))) != decode(encode(float("nan")))


def nested(depth: int) -> Any:
    data: Any = {"t": "none"}
    for _ in range(depth):
        data = {"t": "list", "v": [data]}
    return data


@pytest.mark.parametrize(
    "data",
    [
        {"t": "pickle"},
        {"t": "array", "dtype": "object", "shape": [1], "data": ""},
        {"t": "array", "dtype": "float64", "shape": [10**9], "data": ""},
        {"t": "int", "v": 7},
        nested(50),
        "x",
        None,
    ],
    ids=["pickle", "object array", "huge array", "int not text", "deep", "text", "none"],
)
def test_anything_else_is_not_a_record(data: Any) -> None:
    with pytest.raises(RecordError):
        decode(data)
