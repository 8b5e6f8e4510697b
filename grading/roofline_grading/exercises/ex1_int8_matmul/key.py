"""Exercise 1's answer key: each part's question, the known mistakes and the readings.

Each graded part is one function below that builds its question: the model answer
(:mod:`.answers`), the tolerance, the public cases (the shapes every function of the sizes is
asked at, and the statement's own figures, from :mod:`.given`), how a random case is drawn, the
known mistakes and the readings.

>>> [q.id for q in exercise().questions][:3]
['ex1.bytes_read', 'ex1.bytes_written', 'ex1.ops']
>>> [m.misconception.name for m in exercise().question("critical_batch").mistakes]
['int8-two-bytes', 'no-factor-two', 'bf16-peak-for-int8', 'text-bandwidth']
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
    WORD,
    Exercise,
    at_shapes,
    earns,
    random_two_peaks,
    refused,
    roundings,
    whole_count,
)
from roofline_grading.matmuls import APPROXIMATE, approximate_intensity, critical
from roofline_grading.misconceptions import APPROXIMATE_INTENSITY, INT8_TWO_BYTES, NO_FACTOR_TWO
from roofline_grading.questions import FunctionQuestion, Misconception, Mistake
from rooflinekit.analysis import Roofline, analyze
from rooflinekit.catalog import Chip, chip
from rooflinekit.costs import Cost, matmul_cost
from rooflinekit.fmt import num
from rooflinekit.words import N_

from . import answers, given

__all__ = [
    "BF16_PEAK_FOR_INT8",
    "LOWER_BOUND_IS_MIN",
    "LOWER_BOUND_IS_SUM",
    "TEXT_BANDWIDTH",
    "UPPER_BOUND_IS_MAX",
    "exercise",
]

TEXT_CHIP: Chip = chip("tpu-v5e")
"""The TPU v5e with the bandwidth the text uses (8.2e11 B/s), not exercise 1's 8.1e11."""

BF16_PEAK_FOR_INT8 = Misconception(
    "bf16-peak-for-int8",
    N_(
        "This matches using the bf16 peak ({bf16_peak} FLOP/s in the exercise). This matmul runs in int8,"
        " on the int8 units, whose peak is the int8 figure."
    ),
    (("bf16_peak", num(given.CHIP.peak("bf16"))),),
)
TEXT_BANDWIDTH = Misconception(
    "text-bandwidth",
    N_(
        "This matches using {text_bandwidth} B/s, the bandwidth the text uses; this exercise gives "
        "{bandwidth} B/s."
    ),
    (("text_bandwidth", num(TEXT_CHIP.hbm_bandwidth)), ("bandwidth", num(given.HBM_BANDWIDTH))),
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


def _cost(B: Any, D: Any, F: Any, *, element: str = "int8", per_multiply_add: int = 2) -> Cost:
    """Exercise 1's cost, or what a student gets with the wrong element size or op count."""
    cost = matmul_cost(B, D, F, x=element, w=element, out=element)
    return Cost(cost.flops * per_multiply_add / FLOPS_PER_MULTIPLY_ADD, cost.bytes_read, cost.bytes_written)


def _roofline(
    B: Any,
    D: Any,
    F: Any,
    *,
    element: str = "int8",
    per_multiply_add: int = 2,
    compute: str = "int8",
    on: Chip = given.CHIP,
) -> Roofline:
    return analyze(_cost(B, D, F, element=element, per_multiply_add=per_multiply_add), on, compute=compute)


def _setups(field: Callable[[Roofline], Any], *shown: Misconception) -> tuple[Mistake, ...]:
    """The same quantity (``field`` of the roofline) under each of exercise 1's misconceptions
    (only those in ``shown``, if given: the others cannot change it)."""
    setups = (
        Mistake(INT8_TWO_BYTES, lambda B, D, F: field(_roofline(B, D, F, element="bf16"))),
        Mistake(BF16_PEAK_FOR_INT8, lambda B, D, F: field(_roofline(B, D, F, compute="bf16"))),
        Mistake(NO_FACTOR_TWO, lambda B, D, F: field(_roofline(B, D, F, per_multiply_add=1))),
        Mistake(TEXT_BANDWIDTH, lambda B, D, F: field(_roofline(B, D, F, on=TEXT_CHIP))),
    )
    return tuple(m for m in setups if not shown or m.misconception in shown)


def _bound_of(roofline: Roofline) -> str:
    return str(roofline.bound)


def _smaller_time(B: Any, D: Any, F: Any) -> Any:
    return np.minimum(_roofline(B, D, F).t_math, _roofline(B, D, F).t_comms)


def _by_intensity(B: Any, D: Any, F: Any) -> str:
    """The exact intensity against the chip's critical intensity (the int8 peak over the bandwidth)."""
    critical_intensity = given.CHIP.peak("int8") / given.HBM_BANDWIDTH
    return "compute" if float(answers.intensity(B, D, F)) > critical_intensity else "memory"


def bytes_read() -> FunctionQuestion:
    """(a) The bytes read."""
    return at_shapes(
        "ex1.bytes_read",
        answers.bytes_read,
        COUNT,
        Mistake(INT8_TWO_BYTES, lambda B, D, F: _cost(B, D, F, element="bf16").bytes_read),
        readings=(
            whole_count(answers.bytes_read),
            refused("read-and-written", "every byte that crosses, Z's included",
                    lambda B, D, F: answers.cost(B, D, F).bytes,
                    N_("reads from HBM (all of X and all of Y)")),
        ),
    )


def bytes_written() -> FunctionQuestion:
    """(a) The bytes written."""
    return at_shapes(
        "ex1.bytes_written",
        answers.bytes_written,
        COUNT,
        Mistake(INT8_TWO_BYTES, lambda B, D, F: _cost(B, D, F, element="bf16").bytes_written),
        readings=(whole_count(answers.bytes_written),),
    )


def ops() -> FunctionQuestion:
    """(b) The operations."""
    one_per_multiply_add = lambda B, D, F: _cost(B, D, F, per_multiply_add=1).flops  # noqa: E731
    return at_shapes(
        "ex1.ops",
        answers.ops,
        COUNT,
        Mistake(NO_FACTOR_TWO, one_per_multiply_add),
        readings=(
            whole_count(answers.ops),
            refused("exact-adds", "D multiplies and D - 1 adds per element of Z",
                    lambda B, D, F: answers.ops(B, D, F) - np.asarray(B, dtype=np.float64) * F,
                    N_("Each element of Z is a dot product of D multiply-adds")),
            refused("one-per-multiply-add", "one operation per multiply-add, as an instruction count would",
                    one_per_multiply_add, N_("count each multiply-add as two operations"), NO_FACTOR_TWO),
        ),
    )


def intensity() -> FunctionQuestion:
    """(c) The arithmetic intensity."""
    return at_shapes(
        "ex1.intensity",
        answers.intensity,
        MODEL,
        Mistake(INT8_TWO_BYTES, lambda B, D, F: _cost(B, D, F, element="bf16").intensity),
        Mistake(NO_FACTOR_TWO, lambda B, D, F: _cost(B, D, F, per_multiply_add=1).intensity),
        Mistake(APPROXIMATE_INTENSITY, approximate_intensity),
        readings=(
            APPROXIMATE,
            refused("bytes-read", "operations per byte read, the write left out",
                    lambda B, D, F: answers.ops(B, D, F) / answers.bytes_read(B, D, F),
                    N_("operations per byte moved (read and written)")),
        ),
    )


def critical_batch() -> FunctionQuestion:
    """(d) The critical batch, from the chip's two peaks and its bandwidth."""
    return FunctionQuestion(
        "ex1.critical_batch",
        "(int8_peak, bf16_peak, hbm_bandwidth)",
        lambda int8, bf16, bw: answers.critical_batch(int8, bw),
        TOKENS,
        cases=((given.CHIP.peak("int8"), given.CHIP.peak("bf16"), given.HBM_BANDWIDTH), (1e15, 4e14, 2e12)),
        random_case=random_two_peaks,
        mistakes=(
            Mistake(INT8_TWO_BYTES, lambda int8, bf16, bw: critical(int8, bw, "bf16")),
            Mistake(NO_FACTOR_TWO, lambda int8, bf16, bw: FLOPS_PER_MULTIPLY_ADD * critical(int8, bw)),
            Mistake(BF16_PEAK_FOR_INT8, lambda int8, bf16, bw: critical(bf16, bw)),
            Mistake(TEXT_BANDWIDTH, lambda int8, bf16, bw: critical(int8, TEXT_CHIP.hbm_bandwidth)),
        ),
        readings=(
            *roundings(lambda int8, bf16, bw: answers.critical_batch(int8, bw), "tokens"),
            refused("bf16-peak", "the bf16 peak, the datasheet's headline figure",
                    lambda int8, bf16, bw: critical(bf16, bw),
                    N_("the peak of the units this matmul's math runs on"), BF16_PEAK_FOR_INT8),
        ),
    )


def t_math() -> FunctionQuestion:
    """(e) The time the math takes."""
    return at_shapes(
        "ex1.t_math",
        answers.t_math,
        MODEL,
        *_setups(lambda r: r.t_math, BF16_PEAK_FOR_INT8, NO_FACTOR_TWO),
        readings=(
            refused("bf16-peak", "the math at the bf16 peak",
                    lambda B, D, F: _roofline(B, D, F, compute="bf16").t_math,
                    N_("the time the math takes at the int8 peak"), BF16_PEAK_FOR_INT8),
        ),
    )


def t_comms() -> FunctionQuestion:
    """(e) The time moving the bytes takes."""
    return at_shapes(
        "ex1.t_comms",
        answers.t_comms,
        MODEL,
        *_setups(lambda r: r.t_comms, INT8_TWO_BYTES, TEXT_BANDWIDTH),
        readings=(
            refused("bytes-read", "the time to read X and Y, Z's write left out",
                    lambda B, D, F: answers.bytes_read(B, D, F) / given.HBM_BANDWIDTH,
                    N_("the time moving the bytes of (a), read and written, takes")),
        ),
    )


def t_lower() -> FunctionQuestion:
    """(e) The lower bound, with perfect overlap."""
    return at_shapes(
        "ex1.t_lower",
        answers.t_lower,
        MODEL,
        *_setups(lambda r: r.t_lower),
        Mistake(LOWER_BOUND_IS_MIN, _smaller_time),
        Mistake(LOWER_BOUND_IS_SUM, lambda B, D, F: _roofline(B, D, F).t_upper),
        readings=(
            refused("smaller-time",
                    "the smaller of the two times, which is also a lower bound, if a loose one",
                    _smaller_time, N_("the runtime if math and data movement overlap perfectly"),
                    LOWER_BOUND_IS_MIN),
        ),
    )


def t_upper() -> FunctionQuestion:
    """(e) The upper bound, with no overlap."""
    return at_shapes(
        "ex1.t_upper",
        answers.t_upper,
        MODEL,
        *_setups(lambda r: r.t_upper),
        Mistake(UPPER_BOUND_IS_MAX, lambda B, D, F: _roofline(B, D, F).t_lower),
        readings=(
            refused("larger-time", "the larger of the two times",
                    lambda B, D, F: _roofline(B, D, F).t_lower,
                    N_("the runtime if they do not overlap at all"), UPPER_BOUND_IS_MAX),
        ),
    )


def limited_by() -> FunctionQuestion:
    """(f) Compute or memory."""
    return at_shapes(
        "ex1.limited_by",
        answers.limited_by,
        WORD,
        *_setups(_bound_of),
        returns="word",
        choices=("compute", "memory"),
        readings=(
            earns("intensity", "the exact intensity against the chip's critical intensity", _by_intensity),
            refused("critical-batch",
                    "B against (d)'s critical batch, which assumes B is small next to D and F",
                    lambda B, D, F: "compute" if answers.critical_batch() < B else "memory",
                    N_("not with the critical batch of (d)")),
        ),
    )


def exercise() -> Exercise:
    """Exercise 1's answer key: its parts in the statement's order, the misconceptions it exists
    to catch, and the figures its statement gives."""
    return Exercise(
        "ex1_int8_matmul",
        questions=(
            bytes_read(), bytes_written(), ops(), intensity(), critical_batch(),
            t_math(), t_comms(), t_lower(), t_upper(), limited_by(),
        ),
        misconceptions=(INT8_TWO_BYTES, BF16_PEAK_FOR_INT8, NO_FACTOR_TWO),
        given=(given.CHIP.peak("int8"), given.CHIP.peak("bf16"), given.HBM_BANDWIDTH, *given.SHAPE),
    )
