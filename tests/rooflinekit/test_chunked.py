"""Co-located serving with chunked prefill: the mixed step against the steps it is made of, the
largest chunk under a TPOT target, and the co-located search beside the disaggregated one."""

from __future__ import annotations

import pytest

import rooflinekit as rk
from rooflinekit.transformer.chunked import (
    colocated_config,
    colocated_search,
    compare_scheduling,
    largest_chunk,
    mixed_step,
)


@pytest.mark.parametrize("model", ["llama-3.1-8b", "qwen3-30b-a3b"])
def test_a_mixed_step_without_a_chunk_is_the_decode_step(model: str) -> None:
    decode = rk.transformer_step(model, "h100-sxm", batch=24, context=1500)
    mixed = mixed_step(model, "h100-sxm", decode_batch=24, context=1500, chunk=0)
    assert mixed.t_sequential == pytest.approx(decode.t_sequential, rel=1e-9)
    assert mixed.step.flops == pytest.approx(decode.flops, rel=1e-9)


def test_a_chunk_alone_is_its_tokens_over_the_prompt_so_far_with_one_token_of_logits() -> None:
    mixed = mixed_step("llama-3.1-8b", "h100-sxm", decode_batch=0, context=1, chunk=512, prefix=1024)
    alone = rk.transformer_step("llama-3.1-8b", "h100-sxm", context=1024, step_tokens=512)
    ops = {p.op.name: p.op for p in alone.ops}
    head = ops["LM head"].flops + ops["final norm"].flops
    assert mixed.step.flops == pytest.approx(alone.flops - head * 511 / 512, rel=1e-12)


def test_below_the_critical_batch_a_chunk_rides_on_the_decode_tokens_weight_reads() -> None:
    critical = rk.matmul_critical_batch_approx("h100-sxm")  # about 295 tokens
    decode = rk.transformer_step("llama-3.1-8b", "h100-sxm", batch=32, context=2048).t_sequential
    small = mixed_step("llama-3.1-8b", "h100-sxm", decode_batch=32, context=2048, chunk=int(critical) - 64)
    large = mixed_step("llama-3.1-8b", "h100-sxm", decode_batch=32, context=2048, chunk=8 * int(critical))
    assert small.t_sequential < 1.25 * decode  # 7 x the tokens for a quarter more time
    assert large.t_sequential > 4 * decode  # past the ridge every token costs math
    assert large.bound == "compute"


def test_the_largest_chunk_is_the_last_that_meets_the_target() -> None:
    args = {"decode_batch": 64, "context": 2048, "n_chips": 8}
    chunk = largest_chunk("llama-3.1-70b", "h100-sxm", tpot=0.03, prompt=8192, **args)
    assert chunk is not None

    def tpot(c: int) -> float:
        return mixed_step("llama-3.1-70b", "h100-sxm", chunk=c, prefix=8192 - c, **args).t_sequential

    assert tpot(chunk) <= 0.03 < tpot(chunk + 1)
    assert largest_chunk("llama-3.1-70b", "h100-sxm", tpot=0.001, prompt=8192, **args) is None


def test_the_steady_state_chunk_keeps_up_with_the_finishing_requests() -> None:
    config = colocated_config("llama-3.1-8b", "h100-sxm", n_chips=1, batch=64, prompt=1024, output=256)
    assert config.chunk == 64 * 1024 / 256  # prompts admitted as fast as requests finish
    assert config.ttft == pytest.approx(4 * config.tpot)  # four chunks of 256 a prompt
    with pytest.raises(rk.RooflineInputError, match="chunk"):
        colocated_config("llama-3.1-8b", "h100-sxm", n_chips=1, batch=64, prompt=1024, output=256, chunk=100)


@pytest.mark.slow
def test_both_schedulings_meet_the_same_targets_and_are_compared_by_cost() -> None:
    targets = {"ttft": 0.5, "tpot": 0.05, "prompt": 2048, "output": 512}
    found = colocated_search("llama-3.1-70b", "h100-sxm", **targets)
    assert found.configs and all(c.ttft <= 0.5 and c.tpot <= 0.05 for c in found.configs)
    both = compare_scheduling("llama-3.1-70b", "h100-sxm", **targets)
    assert both.colocated == found.cheapest
    assert both.disaggregated is not None and both.disaggregated.tpot <= 0.05
    best = found.cheapest
    assert best is not None
    chip_seconds_per_token = best.n_chips * best.tpot / best.batch
    assert best.chip_hours_per_million_tokens == pytest.approx(chip_seconds_per_token / 3600 * 1e6)
