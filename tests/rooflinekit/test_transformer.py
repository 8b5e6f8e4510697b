"""The transformer on the roofline: shapes and parameter counts, one layer's operations against
formulas derived here, the laws of decode and prefill, the memory check and tensor parallelism, and the
serving notes' three clocks for the same models and settings."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rooflinekit as rk
from rooflinekit.collectives import ring_all_gather_bytes, ring_all_reduce_bytes
from rooflinekit.transformer import heads_per_chip, weight_bytes_per_chip


def ops_by_name(step: rk.TransformerStep) -> dict[str, rk.transformer.PlacedOp]:
    return {p.op.name: p for p in step.ops}


# --- shapes and parameter counts -----------------------------------------------------------


@pytest.mark.parametrize("name", list(rk.TRANSFORMERS))
def test_parameter_count_matches_the_published_total(name: str) -> None:
    shape = rk.transformer_shape(name)
    published = shape.published_params
    assert published is not None and shape.sources
    # Published sizes are rounded to three significant figures; Pythia's is exact.
    digits = 3 if published != int(published) or published % 10**6 == 0 else None
    if digits is None:
        assert shape.params == published
    else:
        assert float(f"{shape.params:.{digits}g}") == published


def test_the_catalog_covers_llama_3_1_and_full_multi_head_attention() -> None:
    for name in ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"):
        shape = rk.transformer_shape(name)
        assert shape.n_kv_heads == 8 < shape.n_heads  # grouped-query attention
    mha = [s for s in rk.TRANSFORMERS.values() if s.n_kv_heads == s.n_heads]
    assert {s.name for s in mha} >= {"llama-2-7b", "pythia-6.9b"}


def test_parameter_count_follows_the_shape() -> None:
    # Llama 3.1 8B by hand: attention q, k, v, o; a gated MLP; two RMSNorms; untied tables.
    d, f, v, layers = 4096, 14336, 128256, 32
    q, kv = 32 * 128, 8 * 128
    layer = d * (q + 2 * kv) + q * d + 3 * d * f + 2 * d
    assert rk.transformer_shape("llama-3.1-8b").params == layers * layer + 2 * v * d + d
    # Tying the embedding removes one table; a plain MLP one matrix; LayerNorm doubles norms.
    base = rk.transformer_shape("llama-3.1-8b")
    from dataclasses import replace

    assert replace(base, tied_embeddings=True).params == base.params - v * d
    assert replace(base, gated=False).params == base.params - layers * d * f
    assert replace(base, norm="layer").params == base.params + (2 * layers + 1) * d


def test_kv_cache_per_token_is_keys_and_values_of_every_layer() -> None:
    llama = rk.transformer_shape("llama-3.1-70b")
    assert llama.kv_cache_bytes_per_token("bf16") == 2 * 80 * 8 * 128 * 2
    assert llama.kv_cache_bytes_per_token("fp8") == llama.kv_cache_bytes_per_token("bf16") / 2


@pytest.mark.parametrize(
    ("field", "value"),
    [("n_kv_heads", 5), ("norm", "batch"), ("d_model", 0), ("gated", "yes"), ("n_layers", 2.5)],
)
def test_a_bad_shape_is_refused_by_name(field: str, value: object) -> None:
    from dataclasses import replace

    with pytest.raises(rk.RooflineInputError, match=field):
        replace(rk.transformer_shape("llama-3.1-8b"), **{field: value})


def test_an_unknown_model_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match=r"llama-3\.1-70b"):
        rk.transformer_shape("gpt-5")


# --- one layer's operations against formulas derived here ---------------------------------------


def test_one_decode_layer_per_operation_on_eight_chips() -> None:
    B, ctx, n = 16, 1000, 8
    step = rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=n, batch=B, context=ctx)
    ops = ops_by_name(step)
    d, hd, f = 8192, 128, 28672 // n
    hq, hkv, S = 64 // n, 8 // n, ctx + 1  # one KV head per chip; keys: the cache and the new token
    # Projections: x[B, d] . w[d, out] in bf16.
    for name, d_in, d_out in [
        ("Q projection", d, hq * hd),
        ("K projection", d, hkv * hd),
        ("V projection", d, hkv * hd),
        ("output projection", hq * hd, d),
        ("MLP gate", d, f),
        ("MLP up", d, f),
        ("MLP down", f, d),
    ]:
        op = ops[name].op
        assert op.flops == 2 * B * d_in * d_out, name
        assert op.bytes == 2 * (B * d_in + d_in * d_out + B * d_out), name
        assert op.count == 80
    # Attention: per sequence, the 8 query heads of the chip read their one KV head once.
    scores, values = ops["attention scores"].op, ops["attention values"].op
    assert scores.flops == values.flops == B * hkv * 2 * (hq // hkv) * hd * S
    q_bytes = 2 * B * hq * hd
    cache_bytes = 2 * B * hkv * S * hd
    assert scores.bytes == q_bytes + cache_bytes  # scores stay on chip
    assert values.bytes == cache_bytes + q_bytes  # probabilities come from chip, output written
    # Norms (RMS: x and gamma in, y out), residual adds, the gated activation.
    assert ops["attention norm"].op.bytes == 2 * (B * d + d + B * d)
    assert ops["attention residual"].op.bytes == 2 * 3 * B * d
    assert ops["MLP activation (SiLU x up)"].op.bytes == 2 * 3 * B * f
    # Two ring all-reduces of the [B, d] activations per layer.
    for name in ("attention all-reduce", "MLP all-reduce"):
        assert ops[name].op.link_bytes == 2 * (n - 1) / n * 2 * B * d
    # The LM head: the vocabulary split over the chips, logits gathered once.
    assert ops["LM head"].op.flops == 2 * B * d * (128256 / n) and ops["LM head"].op.count == 1
    assert ops["logits all-gather"].op.link_bytes == (n - 1) / n * 2 * B * 128256


def test_prefill_attention_is_causal_and_reads_the_prompt() -> None:
    B, P = 2, 512
    step = rk.transformer_step("llama-3.1-8b", "h100-sxm", phase="prefill", batch=B, context=P)
    ops = ops_by_name(step)
    hd, heads, kv_heads = 128, 32, 8
    causal_pairs = P * (P + 1) / 2  # query i sees keys 0..i
    assert ops["attention scores"].op.flops == B * heads * 2 * hd * causal_pairs
    assert ops["Q projection"].op.flops == 2 * B * P * 4096 * heads * hd
    assert ops["attention scores"].op.bytes == 2 * B * (heads * P * hd + kv_heads * P * hd)
    # Logits only for each prompt's last token.
    assert ops["LM head"].op.flops == 2 * B * 4096 * 128256


def test_plain_mlp_biases_and_layer_norm() -> None:
    step = rk.transformer_step("pythia-6.9b", "h100-sxm", batch=4, context=100)
    ops = ops_by_name(step)
    assert "MLP gate" not in ops and "MLP activation (GELU)" in ops
    B, d, f = 4, 4096, 16384
    up = ops["MLP up"].op
    assert up.flops == 2 * B * d * f + B * f  # the bias add
    assert up.bytes == 2 * (B * d + d * f + B * f + f)  # the bias read
    assert ops["attention norm"].op.flops == rk.costs.LAYER_NORM_FLOPS_PER_ELEMENT * B * d


def test_quantized_weights_and_kv_cache_halve_their_bytes() -> None:
    args = {"n_chips": 8, "batch": 8, "context": 4096}
    bf16 = ops_by_name(rk.transformer_step("llama-3.1-70b", "h100-sxm", **args))
    fp8 = ops_by_name(rk.transformer_step("llama-3.1-70b", "h100-sxm", weights="fp8", compute="fp8", **args))
    B, d, f = 8, 8192, 28672 // 8
    assert fp8["MLP up"].op.bytes == 2 * B * d + d * f + 2 * B * f
    cache = 2 * B * 1 * 4097 * 128
    assert bf16["attention values"].op.bytes - fp8["attention values"].op.bytes == cache / 2
    assert fp8["MLP up"].t_lower < bf16["MLP up"].t_lower


# --- costs that add -------------------------------------------------------------------------------


steps = st.fixed_dictionaries(
    {
        "model": st.sampled_from(list(rk.TRANSFORMERS)),
        "chip": st.sampled_from(["h100-sxm", "h200-sxm", "b200"]),
        "n_chips": st.sampled_from([1, 2, 4, 8]),
        "phase": st.sampled_from(["decode", "prefill"]),
        "batch": st.integers(1, 64),
        "context": st.integers(1, 4096),
        "kv_cache": st.sampled_from(["bf16", "fp8", "int4"]),
    }
)


def try_step(args: dict[str, object]) -> rk.TransformerStep | None:
    try:
        return rk.transformer_step(args["model"], args["chip"], **{k: v for k, v in args.items()
                                                                    if k not in ("model", "chip")})
    except rk.RooflineInputError:
        return None  # too big for these chips, or chips that do not split the heads


@settings(max_examples=60, deadline=None)
@given(args=steps)
def test_totals_are_the_sums_of_the_parts(args: dict[str, object]) -> None:
    step = try_step(args)
    if step is None:
        return
    assert step.t_lower == pytest.approx(sum(p.op.count * p.t_lower for p in step.ops))
    assert step.flops == pytest.approx(sum(p.op.count * p.op.flops for p in step.ops))
    assert sum(step.time_by_bound.values()) == pytest.approx(step.t_lower)
    # The three clocks never exceed the sum of the operations' bounds, nor their upper bound.
    assert step.totals.t_lower <= step.t_lower * (1 + 1e-12)
    assert step.t_lower <= step.totals.t_upper * (1 + 1e-12)
    # Each operation sits on the roofline: its time is its slower of math and memory.
    for p in step.ops:
        assert p.t_lower == max(p.bounds.times.values())



@settings(max_examples=60, deadline=None)
@given(args=steps)
def test_the_step_is_bracketed_by_how_much_its_operations_overlap(args: dict[str, object]) -> None:
    step = try_step(args)
    if step is None:
        return
    # Everything overlapped <= collectives hidden behind the rest <= all in sequence <= nothing overlapped.
    tolerance = 1 + 1e-12
    assert step.totals.t_lower <= step.t_collectives_hidden * tolerance
    assert step.t_collectives_hidden <= step.t_sequential * tolerance
    assert step.t_sequential <= step.totals.t_upper * tolerance
    assert step.t_lower == step.t_sequential  # the name the command line has always printed
    network = step.time_by_bound["network"]
    assert step.t_collectives_hidden == pytest.approx(max(step.t_sequential - network, network))


def test_with_collectives_the_bracket_is_open_and_on_one_chip_it_closes() -> None:
    eight = rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, phase="prefill", context=2048)
    collectives = sum(p.op.count * p.t_lower for p in eight.ops if p.op.collective)
    assert collectives > 0 and eight.t_collectives_hidden == pytest.approx(eight.t_sequential - collectives)
    one = rk.transformer_step("llama-3.1-8b", "h100-sxm", phase="prefill", context=2048)
    assert one.t_collectives_hidden == one.t_sequential


@settings(max_examples=40, deadline=None)
@given(args=steps)
def test_the_math_of_a_step_is_about_two_flops_per_parameter_per_token(args: dict[str, object]) -> None:
    step = try_step({**args, "phase": "decode"})
    if step is None:
        return
    model, n = step.model, step.setup.n_chips
    matrices = step.setup.batch * 2 * model.matmul_params / n
    # The matmuls' FLOPs (KV copies aside) plus attention, norms and adds.
    assert step.flops >= matrices * 0.99


# --- laws: decode's weight matmuls gain intensity with the batch, attention does not ---------------


@settings(max_examples=40, deadline=None)
@given(
    model=st.sampled_from(["llama-3.1-8b", "llama-2-7b", "pythia-6.9b"]),
    batch=st.integers(1, 30),
    context=st.integers(1, 4000),
)
def test_decode_weight_matmuls_gain_intensity_with_the_batch_attention_does_not(
    model: str, batch: int, context: int
) -> None:
    small = ops_by_name(rk.transformer_step(model, "h200-sxm", batch=batch, context=context))
    large = ops_by_name(rk.transformer_step(model, "h200-sxm", batch=2 * batch, context=context))
    for name in ("Q projection", "K projection", "output projection", "MLP up", "MLP down", "LM head"):
        assert large[name].op.intensity > small[name].op.intensity, name
    for name in ("attention scores", "attention values"):
        assert large[name].op.intensity == pytest.approx(small[name].op.intensity), name


def test_attention_intensity_in_decode_is_about_the_group_size() -> None:
    # One query row per query head against each key: about `group` FLOPs per cached byte.
    gqa = ops_by_name(rk.transformer_step("llama-3.1-8b", "h100-sxm", batch=1, context=8000))
    mha = ops_by_name(rk.transformer_step("llama-2-7b", "h100-sxm", batch=1, context=8000))
    assert gqa["attention scores"].op.intensity == pytest.approx(32 / 8, rel=0.01)
    assert mha["attention scores"].op.intensity == pytest.approx(1, rel=0.01)


def test_decode_leaves_memory_bound_at_short_context_but_not_at_long() -> None:
    short = rk.leaves_memory_bound("llama-3.1-8b", "h100-sxm", context=128)
    assert short is not None
    assert rk.transformer_step("llama-3.1-8b", "h100-sxm", batch=short, context=128).bound == "compute"
    assert rk.transformer_step("llama-3.1-8b", "h100-sxm", batch=short - 1, context=128).bound == "memory"
    assert rk.leaves_memory_bound("llama-3.1-8b", "h100-sxm", context=8192) is None


def test_prefill_leaves_memory_bound_at_a_short_prompt() -> None:
    length = rk.leaves_memory_bound("llama-3.1-8b", "h100-sxm", phase="prefill")
    assert length is not None and 1 < length < 2048
    step = rk.transformer_step("llama-3.1-8b", "h100-sxm", phase="prefill", context=length)
    assert step.bound == "compute"


# --- memory: the KV cache, the largest batch, a model that does not fit --------------------------


def test_the_largest_batch_fills_the_memory() -> None:
    args = {"n_chips": 8, "context": 2048}
    memory = rk.memory_for("llama-3.1-70b", "h100-sxm", **args)
    B = memory.max_batch
    at_max = rk.memory_for("llama-3.1-70b", "h100-sxm", batch=B, **args)
    beyond = rk.memory_for("llama-3.1-70b", "h100-sxm", batch=B + 1, **args)
    assert at_max.fits and not beyond.fits
    # At that batch the step reads nearly all of memory (every weight and every cached key and
    # value): the notes' "full memory" special case.
    step = rk.transformer_step("llama-3.1-70b", "h100-sxm", batch=B, **args)
    held = at_max.weight_bytes + at_max.kv_cache_bytes
    assert 0.99 < held / rk.chip("h100-sxm").hbm_bytes <= 1
    assert step.hbm_bytes > held


def test_weights_and_kv_heads_split_over_the_chips() -> None:
    llama = rk.transformer_shape("llama-3.1-70b")
    one = weight_bytes_per_chip(llama, 1)
    assert one == 2 * llama.params
    assert weight_bytes_per_chip(llama, 8) == pytest.approx(one / 8, rel=1e-3)
    # 16 chips over 8 KV heads: each KV head lives on two chips.
    big = rk.transformer_shape("llama-3.1-405b")
    assert heads_per_chip(big, 16) == (8, 1)
    assert weight_bytes_per_chip(big, 16) > 2 * big.params / 16
    with pytest.raises(rk.RooflineInputError, match="n_chips"):
        heads_per_chip(llama, 3)


def test_a_model_that_does_not_fit_says_so() -> None:
    with pytest.raises(rk.RooflineInputError, match=r"n_chips must be enough h100-sxm chips.*\(got 1\)"):
        rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=1)
    memory = rk.memory_for("llama-3.1-405b", "h100-sxm", n_chips=8)
    assert not memory.weights_fit and memory.max_batch == 0 and not memory.fits
    too_many = rk.memory_for("llama-3.1-70b", "h100-sxm", n_chips=8).max_batch + 1
    with pytest.raises(rk.RooflineInputError, match=r"batch must be at most \d+ sequences"):
        rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, batch=too_many)
    # The same model fits once the weights are in fp8 on a larger chip.
    assert rk.memory_for("llama-3.1-405b", "b200", n_chips=8, weights="fp8").fits


@pytest.mark.parametrize("phase", ["decode", "prefill"])
def test_a_context_too_long_for_one_sequence_says_how_long_fits(phase: str) -> None:
    args = {"n_chips": 8, "phase": phase}
    with pytest.raises(rk.RooflineInputError, match=r"^context must be at most \d+ tokens") as caught:
        rk.transformer_step("llama-3.1-70b", "h100-sxm", context=10**8, **args)
    longest = int(caught.value.accepted.split()[2])
    assert rk.memory_for("llama-3.1-70b", "h100-sxm", context=longest, **args).fits
    assert not rk.memory_for("llama-3.1-70b", "h100-sxm", context=longest + 1, **args).fits
    rk.transformer_step("llama-3.1-70b", "h100-sxm", context=longest, **args)  # and runs


@pytest.mark.parametrize(
    ("settings_", "argument"),
    [
        ({"phase": "training"}, "phase"),
        ({"batch": 0}, "batch"),
        ({"context": -1}, "context"),
        ({"weights": "fp7"}, "weights"),
        ({"compute": "fp4"}, "compute"),  # the H100 has no fp4 peak
        ({"collective_latency": -1e-6}, "collective_latency"),
        ({"efficiency": 0.8}, "efficiency"),
    ],
)
def test_bad_settings_are_refused_by_name(settings_: dict[str, object], argument: str) -> None:
    with pytest.raises(rk.RooflineInputError) as caught:
        rk.transformer_step("llama-3.1-8b", "h100-sxm", **settings_)
    assert str(caught.value).startswith(argument)


def test_efficiency_must_be_a_fraction() -> None:
    with pytest.raises(rk.RooflineInputError, match=r"efficiency\.memory"):
        rk.Efficiency(memory=1.5)


# --- tensor parallelism, collectives and the factors ---------------------------------------------


def test_the_ring_is_the_one_model_of_collectives() -> None:
    assert ring_all_reduce_bytes(1e6, 8) == 2 * ring_all_gather_bytes(1e6, 8)
    # network.py charges its split matmul with the same ring.
    split = rk.analyze_sharded_matmul(64, 8192, 8192, "h100-sxm", n_chips=8)
    assert split.bytes_sent_per_chip == ring_all_reduce_bytes(2 * 64 * 8192, 8)


def test_collective_latency_adds_to_each_collective() -> None:
    args = {"n_chips": 8, "batch": 1, "context": 2048}
    plain = rk.transformer_step("llama-3.1-70b", "h100-sxm", **args)
    slow = rk.transformer_step("llama-3.1-70b", "h100-sxm", collective_latency=1e-5, **args)
    collectives = sum(p.op.count for p in plain.ops if p.op.collective)
    assert collectives == 2 * 80 + 1
    assert slow.t_lower - plain.t_lower == pytest.approx(collectives * 1e-5)


def test_efficiency_factors_scale_the_bound_times() -> None:
    args = {"n_chips": 8, "batch": 1, "context": 2048}
    base = rk.transformer_step("llama-3.1-70b", "h100-sxm", **args)
    slower = rk.transformer_step("llama-3.1-70b", "h100-sxm", efficiency=rk.Efficiency(memory=0.5), **args)
    assert slower.time_by_bound["memory"] == pytest.approx(2 * base.time_by_bound["memory"])
    assert slower.time_by_bound["network"] == pytest.approx(base.time_by_bound["network"])


def test_more_chips_make_a_decode_step_shorter() -> None:
    times = [
        rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=n, batch=1, context=2048).t_lower
        for n in (2, 4, 8)
    ]
    assert times[0] > times[1] > times[2]


def test_throughput_per_request_and_in_total() -> None:
    step = rk.transformer_step("llama-3.1-8b", "h100-sxm", batch=32, context=1024)
    assert step.tokens_per_second_per_request == pytest.approx(1 / step.t_lower)
    assert step.tokens_per_second == pytest.approx(32 / step.t_lower)
    prefill = rk.transformer_step("llama-3.1-8b", "h100-sxm", phase="prefill", batch=2, context=1024)
    assert prefill.tokens_per_second == pytest.approx(2048 / prefill.t_lower)


# --- what the command line will print ----------------------------------------------------------


def test_the_step_as_json_has_the_keys_the_command_line_prints() -> None:
    step = rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, batch=64, context=2048)
    data = json.loads(json.dumps(step.to_dict()))
    for key in ("params", "kv_cache_bytes_per_token", "max_batch", "t_lower", "bound", "tokens_per_second"):
        assert key in data
    assert data["bound"] in ("compute", "memory", "network")
    assert data["t_lower"] == step.t_lower and data["params"] == step.model.params
    for op in data["ops"]:
        assert {"name", "flops", "bytes", "intensity", "bound", "count"} <= set(op)
        assert op["bound"] in ("compute", "memory", "network")
        assert op["intensity"] is None or math.isfinite(op["intensity"])
    assert sum(op["count"] * op["t_lower"] for op in data["ops"]) == pytest.approx(data["t_lower"])
    assert (data["t_sequential"], data["t_collectives_hidden"], data["t_overlapped"]) == (
        step.t_sequential, step.t_collectives_hidden, step.totals.t_lower)


# --- the notes' three clocks: the same models, chips and settings, a first approximation -----------


def test_the_three_clocks_follow_the_notes_formulas() -> None:
    h100, llama = rk.chip("h100-sxm"), rk.transformer_shape("llama-3.1-70b")
    clocks = rk.three_clocks(llama, h100, n_chips=8, batch=64)
    assert list(clocks.times) == ["memory", "compute", "network"]
    assert clocks.t_mem == h100.hbm_bytes / h100.hbm_bandwidth  # the whole memory, every step
    assert clocks.t_compute == pytest.approx(2 * 64 * llama.params / (8 * h100.peak("bf16")))
    # Four all-gathers a layer, each sending N - 1 copies of the [tokens, d_model] bf16 activations.
    assert clocks.t_network == pytest.approx(4 * 7 * 64 * 8192 * 2 * 80 / h100.link_bandwidth)
    assert clocks.tokens_per_second == pytest.approx(64 / clocks.t_lower)


def test_the_three_clocks_count_the_tokens_of_the_step() -> None:
    args = {"n_chips": 8, "batch": 4, "context": 512}
    decode = rk.three_clocks("llama-3.1-70b", "h100-sxm", **args)
    prefill = rk.three_clocks("llama-3.1-70b", "h100-sxm", phase="prefill", **args)
    assert (decode.tokens, prefill.tokens) == (4, 4 * 512)
    assert prefill.t_compute == pytest.approx(512 * decode.t_compute)
    assert prefill.t_network == pytest.approx(512 * decode.t_network)
    assert prefill.t_mem == decode.t_mem


def test_the_three_clocks_assume_a_full_memory_and_ask_only_that_the_weights_fit() -> None:
    too_many = rk.memory_for("llama-3.1-70b", "h100-sxm", n_chips=8).max_batch + 1
    with pytest.raises(rk.RooflineInputError, match="batch"):
        rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, batch=too_many)
    assert rk.three_clocks("llama-3.1-70b", "h100-sxm", n_chips=8, batch=too_many).tokens == too_many
    refusals = []
    for model in (rk.three_clocks, rk.transformer_step):
        with pytest.raises(rk.RooflineInputError) as caught:
            model("llama-3.1-70b", "h100-sxm", n_chips=1)
        refusals.append(str(caught.value))
    assert refusals[0] == refusals[1]


def test_the_three_clocks_take_the_efficiency_and_the_latency_of_a_step() -> None:
    args = {"n_chips": 8, "batch": 64}
    base = rk.three_clocks("llama-3.1-70b", "h100-sxm", **args)
    slower = rk.three_clocks("llama-3.1-70b", "h100-sxm", efficiency=rk.Efficiency(0.5, 0.8, 0.25),
                             collective_latency=1e-5, **args)
    assert slower.t_compute == pytest.approx(2 * base.t_compute)
    assert slower.t_mem == pytest.approx(base.t_mem / 0.8)
    assert slower.t_network == pytest.approx(4 * base.t_network + 4 * 80 * 1e-5)
    assert rk.three_clocks("llama-3.1-8b", "h100-sxm", collective_latency=1e-5).t_network == 0  # one chip


def test_the_notes_full_memory_is_the_step_at_its_largest_batch_only() -> None:
    args = {"n_chips": 8, "context": 2048}
    clocks = rk.three_clocks("llama-3.1-70b", "h100-sxm", batch=1, **args)
    largest = rk.memory_for("llama-3.1-70b", "h100-sxm", **args).max_batch
    small = rk.transformer_step("llama-3.1-70b", "h100-sxm", batch=1, **args)
    full = rk.transformer_step("llama-3.1-70b", "h100-sxm", batch=largest, **args)
    assert small.totals.times["memory"] < clocks.t_mem / 4
    assert full.totals.times["memory"] >= 0.99 * clocks.t_mem
