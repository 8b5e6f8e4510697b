"""Exercise 3's answer key: each part's question, the known mistakes and the readings.

Each graded part is one function below that builds its question: the model answer
(:mod:`.answers`), the tolerance, the public cases (the statement's own widths and batches first,
from :mod:`.given`), how a random case is drawn, the known mistakes and the readings. The figure's
three parts are asked of the same curves.

>>> [q.id for q in exercise().questions]
['ex3.attainable', 'ex3.crossover', 'ex3.fig_curves', 'ex3.fig_curve_labels', 'ex3.fig_axis_labels']
>>> APPROXIMATE_BYTES.values
(('batch', '120'),)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from roofline_grading.authoring import MODEL, TERABYTE, TOKENS, Exercise, refused, roundings
from roofline_grading.matmuls import approximate_intensity, critical
from roofline_grading.misconceptions import INT8_PEAK_FOR_BF16
from roofline_grading.questions import Curve, FigureQuestion, FunctionQuestion, Misconception, Mistake
from rooflinekit.analysis import attainable_flops
from rooflinekit.words import N_

from . import answers, given

__all__ = ["APPROXIMATE_BYTES", "exercise"]

APPROXIMATE_CROSSOVER = critical(given.CHIP.peak("bf16"), given.CHIP.hbm_bandwidth)
"""Where every curve reaches the peak if only the weights' bytes count: exercise 2's critical batch."""
APPROXIMATE_BYTES = Misconception(
    "approximate-bytes",
    N_(
        "This matches the B << D, F approximation: counting only the weights' bytes, so the intensity is "
        "about 2B and every curve reaches the peak near B = {batch}. The exercise asks for exact bytes: "
        "the activations (2BD) and the output (2BF) count too, and they matter once B is not small next "
        "to D and F."
    ),
    (("batch", f"{APPROXIMATE_CROSSOVER:.0f}"),),
)
EXACT_BYTES = N_("count the bytes exactly, activations and output included")
"""The statement's words that rule out counting the weights' bytes alone."""


def approximate_attainable(B: Any, D: Any) -> Any:
    """The curve with only the weights' bytes counted (the B << D, F approximation)."""
    return attainable_flops(approximate_intensity(B, D, D), given.CHIP.peak("bf16"), given.CHIP.hbm_bandwidth)


def _int8_peak(B: Any, D: Any) -> Any:
    return answers.attainable(B, D, compute="int8")


def _random_curve(rng: np.random.Generator) -> tuple[Any, int]:
    """Fifty batch sizes from 1 to 2047 and a width D = F from 256 to 16384."""
    return np.sort(rng.integers(1, 2048, size=50)), int(rng.integers(256, 16385))


def attainable() -> FunctionQuestion:
    """(a) The attainable FLOP/s."""
    return FunctionQuestion(
        "ex3.attainable",
        "(B, D)",
        answers.attainable,
        MODEL,
        cases=((given.BATCHES, given.SIZES[0]), (given.BATCHES, given.SIZES[1]), (128, 4096), (1, 1024)),
        random_case=_random_curve,
        random_count=3,
        mistakes=(
            Mistake(APPROXIMATE_BYTES, approximate_attainable),
            Mistake(INT8_PEAK_FOR_BF16, _int8_peak),
        ),
        readings=(
            refused("approximate-bytes", "the weights' bytes alone, as for B << D, F",
                    approximate_attainable, EXACT_BYTES, APPROXIMATE_BYTES),
            refused("int8-peak", "the int8 peak, since the weights are int8",
                    _int8_peak, N_("with bf16 math"), INT8_PEAK_FOR_BF16),
            refused("tflops", "TFLOP/s, the unit the figure may use",
                    lambda B, D: answers.attainable(B, D) / TERABYTE,
                    N_("in FLOP/s (scale it only in the figure")),
        ),
    )


def crossover() -> FunctionQuestion:
    """(b) Where each curve reaches the peak."""
    return FunctionQuestion(
        "ex3.crossover",
        "(D)",
        lambda D: answers.crossover(D),
        TOKENS,
        cases=tuple((size,) for size in given.SIZES),
        random_case=lambda rng: (int(rng.integers(1024, 16385)),),
        mistakes=(
            Mistake(APPROXIMATE_BYTES, lambda D: APPROXIMATE_CROSSOVER),
            Mistake(INT8_PEAK_FOR_BF16, lambda D: answers.crossover(D, compute="int8")),
        ),
        readings=(
            *roundings(lambda D: answers.crossover(D), "tokens"),
            refused("approximate-bytes", "the weights' bytes alone, as for B << D, F",
                    lambda D: APPROXIMATE_CROSSOVER, EXACT_BYTES, APPROXIMATE_BYTES),
        ),
    )


def _curve(size: int) -> Curve:
    return Curve(
        label=str(size),
        description=f"D = F = {size}",
        x=lambda: given.BATCHES,
        y=lambda: answers.attainable(given.BATCHES, size),
        mistakes=(
            Mistake(APPROXIMATE_BYTES, lambda: approximate_attainable(given.BATCHES, size)),
            Mistake(INT8_PEAK_FOR_BF16, lambda: _int8_peak(given.BATCHES, size)),
        ),
    )


def figure(aspect: str) -> FigureQuestion:
    """(c) The figure: its curves, their labels or its axes' labels (``aspect``)."""
    return FigureQuestion(
        f"ex3.fig_{aspect}",
        "fig",
        aspect,
        curves=tuple(_curve(size) for size in given.SIZES),
        tolerance=MODEL,
        x_label_words=("batch", "B", "tokens", "배치", "토큰"),  # a Korean label may say it in Korean
        y_label_words=("FLOP",),
    )


def exercise() -> Exercise:
    """Exercise 3's answer key: its parts in the statement's order, the misconception it exists
    to catch, and the figures its statement gives (its setup cell loads matplotlib too)."""
    return Exercise(
        "ex3_roofline_plot",
        questions=(
            attainable(), crossover(), figure("curves"), figure("curve_labels"), figure("axis_labels"),
        ),
        misconceptions=(APPROXIMATE_BYTES,),
        given=(given.CHIP.peak("bf16"), given.CHIP.hbm_bandwidth, *given.SIZES, int(given.BATCHES[-1])),
        plots=True,
    )
