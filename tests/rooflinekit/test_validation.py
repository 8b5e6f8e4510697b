"""Bad input to the API gets a clear error naming the argument and what is accepted."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import rooflinekit as rk

BAD_SIZES: list[Any] = [
    0,
    -3,
    1.5,
    float("nan"),
    float("inf"),
    True,
    "4096",
    None,
    [1, 0],
    [],
    np.array([2.5]),
    [[1], [2, 3]],
    10**400,  # beyond float64, in which the formulas compute
]


@pytest.mark.parametrize("bad", BAD_SIZES, ids=repr)
@pytest.mark.parametrize("position", ["B", "D", "F"])
def test_matmul_refuses_sizes_that_are_not_positive_integers(bad: Any, position: str) -> None:
    sizes = {"B": 8, "D": 8, "F": 8, position: bad}
    with pytest.raises(rk.RooflineInputError) as raised:
        rk.matmul_cost(sizes["B"], sizes["D"], sizes["F"])
    assert str(raised.value).startswith(f"{position} must be a positive integer")
    assert raised.value.argument == position


def test_sizes_may_be_integer_valued_floats_and_numpy_integers() -> None:
    assert rk.matmul_cost(np.int64(4), 4.0, np.arange(1, 4)).flops.tolist() == [32.0, 64.0, 96.0]


@pytest.mark.parametrize("bad", [0, -1e14, float("nan"), float("inf"), 10**400, "1e14", True, [1e14]])
@pytest.mark.parametrize("figure", ["peak", "bandwidth"])
def test_analyze_refuses_figures_that_are_not_positive_and_finite(bad: Any, figure: str) -> None:
    figures = {"peak": 1e14, "bandwidth": 1e12, figure: bad}
    with pytest.raises(rk.RooflineInputError, match=rf"^{figure} must be a positive, finite number"):
        rk.analyze(rk.dot_cost(10), **figures)


def test_analyze_needs_a_chip_or_both_figures() -> None:
    with pytest.raises(rk.RooflineInputError, match="chip must be a chip id, or both peak and bandwidth"):
        rk.analyze(rk.dot_cost(10), peak=1e14)


def test_analyze_refuses_something_that_is_not_a_cost() -> None:
    with pytest.raises(rk.RooflineInputError, match=r"^cost must be a Cost"):
        rk.analyze((1.0, 2.0), "b200")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["h100", "", None, 3])
def test_unknown_chip(bad: Any) -> None:
    with pytest.raises(rk.UnknownNameError, match=r"^chip must be one of tpu-v5e, .*, b200"):
        rk.analyze(rk.dot_cost(10), bad or "nope")


@pytest.mark.parametrize("argument", ["x", "w", "out"])
def test_unknown_dtype_names_the_operand(argument: str) -> None:
    with pytest.raises(rk.UnknownNameError, match=rf"^{argument} must be one of .*\(got 'bf8'\)"):
        rk.matmul_cost(1, 1, 1, **{argument: "bf8"})


def test_compute_dtype_the_chip_lacks() -> None:
    with pytest.raises(
        rk.UnknownNameError, match=r"^compute dtype for tpu-v6e \(dense\) must be one of bf16, int8"
    ):
        rk.analyze(rk.dot_cost(10), "tpu-v6e", compute="fp32")


def test_network_needs_at_least_two_chips() -> None:
    with pytest.raises(rk.RooflineInputError, match=r"^n_chips must be an integer of at least 2 \(got 1\)"):
        rk.network_critical_d("tpu-v5e", n_chips=1)


def test_the_three_clocks_refuse_a_model_that_does_not_fit() -> None:
    with pytest.raises(rk.RooflineInputError, match=r"^n_chips must be enough h100-sxm chips for .* 141 GB"):
        rk.three_clocks("llama-3.1-70b", "h100-sxm", n_chips=1, batch=64)


def test_elementwise_refuses_non_positive_flops_per_element() -> None:
    with pytest.raises(rk.RooflineInputError, match=r"^flops_per_element must be a positive"):
        rk.elementwise_cost(100, flops_per_element=0)


@pytest.mark.parametrize("bad", [0, 1.5, -0.2, 80, "0.8", True, float("nan")])
def test_achieved_share_must_be_a_fraction(bad: Any) -> None:
    with pytest.raises(rk.RooflineInputError) as caught:
        rk.analyze(rk.matmul_cost(8, 8, 8), "h100-sxm", achieved=bad)
    assert str(caught.value).startswith("achieved must be a fraction in (0, 1] (got ")
    assert "\n" not in str(caught.value)


def test_achieved_share_lowers_the_peak_only() -> None:
    real = rk.hardware("tpu-v5e", achieved=0.95)
    assert real.peak == 0.95 * rk.chip("tpu-v5e").peak("bf16")
    assert real.bandwidth == rk.chip("tpu-v5e").hbm_bandwidth
    dot = rk.dot_cost(10**6)  # memory-bound: the peak does not enter its time
    assert rk.analyze(dot, "tpu-v5e", achieved=0.5).t_lower == rk.analyze(dot, "tpu-v5e").t_lower
