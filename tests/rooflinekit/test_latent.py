"""The newest mixtures of experts: DeepSeek-V3 with multi-head latent attention, Qwen3's MoE models.

The published figures are the point: each expectation is a number its publisher prints (the
DeepSeek-V3 report, the weights' documentation, the Qwen3 model cards), and the library must reach
it from the shape in ``config.json``. The latent attention's operations are checked against the
formulas of its absorbed (decode) and decompressed (prefill) forms, derived here by hand.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import rooflinekit as rk
from rooflinekit.transformer import memory_for

V3 = {"weights": "fp8", "kv_cache": "bf16"}  # DeepSeek-V3 ships fp8 weights; its cache is bf16


def ops_by_name(step: rk.TransformerStep) -> dict[str, rk.transformer.PlacedOp]:
    return {p.op.name: p for p in step.ops}


def test_deepseek_v3_counts_are_within_two_percent_of_the_report() -> None:
    v3 = rk.transformer_shape("deepseek-v3")
    assert v3.params == pytest.approx(671e9, rel=0.02)
    assert v3.active_params == pytest.approx(37e9, rel=0.02)
    # DeepSeek's README_WEIGHTS.md: 36.7B activated, counting the embedding and the head (0.9B each).
    assert v3.active_params == pytest.approx(36.7e9, rel=0.025)
    assert float(f"{v3.embedding_params:.1g}") == 0.9e9


def test_deepseek_v3_caches_576_values_a_layer_where_llama_caches_2048() -> None:
    v3, llama = rk.transformer_shape("deepseek-v3"), rk.transformer_shape("llama-3.1-70b")
    assert v3.kv_cache_bytes_per_token("bf16") == (512 + 64) * 61 * 2 == 70_272
    assert llama.kv_cache_bytes_per_token("bf16") == 327_680
    assert v3.kv_cache_bytes_per_token("fp8") == 70_272 / 2


@pytest.mark.parametrize(("name", "total", "active"), [
    ("qwen3-235b-a22b", 235e9, 22e9),
    ("qwen3-30b-a3b", 30.5e9, 3.3e9),
])
def test_qwen3_counts_match_the_model_cards(name: str, total: float, active: float) -> None:
    shape = rk.transformer_shape(name)
    assert float(f"{shape.params:.3g}") == total
    assert shape.active_params == pytest.approx(active, rel=0.02)
    # Grouped-query attention with 4 KV heads of 128 in every layer.
    assert shape.kv_cache_bytes_per_token("bf16") == 2 * shape.n_layers * 4 * 128 * 2


def test_the_qk_norms_are_two_head_widths_a_layer() -> None:
    qwen = rk.transformer_shape("qwen3-30b-a3b")
    assert qwen.params - replace(qwen, qk_norm=False).params == 48 * 2 * 128


def test_decode_attends_over_the_shared_latent_read_once() -> None:
    step = rk.transformer_step("deepseek-v3", "h200-sxm", n_chips=8, batch=32, context=4096, **V3)
    attention = ops_by_name(step)["latent attention"].op
    heads, keys, batch = 128 // 8, 4097, 32
    assert attention.flops == 2 * heads * keys * (576 + 512) * batch
    latent = 2 * keys * 576 * batch  # bf16, each sequence's latent once, whatever the heads
    assert attention.cost.bytes_read == latent + 2 * heads * 576 * batch
    assert "KV up projection" not in ops_by_name(step)
    # Its intensity grows with the heads on a chip; grouped-query attention's stays at its group.
    llama = ops_by_name(rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, batch=32, context=4096))
    assert attention.intensity == pytest.approx(heads * (576 + 512) / 576, rel=0.01)
    assert llama["attention scores"].op.intensity == pytest.approx(64 // 8, rel=0.01)


def test_prefill_projects_the_latent_up_into_every_head() -> None:
    step = rk.transformer_step("deepseek-v3", "h200-sxm", n_chips=8, phase="prefill", context=1024, **V3)
    ops = ops_by_name(step)
    up = ops["KV up projection"].op
    assert up.flops == 2 * 1024 * 512 * 16 * (128 + 128)
    assert ops["attention scores"].op.flops == pytest.approx(2 * 16 * 1024 * 192 * 1024 * 1025 / 2048)
    assert "latent attention" not in ops


def test_every_chip_holds_the_whole_latent_cache_under_tensor_parallelism() -> None:
    one, eight = (memory_for("deepseek-v3", "b200", n_chips=n, batch=4, context=1000, **V3) for n in (4, 8))
    assert one.kv_cache_bytes == eight.kv_cache_bytes == 4 * 1001 * 70_272
    assert eight.weight_bytes < one.weight_bytes


def test_latent_weights_on_one_chip_add_up_to_the_model() -> None:
    v3 = rk.transformer_shape("deepseek-v3")
    assert rk.transformer.weight_bytes_per_chip(v3, 1, "fp8") == v3.params


@pytest.mark.parametrize(("field", "value"), [("n_kv_heads", 128), ("rope_head_dim", -1), ("biases", True)])
def test_a_bad_latent_shape_is_refused_by_name(field: str, value: object) -> None:
    with pytest.raises(rk.RooflineInputError, match=field):
        replace(rk.transformer_shape("deepseek-v3"), **{field: value})


def test_latent_sizes_without_a_latent_are_refused() -> None:
    with pytest.raises(rk.RooflineInputError, match="kv_lora_rank"):
        replace(rk.transformer_shape("llama-3.1-8b"), rope_head_dim=64)
