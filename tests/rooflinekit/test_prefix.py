"""Prefix caching: a shared prefix held once a chip, and a prefill that computes only the new tokens."""

from __future__ import annotations

import pytest

import rooflinekit as rk
from rooflinekit.transformer import memory_for
from rooflinekit.transformer.prefix import prefix_prefill, prefix_savings


def test_the_shared_prefix_is_cached_once_a_chip() -> None:
    args = {"n_chips": 8, "batch": 16, "context": 4096}
    plain = memory_for("llama-3.1-70b", "h100-sxm", **args)
    shared = memory_for("llama-3.1-70b", "h100-sxm", shared_prefix=3000, **args)
    per_token = 2 * 80 * 1 * 128 * 2  # one KV head of 128 a chip, keys and values, bf16
    assert plain.kv_cache_bytes == 16 * 4097 * per_token
    assert shared.kv_cache_bytes == (16 * (4097 - 3000) + 3000) * per_token
    assert shared.max_batch > 3 * plain.max_batch


def test_a_prefix_hit_computes_only_the_new_tokens_projections() -> None:
    step = prefix_prefill("llama-3.1-8b", "h100-sxm", prompt=2048, shared=1536).step
    hit = {p.op.name: p.op for p in step.ops}
    whole = {p.op.name: p.op for p in rk.transformer_step("llama-3.1-8b", "h100-sxm", phase="prefill",
                                                          context=2048).ops}
    for name in ("Q projection", "MLP up", "MLP down"):
        assert hit[name].flops == pytest.approx(whole[name].flops * 512 / 2048)
    # Attention: the 512 new queries see the 1,536 cached keys and, causally, each other.
    assert hit["attention scores"].flops < whole["attention scores"].flops


def test_the_savings_grow_with_the_shared_share() -> None:
    small, large = (prefix_savings("llama-3.1-8b", "h100-sxm", prompt=2048, shared=s, output=256)
                    for s in (512, 1536))
    assert 1 > small.ttft_share > large.ttft_share
    assert large.max_batch_shared > small.max_batch_shared > small.max_batch


@pytest.mark.parametrize(("call", "named"), [
    (lambda: memory_for("llama-3.1-8b", "h100-sxm", context=100, shared_prefix=101), "shared_prefix"),
    (lambda: prefix_prefill("llama-3.1-8b", "h100-sxm", prompt=100, shared=100), "shared"),
])
def test_a_prefix_longer_than_the_context_is_refused_by_name(call: object, named: str) -> None:
    with pytest.raises(rk.RooflineInputError, match=named):
        call()  # type: ignore[operator]
