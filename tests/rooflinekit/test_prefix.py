"""Prefix caching: a shared prefix held once a chip, and a prefill that computes only the new tokens."""

from __future__ import annotations

import math

import pytest

import rooflinekit as rk
from rooflinekit.transformer import memory_for
from rooflinekit.transformer.chunked import colocated_search
from rooflinekit.transformer.decisions import serving_search
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


SEARCH = {"ttft": 0.5, "tpot": 0.05, "prompt": 2048, "output": 512}
SHARED = 1536


@pytest.mark.slow
def test_the_slo_search_prefills_only_the_new_tokens_and_holds_the_prefix_once() -> None:
    """Every configuration found with a shared prefix has the prefix's prefill as its TTFT, hands over
    only the new tokens' cache, and decodes the largest batch the prefix-aware memory and the TPOT
    target allow; memory capped four decode chips without the prefix, so the cheapest one changes."""
    plain = serving_search("llama-3.1-70b", "h100-sxm", **SEARCH)
    hit = serving_search("llama-3.1-70b", "h100-sxm", shared_prefix=SHARED, **SEARCH)
    per_token = rk.transformer_shape("llama-3.1-70b").kv_cache_bytes_per_token(rk.dtype("bf16"))
    longest = SEARCH["prompt"] + SEARCH["output"]
    for c in hit.configs:
        prefill = prefix_prefill("llama-3.1-70b", "h100-sxm", prompt=SEARCH["prompt"], shared=SHARED,
                                 n_chips=c.prefill_chips)
        assert c.ttft == pytest.approx(prefill.t_sequential)
        assert c.handoff_bytes == (SEARCH["prompt"] - SHARED) * per_token
    for d in {c.decode_chips for c in hit.configs}:
        largest = max(c.batch for c in hit.configs if c.decode_chips == d)
        fits = memory_for("llama-3.1-70b", "h100-sxm", n_chips=d, context=longest,
                          shared_prefix=SHARED).max_batch
        assert largest <= fits
        if largest < fits:  # then the TPOT target stopped it
            nxt = rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=d, batch=largest + 1,
                                      context=longest, shared_prefix=SHARED)
            assert nxt.t_sequential > SEARCH["tpot"]
    capped = memory_for("llama-3.1-70b", "h100-sxm", n_chips=4, context=longest).max_batch
    assert max(c.batch for c in plain.configs if c.decode_chips == 4) == capped
    assert max(c.batch for c in hit.configs if c.decode_chips == 4) > capped
    assert hit.cheapest is not None and plain.cheapest is not None
    assert hit.cheapest.chip_hours_per_million_tokens < plain.cheapest.chip_hours_per_million_tokens


@pytest.mark.slow
def test_the_colocated_search_chunks_only_the_new_tokens() -> None:
    """With a prefix cached, the steady chunk admits ``batch x new tokens / output`` a step and a prompt's
    first token waits for its new tokens' chunks only, so the same targets carry a larger batch."""
    targets = {"ttft": 0.2, "tpot": 0.03, "prompt": 1024, "output": 256, "chip_counts": (1,)}
    shared = 768
    new = 1024 - shared
    plain = colocated_search("llama-3.1-8b", "h100-sxm", **targets)
    hit = colocated_search("llama-3.1-8b", "h100-sxm", shared_prefix=shared, **targets)
    for c in hit.configs:
        assert c.chunk >= math.ceil(c.batch * new / 256)
        assert c.ttft == pytest.approx(c.tpot * max(1, math.ceil(new / c.chunk)))
        assert c.shared_prefix == shared
    assert hit.cheapest is not None and plain.cheapest is not None
    assert hit.cheapest.batch > plain.cheapest.batch
    assert hit.cheapest.chip_hours_per_million_tokens < plain.cheapest.chip_hours_per_million_tokens


@pytest.mark.parametrize("search", [serving_search, colocated_search])
@pytest.mark.parametrize("shared", [2048, -1, 1.5])
def test_a_search_refuses_a_prefix_that_leaves_nothing_to_prefill(search: object, shared: object) -> None:
    refusal = "shared_prefix must be a number of tokens from 0 to 2047 "
    with pytest.raises(rk.RooflineInputError, match=refusal):
        search("llama-3.1-70b", "h100-sxm", shared_prefix=shared, **SEARCH)  # type: ignore[operator]
