"""How the book shows numbers: rounding, SI prefixes and Markdown tables."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rooflinekit as rk
from rooflinekit.fmt import Table, num, pct, si


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [
        (1.97e14, 3, "1.97e14"),
        (8.2e11, 3, "8.2e11"),
        (1e15, 3, "1e15"),
        (240.2439, 3, "240"),
        (243.2099, 4, "243.2"),
        (8755.56, 3, "8756"),
        (999_999.0, 3, "999999"),
        (1_000_000.0, 3, "1e6"),
        (0.5, 3, "0.5"),
        (0.16666, 2, "0.17"),
        (2.5e-5, 3, "2.5e-5"),
        (0.0, 3, "0"),
        (-3.0, 3, "-3"),
        (np.float64(295.22), 3, "295"),
        (math.inf, 3, "inf"),
    ],
)
def test_num(value: float, digits: int, shown: str) -> None:
    assert num(value, digits) == shown


@given(st.floats(min_value=1e-12, max_value=1e20, allow_nan=False), st.integers(1, 6))
def test_num_round_trips_within_its_precision(value: float, digits: int) -> None:
    assert math.isclose(float(num(value, digits)), value, rel_tol=10.0 ** (1 - digits))


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (8.19e11, "B/s", "819 GB/s"),
        (1.979e15, "FLOP/s", "1.98 PFLOP/s"),
        (0.02388, "s", "23.9 ms"),
        (9.997e-4, "s", "1 ms"),
        (4.5e10, "B/s", "45 GB/s"),
        (16e9, "B", "16 GB"),
        (3.0, "s", "3 s"),
    ],
)
def test_si(value: float, unit: str, shown: str) -> None:
    assert si(value, unit) == shown


def test_pct() -> None:
    assert pct(rk.dot_cost(10**6).intensity) == "50%"


def test_table_markdown_formats_numbers_and_escapes_pipes() -> None:
    table = Table(["op", "intensity", "note"], [["dot", rk.dot_cost(4).intensity, "a|b"]])
    lines = table._repr_markdown_().splitlines()
    assert lines == ["| op | intensity | note |", "| :--- | ---: | ---: |", "| dot | 0.389 | a\\|b |"]


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"header": [], "rows": []}, "header"),
        ({"header": ["a", "b"], "rows": [[1]]}, "rows"),
        ({"header": ["a"], "rows": [], "align": "x"}, "align"),
    ],
)
def test_table_rejects_bad_shapes(kwargs: dict[str, object], argument: str) -> None:
    with pytest.raises(rk.RooflineInputError) as error:
        Table(**kwargs)  # type: ignore[arg-type]
    assert error.value.argument == argument


def test_digits_must_be_positive() -> None:
    with pytest.raises(rk.RooflineInputError, match="digits"):
        num(1.0, 0)
