"""Goodput under Poisson arrivals: the simulation against the M/D/1 queue's closed form, and the
goodput of each scheduling against the rate evenly spaced arrivals would sustain."""

from __future__ import annotations

import pytest

from rooflinekit.transformer.chunked import colocated_config
from rooflinekit.transformer.decisions import ServingConfig
from rooflinekit.transformer.goodput import (
    ATTAINMENT,
    Pools,
    attainment,
    evenly_spaced_rate,
    goodput,
    md1_mean_ttft,
)

# A disaggregated configuration with round figures: a 0.1 s prefill, decode steps of 20 ms.
CONFIG = ServingConfig(prefill_chips=1, decode_chips=1, batch=64, output=100, ttft_no_overlap=0.1,
                       ttft_full_overlap=0.1, tpot_no_overlap=0.02, tpot_full_overlap=0.02)


@pytest.mark.slow
@pytest.mark.parametrize("rate", [2.0, 5.0, 8.0])
def test_one_prefill_group_queues_as_the_md1_closed_form_says(rate: float) -> None:
    # Decode slots aplenty, so only the prefill queue waits: M/D/1, DistServe's model.
    found = attainment(CONFIG, rate=rate, ttft=1.0, tpot=1.0, pools=Pools(1, 100), requests=20_000, seed=1)
    assert found.mean_ttft == pytest.approx(md1_mean_ttft(rate, 0.1), rel=0.05)


def test_the_closed_form_refuses_a_rate_the_server_cannot_keep_up_with() -> None:
    with pytest.raises(ValueError, match="rate"):
        md1_mean_ttft(rate=10.0, service=0.1)


@pytest.mark.slow
def test_random_arrivals_meet_the_targets_at_a_lower_rate_than_evenly_spaced_ones() -> None:
    config = colocated_config("llama-3.1-8b", "h100-sxm", n_chips=1, batch=64, prompt=1024, output=256)
    pools = Pools(groups=1)
    rate = goodput(config, ttft=0.2, tpot=0.03, pools=pools, requests=400)
    assert 0 < rate < evenly_spaced_rate(config, pools)
    assert attainment(config, rate=rate, ttft=0.2, tpot=0.03, pools=pools, requests=400).share >= ATTAINMENT
    above = attainment(config, rate=1.1 * rate, ttft=0.2, tpot=0.03, pools=pools, requests=400)
    assert above.share < ATTAINMENT


def test_a_lone_request_meets_the_targets_when_the_configuration_does() -> None:
    found = attainment(CONFIG, rate=0.01, ttft=0.1, tpot=0.02, pools=Pools(1, 1), requests=50)
    assert found.share == 1.0
    assert attainment(CONFIG, rate=0.01, ttft=0.09, tpot=0.02, pools=Pools(1, 1), requests=50).share == 0.0
