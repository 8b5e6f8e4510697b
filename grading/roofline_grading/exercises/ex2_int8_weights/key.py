"""Exercise 2's answer key: each part's question, the known mistakes and the readings.

Each graded part is one function below that builds its question: the model answer
(:mod:`.answers`), the tolerance, the public cases (the shapes every function of the sizes is
asked at, and the statement's own figures, from :mod:`.given`), how a random case is drawn, the
known mistakes and the readings.

>>> [q.id for q in exercise().questions]
['ex2.bytes_read', 'ex2.bytes_written', 'ex2.intensity', 'ex2.compute_peak', 'ex2.critical_batch']
>>> [m.misconception.name for m in exercise().question("critical_batch").mistakes]
['int8-peak-for-bf16', 'two-byte-weights', 'exercise-1-bandwidth']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from roofline_grading.authoring import (
    COUNT,
    MODEL,
    TOKENS,
    Exercise,
    at_shapes,
    random_two_peaks,
    refused,
    roundings,
    whole_count,
)
from roofline_grading.matmuls import APPROXIMATE, approximate_intensity, critical
from roofline_grading.misconceptions import APPROXIMATE_INTENSITY, INT8_PEAK_FOR_BF16
from roofline_grading.questions import FunctionQuestion, Misconception, Mistake
from rooflinekit.costs import Cost, matmul_cost
from rooflinekit.exercises import INT8
from rooflinekit.fmt import num
from rooflinekit.words import N_

from . import answers, given

__all__ = ["EXERCISE_1_BANDWIDTH", "ONE_BYTE_OUTPUT", "TWO_BYTE_WEIGHTS", "exercise"]

TWO_BYTE_WEIGHTS = Misconception(
    "two-byte-weights",
    N_(
        "This matches counting 2 bytes per weight. The weights are int8, 1 byte each; only the "
        "activations and the output are bf16, 2 bytes each."
    ),
)
ONE_BYTE_OUTPUT = Misconception(
    "one-byte-output",
    N_("This matches counting 1 byte per output element. The output is bf16: 2 bytes each."),
)
EXERCISE_1_BANDWIDTH = Misconception(
    "exercise-1-bandwidth",
    N_("This matches using exercise 1's bandwidth ({bandwidth} B/s) instead of the bandwidth given."),
    (("bandwidth", num(given.EXERCISE_1_BANDWIDTH)),),
)
ALL_BF16: dict[str, str] = {"x": "bf16", "w": "bf16", "out": "bf16"}
FIGURES = (given.CHIP.peak("bf16"), given.CHIP.peak("int8"), given.CHIP.hbm_bandwidth)
"""(bf16 peak, int8 peak, bandwidth), as the statement gives them."""


def _one_byte_output(B: Any, D: Any, F: Any) -> Cost:
    """Exercise 2's cost with 1 byte per output element (what ``bytes_written`` gives with that mistake)."""
    cost = answers.cost(B, D, F)
    return Cost(cost.flops, cost.bytes_read, matmul_cost(B, D, F, **INT8).bytes_written)


def _random_figures(rng: np.random.Generator) -> tuple[float, float, float]:
    """(bf16 peak, int8 peak, bandwidth)."""
    int8, bf16, bandwidth = random_two_peaks(rng)
    return bf16, int8, bandwidth


def bytes_read() -> FunctionQuestion:
    """(a) The bytes read."""
    two_byte_weights = lambda B, D, F: matmul_cost(B, D, F, **ALL_BF16).bytes_read  # noqa: E731
    return at_shapes(
        "ex2.bytes_read",
        answers.bytes_read,
        COUNT,
        Mistake(TWO_BYTE_WEIGHTS, two_byte_weights),
        readings=(
            whole_count(answers.bytes_read),
            refused("bf16-weights", "the weights read as the bf16 numbers the math uses", two_byte_weights,
                    N_("the chip converts each weight to bf16 after reading it"), TWO_BYTE_WEIGHTS),
        ),
    )


def bytes_written() -> FunctionQuestion:
    """(a) The bytes written."""
    int8_output = lambda B, D, F: matmul_cost(B, D, F, **INT8).bytes_written  # noqa: E731
    return at_shapes(
        "ex2.bytes_written",
        answers.bytes_written,
        COUNT,
        Mistake(ONE_BYTE_OUTPUT, int8_output),
        readings=(
            whole_count(answers.bytes_written),
            refused("int8-output", "an int8 output, like the weights", int8_output,
                    N_("Z (B×F, bf16) is written once"), ONE_BYTE_OUTPUT),  # noqa: RUF001 (the statement's sign)
        ),
    )


def intensity() -> FunctionQuestion:
    """(b) The arithmetic intensity."""
    return at_shapes(
        "ex2.intensity",
        answers.intensity,
        MODEL,
        Mistake(TWO_BYTE_WEIGHTS, lambda B, D, F: matmul_cost(B, D, F, **ALL_BF16).intensity),
        Mistake(ONE_BYTE_OUTPUT, lambda B, D, F: _one_byte_output(B, D, F).intensity),
        Mistake(APPROXIMATE_INTENSITY, approximate_intensity),
        readings=(
            APPROXIMATE,
            refused("bytes-read", "FLOPs per byte read, the write left out",
                    lambda B, D, F: answers.cost(B, D, F).flops / answers.bytes_read(B, D, F),
                    N_("FLOPs per byte moved (read and written)")),
        ),
    )


def compute_peak() -> FunctionQuestion:
    """(c) Which peak limits the math."""
    return FunctionQuestion(
        "ex2.compute_peak",
        "(bf16_peak, int8_peak)",
        answers.compute_peak,
        MODEL,
        cases=(FIGURES[:2], (2e14, 8e14)),
        random_case=lambda rng: _random_figures(rng)[:2],
        mistakes=(Mistake(INT8_PEAK_FOR_BF16, lambda bf16, int8: int8),),
        readings=(
            refused("int8-peak", "the int8 peak, since the weights are int8",
                    lambda bf16, int8: int8, N_("the math is done in bf16"), INT8_PEAK_FOR_BF16),
        ),
    )


def critical_batch() -> FunctionQuestion:
    """(d) The critical batch, from the chip's two peaks and its bandwidth."""
    return FunctionQuestion(
        "ex2.critical_batch",
        "(bf16_peak, int8_peak, hbm_bandwidth)",
        lambda bf16, int8, bw: answers.critical_batch(bf16, bw),
        TOKENS,
        cases=(FIGURES, (4e14, 8e14, 1e12)),
        random_case=_random_figures,
        mistakes=(
            Mistake(INT8_PEAK_FOR_BF16, lambda bf16, int8, bw: critical(int8, bw)),
            Mistake(TWO_BYTE_WEIGHTS, lambda bf16, int8, bw: critical(bf16, bw, "bf16")),
            Mistake(EXERCISE_1_BANDWIDTH, lambda bf16, int8, bw: critical(bf16, given.EXERCISE_1_BANDWIDTH)),
        ),
        readings=(
            *roundings(lambda bf16, int8, bw: answers.critical_batch(bf16, bw), "tokens"),
            refused("int8-peak", "the int8 peak, since the weights are int8",
                    lambda bf16, int8, bw: critical(int8, bw), N_("the peak of the units the math runs on"),
                    INT8_PEAK_FOR_BF16),
        ),
    )


def exercise() -> Exercise:
    """Exercise 2's answer key: its parts in the statement's order, the misconceptions it exists
    to catch, and the figures its statement gives."""
    return Exercise(
        "ex2_int8_weights",
        questions=(bytes_read(), bytes_written(), intensity(), compute_peak(), critical_batch()),
        misconceptions=(INT8_PEAK_FOR_BF16, TWO_BYTE_WEIGHTS),
        given=FIGURES,
    )
