"""The library reproduces every figure the course's sources publish.

Here the figure is the point: each expectation is the number printed in the spec, and the
library must compute it from the catalog and the cost models.
"""

from __future__ import annotations

import pytest

import rooflinekit as rk
from rooflinekit.exercises import EX1_CHIP, EX2_CHIP, EX3_SIZES, INT8


def test_v5e_bf16_critical_intensity_is_240() -> None:
    assert rk.chip("tpu-v5e").critical_intensity("bf16") == pytest.approx(240, abs=0.5)
    assert rk.matmul_critical_batch_approx("tpu-v5e") == pytest.approx(240, abs=0.5)


def test_exercise_1_int8_critical_batch_is_243_2() -> None:
    batch = rk.matmul_critical_batch_approx(EX1_CHIP, w="int8", compute="int8")
    assert batch == pytest.approx(243.2, abs=0.05)


def test_exercise_2_int8_weights_critical_batch_is_120_1() -> None:
    assert rk.matmul_critical_batch_approx(EX2_CHIP, w="int8") == pytest.approx(120.1, abs=0.05)


@pytest.mark.parametrize(("size", "published"), [(4096, 136.1), (1024, 226.3)])
def test_exercise_3_exact_crossovers(size: int, published: float) -> None:
    assert rk.matmul_critical_batch(size, size, EX2_CHIP, w="int8") == pytest.approx(published, abs=0.05)


def test_exercise_3_curves_reach_the_peak_at_the_crossover() -> None:
    peak, bandwidth = EX2_CHIP.peak("bf16"), EX2_CHIP.hbm_bandwidth
    for size in EX3_SIZES:
        crossover = rk.matmul_critical_batch(size, size, EX2_CHIP, w="int8")
        below, above = (rk.matmul_cost(int(crossover) + k, size, size, w="int8") for k in (0, 1))
        assert rk.attainable_flops(below.intensity, peak, bandwidth) < peak
        assert rk.attainable_flops(above.intensity, peak, bandwidth) == peak


@pytest.mark.parametrize("batch", [1, 16, 256, 4096])
def test_exercise_4_batched_intensity_is_about_2_whatever_the_batch(batch: int) -> None:
    cost = rk.batched_matmul_cost(batch, 8192, 8192, **INT8)
    assert cost.intensity == pytest.approx(2, rel=0.01)
    assert rk.analyze(cost, EX1_CHIP, compute="int8")  # exercise 4 gives exercise 1's chip.bound == "memory"


def test_exercise_5_h100_critical_batch_is_295_or_298() -> None:
    h100 = rk.chip("h100-sxm")
    dense = h100.peak("bf16", sparse=True) / 2  # the datasheet's figure assumes 2:4 sparsity
    rounded_peak = float(f"{dense:.0e}")  # the source's first version: one significant figure
    bandwidth = h100.hbm_bandwidth
    assert rk.matmul_critical_batch_approx(peak=dense, bandwidth=bandwidth) == pytest.approx(295, abs=0.5)
    assert int(rk.matmul_critical_batch_approx(peak=rounded_peak, bandwidth=bandwidth)) == 298
    assert dense == pytest.approx(rk.chip("h100-sxm").peak("bf16"), rel=1e-3)


def test_h100_sparse_figure_gives_about_591() -> None:
    assert rk.chip("h100-sxm").critical_intensity("bf16", sparse=True) == pytest.approx(591, abs=0.5)


def test_network_critical_d_is_8755() -> None:
    critical_d = rk.network_critical_d("tpu-v5e")
    assert int(critical_d) == 8755
    assert rk.analyze_sharded_matmul(128, 8755, 4096, "tpu-v5e").bound == "network"
    assert rk.analyze_sharded_matmul(128, 8756, 4096, "tpu-v5e").bound == "compute"


def test_dot_product_intensity_tends_to_one_half() -> None:
    assert rk.dot_cost(10**9).intensity == pytest.approx(0.5, rel=1e-6)
    for n in (1, 2, 10, 1000):
        assert rk.dot_cost(n).intensity == pytest.approx((2 * n - 1) / (4 * n + 2))


@pytest.mark.parametrize(
    ("chip_id", "published"),
    [
        ("tpu-v5e", 240),
        ("tpu-v5p", 164),
        ("tpu-v6e", 575),
        ("h100-sxm", 295),
        ("h200-sxm", 206),
        ("b200", 281),
    ],
)
def test_catalog_critical_intensities(chip_id: str, published: float) -> None:
    assert rk.chip(chip_id).critical_intensity("bf16") == pytest.approx(published, abs=0.5)


def test_v5p_vector_unit_critical_intensity_is_about_3() -> None:
    v5p = rk.chip("tpu-v5p")
    assert v5p.vector_flops is not None
    assert 2 <= v5p.vector_flops / v5p.hbm_bandwidth <= 3


def test_tiling_intensity_is_bm_bn_over_bm_plus_bn() -> None:
    assert rk.tiled_matmul_intensity(256, 512, 128) == pytest.approx(256 * 128 / (256 + 128))
    whole = rk.tiled_matmul_cost(8192, 8192, 8192, 256, 512, 128)
    assert whole.intensity == pytest.approx(256 * 128 / (256 + 128), rel=0.02)  # plus output writes


def test_matmul_flops_counted_exactly_are_bf_times_2d_minus_1() -> None:
    # BDF multiplies and BF(D - 1) additions; 2BDF counts one addition too many per output.
    for B, D, F in [(1, 1, 1), (2, 3, 4), (256, 8192, 8192)]:
        assert rk.matmul_flops_exact(B, D, F) == B * F * (2 * D - 1)
        assert rk.matmul_cost(B, D, F).flops - rk.matmul_flops_exact(B, D, F) == B * F


def test_achievable_shares_of_the_peak_are_the_sources() -> None:
    # "H100s and B200s can usually only achieve around 80-85% of the claimed peak FLOPs, while
    # TPUs can get closer to 95% in normal use."
    assert rk.achievable("h100-sxm")[:2] == rk.achievable("b200")[:2] == (0.80, 0.85)
    assert rk.achievable("tpu-v5e")[:2] == rk.achievable("tpu-v6e")[:2] == (0.95, 0.95)


def test_pcie_and_dcn_figures_are_the_sources() -> None:
    # TPUs: PCIe about 1.5e10 B/s per chip, Trillium 32 GB/s; DCN about 2.5e10 B/s per host, of
    # 8 chips (v5e, v6e, 4x2) or 4 (v5p, 2x2x1). NVIDIA: PCIe Gen5 128 GB/s both ways together;
    # one 400 Gb/s NIC per GPU.
    v5e, v5p, v6e, h100 = (rk.chip(c) for c in ("tpu-v5e", "tpu-v5p", "tpu-v6e", "h100-sxm"))
    assert v5e.pcie_bandwidth == v5p.pcie_bandwidth == 1.5e10 and v6e.pcie_bandwidth == 32e9
    assert v5e.dcn_bandwidth * 8 == v6e.dcn_bandwidth * 8 == v5p.dcn_bandwidth * 4 == 2.5e10
    assert h100.pcie_bandwidth == 128e9 / 2 and h100.dcn_bandwidth == 400e9 / 8


def test_h100_at_eighty_percent_of_its_peak_takes_a_quarter_longer_when_compute_bound() -> None:
    big = rk.matmul_cost(4096, 8192, 8192)
    assert rk.analyze(big, "h100-sxm", achieved=0.8).t_lower == pytest.approx(
        1.25 * rk.analyze(big, "h100-sxm").t_lower)


def test_vmem_is_about_22_times_hbm_so_a_v5e_matmul_needs_a_batch_of_about_11() -> None:
    # "VMEM bandwidth is around 22x higher than HBM bandwidth which means an MXU operation reading
    # from/writing to VMEM requires an arithmetic intensity of only 10-20"; the worked answer: B > 11.
    v5e = rk.chip("tpu-v5e")
    assert rk.VMEM_OVER_HBM.value == 22
    from_vmem = rk.hardware(v5e, bandwidth=v5e.hbm_bandwidth * rk.VMEM_OVER_HBM.value)
    assert 10 <= from_vmem.critical_intensity <= 20 and round(from_vmem.critical_intensity) == 11
