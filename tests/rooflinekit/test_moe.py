"""Mixtures of experts: Mixtral 8x7B's counts against its publisher's, the distinct experts a step
reads against a Monte Carlo of the stated routing, MoE decode memory-bound longer than a dense
model of the same active size, the all-to-all against a ring routed message by message, and
expert parallelism."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rooflinekit as rk
from rooflinekit.collectives import all_to_all_bytes, collective_bytes, ring_all_gather_bytes
from rooflinekit.transformer.decisions import latency_throughput

MIXTRAL = rk.transformer_shape("mixtral-8x7b")


def test_mixtral_counts_match_the_published_totals() -> None:
    # Mistral AI: 46.7B total, 12.9B per token; the paper (arXiv:2401.04088) rounds them to 47B and 13B.
    assert float(f"{MIXTRAL.params:.3g}") == MIXTRAL.published_params == 46.7e9
    assert float(f"{MIXTRAL.active_params:.3g}") == MIXTRAL.published_active_params == 12.9e9
    assert (round(MIXTRAL.params / 1e9), round(MIXTRAL.active_params / 1e9)) == (47, 13)
    assert MIXTRAL.sources and any("2401.04088" in s.url for s in MIXTRAL.sources)


def test_mixtral_counts_follow_the_shape_by_hand() -> None:
    d, f, v, layers, experts, k = 4096, 14336, 32000, 32, 8, 2
    attention = d * (32 * 128 + 2 * 8 * 128) + 32 * 128 * d
    expert = 3 * d * f
    router, norms = d * experts, 2 * d
    assert MIXTRAL.params == layers * (attention + experts * expert + router + norms) + 2 * v * d + d
    assert MIXTRAL.active_params == layers * (attention + k * expert + router + norms) + 2 * v * d + d
    # A shared expert adds one expert to both counts; dense first layers hold one MLP of d_ff.
    shared = replace(MIXTRAL, shared_experts=1)
    assert shared.params - MIXTRAL.params == shared.active_params - MIXTRAL.active_params == layers * expert
    first_dense = replace(MIXTRAL, first_dense_layers=1)
    assert first_dense.n_moe_layers == 31
    assert MIXTRAL.params - first_dense.params == experts * expert + router - expert


def monte_carlo_touched(experts: int, k: int, tokens: int, trials: int, seed: int) -> tuple[float, float]:
    """Mean and standard error of the distinct experts that `tokens` tokens touch, each routed to
    k distinct experts uniformly at random (the first k of a random permutation)."""
    rng = np.random.default_rng(seed)
    picks = np.argsort(rng.random((trials, tokens, experts)), axis=2)[:, :, :k]
    touched = np.array([len(np.unique(trial)) for trial in picks])
    return float(touched.mean()), float(touched.std(ddof=1) / math.sqrt(trials))


@pytest.mark.parametrize("tokens", [1, 2, 3, 5, 8, 16, 40])
@pytest.mark.parametrize(("experts", "k"), [(8, 2), (64, 6), (16, 1)])
def test_distinct_experts_match_a_monte_carlo_of_the_routing(tokens: int, experts: int, k: int) -> None:
    shape = replace(MIXTRAL, n_experts=experts, experts_per_token=k)
    mean, error = monte_carlo_touched(experts, k, tokens, trials=2000, seed=25)
    expected = float(shape.experts_touched(tokens))
    # 4 standard errors: fails by chance about once in 16,000. Where every trial touched the same
    # number of experts the sample's error is 0; one trial's worth, 1 / trials, stands for it.
    assert abs(mean - expected) <= 4 * max(error, 1 / 2000)


def test_distinct_experts_run_from_k_to_all() -> None:
    assert float(MIXTRAL.experts_touched(1)) == MIXTRAL.experts_per_token
    counts = MIXTRAL.experts_touched(np.arange(1, 200))
    assert np.all(np.diff(counts[:40]) > 0) and np.all(np.diff(counts) >= 0)
    assert np.all(counts <= MIXTRAL.n_experts) and MIXTRAL.n_experts - counts[-1] < 1e-12
    assert rk.transformer_shape("llama-3.1-8b").experts_touched(16) == 0.0


def test_the_step_reads_the_experts_the_tokens_touch() -> None:
    n = 2
    for batch in (1, 4, 64):
        step = rk.transformer_step(MIXTRAL, "h100-sxm", n_chips=n, batch=batch)
        up = next(p.op for p in step.ops if p.op.name == "expert up")
        expert_slice = 2 * MIXTRAL.d_model * MIXTRAL.expert_width / n  # bf16, one chip's share
        assert up.weight_bytes == pytest.approx(float(MIXTRAL.experts_touched(batch)) * expert_slice)
        assert up.flops == 2 * batch * MIXTRAL.experts_per_token * MIXTRAL.d_model * MIXTRAL.expert_width / n
    # All experts' weights are on the chips: the memory check counts the total, not the active.
    memory = rk.memory_for(MIXTRAL, "h100-sxm", n_chips=n)
    assert memory.weight_bytes == pytest.approx(MIXTRAL.params * 2 / n, rel=1e-3)


def dense_twin(model: rk.TransformerShape) -> rk.TransformerShape:
    """A dense model of the same active size: one MLP as wide as the experts a token goes through."""
    width = (model.experts_per_token + model.shared_experts) * model.expert_width
    return replace(model, name=model.name + "-dense", n_experts=0, experts_per_token=0, shared_experts=0,
                   d_ff=width, d_ff_expert=0, published_params=None, published_active_params=None)


@settings(max_examples=20, deadline=None)
@given(batch=st.integers(1, 400), chip=st.sampled_from(["h100-sxm", "h200-sxm", "b200"]))
def test_moe_decode_stays_memory_bound_longer_than_its_dense_twin(batch: int, chip: str) -> None:
    twin = dense_twin(MIXTRAL)
    routers = MIXTRAL.n_layers * MIXTRAL.router_params
    assert twin.active_params == pytest.approx(MIXTRAL.active_params - routers)
    args = {"n_chips": 2, "context": 512, "batch": batch}
    moe = rk.transformer_step(MIXTRAL, chip, **args)
    dense = rk.transformer_step(twin, chip, **args)
    expert = next(p for p in moe.ops if p.op.name == "expert up")
    mlp = next(p for p in dense.ops if p.op.name == "MLP up")
    assert expert.op.intensity <= mlp.op.intensity  # each expert sees fewer tokens than the one MLP
    if expert.bound == "compute":
        assert mlp.bound == "compute"


def test_moe_plateau_comes_later_than_its_dense_twins() -> None:
    moe = latency_throughput(MIXTRAL, "h200-sxm", n_chips=2, context=256, batches=[1])
    dense = latency_throughput(dense_twin(MIXTRAL), "h200-sxm", n_chips=2, context=256, batches=[1])
    assert dense.plateau is not None and moe.plateau is not None
    # Past a few dozen tokens every expert is touched, each seeing k/E of the batch: E/k times later.
    ratio = MIXTRAL.n_experts / MIXTRAL.experts_per_token
    assert moe.plateau == pytest.approx(ratio * dense.plateau, rel=0.1)
    # Past its plateau, as for a dense model, a doubling adds at most a third to the total.
    for batch in (moe.plateau, 2 * moe.plateau):
        one, two = (rk.transformer_step(MIXTRAL, "h200-sxm", n_chips=2, context=256, batch=b)
                    for b in (batch, 2 * batch))
        assert one.tokens_per_second <= two.tokens_per_second <= 4 / 3 * one.tokens_per_second


# --- the all-to-all and expert parallelism ----------------------------------------------------------


def busiest_link_on_a_one_way_ring(payload: float, n: int) -> float:
    """Route every part message by message around a one-way ring; the most bytes any link carries."""
    links = [0.0] * n
    for source in range(n):
        for target in range(n):
            for hop in range((target - source) % n):
                links[(source + hop) % n] += payload / n
    return max(links)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 8, 16])
def test_the_ring_all_to_all_is_the_busiest_link(n: int) -> None:
    assert all_to_all_bytes(1024.0, n) == pytest.approx(busiest_link_on_a_one_way_ring(1024.0, n))
    assert all_to_all_bytes(1024.0, n, topology="direct") == pytest.approx(1024.0 * (n - 1) / n)
    assert collective_bytes("all-to-all", 1024.0, n) == all_to_all_bytes(1024.0, n)
    if n > 1:  # half an all-gather of everything the chips hold, as the source says for a one-way ring
        assert all_to_all_bytes(1024.0, n) == pytest.approx(ring_all_gather_bytes(n * 1024.0, n) / 2)
    with pytest.raises(rk.RooflineInputError, match="topology must be one of ring, direct"):
        all_to_all_bytes(1024.0, n, topology="mesh")


def test_expert_parallelism_splits_the_experts_and_pays_two_all_to_alls() -> None:
    batch, n = 64, 4
    ep = rk.expert_parallel(MIXTRAL, "h100-sxm", n_chips=n, batch=batch)
    assert ep.experts_per_chip == 2
    assert ep.experts_touched_per_chip * n == pytest.approx(float(MIXTRAL.experts_touched(batch)))
    assert ep.rows_per_chip * n == batch * MIXTRAL.experts_per_token
    payload = batch / n * MIXTRAL.experts_per_token * MIXTRAL.d_model * 2
    assert ep.all_to_all_bytes == all_to_all_bytes(payload, n)
    h100 = rk.chip("h100-sxm")
    assert ep.t_all_to_all == pytest.approx(ep.all_to_all_bytes / h100.link_bandwidth)
    assert ep.t_no_overlap == pytest.approx(ep.t_experts + 2 * ep.t_all_to_all)
    assert ep.t_full_overlap <= ep.t_no_overlap
    direct = rk.expert_parallel(MIXTRAL, "h100-sxm", n_chips=n, batch=batch, topology="direct")
    assert direct.t_all_to_all < ep.t_all_to_all and direct.t_experts == ep.t_experts
    with pytest.raises(rk.RooflineInputError, match="model must be a mixture of experts"):
        rk.expert_parallel("llama-3.1-8b", "h100-sxm", n_chips=2)


def monte_carlo_busiest(experts: int, k: int, chips: int, tokens: int, trials: int,
                        seed: int) -> tuple[float, float]:
    """Mean and standard error of the most touched experts on one chip, chip c holding experts
    c * E/N ... (c + 1) * E/N - 1, each token routed to k distinct experts uniformly at random."""
    rng = np.random.default_rng(seed)
    picks = np.argsort(rng.random((trials, tokens, experts)), axis=2)[:, :, :k]
    held = experts // chips
    busiest = np.array([np.bincount(np.unique(trial) // held, minlength=chips).max() for trial in picks])
    return float(busiest.mean()), float(busiest.std(ddof=1) / math.sqrt(trials))


@pytest.mark.parametrize("tokens", [1, 2, 3, 8, 40])
@pytest.mark.parametrize(("experts", "k", "chips"), [(8, 2, 2), (8, 2, 4), (8, 2, 8), (64, 6, 8), (16, 1, 4)])
def test_busiest_chip_matches_a_monte_carlo_of_the_routing(tokens: int, experts: int, k: int,
                                                           chips: int) -> None:
    shape = replace(MIXTRAL, n_experts=experts, experts_per_token=k)
    mean, error = monte_carlo_busiest(experts, k, chips, tokens, trials=2000, seed=9)
    expected = rk.transformer.busiest_chip_experts(shape, tokens, chips)
    assert abs(mean - expected) <= 4 * max(error, 1 / 2000)  # as for the distinct experts above
    # The busiest chip reads at least the mean and at most what it holds.
    assert float(shape.experts_touched(tokens)) / chips - 1e-12 <= expected <= experts // chips + 1e-12


def test_the_distribution_of_touched_experts_has_the_expected_mean() -> None:
    for tokens in (1, 3, 50):
        p = rk.transformer.touched_distribution(MIXTRAL, tokens)
        assert p.sum() == pytest.approx(1.0) and np.all(p >= 0)
        assert p @ np.arange(p.size) == pytest.approx(float(MIXTRAL.experts_touched(tokens)))


def test_expert_parallelism_waits_for_the_busiest_chip_and_reads_the_whole_attention() -> None:
    # At batch 1 on eight GPUs, two chips read one whole expert each: four times the mean quarter.
    lone = rk.expert_parallel(MIXTRAL, "h100-sxm", n_chips=8, batch=1)
    assert lone.experts_touched_per_chip == 0.25 and lone.busiest_experts == pytest.approx(1.0)
    expert_bytes = 2 * MIXTRAL.expert_params
    assert lone.experts_cost.bytes >= expert_bytes
    # Data-parallel attention: every chip reads all of a layer's attention weights, n times tensor
    # parallelism's share of them.
    tp = rk.transformer_step(MIXTRAL, "h100-sxm", n_chips=8, batch=1)
    projections = ("Q projection", "K projection", "V projection", "output projection")
    tp_share = sum(p.op.weight_bytes for p in tp.ops if p.op.name in projections)
    assert lone.attention_weight_bytes == pytest.approx(8 * tp_share)
    hbm = rk.chip("h100-sxm").hbm_bandwidth
    assert lone.t_attention_weights == pytest.approx(lone.attention_weight_bytes / hbm)
    with pytest.raises(rk.RooflineInputError, match="n_chips must be a divisor"):
        rk.transformer.busiest_chip_experts(MIXTRAL, 4, 3)
