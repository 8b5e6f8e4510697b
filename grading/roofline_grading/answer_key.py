"""The answer key of the graded exercises: what is right, within which tolerance, and
what the known mistakes give.

Each exercise holds one question per graded part. Every answer is a function (of the sizes,
or of the figures the exercise gives) or a figure, never a bare number: a number printed in
the book or the source earns nothing, because the hidden tests call the student's function at
the exercise's own figures *and* at others drawn from a secret seed. Every reference (the model
answers, :mod:`roofline_grading.reference`) and every known mistake is computed by ``rooflinekit``
under the stated (or mistaken) assumption, at the figures the statements give
(``rooflinekit.exercises``), never typed in.

Tolerances, and why each is right:

- ``COUNT`` (bytes, operations): relative 1e-9. Whole numbers, exact in float64 at the sizes
  tested; 1e-9 leaves room only for rounding when computed in floats.
- ``MODEL`` (intensities, times, FLOP/s, bandwidths): relative 1e-6. A few multiplications and
  divisions of the given figures in any order; never a different figure.
- ``TOKENS`` (critical batches, crossovers): 1 token either way. A batch is a whole number of
  tokens, so rounding down, up or keeping decimals are all right; every known mistake is further away.
- ``REPLICAS`` (a batch over many replicas): relative 1e-2, so each replica's batch may be rounded
  to a whole token (the batches are 100 tokens or more).
- ``TILE``, ``WIDTH`` (a tile's side, the width D of exercise 6): 1 row or element either way, for
  the same reason as ``TOKENS``.

Beside its known mistakes, each question declares its *readings* (:class:`Reading`): the ways a
careful student may read its statement, what such a student writes, and whether it earns the
point (its tolerance accepts it at every input) or the statement rules it out in so many words
(the words are given, and tests/grading/test_readings.py finds them in the statement, in every
language, and submits every reading).

>>> question("ex5.critical_batch").reference(1.979e15, 3.35e12) > 295
True
>>> [m.misconception.name for m in question("ex1.critical_batch").mistakes]
['int8-two-bytes', 'no-factor-two', 'bf16-peak-for-int8', 'text-bandwidth']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from roofline_grading import reference as ref
from roofline_grading.authoring import (
    COUNT,
    MODEL,
    REPLICAS,
    TILE,
    TOKENS,
    WIDTH,
    WORD,
    Exercise,
)
from roofline_grading.authoring import at_shapes as _sizes
from roofline_grading.authoring import earns as _earns
from roofline_grading.authoring import random_chip as _random_chip
from roofline_grading.authoring import refused as _refused
from roofline_grading.authoring import roundings as _roundings
from roofline_grading.authoring import whole_count as _whole_count
from roofline_grading.exercises import folder_exercises
from roofline_grading.misconceptions import (
    APPROXIMATE_INTENSITY,
    INT8_PEAK_FOR_BF16,
    INT8_TWO_BYTES,
    NO_FACTOR_TWO,
)
from roofline_grading.questions import (
    Curve,
    FigureQuestion,
    FunctionQuestion,
    Misconception,
    Mistake,
    Question,
    Reading,
)
from rooflinekit import exercises as stated
from rooflinekit.analysis import Roofline, analyze, attainable_flops
from rooflinekit.catalog import Chip, chip
from rooflinekit.costs import Cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch_approx
from rooflinekit.fmt import num
from rooflinekit.words import N_

__all__ = [
    "COUNT",
    "EXERCISES",
    "MODEL",
    "REPLICAS",
    "TILE",
    "TOKENS",
    "WIDTH",
    "WORD",
    "Exercise",
    "number",
    "question",
]

FLOPS_PER_MULTIPLY_ADD = 2
"""Each term of a dot product is a multiply and an add."""
TEXT_CHIP: Chip = chip("tpu-v5e")
"""The TPU v5e with the bandwidth the text uses (8.2e11 B/s), not exercise 1's 8.1e11."""
TERABYTE = 1e12
"""A terabyte in a datasheet's TB/s: 10**12 bytes."""


# --- Random inputs -----------------------------------------------------------------------


def _random_two_peaks(rng: np.random.Generator) -> tuple[float, float, float]:
    """(int8 peak, bf16 peak, bandwidth): the integer units 1.5 to 4 times faster."""
    peak, bandwidth = _random_chip(rng)
    return peak, peak / float(rng.uniform(1.5, 4.0)), bandwidth


# --- Readings ---------------------------------------------------------------------------


# --- Misconceptions, in the words a student reads ---------------------------------------

BF16_PEAK_FOR_INT8 = Misconception(
    "bf16-peak-for-int8",
    N_(
        "This matches using the bf16 peak ({bf16_peak} FLOP/s in the exercise). This matmul runs in int8,"
        " on the int8 units, whose peak is the int8 figure."
    ),
    (("bf16_peak", num(stated.EX1_CHIP.peak("bf16"))),),
)
TEXT_BANDWIDTH = Misconception(
    "text-bandwidth",
    N_(
        "This matches using {text_bandwidth} B/s, the bandwidth the text uses; this exercise gives "
        "{bandwidth} B/s."
    ),
    (("text_bandwidth", num(TEXT_CHIP.hbm_bandwidth)), ("bandwidth", num(stated.EXERCISE_1_HBM_BANDWIDTH))),
)
LOWER_BOUND_IS_MIN = Misconception(
    "lower-bound-is-min",
    N_(
        "This matches taking the smaller of T_math and T_comms. Even with perfect overlap the operation "
        "waits for the slower of the two: the lower bound is max(T_math, T_comms)."
    ),
)
LOWER_BOUND_IS_SUM = Misconception(
    "lower-bound-is-sum",
    N_(
        "This matches adding T_math and T_comms: that is the upper bound, with no overlap. The lower "
        "bound assumes perfect overlap: max(T_math, T_comms)."
    ),
)
UPPER_BOUND_IS_MAX = Misconception(
    "upper-bound-is-max",
    N_(
        "This matches taking the larger of T_math and T_comms: that is the lower bound, with perfect "
        "overlap. With no overlap at all the two times add up: T_math + T_comms."
    ),
)
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
    (("bandwidth", num(stated.EXERCISE_1_HBM_BANDWIDTH)),),
)
APPROXIMATE_BYTES = Misconception(
    "approximate-bytes",
    N_(
        "This matches the B << D, F approximation: counting only the weights' bytes, so the intensity is "
        "about 2B and every curve reaches the peak near B = {batch}. The exercise asks for exact bytes: "
        "the activations (2BD) and the output (2BF) count too, and they matter once B is not small next "
        "to D and F."
    ),
    (("batch", f"{ref.ex2_critical_batch():.0f}"),),
)
# --- Exercise 1: int8[B,D] . int8[D,F] -> int8[B,F] ----------------------------------


def _ex1_cost(B: Any, D: Any, F: Any, *, element: str = "int8", per_multiply_add: int = 2) -> Cost:
    """Exercise 1's cost, or what a student gets with the wrong element size or op count."""
    cost = matmul_cost(B, D, F, x=element, w=element, out=element)
    return Cost(cost.flops * per_multiply_add / FLOPS_PER_MULTIPLY_ADD, cost.bytes_read, cost.bytes_written)


def _ex1_roofline(
    B: Any,
    D: Any,
    F: Any,
    *,
    element: str = "int8",
    per_multiply_add: int = 2,
    compute: str = "int8",
    on: Chip = stated.EX1_CHIP,
) -> Roofline:
    return analyze(
        _ex1_cost(B, D, F, element=element, per_multiply_add=per_multiply_add), on, compute=compute
    )


def _ex1_setups(field: Callable[[Roofline], Any], *shown: Misconception) -> tuple[Mistake, ...]:
    """The same quantity (``field`` of the roofline) under each of exercise 1's misconceptions
    (only those in ``shown``, if given: the others cannot change it)."""
    setups = (
        Mistake(INT8_TWO_BYTES, lambda B, D, F: field(_ex1_roofline(B, D, F, element="bf16"))),
        Mistake(BF16_PEAK_FOR_INT8, lambda B, D, F: field(_ex1_roofline(B, D, F, compute="bf16"))),
        Mistake(NO_FACTOR_TWO, lambda B, D, F: field(_ex1_roofline(B, D, F, per_multiply_add=1))),
        Mistake(TEXT_BANDWIDTH, lambda B, D, F: field(_ex1_roofline(B, D, F, on=TEXT_CHIP))),
    )
    return tuple(m for m in setups if not shown or m.misconception in shown)


def _approximate_intensity(B: Any, D: Any, F: Any) -> Any:
    """``2B / 1``: only the weights' bytes counted (int8 weights in exercises 1 to 3)."""
    return FLOPS_PER_MULTIPLY_ADD * np.asarray(B, dtype=np.float64)


def _bound_of(roofline: Roofline) -> str:
    return str(roofline.bound)


def _critical(peak: float, bandwidth: float, weight: str = "int8") -> float:
    return matmul_critical_batch_approx(peak=peak, bandwidth=bandwidth, w=weight)


def _ex1_exact_adds(B: Any, D: Any, F: Any) -> Any:
    """D multiplies and D - 1 adds for each element of Z: one add fewer than the multiply-adds."""
    return ref.ex1_cost(B, D, F).flops - np.asarray(B, dtype=np.float64) * F


def _ex1_t_comms_read(B: Any, D: Any, F: Any) -> Any:
    """The time to read X and Y alone, Z's write left out."""
    return ref.ex1_cost(B, D, F).bytes_read / stated.EXERCISE_1_HBM_BANDWIDTH


def _ex1_by_intensity(B: Any, D: Any, F: Any) -> str:
    """The exact intensity against the chip's critical intensity (the int8 peak over the bandwidth)."""
    critical = stated.EX1_CHIP.peak("int8") / stated.EXERCISE_1_HBM_BANDWIDTH
    return "compute" if float(ref.ex1_cost(B, D, F).intensity) > critical else "memory"


EX1_READINGS: dict[str, tuple[Reading, ...]] = {
    "bytes_read": (
        _whole_count(lambda B, D, F: ref.ex1_cost(B, D, F).bytes_read),
        _refused("read-and-written", "every byte that crosses, Z's included",
                 lambda B, D, F: ref.ex1_cost(B, D, F).bytes, N_("reads from HBM (all of X and all of Y)")),
    ),
    "bytes_written": (_whole_count(lambda B, D, F: ref.ex1_cost(B, D, F).bytes_written),),
    "ops": (
        _whole_count(lambda B, D, F: ref.ex1_cost(B, D, F).flops),
        _refused("exact-adds", "D multiplies and D - 1 adds per element of Z",
                 _ex1_exact_adds, N_("Each element of Z is a dot product of D multiply-adds")),
        _refused("one-per-multiply-add", "one operation per multiply-add, as an instruction count would",
                 lambda B, D, F: _ex1_cost(B, D, F, per_multiply_add=1).flops,
                 N_("count each multiply-add as two operations"), NO_FACTOR_TWO),
    ),
    "intensity": (
        _refused("approximate", "the B << D, F intensity of the chapters, about 2B",
                 _approximate_intensity, N_("without assuming that B is small next to D and F"),
                 APPROXIMATE_INTENSITY),
        _refused("bytes-read", "operations per byte read, the write left out",
                 lambda B, D, F: ref.ex1_cost(B, D, F).flops / ref.ex1_cost(B, D, F).bytes_read,
                 N_("operations per byte moved (read and written)")),
    ),
    "critical_batch": (
        *_roundings(lambda int8, bf16, bw: ref.ex1_critical_batch(int8, bw), "tokens"),
        _refused("bf16-peak", "the bf16 peak, the datasheet's headline figure",
                 lambda int8, bf16, bw: _critical(bf16, bw),
                 N_("the peak of the units this matmul's math runs on"), BF16_PEAK_FOR_INT8),
    ),
    "t_math": (
        _refused("bf16-peak", "the math at the bf16 peak",
                 lambda B, D, F: _ex1_roofline(B, D, F, compute="bf16").t_math,
                 N_("the time the math takes at the int8 peak"), BF16_PEAK_FOR_INT8),
    ),
    "t_comms": (
        _refused("bytes-read", "the time to read X and Y, Z's write left out",
                 _ex1_t_comms_read, N_("the time moving the bytes of (a), read and written, takes")),
    ),
    "t_lower": (
        _refused("smaller-time", "the smaller of the two times, which is also a lower bound, if a loose one",
                 lambda B, D, F: np.minimum(_ex1_roofline(B, D, F).t_math, _ex1_roofline(B, D, F).t_comms),
                 N_("the runtime if math and data movement overlap perfectly"), LOWER_BOUND_IS_MIN),
    ),
    "t_upper": (
        _refused("larger-time", "the larger of the two times",
                 lambda B, D, F: _ex1_roofline(B, D, F).t_lower,
                 N_("the runtime if they do not overlap at all"), UPPER_BOUND_IS_MAX),
    ),
    "limited_by": (
        _earns("intensity", "the exact intensity against the chip's critical intensity", _ex1_by_intensity),
        _refused("critical-batch", "B against (d)'s critical batch, which assumes B is small next to D and F",
                 lambda B, D, F: "compute" if ref.ex1_critical_batch() < B else "memory",
                 N_("not with the critical batch of (d)")),
    ),
}
"""Exercise 1's readings, by question."""


EX1 = Exercise(
    "ex1_int8_matmul",
    questions=(
        _sizes(
            "ex1.bytes_read",
            lambda B, D, F: ref.ex1_cost(B, D, F).bytes_read,
            COUNT,
            Mistake(INT8_TWO_BYTES, lambda B, D, F: _ex1_cost(B, D, F, element="bf16").bytes_read),
            readings=EX1_READINGS["bytes_read"],
        ),
        _sizes(
            "ex1.bytes_written",
            lambda B, D, F: ref.ex1_cost(B, D, F).bytes_written,
            COUNT,
            Mistake(INT8_TWO_BYTES, lambda B, D, F: _ex1_cost(B, D, F, element="bf16").bytes_written),
            readings=EX1_READINGS["bytes_written"],
        ),
        _sizes(
            "ex1.ops",
            lambda B, D, F: ref.ex1_cost(B, D, F).flops,
            COUNT,
            Mistake(NO_FACTOR_TWO, lambda B, D, F: _ex1_cost(B, D, F, per_multiply_add=1).flops),
            readings=EX1_READINGS["ops"],
        ),
        _sizes(
            "ex1.intensity",
            lambda B, D, F: ref.ex1_cost(B, D, F).intensity,
            MODEL,
            Mistake(INT8_TWO_BYTES, lambda B, D, F: _ex1_cost(B, D, F, element="bf16").intensity),
            Mistake(NO_FACTOR_TWO, lambda B, D, F: _ex1_cost(B, D, F, per_multiply_add=1).intensity),
            Mistake(APPROXIMATE_INTENSITY, _approximate_intensity),
            readings=EX1_READINGS["intensity"],
        ),
        FunctionQuestion(
            "ex1.critical_batch",
            "(int8_peak, bf16_peak, hbm_bandwidth)",
            lambda int8, bf16, bw: ref.ex1_critical_batch(int8, bw),
            TOKENS,
            cases=(
                (stated.EX1_CHIP.peak("int8"), stated.EX1_CHIP.peak("bf16"), stated.EXERCISE_1_HBM_BANDWIDTH),
                (1e15, 4e14, 2e12),
            ),
            random_case=_random_two_peaks,
            mistakes=(
                Mistake(INT8_TWO_BYTES, lambda int8, bf16, bw: _critical(int8, bw, "bf16")),
                Mistake(NO_FACTOR_TWO, lambda int8, bf16, bw: FLOPS_PER_MULTIPLY_ADD * _critical(int8, bw)),
                Mistake(BF16_PEAK_FOR_INT8, lambda int8, bf16, bw: _critical(bf16, bw)),
                Mistake(TEXT_BANDWIDTH, lambda int8, bf16, bw: _critical(int8, TEXT_CHIP.hbm_bandwidth)),
            ),
            readings=EX1_READINGS["critical_batch"],
        ),
        _sizes(
            "ex1.t_math",
            lambda B, D, F: _ex1_roofline(B, D, F).t_math,
            MODEL,
            *_ex1_setups(lambda r: r.t_math, BF16_PEAK_FOR_INT8, NO_FACTOR_TWO),
            readings=EX1_READINGS["t_math"],
        ),
        _sizes(
            "ex1.t_comms",
            lambda B, D, F: _ex1_roofline(B, D, F).t_comms,
            MODEL,
            *_ex1_setups(lambda r: r.t_comms, INT8_TWO_BYTES, TEXT_BANDWIDTH),
            readings=EX1_READINGS["t_comms"],
        ),
        _sizes(
            "ex1.t_lower",
            lambda B, D, F: _ex1_roofline(B, D, F).t_lower,
            MODEL,
            *_ex1_setups(lambda r: r.t_lower),
            Mistake(
                LOWER_BOUND_IS_MIN,
                lambda B, D, F: np.minimum(_ex1_roofline(B, D, F).t_math, _ex1_roofline(B, D, F).t_comms),
            ),
            Mistake(LOWER_BOUND_IS_SUM, lambda B, D, F: _ex1_roofline(B, D, F).t_upper),
            readings=EX1_READINGS["t_lower"],
        ),
        _sizes(
            "ex1.t_upper",
            lambda B, D, F: _ex1_roofline(B, D, F).t_upper,
            MODEL,
            *_ex1_setups(lambda r: r.t_upper),
            Mistake(UPPER_BOUND_IS_MAX, lambda B, D, F: _ex1_roofline(B, D, F).t_lower),
            readings=EX1_READINGS["t_upper"],
        ),
        _sizes(
            "ex1.limited_by",
            lambda B, D, F: _bound_of(_ex1_roofline(B, D, F)),
            WORD,
            *_ex1_setups(_bound_of),
            returns="word",
            choices=("compute", "memory"),
            readings=EX1_READINGS["limited_by"],
        ),
    ),
    misconceptions=(INT8_TWO_BYTES, BF16_PEAK_FOR_INT8, NO_FACTOR_TWO),
    given=(
        stated.EX1_CHIP.peak("int8"),
        stated.EX1_CHIP.peak("bf16"),
        stated.EXERCISE_1_HBM_BANDWIDTH,
        *stated.EX1_SHAPE,
    ),
)


# --- Exercise 2: bf16[B,D] . int8[D,F] -> bf16[B,F], bf16 compute ----------------------

ALL_BF16: dict[str, str] = {"x": "bf16", "w": "bf16", "out": "bf16"}
EX2_FIGURES = (stated.EX2_CHIP.peak("bf16"), stated.EX2_CHIP.peak("int8"), stated.EX2_CHIP.hbm_bandwidth)


def _ex2_one_byte_output(B: Any, D: Any, F: Any) -> Cost:
    """Exercise 2's cost with 1 byte per output element (what ``bytes_written`` gives with that mistake)."""
    cost = ref.ex2_cost(B, D, F)
    return Cost(cost.flops, cost.bytes_read, matmul_cost(B, D, F, **stated.INT8).bytes_written)


def _random_ex2(rng: np.random.Generator) -> tuple[float, float, float]:
    """(bf16 peak, int8 peak, bandwidth)."""
    int8, bf16, bandwidth = _random_two_peaks(rng)
    return bf16, int8, bandwidth


def _ex2_reads_only(B: Any, D: Any, F: Any) -> Any:
    cost = ref.ex2_cost(B, D, F)
    return cost.flops / cost.bytes_read


EX2_READINGS: dict[str, tuple[Reading, ...]] = {
    "bytes_read": (
        _whole_count(lambda B, D, F: ref.ex2_cost(B, D, F).bytes_read),
        _refused("bf16-weights", "the weights read as the bf16 numbers the math uses",
                 lambda B, D, F: matmul_cost(B, D, F, **ALL_BF16).bytes_read,
                 N_("the chip converts each weight to bf16 after reading it"), TWO_BYTE_WEIGHTS),
    ),
    "bytes_written": (
        _whole_count(lambda B, D, F: ref.ex2_cost(B, D, F).bytes_written),
        _refused("int8-output", "an int8 output, like the weights",
                 lambda B, D, F: matmul_cost(B, D, F, **stated.INT8).bytes_written,
                 N_("Z (B×F, bf16) is written once"), ONE_BYTE_OUTPUT),  # noqa: RUF001 (the statement's sign)
    ),
    "intensity": (
        _refused("approximate", "the B << D, F intensity of the chapters, about 2B",
                 _approximate_intensity, N_("without assuming that B is small next to D and F"),
                 APPROXIMATE_INTENSITY),
        _refused("bytes-read", "FLOPs per byte read, the write left out",
                 _ex2_reads_only, N_("FLOPs per byte moved (read and written)")),
    ),
    "compute_peak": (
        _refused("int8-peak", "the int8 peak, since the weights are int8",
                 lambda bf16, int8: int8, N_("the math is done in bf16"), INT8_PEAK_FOR_BF16),
    ),
    "critical_batch": (
        *_roundings(lambda bf16, int8, bw: ref.ex2_critical_batch(bf16, bw), "tokens"),
        _refused("int8-peak", "the int8 peak, since the weights are int8",
                 lambda bf16, int8, bw: _critical(int8, bw), N_("the peak of the units the math runs on"),
                 INT8_PEAK_FOR_BF16),
    ),
}
"""Exercise 2's readings, by question."""


EX2 = Exercise(
    "ex2_int8_weights",
    questions=(
        _sizes(
            "ex2.bytes_read",
            lambda B, D, F: ref.ex2_cost(B, D, F).bytes_read,
            COUNT,
            Mistake(TWO_BYTE_WEIGHTS, lambda B, D, F: matmul_cost(B, D, F, **ALL_BF16).bytes_read),
            readings=EX2_READINGS["bytes_read"],
        ),
        _sizes(
            "ex2.bytes_written",
            lambda B, D, F: ref.ex2_cost(B, D, F).bytes_written,
            COUNT,
            Mistake(ONE_BYTE_OUTPUT, lambda B, D, F: matmul_cost(B, D, F, **stated.INT8).bytes_written),
            readings=EX2_READINGS["bytes_written"],
        ),
        _sizes(
            "ex2.intensity",
            lambda B, D, F: ref.ex2_cost(B, D, F).intensity,
            MODEL,
            Mistake(TWO_BYTE_WEIGHTS, lambda B, D, F: matmul_cost(B, D, F, **ALL_BF16).intensity),
            Mistake(ONE_BYTE_OUTPUT, lambda B, D, F: _ex2_one_byte_output(B, D, F).intensity),
            Mistake(APPROXIMATE_INTENSITY, _approximate_intensity),
            readings=EX2_READINGS["intensity"],
        ),
        FunctionQuestion(
            "ex2.compute_peak",
            "(bf16_peak, int8_peak)",
            lambda bf16, int8: bf16,
            MODEL,
            cases=(EX2_FIGURES[:2], (2e14, 8e14)),
            random_case=lambda rng: _random_ex2(rng)[:2],
            mistakes=(Mistake(INT8_PEAK_FOR_BF16, lambda bf16, int8: int8),),
            readings=EX2_READINGS["compute_peak"],
        ),
        FunctionQuestion(
            "ex2.critical_batch",
            "(bf16_peak, int8_peak, hbm_bandwidth)",
            lambda bf16, int8, bw: ref.ex2_critical_batch(bf16, bw),
            TOKENS,
            cases=(EX2_FIGURES, (4e14, 8e14, 1e12)),
            random_case=_random_ex2,
            mistakes=(
                Mistake(INT8_PEAK_FOR_BF16, lambda bf16, int8, bw: _critical(int8, bw)),
                Mistake(TWO_BYTE_WEIGHTS, lambda bf16, int8, bw: _critical(bf16, bw, "bf16")),
                Mistake(
                    EXERCISE_1_BANDWIDTH,
                    lambda bf16, int8, bw: _critical(bf16, stated.EXERCISE_1_HBM_BANDWIDTH),
                ),
            ),
            readings=EX2_READINGS["critical_batch"],
        ),
    ),
    misconceptions=(INT8_PEAK_FOR_BF16, TWO_BYTE_WEIGHTS),
    given=EX2_FIGURES,
)


# --- Exercise 3: the plot of exercise 2's setup with exact bytes ----------------------


def ex3_approximate_attainable(B: Any, D: Any) -> Any:
    """Exercise 3's curve with only the weights' bytes counted (the B << D, F approximation)."""
    return attainable_flops(
        _approximate_intensity(B, D, D), stated.EX2_CHIP.peak("bf16"), stated.EX2_CHIP.hbm_bandwidth
    )


def _ex3_int8_peak(B: Any, D: Any) -> Any:
    return attainable_flops(
        ref.ex2_cost(B, D, D).intensity, stated.EX2_CHIP.peak("int8"), stated.EX2_CHIP.hbm_bandwidth
    )


def _random_curve(rng: np.random.Generator) -> tuple[Any, int]:
    """Fifty batch sizes from 1 to 2047 and a width D = F from 256 to 16384."""
    return np.sort(rng.integers(1, 2048, size=50)), int(rng.integers(256, 16385))


def _curve(size: int) -> Curve:
    return Curve(
        label=str(size),
        description=f"D = F = {size}",
        x=lambda: stated.EX3_BATCHES,
        y=lambda: ref.ex3_attainable(stated.EX3_BATCHES, size),
        mistakes=(
            Mistake(APPROXIMATE_BYTES, lambda: ex3_approximate_attainable(stated.EX3_BATCHES, size)),
            Mistake(INT8_PEAK_FOR_BF16, lambda: _ex3_int8_peak(stated.EX3_BATCHES, size)),
        ),
    )


def _figure(aspect: str) -> FigureQuestion:
    return FigureQuestion(
        f"ex3.fig_{aspect}",
        "fig",
        aspect,
        curves=tuple(_curve(size) for size in stated.EX3_SIZES),
        tolerance=MODEL,
        x_label_words=("batch", "B", "tokens", "배치", "토큰"),  # a Korean label may say it in Korean
        y_label_words=("FLOP",),
    )


EX3_READINGS: dict[str, tuple[Reading, ...]] = {
    "attainable": (
        _refused("approximate-bytes", "the weights' bytes alone, as for B << D, F",
                 ex3_approximate_attainable, N_("count the bytes exactly, activations and output included"),
                 APPROXIMATE_BYTES),
        _refused("int8-peak", "the int8 peak, since the weights are int8",
                 _ex3_int8_peak, N_("with bf16 math"), INT8_PEAK_FOR_BF16),
        _refused("tflops", "TFLOP/s, the unit the figure may use",
                 lambda B, D: ref.ex3_attainable(B, D) / TERABYTE,
                 N_("in FLOP/s (scale it only in the figure")),
    ),
    "crossover": (
        *_roundings(lambda D: ref.ex3_crossover(D), "tokens"),
        _refused("approximate-bytes", "the weights' bytes alone, as for B << D, F",
                 lambda D: ref.ex2_critical_batch(),
                 N_("count the bytes exactly, activations and output included"), APPROXIMATE_BYTES),
    ),
}
"""Exercise 3's readings, by question."""


EX3 = Exercise(
    "ex3_roofline_plot",
    questions=(
        FunctionQuestion(
            "ex3.attainable",
            "(B, D)",
            ref.ex3_attainable,
            MODEL,
            cases=(
                (stated.EX3_BATCHES, stated.EX3_SIZES[0]),
                (stated.EX3_BATCHES, stated.EX3_SIZES[1]),
                (128, 4096),
                (1, 1024),
            ),
            random_case=_random_curve,
            random_count=3,
            mistakes=(
                Mistake(APPROXIMATE_BYTES, ex3_approximate_attainable),
                Mistake(INT8_PEAK_FOR_BF16, _ex3_int8_peak),
            ),
            readings=EX3_READINGS["attainable"],
        ),
        FunctionQuestion(
            "ex3.crossover",
            "(D)",
            lambda D: ref.ex3_crossover(D),
            TOKENS,
            cases=tuple((size,) for size in stated.EX3_SIZES),
            random_case=lambda rng: (int(rng.integers(1024, 16385)),),
            mistakes=(
                Mistake(APPROXIMATE_BYTES, lambda D: ref.ex2_critical_batch()),
                Mistake(INT8_PEAK_FOR_BF16, lambda D: ref.ex3_crossover(D, compute="int8")),
            ),
            readings=EX3_READINGS["crossover"],
        ),
        _figure("curves"),
        _figure("curve_labels"),
        _figure("axis_labels"),
    ),
    misconceptions=(APPROXIMATE_BYTES,),
    given=(
        stated.EX2_CHIP.peak("bf16"),
        stated.EX2_CHIP.hbm_bandwidth,
        *stated.EX3_SIZES,
        int(stated.EX3_BATCHES[-1]),
    ),
    plots=True,
)


def number(notebook: str) -> int:
    """The exercise's number, from its notebook's prefix: ``number("ex10_tiles") == 10``."""
    return int(notebook.split("_")[0].removeprefix("ex"))


def _numbered(exercise: Exercise) -> int:
    return number(exercise.notebook)


EXERCISES: dict[str, Exercise] = {
    e.notebook: e for e in sorted((EX1, EX2, EX3, *folder_exercises()), key=_numbered)
}
"""Each graded notebook's file name (without ``.ipynb``) and its answer key."""


def question(qid: str) -> Question:
    """The question with id ``qid``, e.g. ``"ex1.bytes_read"`` (the id a hidden test records)."""
    prefix, _, _name = qid.partition(".")
    for notebook, exercise in EXERCISES.items():
        if notebook.split("_")[0] == prefix:
            for q in exercise.questions:
                if q.id == qid:
                    return q
    raise KeyError(f"no question {qid!r} in the answer key")
