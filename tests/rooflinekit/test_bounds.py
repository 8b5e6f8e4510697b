"""One bounds type for every time model: single chip, sharded over a network, serving."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rooflinekit as rk

seconds = st.floats(min_value=1e-12, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(st.lists(seconds, min_size=1, max_size=5))
def test_lower_is_the_longest_upper_the_sum_and_bound_names_the_longest(times: list[float]) -> None:
    names = [f"r{i}" for i in range(len(times))]
    b = rk.Bounds(dict(zip(names, times, strict=True)))
    assert b.t_lower == max(times)
    assert b.t_upper == pytest.approx(sum(times))
    assert b.t_lower <= b.t_upper <= len(times) * b.t_lower * (1 + 1e-12)
    assert b.bound == names[times.index(max(times))]  # the first of equal longest


def test_a_tie_is_not_compute_bound() -> None:
    cost = rk.Cost(flops=2e14, bytes_read=1e12, bytes_written=0.0)
    assert rk.analyze(cost, peak=2e14, bandwidth=1e12).bound == "memory"
    sharded = rk.analyze_sharded_matmul(1, 2, 2, peak=4.0, link_bandwidth=4.0)
    assert sharded.t_math == sharded.t_comms and sharded.bound == "network"


def test_every_time_model_is_a_bounds() -> None:
    single = rk.analyze(rk.matmul_cost(256, 8192, 8192), "tpu-v5e")
    sharded = rk.analyze_sharded_matmul(512, 16384, 8192, "tpu-v5e")
    serving = rk.three_clocks("llama-3.1-70b", "h100-sxm", n_chips=8, batch=128)
    assert [list(b.times) for b in (single, sharded, serving)] == [
        ["memory", "compute"], ["network", "compute"], ["memory", "compute", "network"]]
    for b in (single, sharded, serving):
        assert isinstance(b, rk.Bounds)
        assert b.t_lower == max(b.times.values()) and b.t_upper == sum(b.times.values())
    assert (single.t_math, single.t_comms) == (single.times["compute"], single.times["memory"])
    assert (sharded.t_math, sharded.t_comms) == (sharded.times["compute"], sharded.times["network"])
    assert (serving.t_mem, serving.t_compute, serving.t_network) == tuple(serving.times.values())


def test_array_times_give_arrays_of_bounds() -> None:
    B = np.array([1, 64, 4096, 65536])
    many = rk.analyze(rk.matmul_cost(B, 8192, 8192), "h100-sxm")
    for i, batch in enumerate(B):
        one = rk.analyze(rk.matmul_cost(int(batch), 8192, 8192), "h100-sxm")
        assert (many.t_lower[i], many.t_upper[i], many.bound[i]) == (one.t_lower, one.t_upper, one.bound)
    assert list(many.bound) == ["memory", "memory", "compute", "compute"]


@pytest.mark.parametrize("times", [{}, [1.0, 2.0], None])
def test_bad_times_are_named(times: object) -> None:
    with pytest.raises(rk.RooflineInputError, match="times must be a mapping of resource names to seconds"):
        rk.Bounds(times)  # type: ignore[arg-type]
