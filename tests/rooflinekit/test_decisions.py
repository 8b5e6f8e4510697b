"""Serving as a decision (rooflinekit.transformer.decisions): the latency-throughput curve's plateau
where the weight matmuls turn compute-bound, found again from each matmul's exact critical batch;
the law that the throughput then grows by at most a third per doubling; the knee; the TTFT/TPOT
search against steps recomputed here and a brute-force search over every batch; the cost from a
price the caller gives."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rooflinekit as rk
from rooflinekit.transformer import heads_per_chip
from rooflinekit.transformer.decisions import (
    PLATEAU_SHARE,
    ServingConfig,
    compute_bound_weight_share,
    cost_per_million_tokens,
    latency_throughput,
    serving_search,
)

DENSE = [name for name, shape in rk.TRANSFORMERS.items() if not shape.is_moe]
CHIPS = ["h100-sxm", "h200-sxm", "b200", "tpu-v5p", "tpu-v6e"]


def fewest_chips(model: str, chip: str, context: int) -> int | None:
    """The fewest chips (a power of two up to 16) that hold the model with one sequence."""
    for n in (1, 2, 4, 8, 16):
        try:
            rk.transformer_step(model, chip, n_chips=n, context=context)
        except rk.RooflineInputError:
            continue
        return n
    return None


def weight_matmuls(model: rk.TransformerShape, n: int) -> list[tuple[int, int, int]]:
    """(D, F, layers) of each weight matmul of a decode step on one of n chips, from the shape alone."""
    q, kv = heads_per_chip(model, n)
    hd, d, ff = model.head_dim, model.d_model, model.d_ff // n
    mlp = [(d, ff)] * (model.mlp_matrices - 1) + [(ff, d)]
    per_layer = [(d, q * hd), (d, kv * hd), (d, kv * hd), (q * hd, d), *mlp]
    return [(D, F, model.n_layers) for D, F in per_layer] + [(d, math.ceil(model.vocab / n), 1)]


def plateau_from_critical_batches(model: rk.TransformerShape, chip: str, n: int) -> int:
    """The smallest batch at which the matmuls past their exact critical batch hold half the weights."""
    matmuls = [(rk.matmul_critical_batch(D, F, chip), D * F * count)
               for D, F, count in weight_matmuls(model, n)]
    total = sum(w for _, w in matmuls)
    held = 0.0
    for critical, weights in sorted(matmuls):
        held += weights
        if held >= PLATEAU_SHARE * total:
            return math.floor(critical) + 1
    raise AssertionError("unreachable")


curves = st.fixed_dictionaries({
    "model": st.sampled_from([m for m in DENSE if not rk.transformer_shape(m).biases]),
    "chip": st.sampled_from(CHIPS),
    "context": st.sampled_from([64, 256, 1024, 4096]),
})


@settings(max_examples=25, deadline=None)
@given(args=curves)
def test_the_plateau_is_where_the_weight_matmuls_turn_compute_bound(args: dict[str, object]) -> None:
    model, chip, context = str(args["model"]), str(args["chip"]), int(str(args["context"]))
    n = fewest_chips(model, chip, context)
    if n is None:
        return
    curve = latency_throughput(model, chip, n_chips=n, context=context, batches=[1])
    expected = plateau_from_critical_batches(rk.transformer_shape(model), chip, n)
    if expected > curve.max_batch:
        assert curve.plateau is None  # memory runs out first
        return
    assert curve.plateau == expected
    step = rk.transformer_step(model, chip, n_chips=n, context=context, batch=expected)
    assert compute_bound_weight_share(step) >= PLATEAU_SHARE
    if expected > 1:
        before = rk.transformer_step(model, chip, n_chips=n, context=context, batch=expected - 1)
        assert compute_bound_weight_share(before) < PLATEAU_SHARE


# The law holds for every model of the catalog, mixtures of experts included (by their plateau every
# expert is read at each step).
every_model = st.fixed_dictionaries({
    "model": st.sampled_from(list(rk.TRANSFORMERS)),
    "chip": st.sampled_from(CHIPS),
    "context": st.sampled_from([64, 256, 1024, 4096]),
})


@settings(max_examples=30, deadline=None)
@given(args=every_model, factor=st.floats(1.0, 8.0))
def test_past_the_plateau_a_doubling_adds_at_most_a_third(args: dict[str, object], factor: float) -> None:
    model, chip, context = str(args["model"]), str(args["chip"]), int(str(args["context"]))
    n = fewest_chips(model, chip, context)
    if n is None:
        return
    curve = latency_throughput(model, chip, n_chips=n, context=context, batches=[1])
    if curve.plateau is None:
        return
    batch = int(curve.plateau * factor)
    if 2 * batch > curve.max_batch:
        return
    one, two = (rk.transformer_step(model, chip, n_chips=n, context=context, batch=b)
                for b in (batch, 2 * batch))
    assert two.tokens_per_second <= 4 / 3 * one.tokens_per_second
    assert two.tokens_per_second >= one.tokens_per_second  # it never falls


def test_the_knee_is_where_each_request_keeps_nine_tenths_of_a_lone_one() -> None:
    curve = latency_throughput("llama-3.1-70b", "h100-sxm", n_chips=8, context=2048)
    lone = curve.at(1).per_request()
    assert curve.at(curve.knee).per_request() >= 0.9 * lone
    after = rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, context=2048, batch=curve.knee + 1)
    assert 1 / after.t_sequential < 0.9 * lone
    assert 1 < curve.knee < curve.plateau < curve.max_batch  # type: ignore[operator]
    # Each point carries both times, full overlap never slower, and the totals it reports.
    for p in curve.points:
        assert p.t_full_overlap <= p.t_no_overlap
        assert p.total("none") == pytest.approx(p.batch * p.per_request("none"))
    assert [p.batch for p in curve.points] == sorted({p.batch for p in curve.points})


def test_the_curve_refuses_what_it_sets_itself() -> None:
    with pytest.raises(rk.RooflineInputError, match="batch must be left out"):
        latency_throughput("llama-3.1-8b", "h100-sxm", batch=4)
    with pytest.raises(rk.RooflineInputError, match="batches must be batches of at most"):
        latency_throughput("llama-3.1-8b", "h100-sxm", batches=[10**6])


# --- the TTFT/TPOT search -------------------------------------------------------------------------

TARGETS = {"ttft": 0.15, "tpot": 0.02, "prompt": 1024, "output": 256}


@pytest.fixture(scope="module")
def search() -> rk.transformer.ServingSearch:
    return serving_search("llama-3.1-8b", "h100-sxm", chip_counts=(1, 2), **TARGETS)


Search = rk.transformer.ServingSearch


def test_every_configuration_found_meets_the_targets_when_recomputed(search: Search) -> None:
    assert search.configs
    for c in search.configs:
        prefill = rk.transformer_step("llama-3.1-8b", "h100-sxm", n_chips=c.prefill_chips, phase="prefill",
                                      context=TARGETS["prompt"])
        decode = rk.transformer_step("llama-3.1-8b", "h100-sxm", n_chips=c.decode_chips, batch=c.batch,
                                     context=TARGETS["prompt"] + TARGETS["output"])
        assert prefill.t_sequential == c.ttft <= TARGETS["ttft"]
        assert decode.t_sequential == c.tpot <= TARGETS["tpot"]
        assert (c.ttft_full_overlap, c.tpot_full_overlap) == (prefill.t_collectives_hidden,
                                                              decode.t_collectives_hidden)


@pytest.mark.slow  # a search at every batch (seconds)
def test_the_cheapest_is_the_cheapest_of_every_batch(search: rk.transformer.ServingSearch) -> None:
    # Brute force: every prefill and decode chip count and every batch that fits.
    best = math.inf
    for n_p in (1, 2):
        prefill = rk.transformer_step("llama-3.1-8b", "h100-sxm", n_chips=n_p, phase="prefill",
                                      context=TARGETS["prompt"])
        if prefill.t_sequential > TARGETS["ttft"]:
            continue
        for n_d in (1, 2):
            context = TARGETS["prompt"] + TARGETS["output"]
            largest = rk.memory_for("llama-3.1-8b", "h100-sxm", n_chips=n_d, context=context).max_batch
            for b in range(1, largest + 1):
                d = rk.transformer_step("llama-3.1-8b", "h100-sxm", n_chips=n_d, batch=b, context=context)
                if d.t_sequential > TARGETS["tpot"]:
                    break
                config = ServingConfig(n_p, n_d, b, TARGETS["output"], prefill.t_sequential, 0.0,
                                       d.t_sequential, 0.0)
                best = min(best, config.chip_hours_per_million_tokens)
    assert search.cheapest is not None
    assert search.cheapest.chip_hours_per_million_tokens == pytest.approx(best, rel=1e-12)


def test_the_hand_off_is_the_prompts_kv_cache(search: Search) -> None:
    # What the prefill chips send the decode chips, left out of TTFT: a prompt's KV cache.
    model = rk.transformer_shape("llama-3.1-8b")
    for c in search.configs:
        assert c.handoff_bytes == TARGETS["prompt"] * model.kv_cache_bytes_per_token("bf16")
        assert c.handoff_time(50e9) == pytest.approx(c.handoff_bytes / 50e9)
    fp8 = serving_search("llama-3.1-8b", "h100-sxm", chip_counts=(1,), kv_cache="fp8", **TARGETS)
    assert fp8.configs[0].handoff_bytes == search.configs[0].handoff_bytes / 2
    with pytest.raises(rk.RooflineInputError, match="link_bandwidth must be"):
        search.configs[0].handoff_time(0)


def test_full_overlap_meets_at_least_what_no_overlap_does() -> None:
    targets = {"ttft": 0.4, "tpot": 0.04, "prompt": 2048, "output": 512}
    none = serving_search("llama-3.1-70b", "h100-sxm", **targets)
    full = serving_search("llama-3.1-70b", "h100-sxm", overlap="full", **targets)
    assert none.cheapest is not None and full.cheapest is not None
    assert full.cheapest.chip_hours_per_million_tokens <= none.cheapest.chip_hours_per_million_tokens
    pairs = {(c.prefill_chips, c.decode_chips) for c in none.configs}
    assert pairs <= {(c.prefill_chips, c.decode_chips) for c in full.configs}


def test_targets_no_configuration_meets_give_none() -> None:
    found = serving_search("llama-3.1-70b", "h100-sxm", ttft=1e-4, tpot=0.05, prompt=2048, output=128)
    assert found.configs == () and found.cheapest is None
    assert found.to_dict()["cheapest"] is None


def test_the_cost_is_the_callers_price_times_the_chip_hours(search: rk.transformer.ServingSearch) -> None:
    best = search.cheapest
    assert best is not None
    one = cost_per_million_tokens(best, 1.0)
    assert cost_per_million_tokens(best, 2.5) == pytest.approx(2.5 * one)
    # By hand: the chips (decode and the prefill pool's share) for the time a million tokens take.
    share = best.batch / (TARGETS["output"] * best.tpot) * best.ttft
    chips = best.decode_chips + share * best.prefill_chips
    assert one == pytest.approx(chips * 1e6 / (best.batch / best.tpot) / 3600)
    for bad in (0, -1.0, float("nan"), "2"):
        with pytest.raises(rk.RooflineInputError, match="price_per_chip_hour must be"):
            cost_per_million_tokens(best, bad)  # type: ignore[arg-type]
    assert "cost_per_million_tokens" not in best.to_dict()  # no price, no cost
    assert best.to_dict(3.0)["cost_per_million_tokens"] == pytest.approx(3 * one)


@pytest.mark.parametrize(("settings_", "message"), [
    ({"overlap": "partial"}, "overlap must be one of none, full"),
    ({"n_chips": 2}, "n_chips must be left out"),
    ({"ttft": 0}, "ttft must be a positive, finite number of seconds"),
    ({"prompt": 0}, "prompt must be an integer of at least 1"),
])
def test_the_search_refuses_bad_input(settings_: dict[str, object], message: str) -> None:
    with pytest.raises(rk.RooflineInputError, match=message):
        serving_search("llama-3.1-8b", "h100-sxm", **{**TARGETS, **settings_})  # type: ignore[arg-type]
