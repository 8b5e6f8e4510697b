"""Property-based tests of the model's laws, over random shapes, dtypes and chips."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rooflinekit as rk
from rooflinekit.utilization import utilization

sizes = st.integers(min_value=1, max_value=1 << 20)
dtypes = st.sampled_from(["fp32", "bf16", "fp16", "fp8", "int8", "int4"])
chips = st.sampled_from(list(rk.CHIPS))
figures = st.floats(min_value=1e6, max_value=1e18, allow_nan=False, allow_infinity=False)


@st.composite
def matmul_costs(draw: st.DrawFn) -> rk.Cost:
    model = draw(st.sampled_from([rk.matmul_cost, rk.batched_matmul_cost]))
    return model(draw(sizes), draw(sizes), draw(sizes), x=draw(dtypes), w=draw(dtypes), out=draw(dtypes))


@given(cost=matmul_costs(), peak=figures, bandwidth=figures)
def test_lower_le_upper_le_twice_lower(cost: rk.Cost, peak: float, bandwidth: float) -> None:
    r = rk.analyze(cost, peak=peak, bandwidth=bandwidth)
    assert r.t_lower <= r.t_upper <= 2 * r.t_lower * (1 + 1e-12)
    assert r.t_lower == max(r.t_math, r.t_comms)


@given(cost=matmul_costs(), chip_id=chips)
def test_attainable_never_exceeds_the_peak(cost: rk.Cost, chip_id: str) -> None:
    r = rk.analyze(cost, chip_id)
    assert 0 < r.attainable <= r.hardware.peak
    assert r.attainable <= cost.intensity * r.hardware.bandwidth * (1 + 1e-12)


@given(cost=matmul_costs(), chip_id=chips)
def test_bound_follows_intensity_against_the_chip(cost: rk.Cost, chip_id: str) -> None:
    r = rk.analyze(cost, chip_id)
    ratio = cost.intensity / r.critical_intensity
    if not np.isclose(ratio, 1.0, rtol=1e-9):
        assert r.bound == ("compute" if ratio > 1 else "memory")


@given(D=sizes, F=sizes, x=dtypes, w=dtypes, out=dtypes)
def test_matmul_intensity_grows_with_batch_toward_its_limit(D: int, F: int, x: str, w: str, out: str) -> None:
    batches = np.unique(np.geomspace(1, 1 << 30, 64).astype(np.int64))
    intensity = rk.matmul_cost(batches, D, F, x=x, w=w, out=out).intensity
    assert np.all(np.diff(intensity) >= -1e-9 * intensity[1:])
    limit = 2 * D * F / (rk.dtype_bytes(x) * D + rk.dtype_bytes(out) * F)
    assert np.all(intensity <= limit * (1 + 1e-12))
    assert intensity[-1] >= 0.5 * limit


@given(
    D=st.integers(64, 1 << 16), F=st.integers(64, 1 << 16), chip_id=chips, w=st.sampled_from(["bf16", "int8"])
)
def test_at_the_exact_crossover_math_equals_comms(D: int, F: int, chip_id: str, w: str) -> None:
    crossover = rk.matmul_critical_batch(D, F, chip_id, w=w)
    if np.isinf(crossover):
        limit = 2 * D * F / (2 * D + 2 * F)  # bf16 activations and output
        assert limit <= rk.chip(chip_id).critical_intensity() * (1 + 1e-9)
        return
    hw = rk.hardware(chip_id)
    # The cost models want integer sizes; evaluate the formulas at the real-valued crossover.
    t_math = 2 * crossover * D * F / hw.peak
    t_comms = (2 * crossover * D + rk.dtype_bytes(w) * D * F + 2 * crossover * F) / hw.bandwidth
    assert t_math == pytest.approx(t_comms, rel=1e-9)
    below, above = max(1, int(np.floor(crossover))), int(np.ceil(crossover)) + 1
    assert rk.analyze(rk.matmul_cost(above, D, F, w=w), chip_id).bound == "compute"
    if below < crossover:
        assert rk.analyze(rk.matmul_cost(below, D, F, w=w), chip_id).bound == "memory"


@given(D=sizes, F=sizes, chip_id=chips)
def test_approximate_batch_is_below_the_exact_one(D: int, F: int, chip_id: str) -> None:
    exact = rk.matmul_critical_batch(D, F, chip_id)
    assert rk.matmul_critical_batch_approx(chip_id) < exact


@given(n=st.integers(1, 1 << 40), dtype_name=dtypes)
def test_dot_product_intensity_is_below_its_limit(n: int, dtype_name: str) -> None:
    size = rk.dtype_bytes(dtype_name)
    assert rk.dot_cost(n, dtype_name).intensity < 1 / size


@given(B=st.lists(sizes, min_size=1, max_size=20), D=sizes, F=sizes)
def test_arrays_give_the_same_numbers_as_scalars(B: list[int], D: int, F: int) -> None:
    many = rk.analyze(rk.matmul_cost(np.array(B), D, F), "h100-sxm")
    for i, b in enumerate(B):
        one = rk.analyze(rk.matmul_cost(b, D, F), "h100-sxm")
        assert many.t_lower[i] == one.t_lower
        assert many.bound[i] == one.bound


@given(B=sizes, D=sizes, F=sizes, n=st.integers(2, 256), chip_id=chips)
def test_network_bound_switches_at_the_critical_d(B: int, D: int, F: int, n: int, chip_id: str) -> None:
    r = rk.analyze_sharded_matmul(B, D, F, chip_id, n_chips=n)
    critical = rk.network_critical_d(chip_id, n_chips=n)
    if not np.isclose(D, critical, rtol=1e-9):
        assert r.bound == ("compute" if critical < D else "network")


seconds = st.floats(min_value=1e-9, max_value=1e3, allow_nan=False, allow_infinity=False)


@given(cost=matmul_costs(), chip_id=chips, time=seconds)
def test_the_limit_a_run_is_closest_to_is_its_roofline_bound_whatever_its_time(
    cost: rk.Cost, chip_id: str, time: float
) -> None:
    used, r = utilization(cost, time, chip_id), rk.analyze(cost, chip_id)
    assert used.mfu / used.mbu == pytest.approx(cost.intensity / r.hardware.critical_intensity, rel=1e-9)
    assert used.mfu * used.peak * time == pytest.approx(cost.flops, rel=1e-12)
    if not np.isclose(cost.intensity, r.hardware.critical_intensity, rtol=1e-9):
        assert used.closest == r.bound
