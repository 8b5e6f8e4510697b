"""Exercise 7's answer key: each part's question, the known mistakes and the readings.

Each graded part is one function below that builds its question: the model answer
(:mod:`.answers`), the tolerance, the public cases (the statement's own figures first, from
:mod:`.given`), how a random case is drawn, the known mistakes and the readings.

>>> [q.id for q in exercise().questions][:2]
['ex7.kv_bytes_per_token', 'ex7.largest_batch']
>>> [m.misconception.name for m in exercise().question("decode_step").mistakes]
['kv-once', 'no-kv']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from roofline_grading.authoring import (
    COUNT,
    FLOPS_PER_MULTIPLY_ADD,
    MODEL,
    TOKENS,
    Exercise,
    earns,
    log_uniform,
    random_chip,
    refused,
    roundings,
)
from roofline_grading.misconceptions import HALVED_TWICE, NO_FACTOR_TWO
from roofline_grading.questions import FunctionQuestion, Misconception, Mistake
from rooflinekit.words import N_

from . import answers, given

__all__ = ["KV_ONCE", "NO_WEIGHTS", "QUERY_HEADS", "TOKEN_BY_TOKEN", "exercise"]

QUERY_HEADS = Misconception(
    "query-heads",
    N_(
        "This matches caching a key and a value for every query head. With grouped-query attention "
        "several query heads share one KV head: the cache holds a key and a value per layer and KV head."
    ),
)
KEYS_ONLY = Misconception(
    "keys-only",
    N_("This matches caching the keys alone. Each token leaves a key and a value: twice as many numbers."),
)
NO_WEIGHTS = Misconception(
    "no-weights",
    N_(
        "This matches giving the whole HBM to the KV cache. The weights stay in memory too: only what "
        "they leave holds the caches of the batch."
    ),
)
KV_ONCE = Misconception(
    "kv-once",
    N_(
        "This matches reading one sequence's cache per step. The weights are shared by the batch, but "
        "every sequence attends to its own cache: the step reads batch x context x the bytes per token."
    ),
)
NO_KV = Misconception(
    "no-kv",
    N_(
        "This matches leaving out the attention's reads of the KV cache. Each step reads every "
        "sequence's cache as well as the weights."
    ),
)
TOKEN_BY_TOKEN = Misconception(
    "token-by-token",
    N_(
        "This matches reading the prompt one token at a time, as decode does, the weights read once a "
        "token. A prefill takes the whole prompt in one step: the weights are read once, and the "
        "FLOPs of all its tokens usually take longer."
    ),
)

SHAPE = given.SHAPE
PEAK, BANDWIDTH = given.CHIP.peak("bf16"), given.CHIP.hbm_bandwidth
HEADS = (SHAPE.n_layers, SHAPE.n_heads, SHAPE.n_kv_heads, SHAPE.head_dim)
KV = SHAPE.kv_cache_bytes_per_token("bf16")


def _random_heads(rng: np.random.Generator) -> tuple[int, int, int, int, int]:
    """(layers, query heads, KV heads, head width, bytes a number): KV heads a divisor of the query heads."""
    kv_heads = int(rng.choice([1, 2, 4, 8, 16]))
    group = int(rng.choice([1, 2, 4, 8]))
    layers, width = int(rng.integers(2, 129)), int(rng.choice([64, 80, 96, 128, 256]))
    return layers, kv_heads * group, kv_heads, width, int(rng.choice(list(answers.KV_DTYPES)))


def _random_model(rng: np.random.Generator) -> tuple[float, int, float]:
    """(parameters, context, KV bytes a token): 0.5e9 to 50e9 parameters, contexts of 256 to 32768."""
    kv = float(answers.kv_bytes_per_token(*_random_heads(rng)[:4], 2))
    return log_uniform(rng, 5e8, 5e10), int(rng.integers(256, 32769)), kv


def _random_memory(rng: np.random.Generator) -> tuple[float, float, int, float]:
    """(HBM bytes, parameters, context, KV bytes a token) with room for a few sequences at least."""
    params, context, kv = _random_model(rng)
    hbm = 2 * params + context * kv * float(rng.integers(2, 2000))
    return round(hbm, -6), params, context, kv


def _random_step(rng: np.random.Generator) -> tuple[int, float, int, float, float, float]:
    params, context, kv = _random_model(rng)
    peak, bandwidth = random_chip(rng)
    return int(rng.integers(1, 1025)), params, context, kv, peak, bandwidth


def _random_prompt(rng: np.random.Generator) -> tuple[int, float, float, float]:
    return (int(rng.integers(256, 32769)), _random_model(rng)[0], *random_chip(rng))


def _step_with(kv_read: Callable[[Any, Any, Any], Any]) -> Callable[..., Any]:
    """The decode step with ``kv_read(batch, context, kv)`` bytes of cache read (a mistake's)."""

    def step(batch: Any, params: float, context: int, kv: float, peak: float, bandwidth: float) -> Any:
        matmuls = answers.decode_step(batch, params, context, 0.0, peak, bandwidth)
        return matmuls + kv_read(batch, context, kv) / bandwidth

    return step


def _overlapped(batch: Any, params: float, context: int, kv: float, peak: float, bandwidth: float) -> Any:
    """The step as the longer of the matmuls and the attention, as if they overlapped."""
    matmuls = answers.decode_step(batch, params, context, 0.0, peak, bandwidth)
    return np.maximum(matmuls, batch * context * kv / bandwidth)


def _token_by_token(prompt: Any, params: float, peak: float, bandwidth: float) -> Any:
    """The prompt read a token at a time, as decode does: one weight read a token."""
    return prompt * answers.decode_step(1, params, 1, 0.0, peak, bandwidth)


def kv_bytes_per_token() -> FunctionQuestion:
    """(a) The bytes one token leaves in the KV cache."""
    kv_bytes = answers.kv_bytes_per_token
    return FunctionQuestion(
        "ex7.kv_bytes_per_token",
        "(n_layers, n_heads, kv_heads, head_dim, bytes_per_number)",
        kv_bytes,
        COUNT,
        cases=((*HEADS, 2), (2, 4, 4, 8, 1), (80, 64, 8, 128, 2)),
        random_case=_random_heads,
        mistakes=(
            Mistake(QUERY_HEADS, lambda L, h, kv, d, s: kv_bytes(L, h, h, d, s)),
            Mistake(KEYS_ONLY, lambda L, h, kv, d, s: kv_bytes(L, h, kv, d, s) / 2),
        ),
        readings=(
            refused("query-heads", "a key and a value for every query head",
                    lambda L, h, kv, d, s: kv_bytes(L, h, h, d, s),
                    N_("(`n_heads` query heads share `kv_heads` KV heads)"), QUERY_HEADS),
            refused("one-layer", "the bytes of one layer",
                    lambda L, h, kv, d, s: kv_bytes(L, h, kv, d, s) / L, N_("all layers together")),
        ),
    )


def largest_batch() -> FunctionQuestion:
    """(b) The most sequences whose caches fit beside the weights."""
    return FunctionQuestion(
        "ex7.largest_batch",
        "(hbm_bytes, params, context, kv_bytes_per_token)",
        answers.largest_batch,
        TOKENS,
        cases=((given.CHIP.hbm_bytes, SHAPE.params, given.CONTEXT, KV), (80e9, 8e9, 1024, 131072.0)),
        random_case=_random_memory,
        mistakes=(
            Mistake(
                NO_WEIGHTS, lambda hbm, params, context, kv: answers.largest_batch(hbm, 0.0, context, kv)
            ),
        ),
        readings=(
            earns("decimals", "the number of sequences with decimals, not rounded down",
                  lambda hbm, params, context, kv: (hbm - answers.WEIGHT_BYTES * params) / (context * kv)),
            refused("no-weights", "the whole memory for the caches",
                    lambda hbm, params, context, kv: answers.largest_batch(hbm, 0.0, context, kv),
                    N_("beside the bf16 weights"), NO_WEIGHTS),
        ),
    )


def decode_step() -> FunctionQuestion:
    """(c) The time of one decode step."""
    return FunctionQuestion(
        "ex7.decode_step",
        "(batch, params, context, kv_bytes_per_token, peak, bandwidth)",
        answers.decode_step,
        MODEL,
        cases=(
            (given.BATCH, SHAPE.params, given.CONTEXT, KV, PEAK, BANDWIDTH),
            (1, SHAPE.params, given.CONTEXT, KV, PEAK, BANDWIDTH),
            (512, 8e9, 1024, 131072.0, 1e15, 3e12),
        ),
        random_case=_random_step,
        mistakes=(
            Mistake(KV_ONCE, _step_with(lambda batch, context, kv: context * kv)),
            Mistake(NO_KV, _step_with(lambda batch, context, kv: 0.0)),
        ),
        readings=(
            refused("overlapped", "the longer of the matmuls and the attention, as if they overlapped",
                    _overlapped, N_("one after the other")),
            refused("one-cache", "one sequence's cache read per step, as the weights are",
                    _step_with(lambda batch, context, kv: context * kv),
                    N_("reads the KV cache of every sequence of the batch"), KV_ONCE),
        ),
    )


def ttft() -> FunctionQuestion:
    """(d) The time to the first token: one prefill step of the whole prompt."""
    return FunctionQuestion(
        "ex7.ttft",
        "(prompt, params, peak, bandwidth)",
        answers.ttft,
        MODEL,
        cases=((given.PROMPT, SHAPE.params, PEAK, BANDWIDTH), (4096, 7e10, 1e15, 3e12)),
        random_case=_random_prompt,
        mistakes=(
            Mistake(TOKEN_BY_TOKEN, _token_by_token),
            Mistake(
                NO_FACTOR_TWO,
                lambda prompt, params, peak, bw: answers.ttft(
                    prompt, params, FLOPS_PER_MULTIPLY_ADD * peak, bw
                ),
            ),
        ),
        readings=(
            refused("prefill-and-step", "the prefill, then one decode step that reads the weights again",
                    lambda prompt, params, peak, bw: answers.ttft(prompt, params, peak, bw)
                    + answers.decode_step(1, params, 1, 0.0, peak, bw),
                    N_("after one prefill step of the whole prompt")),
            refused("token-by-token", "the prompt read a token at a time, as decode does",
                    _token_by_token, N_("after one prefill step of the whole prompt"), TOKEN_BY_TOKEN),
        ),
    )


def plateau_batch() -> FunctionQuestion:
    """(e) The batch past which decode's tokens a second stop growing."""
    return FunctionQuestion(
        "ex7.plateau_batch",
        "(peak, bandwidth)",
        answers.plateau_batch,
        TOKENS,
        cases=((PEAK, BANDWIDTH), (2e15, 4e12)),
        random_case=random_chip,
        mistakes=(
            Mistake(HALVED_TWICE, lambda peak, bw: answers.plateau_batch(peak, bw) / FLOPS_PER_MULTIPLY_ADD),
        ),
        readings=roundings(answers.plateau_batch, "sequences"),
    )


def exercise() -> Exercise:
    """Exercise 7's answer key: its parts in the statement's order, the misconceptions it exists
    to catch, and the figures its statement gives."""
    return Exercise(
        "ex7_serving_decisions",
        questions=(kv_bytes_per_token(), largest_batch(), decode_step(), ttft(), plateau_batch()),
        misconceptions=(QUERY_HEADS, KV_ONCE, TOKEN_BY_TOKEN),
        given=(
            *HEADS,
            SHAPE.params,
            given.CHIP.hbm_bytes,
            PEAK,
            BANDWIDTH,
            given.CONTEXT,
            given.BATCH,
            given.PROMPT,
        ),
    )
