"""Exercise 4's answer key: each part's question, the known mistakes and the readings.

Each graded part is one function below that builds its question: the model answer
(:mod:`.answers`), the tolerance, the public cases (the shapes every function of the sizes is
asked at, and the statement's own figures, from :mod:`.given`), how a random case is drawn, the
known mistakes and the readings.

>>> [q.id for q in exercise().questions][-1]
'ex4.critical_batch'
>>> sorted({m.misconception.name for m in exercise().question("intensity").mistakes})
['int8-two-bytes', 'no-factor-two', 'shared-weights']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from roofline_grading.authoring import (
    COUNT,
    FLOPS_PER_MULTIPLY_ADD,
    MODEL,
    TOKENS,
    Exercise,
    at_shapes,
    earns,
    log_uniform,
    refused,
    whole_count,
)
from roofline_grading.matmuls import approximate_intensity, critical
from roofline_grading.misconceptions import INT8_TWO_BYTES, NO_FACTOR_TWO
from roofline_grading.questions import FunctionQuestion, Misconception, Mistake
from rooflinekit.costs import batched_matmul_cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch
from rooflinekit.words import N_

from . import answers, given

__all__ = ["SHARED_WEIGHTS", "exercise"]

SHARED_WEIGHTS = Misconception(
    "shared-weights",
    N_(
        "This matches treating the weights as one matrix shared by the whole batch, as in an ordinary "
        "matmul (an intensity of about 2B). Here every example has its own D x F weight matrix, so the "
        "weight bytes grow with B too (B*D*F of them) and the intensity stays about 2 whatever B is."
    ),
)
OWN_MATRIX = N_("is multiplied by its own matrix Y[b]")
"""The statement's words that rule out one weight matrix for the whole batch."""


def _shared(B: Any, D: Any, F: Any) -> Any:
    """The cost of an ordinary int8 matmul: one weight matrix for the whole batch."""
    return matmul_cost(B, D, F, **given.INT8)


def _random_ex4(rng: np.random.Generator) -> tuple[int, int, float, float]:
    """(D, F, peak, bandwidth), with chips whose critical intensity is sometimes below 2."""
    d, f = (int(v) for v in rng.integers(64, 16385, size=2))
    bandwidth = log_uniform(rng, 1e11, 1e13)
    return d, f, bandwidth * log_uniform(rng, 0.5, 1000), bandwidth


def _none_as_largest(D: Any, F: Any, peak: float, bandwidth: float) -> float:
    """``largest``, the search's upper end (2**40), where no batch is compute-bound."""
    found = answers.critical_batch(D, F, peak, bandwidth)
    return float(2**40) if np.isinf(found) else found


def bytes_read() -> FunctionQuestion:
    """(a) The bytes read."""
    return at_shapes(
        "ex4.bytes_read",
        answers.bytes_read,
        COUNT,
        Mistake(SHARED_WEIGHTS, lambda B, D, F: _shared(B, D, F).bytes_read),
        Mistake(INT8_TWO_BYTES, lambda B, D, F: batched_matmul_cost(B, D, F).bytes_read),
        readings=(
            whole_count(answers.bytes_read),
            refused("shared-weights", "one weight matrix for the whole batch, as in an ordinary matmul",
                    lambda B, D, F: _shared(B, D, F).bytes_read, OWN_MATRIX, SHARED_WEIGHTS),
        ),
    )


def bytes_written() -> FunctionQuestion:
    """(b) The bytes written."""
    return at_shapes(
        "ex4.bytes_written",
        answers.bytes_written,
        COUNT,
        Mistake(INT8_TWO_BYTES, lambda B, D, F: batched_matmul_cost(B, D, F).bytes_written),
        readings=(whole_count(answers.bytes_written),),
    )


def ops() -> FunctionQuestion:
    """(c) The operations."""
    return at_shapes(
        "ex4.ops",
        answers.ops,
        COUNT,
        Mistake(NO_FACTOR_TWO, lambda B, D, F: answers.ops(B, D, F) / FLOPS_PER_MULTIPLY_ADD),
        readings=(
            whole_count(answers.ops),
            refused("exact-adds", "D multiplies and D - 1 adds per element of Z",
                    lambda B, D, F: answers.ops(B, D, F) - np.asarray(B, dtype=np.float64) * F,
                    N_("Each element of Z is a dot product of D multiply-adds")),
        ),
    )


def intensity() -> FunctionQuestion:
    """(d) The arithmetic intensity."""
    return at_shapes(
        "ex4.intensity",
        answers.intensity,
        MODEL,
        Mistake(SHARED_WEIGHTS, lambda B, D, F: _shared(B, D, F).intensity),
        Mistake(SHARED_WEIGHTS, approximate_intensity),
        Mistake(INT8_TWO_BYTES, lambda B, D, F: batched_matmul_cost(B, D, F).intensity),
        Mistake(NO_FACTOR_TWO, lambda B, D, F: answers.intensity(B, D, F) / FLOPS_PER_MULTIPLY_ADD),
        readings=(
            refused("shared-weights", "one weight matrix for the whole batch, as in an ordinary matmul",
                    lambda B, D, F: _shared(B, D, F).intensity, OWN_MATRIX, SHARED_WEIGHTS),
        ),
    )


def critical_batch() -> FunctionQuestion:
    """(e) The smallest compute-bound batch, or infinity if there is none."""
    return FunctionQuestion(
        "ex4.critical_batch",
        "(D, F, int8_peak, hbm_bandwidth)",
        answers.critical_batch,
        TOKENS,
        cases=((*given.D_F, given.CHIP.peak("int8"), given.CHIP.hbm_bandwidth), (4096, 4096, 1e12, 1e12)),
        random_case=_random_ex4,
        mistakes=(
            Mistake(
                SHARED_WEIGHTS,
                lambda D, F, peak, bw: matmul_critical_batch(D, F, peak=peak, bandwidth=bw, **given.INT8),
            ),
            Mistake(SHARED_WEIGHTS, lambda D, F, peak, bw: critical(peak, bw)),
        ),
        readings=(
            earns("float-infinity", "float('inf') where no batch is compute-bound",
                  lambda D, F, peak, bw: float(answers.critical_batch(D, F, peak, bw))),
            refused("largest", "the search's upper end, largest, where no batch is compute-bound",
                    _none_as_largest, N_("if none is, return `math.inf`")),
            refused("shared-weights", "the 2B rule of an ordinary matmul",
                    lambda D, F, peak, bw: critical(peak, bw), OWN_MATRIX, SHARED_WEIGHTS),
        ),
    )


def exercise() -> Exercise:
    """Exercise 4's answer key: its parts in the statement's order, the misconception it exists
    to catch, and the figures its statement gives."""
    return Exercise(
        "ex4_batched_matmul",
        questions=(bytes_read(), bytes_written(), ops(), intensity(), critical_batch()),
        misconceptions=(SHARED_WEIGHTS,),
        given=(given.CHIP.peak("int8"), given.CHIP.hbm_bandwidth, *given.D_F),
    )
