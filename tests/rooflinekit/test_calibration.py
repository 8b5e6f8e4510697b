"""Calibrated figures: a named set beside the datasheet's ideal, each figure taken from the catalog."""

from __future__ import annotations

import pytest

import rooflinekit as rk
from rooflinekit.transformer.calibration import EXAMPLE_COLLECTIVE_LATENCY, calibration


def test_calibrated_takes_the_catalogs_achievable_peak_and_nccls_bus_bandwidth() -> None:
    h100 = rk.chip("h100-sxm")
    c = calibration(h100)
    assert c.efficiency.compute == rk.achievable(h100).low
    assert c.efficiency.network * h100.link_bandwidth == pytest.approx(
        rk.FIGURES["h100_all_reduce_bus_bandwidth"].value)
    assert c.efficiency.memory == 1.0  # the catalog measures no share of the HBM bandwidth
    assert any("no measured share" in reason for reason in c.reasons)


def test_a_calibrated_step_is_the_same_step_with_those_settings() -> None:
    args = {"n_chips": 8, "batch": 1, "context": 2048}
    named = rk.transformer_step("llama-3.1-70b", "h100-sxm", figures="calibrated", **args)
    spelled = rk.transformer_step("llama-3.1-70b", "h100-sxm", **calibration("h100-sxm").settings(), **args)
    ideal = rk.transformer_step("llama-3.1-70b", "h100-sxm", **args)
    assert named.t_sequential == spelled.t_sequential > ideal.t_sequential
    assert named.to_dict()["figures"] == "calibrated"
    # The figure: 161 collectives at 10 µs add about 31 % to a batch-1 step.
    collectives = sum(p.op.count for p in ideal.ops if p.op.collective)
    latency = EXAMPLE_COLLECTIVE_LATENCY
    latency_only = rk.transformer_step("llama-3.1-70b", "h100-sxm", collective_latency=latency, **args)
    assert collectives == 161
    assert latency_only.t_sequential / ideal.t_sequential - 1 == pytest.approx(0.31, abs=0.005)


def test_tpus_keep_their_line_rate_without_a_measurement() -> None:
    assert calibration("tpu-v5e").efficiency.network == 1.0


@pytest.mark.parametrize(("settings", "named"), [
    ({"figures": "measured"}, "figures"),
    ({"figures": "calibrated", "collective_latency": 5e-6}, "figures"),
    ({"figures": "calibrated", "efficiency": rk.Efficiency(0.5)}, "figures"),
])
def test_clashing_or_unknown_figures_are_refused_by_name(settings: dict[str, object], named: str) -> None:
    with pytest.raises(rk.RooflineInputError, match=named):
        rk.transformer_step("llama-3.1-8b", "h100-sxm", **settings)  # type: ignore[arg-type]
