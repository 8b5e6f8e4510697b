"""Exercise 5's answer key: each part's question, the known mistakes and the readings.

Each graded part is one function below that builds its question: the model answer
(:mod:`.answers`), the tolerance, the public cases (the statement's own figures first, from
:mod:`.given`), how a random case is drawn, the known mistakes and the readings.

>>> [q.id for q in exercise().questions]
['ex5.dense_peak', 'ex5.hbm_bandwidth', 'ex5.critical_batch', 'ex5.global_batch']
>>> [m.misconception.name for m in exercise().question("critical_batch").mistakes]
['sparse-peak', 'halved-twice']
"""

from __future__ import annotations

import math

import numpy as np

from roofline_grading.authoring import (
    FLOPS_PER_MULTIPLY_ADD,
    MODEL,
    REPLICAS,
    TERABYTE,
    TOKENS,
    Exercise,
    earns,
    log_uniform,
    random_chip,
    refused,
    roundings,
)
from roofline_grading.misconceptions import BINARY_TERABYTES, HALVED_TWICE, SPARSE_PEAK
from roofline_grading.questions import FunctionQuestion, Misconception, Mistake
from rooflinekit.critical import matmul_critical_batch_approx
from rooflinekit.words import N_

from . import answers, given

__all__ = ["PER_REPLICA", "exercise"]

PER_REPLICA = Misconception(
    "per-replica",
    N_(
        "This matches the critical batch of a single replica. The threshold holds per replica: each "
        "replica needs that many tokens of its own, so the total is that many times the number of "
        "replicas."
    ),
)

FIGURES = (given.DATASHEET_BF16, given.CHIP.hbm_bandwidth)
"""The datasheet's sparse bf16 figure and the bandwidth in B/s."""


def _random_datasheet(rng: np.random.Generator) -> tuple[float, float]:
    """(the datasheet's sparse figure, bandwidth in B/s)."""
    peak, bandwidth = random_chip(rng)
    return 2 * peak, bandwidth


def _whole_teraflops(datasheet_flops: float) -> float:
    """The dense peak rounded down to whole TFLOP/s first, as NVIDIA's 989 is."""
    return math.floor(answers.dense_peak(datasheet_flops) / TERABYTE) * TERABYTE


def _as_printed(datasheet_flops: float, bandwidth: float) -> float:
    """The critical batch at the datasheet's figure as printed (the sparse one)."""
    return matmul_critical_batch_approx(peak=datasheet_flops, bandwidth=bandwidth, w="bf16")


def dense_peak() -> FunctionQuestion:
    """(a) The dense bf16 peak from the datasheet's line."""
    return FunctionQuestion(
        "ex5.dense_peak",
        "(datasheet_flops)",
        answers.dense_peak,
        MODEL,
        cases=((given.DATASHEET_BF16,), (1e15,)),
        random_case=lambda rng: (_random_datasheet(rng)[0],),
        mistakes=(Mistake(SPARSE_PEAK, lambda flops: flops),),
        readings=(
            refused("as-printed", "the datasheet's figure as printed",
                    lambda flops: flops, N_("for ordinary, dense matrices"), SPARSE_PEAK),
            refused("whole-teraflops", "half the figure, rounded to whole TFLOP/s (989 for the H100)",
                    _whole_teraflops, N_("with the figures as given, unrounded")),
        ),
    )


def hbm_bandwidth() -> FunctionQuestion:
    """(b) The HBM bandwidth in B/s from the datasheet's TB/s."""
    return FunctionQuestion(
        "ex5.hbm_bandwidth",
        "(terabytes_per_second)",
        answers.hbm_bandwidth,
        MODEL,
        cases=((given.CHIP.hbm_bandwidth / TERABYTE,), (1.0,)),
        random_case=lambda rng: (round(log_uniform(rng, 0.5, 10.0), 2),),
        mistakes=(Mistake(BINARY_TERABYTES, lambda tb: tb * 2.0**40),),
        readings=(
            refused("binary", "a terabyte as 2**40 bytes",
                    lambda tb: tb * 2.0**40, N_("(10**12, not 2**40)"), BINARY_TERABYTES),
        ),
    )


def critical_batch() -> FunctionQuestion:
    """(c) The critical batch of one H100."""
    return FunctionQuestion(
        "ex5.critical_batch",
        "(datasheet_flops, hbm_bandwidth)",
        answers.critical_batch,
        TOKENS,
        cases=(FIGURES, (2e15, 4e12)),
        random_case=_random_datasheet,
        mistakes=(
            Mistake(SPARSE_PEAK, _as_printed),
            Mistake(
                HALVED_TWICE, lambda flops, bw: answers.critical_batch(flops, bw) / FLOPS_PER_MULTIPLY_ADD
            ),
        ),
        readings=roundings(answers.critical_batch, "tokens"),
    )


def global_batch() -> FunctionQuestion:
    """(d) The tokens a step over the replicas, each at its critical batch."""
    return FunctionQuestion(
        "ex5.global_batch",
        "(replicas, datasheet_flops, hbm_bandwidth)",
        answers.global_batch,
        REPLICAS,
        cases=((given.REPLICAS, *FIGURES), (64, 2e15, 4e12)),
        random_case=lambda rng: (int(rng.integers(2, 257)), *_random_datasheet(rng)),
        mistakes=(
            Mistake(PER_REPLICA, lambda n, flops, bw: answers.critical_batch(flops, bw)),
            Mistake(SPARSE_PEAK, lambda n, flops, bw: n * _as_printed(flops, bw)),
            Mistake(
                HALVED_TWICE,
                lambda n, flops, bw: n * answers.critical_batch(flops, bw) / FLOPS_PER_MULTIPLY_ADD,
            ),
        ),
        readings=(
            earns("replica-rounded", "each replica's batch rounded up to a whole token, times the replicas",
                  lambda n, flops, bw: n * math.ceil(answers.critical_batch(flops, bw))),
            refused("per-replica", "the batch each replica needs",
                    lambda n, flops, bw: answers.critical_batch(flops, bw), N_("in total over the replicas"),
                    PER_REPLICA),
        ),
    )


def exercise() -> Exercise:
    """Exercise 5's answer key: its parts in the statement's order, the misconception it exists
    to catch, and the figures its statement gives."""
    return Exercise(
        "ex5_h100_threshold",
        questions=(dense_peak(), hbm_bandwidth(), critical_batch(), global_batch()),
        misconceptions=(SPARSE_PEAK,),
        given=(*FIGURES, given.REPLICAS),
    )
