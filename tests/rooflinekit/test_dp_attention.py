"""Data-parallel attention (DeepSeek's decode): each chip holds the attention whole and its own
sequences' latent cache, the routed experts are split; against tensor parallelism on the same chips."""

from __future__ import annotations

import math

import pytest

import rooflinekit as rk
from rooflinekit.transformer import data_parallel_attention, memory_for
from rooflinekit.transformer.memory import weight_bytes_per_chip

V3 = {"model": "deepseek-v3", "on": "h200-sxm", "batch": 64, "context": 4096, "weights": "fp8",
      "kv_cache": "bf16"}


def test_each_rank_holds_its_own_sequences_whole_latent_cache_and_the_group_fits_more() -> None:
    dp = data_parallel_attention(n_chips=8, **V3)
    shape = rk.transformer_shape("deepseek-v3")
    latent = shape.kv_cache_bytes_per_token("bf16") * (4096 + 1)  # the whole latent, every layer
    assert dp.bytes_per_sequence >= latent
    free = rk.chip("h200-sxm").hbm_bytes - dp.weight_bytes
    assert dp.max_batch_per_rank == math.floor(free / dp.bytes_per_sequence)
    assert dp.max_batch == 8 * dp.max_batch_per_rank
    # Tensor parallelism holds every sequence's latent on every chip: its batch is one chip's.
    tp = memory_for("deepseek-v3", "h200-sxm", n_chips=8, context=4096, weights="fp8", kv_cache="bf16")
    assert tp.bytes_per_sequence >= latent and dp.tensor_parallel_max_batch == tp.max_batch
    assert dp.max_batch > 4 * tp.max_batch


def test_only_the_routed_experts_are_split() -> None:
    shape = rk.transformer_shape("deepseek-v3")
    one, eight, sixteen = (data_parallel_attention(n_chips=n, **V3).weight_bytes for n in (1, 8, 16))
    assert one == pytest.approx(weight_bytes_per_chip(shape, 1, "fp8"))  # one chip holds everything
    routed = shape.n_moe_layers * shape.n_experts * shape.expert_params  # fp8: a byte a parameter
    assert eight - sixteen == pytest.approx(routed * (1 / 8 - 1 / 16))
    assert eight > one / 8  # the attention, dense layers and shared experts stay whole


def test_a_rank_runs_every_head_and_its_attention_turns_compute_bound() -> None:
    """All 128 heads over one latent cache on a rank, against 16 or 8 a chip under tensor parallelism."""
    ridge = rk.chip("h200-sxm").critical_intensity("bf16")
    eight, sixteen = (data_parallel_attention(n_chips=n, **V3) for n in (8, 16))
    assert eight.attention_intensity == pytest.approx(sixteen.attention_intensity)  # every head, either way
    assert eight.attention_intensity > ridge > eight.tensor_parallel_attention_intensity
    assert sixteen.tensor_parallel_attention_intensity < eight.tensor_parallel_attention_intensity
    assert eight.rank.batch == 64 // 8 and sixteen.rank.batch == 64 // 16


@pytest.mark.parametrize(("changes", "argument"), [
    ({"model": "llama-3.1-70b"}, "model"),
    ({"n_chips": 3}, "n_chips"),
    ({"weights": "fp3"}, "weights"),
])
def test_a_model_or_a_split_it_cannot_take_is_refused(changes: dict[str, object], argument: str) -> None:
    settings: dict[str, object] = {**V3, "n_chips": 8, **changes}
    with pytest.raises(rk.RooflineInputError) as refused:
        data_parallel_attention(**settings)  # type: ignore[arg-type]
    assert refused.value.argument == argument
