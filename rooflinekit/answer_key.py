"""The answer key of the five graded exercises: what is accepted, and what known mistakes give.

Each exercise (``EX1`` ... ``EX5``) holds one question per graded part. A question names
its reference (from :mod:`rooflinekit.reference`), its tolerance and the known mistakes,
each computed *by the library under the mistaken assumption* (int8 counted as bf16, the
sparse peak, ...), never typed in. :mod:`rooflinekit.grading` does the comparing, so a
hidden test in a graded notebook is one line::

    assert_function(bytes_read, EX1.bytes_read)

Tolerances, and why each is right:

- ``COUNT`` (bytes, operations): relative 1e-9. They are whole numbers, exact in float64
  at the sizes tested; 1e-9 leaves room only for rounding when computed in floats.
- ``MODEL`` (intensities, times, FLOP/s): relative 1e-6. They follow from the given
  figures by a few multiplications and divisions; 1e-6 allows any order of operations,
  never a different figure (the nearest known mistake is 1.2% away: 8.1e11 vs 8.2e11).
- ``TOKENS`` (critical batches, crossovers): 1 token either way. A batch is a whole number
  of tokens, so rounding down, rounding up and keeping decimals are all right; every known
  mistake is further away (the tests check this).
- ``DATASHEET`` (figures read off a datasheet): relative 1e-3. Half of the H100's
  1,979 TFLOP/s is 989.5; the catalog and most write-ups say 989.
- Exercise 5 accepts both published answers, 295 (dense peak 9.89e14) and 298 (peak
  rounded to 1e15), each within ``TOKENS``.

>>> from rooflinekit.grading import assert_value
>>> assert_value(243.2, EX1.critical_batch)
>>> [m.misconception.name for m in EX5.critical_batch.mistakes]
['sparse-peak', 'halved-twice']
>>> sci(EX1_CHIP.peak("int8"))
'3.94e14'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rooflinekit.analysis import Roofline, analyze, attainable_flops
from rooflinekit.catalog import Chip, chip
from rooflinekit.costs import Cost, batched_matmul_cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch, matmul_critical_batch_approx
from rooflinekit.dtypes import dtype_bytes
from rooflinekit.grading import (
    ChoiceQuestion,
    Curve,
    FigureQuestion,
    FunctionQuestion,
    Misconception,
    Mistake,
    Tolerance,
    ValueQuestion,
)
from rooflinekit.reference import (
    EX1_CHIP,
    EX1_SHAPE,
    EX2_CHIP,
    EX3_BATCHES,
    EX3_SIZES,
    EX4_CHIP,
    EX4_D_F,
    EX5_CHIP,
    EX5_REPLICAS,
    EXERCISE_1_HBM_BANDWIDTH,
    INT8,
    ex1_bytes_read,
    ex1_bytes_written,
    ex1_critical_batch,
    ex1_intensity,
    ex1_ops,
    ex2_bytes_read,
    ex2_bytes_written,
    ex2_critical_batch,
    ex2_intensity,
    ex3_attainable,
    ex3_crossover,
    ex4_bytes_read,
    ex4_bytes_written,
    ex4_critical_batch,
    ex4_intensity,
    ex4_ops,
    ex5_accepted_critical_batches,
    ex5_accepted_global_batches,
    ex5_critical_batch,
    ex5_critical_batch_rounded_peak,
    ex5_dense_peak,
    ex5_dense_peak_rounded,
)


def sci(value: float) -> str:
    """A figure as the problem statements write it: ``3.94e14``, ``8.1e11``, ``1e-3``.

    >>> sci(1.979e15), sci(8.2e11), sci(0.001)
    ('1.979e15', '8.2e11', '1e-3')
    """
    mantissa, exponent = f"{value:.3e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


COUNT = Tolerance(rtol=1e-9, why="whole numbers, exact in float64; room only for float rounding")
MODEL = Tolerance(rtol=1e-6, why="a few multiplications of the given figures; any order of operations")
TOKENS = Tolerance(atol=1.0, why="a batch is a whole number of tokens: round down, up, or keep decimals")
DATASHEET = Tolerance(rtol=1e-3, why="half of 1,979 TFLOP/s is 989.5; the catalog and write-ups say 989")

FLOPS_PER_MULTIPLY_ADD = 2
"""Each term of a dot product is a multiply and an add."""

TEXT_CHIP: Chip = chip("tpu-v5e")
"""The TPU v5e with the bandwidth the text uses (8.2e11 B/s), not exercise 1's 8.1e11."""


def _random_shape(rng: np.random.Generator) -> tuple[int, int, int]:
    """B from 1 to 4096 tokens; D and F from 64 to 16384, as in real layers."""
    batch = int(rng.integers(1, 4097))
    d, f = (int(v) for v in rng.integers(64, 16385, size=2))
    return batch, d, f


SHAPES: tuple[tuple[int, int, int], ...] = (
    EX1_SHAPE,
    (4096, 8192, 28672),
    (1, 16384, 4096),
    (2, 3, 4),
    (1, 1, 1),
)
"""Fixed (B, D, F) at which every function is checked, besides random ones."""


# --- Misconceptions, in the words a student reads ------------------------------------

INT8_TWO_BYTES = Misconception(
    "int8-two-bytes",
    "This matches counting 2 bytes per int8 element. An int8 number takes 1 byte; "
    "2 bytes is the size of a bf16 number.",
)
BF16_PEAK_FOR_INT8 = Misconception(
    "bf16-peak-for-int8",
    f"This matches using the bf16 peak ({sci(EX1_CHIP.peak('bf16'))} FLOP/s). This matmul runs in int8, "
    f"on the int8 units, whose peak is {sci(EX1_CHIP.peak('int8'))} OP/s.",
)
NO_FACTOR_TWO = Misconception(
    "no-factor-two",
    "This matches counting one operation per multiply-add. Each of the B*D*F products is a multiply "
    "and an add, so the matmul does 2*B*D*F operations.",
)
TEXT_BANDWIDTH = Misconception(
    "text-bandwidth",
    f"This matches using {sci(TEXT_CHIP.hbm_bandwidth)} B/s, the bandwidth the text uses; this exercise "
    f"gives {sci(EXERCISE_1_HBM_BANDWIDTH)} B/s.",
)
APPROXIMATE_INTENSITY = Misconception(
    "approximate-intensity",
    "This matches the B << D, F approximation (an intensity of about 2B). The question asks for the "
    "exact intensity: count every byte read and written, activations and output included.",
)
LOWER_BOUND_IS_MIN = Misconception(
    "lower-bound-is-min",
    "This matches taking the smaller of T_math and T_comms. Even with perfect overlap the operation "
    "waits for the slower of the two: the lower bound is max(T_math, T_comms).",
)
LOWER_BOUND_IS_SUM = Misconception(
    "lower-bound-is-sum",
    "This matches adding T_math and T_comms: that is the upper bound, with no overlap. The lower bound "
    "assumes perfect overlap: max(T_math, T_comms).",
)
UPPER_BOUND_IS_MAX = Misconception(
    "upper-bound-is-max",
    "This matches taking the larger of T_math and T_comms: that is the lower bound, with perfect "
    "overlap. With no overlap at all the two times add up: T_math + T_comms.",
)
INT8_PEAK_FOR_BF16 = Misconception(
    "int8-peak-for-bf16",
    f"This matches using the int8 peak ({sci(EX2_CHIP.peak('int8'))} OP/s). The weights are stored in "
    f"int8, but the math is done in bf16, so the bf16 peak ({sci(EX2_CHIP.peak('bf16'))} FLOP/s) applies.",
)
TWO_BYTE_WEIGHTS = Misconception(
    "two-byte-weights",
    "This matches counting 2 bytes per weight. The weights are int8, 1 byte each; only the "
    "activations and the output are bf16, 2 bytes each.",
)
ONE_BYTE_OUTPUT = Misconception(
    "one-byte-output",
    "This matches counting 1 byte per output element. The output is bf16: 2 bytes each.",
)
EXERCISE_1_BANDWIDTH = Misconception(
    "exercise-1-bandwidth",
    f"This matches using exercise 1's bandwidth ({sci(EXERCISE_1_HBM_BANDWIDTH)} B/s); this exercise "
    f"gives {sci(EX2_CHIP.hbm_bandwidth)} B/s.",
)
APPROXIMATE_BYTES = Misconception(
    "approximate-bytes",
    "This matches the B << D, F approximation: counting only the weights' bytes, so the intensity is "
    f"about 2B and every curve reaches the peak near B = {ex2_critical_batch():.0f}. The exercise asks "
    "for exact bytes: the activations (2BD) and the output (2BF) count too, and they matter once B is "
    "not small next to D and F.",
)
SHARED_WEIGHTS = Misconception(
    "shared-weights",
    "This matches treating the weights as one matrix shared by the whole batch, as in an ordinary "
    "matmul (an intensity of about 2B). Here every example has its own D x F weight matrix, so the "
    "weight bytes grow with B too (B*D*F of them) and the intensity stays about 2 whatever B is.",
)
SPARSE_PEAK = Misconception(
    "sparse-peak",
    f"This matches using the datasheet's {sci(EX5_CHIP.peak('bf16', sparse=True))} FLOP/s. That figure "
    f"assumes 2:4 structured sparsity; dense bf16 math runs at half of it, about {sci(ex5_dense_peak())} "
    "FLOP/s.",
)
HALVED_TWICE = Misconception(
    "halved-twice",
    "This matches dividing by 2 x the bandwidth. For a bf16 matmul the 2 FLOPs per multiply-add and "
    "the 2 bytes per weight cancel: the critical batch is the dense peak over the bandwidth.",
)
PER_REPLICA = Misconception(
    "per-replica",
    f"This matches the critical batch of a single replica. The threshold holds per replica: each of "
    f"the {EX5_REPLICAS} replicas needs that many tokens of its own, so the total is {EX5_REPLICAS} "
    "times larger.",
)


# --- Exercise 1: int8[B,D] . int8[D,F] -> int8[B,F] ----------------------------------


def _ex1_cost(B: Any, D: Any, F: Any, *, element: str = "int8", per_multiply_add: int = 2) -> Cost:
    """Exercise 1's cost, or what a student gets with the wrong element size or op count."""
    cost = matmul_cost(B, D, F, x=element, w=element, out=element)
    return replace(cost, flops=cost.flops * per_multiply_add / FLOPS_PER_MULTIPLY_ADD)


def _ex1_roofline(
    B: Any,
    D: Any,
    F: Any,
    *,
    element: str = "int8",
    per_multiply_add: int = 2,
    compute: str = "int8",
    on: Chip = EX1_CHIP,
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


def _shape_question(
    name: str,
    reference: Callable[..., Any],
    tolerance: Tolerance,
    mistakes: tuple[Mistake, ...],
    cases: tuple[tuple[int, int, int], ...] = SHAPES,
) -> FunctionQuestion:
    return FunctionQuestion(
        name=name,
        parameters="(B, D, F)",
        reference=reference,
        tolerance=tolerance,
        cases=cases,
        random_case=_random_shape,
        mistakes=mistakes,
    )


def _approximate_intensity(B: Any, D: Any, F: Any) -> Any:
    """``2B / bytes(w)``: only the weights' bytes counted (int8 weights in exercises 1 to 3)."""
    return FLOPS_PER_MULTIPLY_ADD * np.asarray(B, dtype=np.float64) / dtype_bytes("int8")


@dataclass(frozen=True)
class Exercise1:
    """int8 matmul on the TPU v5e of exercise 1 (int8 peak, 8.1e11 B/s)."""

    bytes_read: FunctionQuestion
    bytes_written: FunctionQuestion
    ops: FunctionQuestion
    intensity: FunctionQuestion
    critical_batch: ValueQuestion
    t_math: FunctionQuestion
    t_comms: FunctionQuestion
    t_lower: FunctionQuestion
    t_upper: FunctionQuestion
    limited_by: ChoiceQuestion
    misconceptions: tuple[Misconception, ...]
    given: tuple[float, ...]


EX1 = Exercise1(
    bytes_read=_shape_question(
        "bytes_read",
        ex1_bytes_read,
        COUNT,
        (Mistake(INT8_TWO_BYTES, lambda B, D, F: _ex1_cost(B, D, F, element="bf16").bytes_read),),
    ),
    bytes_written=_shape_question(
        "bytes_written",
        ex1_bytes_written,
        COUNT,
        (Mistake(INT8_TWO_BYTES, lambda B, D, F: _ex1_cost(B, D, F, element="bf16").bytes_written),),
    ),
    ops=_shape_question(
        "ops",
        ex1_ops,
        COUNT,
        (Mistake(NO_FACTOR_TWO, lambda B, D, F: _ex1_cost(B, D, F, per_multiply_add=1).flops),),
    ),
    intensity=_shape_question(
        "intensity",
        ex1_intensity,
        MODEL,
        (
            Mistake(INT8_TWO_BYTES, lambda B, D, F: _ex1_cost(B, D, F, element="bf16").intensity),
            Mistake(NO_FACTOR_TWO, lambda B, D, F: _ex1_cost(B, D, F, per_multiply_add=1).intensity),
            Mistake(APPROXIMATE_INTENSITY, _approximate_intensity),
        ),
    ),
    critical_batch=ValueQuestion(
        "critical_batch",
        accepted=(ex1_critical_batch,),
        tolerance=TOKENS,
        mistakes=(
            Mistake(INT8_TWO_BYTES, lambda: matmul_critical_batch_approx(EX1_CHIP, w="bf16", compute="int8")),
            Mistake(
                BF16_PEAK_FOR_INT8, lambda: matmul_critical_batch_approx(EX1_CHIP, w="int8", compute="bf16")
            ),
            Mistake(NO_FACTOR_TWO, lambda: FLOPS_PER_MULTIPLY_ADD * ex1_critical_batch()),
            Mistake(
                TEXT_BANDWIDTH, lambda: matmul_critical_batch_approx(TEXT_CHIP, w="int8", compute="int8")
            ),
        ),
    ),
    t_math=_shape_question(
        "t_math",
        lambda B, D, F: _ex1_roofline(B, D, F).t_math,
        MODEL,
        _ex1_setups(lambda r: r.t_math, BF16_PEAK_FOR_INT8, NO_FACTOR_TWO),
    ),
    t_comms=_shape_question(
        "t_comms",
        lambda B, D, F: _ex1_roofline(B, D, F).t_comms,
        MODEL,
        _ex1_setups(lambda r: r.t_comms, INT8_TWO_BYTES, TEXT_BANDWIDTH),
    ),
    t_lower=_shape_question(
        "t_lower",
        lambda B, D, F: _ex1_roofline(B, D, F).t_lower,
        MODEL,
        (
            *_ex1_setups(lambda r: r.t_lower),
            Mistake(
                LOWER_BOUND_IS_MIN,
                lambda B, D, F: min(_ex1_roofline(B, D, F).t_math, _ex1_roofline(B, D, F).t_comms),
            ),
            Mistake(LOWER_BOUND_IS_SUM, lambda B, D, F: _ex1_roofline(B, D, F).t_upper),
        ),
    ),
    t_upper=_shape_question(
        "t_upper",
        lambda B, D, F: _ex1_roofline(B, D, F).t_upper,
        MODEL,
        (
            *_ex1_setups(lambda r: r.t_upper),
            Mistake(UPPER_BOUND_IS_MAX, lambda B, D, F: _ex1_roofline(B, D, F).t_lower),
        ),
    ),
    limited_by=ChoiceQuestion(
        "limited_by",
        accepted=lambda: str(_ex1_roofline(*EX1_SHAPE).bound),
        choices=("compute", "memory"),
        mistakes=tuple(
            Mistake(m.misconception, lambda m=m: str(m.answer(*EX1_SHAPE)))
            for m in _ex1_setups(lambda r: r.bound)
        ),
    ),
    misconceptions=(INT8_TWO_BYTES, BF16_PEAK_FOR_INT8, NO_FACTOR_TWO),
    given=(EX1_CHIP.peak("int8"), EX1_CHIP.peak("bf16"), EXERCISE_1_HBM_BANDWIDTH, *EX1_SHAPE),
)


# --- Exercise 2: bf16[B,D] . int8[D,F] -> bf16[B,F], bf16 compute ----------------------


@dataclass(frozen=True)
class Exercise2:
    """int8 weights, bf16 activations and compute, on the TPU v5e (8.2e11 B/s)."""

    bytes_read: FunctionQuestion
    bytes_written: FunctionQuestion
    intensity: FunctionQuestion
    compute_peak: ValueQuestion
    critical_batch: ValueQuestion
    misconceptions: tuple[Misconception, ...]
    given: tuple[float, ...]


ALL_BF16: dict[str, str] = {"x": "bf16", "w": "bf16", "out": "bf16"}

EX2 = Exercise2(
    bytes_read=_shape_question(
        "bytes_read",
        ex2_bytes_read,
        COUNT,
        (Mistake(TWO_BYTE_WEIGHTS, lambda B, D, F: matmul_cost(B, D, F, **ALL_BF16).bytes_read),),
    ),
    bytes_written=_shape_question(
        "bytes_written",
        ex2_bytes_written,
        COUNT,
        (Mistake(ONE_BYTE_OUTPUT, lambda B, D, F: matmul_cost(B, D, F, **INT8).bytes_written),),
    ),
    intensity=_shape_question(
        "intensity",
        ex2_intensity,
        MODEL,
        (
            Mistake(TWO_BYTE_WEIGHTS, lambda B, D, F: matmul_cost(B, D, F, **ALL_BF16).intensity),
            Mistake(APPROXIMATE_INTENSITY, _approximate_intensity),
        ),
    ),
    compute_peak=ValueQuestion(
        "compute_peak",
        accepted=(lambda: EX2_CHIP.peak("bf16"),),
        tolerance=MODEL,
        mistakes=(Mistake(INT8_PEAK_FOR_BF16, lambda: EX2_CHIP.peak("int8")),),
    ),
    critical_batch=ValueQuestion(
        "critical_batch",
        accepted=(ex2_critical_batch,),
        tolerance=TOKENS,
        mistakes=(
            Mistake(
                INT8_PEAK_FOR_BF16, lambda: matmul_critical_batch_approx(EX2_CHIP, w="int8", compute="int8")
            ),
            Mistake(
                TWO_BYTE_WEIGHTS, lambda: matmul_critical_batch_approx(EX2_CHIP, w="bf16", compute="bf16")
            ),
            Mistake(
                EXERCISE_1_BANDWIDTH, lambda: matmul_critical_batch_approx(EX1_CHIP, w="int8", compute="bf16")
            ),
        ),
    ),
    misconceptions=(INT8_PEAK_FOR_BF16, TWO_BYTE_WEIGHTS),
    given=(EX2_CHIP.peak("bf16"), EX2_CHIP.peak("int8"), EX2_CHIP.hbm_bandwidth),
)


# --- Exercise 3: the plot of exercise 2's setup with exact bytes ----------------------


def ex3_approximate_attainable(B: Any, D: Any) -> Any:
    """Exercise 3's curve with only the weights' bytes counted (the B << D, F approximation)."""
    return attainable_flops(_approximate_intensity(B, D, D), EX2_CHIP.peak("bf16"), EX2_CHIP.hbm_bandwidth)


def _ex3_int8_peak(B: Any, D: Any) -> Any:
    return attainable_flops(ex2_intensity(B, D, D), EX2_CHIP.peak("int8"), EX2_CHIP.hbm_bandwidth)


def _ex3_int8_peak_crossover(D: int) -> float:
    return float(matmul_critical_batch(D, D, EX2_CHIP, x="bf16", w="int8", out="bf16", compute="int8"))


def _random_curve(rng: np.random.Generator) -> tuple[Any, int]:
    """Fifty batch sizes from 1 to 2047 and a width D = F from 256 to 16384."""
    return np.sort(rng.integers(1, 2048, size=50)), int(rng.integers(256, 16385))


def _crossover_question(size: int) -> ValueQuestion:
    return ValueQuestion(
        f"crossover_{size}",
        accepted=(lambda: ex3_crossover(size),),
        tolerance=TOKENS,
        mistakes=(
            Mistake(APPROXIMATE_BYTES, ex2_critical_batch),
            Mistake(INT8_PEAK_FOR_BF16, lambda: _ex3_int8_peak_crossover(size)),
        ),
    )


def _curve(size: int) -> Curve:
    return Curve(
        label=str(size),
        description=f"D = F = {size}",
        x=lambda: EX3_BATCHES,
        y=lambda: ex3_attainable(EX3_BATCHES, size),
        mistakes=(
            Mistake(APPROXIMATE_BYTES, lambda: ex3_approximate_attainable(EX3_BATCHES, size)),
            Mistake(INT8_PEAK_FOR_BF16, lambda: _ex3_int8_peak(EX3_BATCHES, size)),
        ),
    )


@dataclass(frozen=True)
class Exercise3:
    """Attainable FLOP/s against B for two sizes, with exact bytes, and their crossovers."""

    attainable: FunctionQuestion
    crossover_4096: ValueQuestion
    crossover_1024: ValueQuestion
    figure: FigureQuestion
    misconceptions: tuple[Misconception, ...]
    given: tuple[float, ...]


EX3 = Exercise3(
    attainable=FunctionQuestion(
        name="attainable",
        parameters="(B, D)",
        reference=ex3_attainable,
        tolerance=MODEL,
        cases=((EX3_BATCHES, EX3_SIZES[0]), (EX3_BATCHES, EX3_SIZES[1]), (128, 4096), (1, 1024)),
        random_case=_random_curve,
        random_count=3,
        mistakes=(
            Mistake(APPROXIMATE_BYTES, ex3_approximate_attainable),
            Mistake(INT8_PEAK_FOR_BF16, _ex3_int8_peak),
        ),
    ),
    crossover_4096=_crossover_question(EX3_SIZES[0]),
    crossover_1024=_crossover_question(EX3_SIZES[1]),
    figure=FigureQuestion(
        name="fig",
        curves=tuple(_curve(size) for size in EX3_SIZES),
        tolerance=MODEL,
        x_label_words=("batch", "B", "tokens"),
        y_label_words=("FLOP",),
    ),
    misconceptions=(APPROXIMATE_BYTES,),
    given=(EX2_CHIP.peak("bf16"), EX2_CHIP.hbm_bandwidth, *EX3_SIZES, int(EX3_BATCHES[-1])),
)


# --- Exercise 4: int8[B,D] . int8[B,D,F] -> int8[B,F] ----------------------------------


@dataclass(frozen=True)
class Exercise4:
    """A weight matrix per example: always memory-bound."""

    bytes_read: FunctionQuestion
    bytes_written: FunctionQuestion
    ops: FunctionQuestion
    intensity: FunctionQuestion
    critical_batch: ValueQuestion
    misconceptions: tuple[Misconception, ...]
    given: tuple[float, ...]


EX4 = Exercise4(
    bytes_read=_shape_question(
        "bytes_read",
        ex4_bytes_read,
        COUNT,
        (
            Mistake(SHARED_WEIGHTS, ex1_bytes_read),
            Mistake(INT8_TWO_BYTES, lambda B, D, F: batched_matmul_cost(B, D, F).bytes_read),
        ),
    ),
    bytes_written=_shape_question(
        "bytes_written",
        ex4_bytes_written,
        COUNT,
        (Mistake(INT8_TWO_BYTES, lambda B, D, F: batched_matmul_cost(B, D, F).bytes_written),),
    ),
    ops=_shape_question(
        "ops",
        ex4_ops,
        COUNT,
        (Mistake(NO_FACTOR_TWO, lambda B, D, F: ex4_ops(B, D, F) / FLOPS_PER_MULTIPLY_ADD),),
    ),
    intensity=_shape_question(
        "intensity",
        ex4_intensity,
        MODEL,
        (
            Mistake(SHARED_WEIGHTS, ex1_intensity),
            Mistake(SHARED_WEIGHTS, _approximate_intensity),
            Mistake(INT8_TWO_BYTES, lambda B, D, F: batched_matmul_cost(B, D, F).intensity),
        ),
    ),
    critical_batch=ValueQuestion(
        "critical_batch",
        accepted=(lambda: ex4_critical_batch(*EX4_D_F),),
        tolerance=TOKENS,
        allow_infinite=True,
        mistakes=(
            Mistake(
                SHARED_WEIGHTS,
                lambda: matmul_critical_batch(
                    *EX4_D_F, EX4_CHIP, x="int8", w="int8", out="int8", compute="int8"
                ),
            ),
            Mistake(SHARED_WEIGHTS, ex1_critical_batch),
        ),
    ),
    misconceptions=(SHARED_WEIGHTS,),
    given=(EX4_CHIP.peak("int8"), EX4_CHIP.hbm_bandwidth, *EX4_D_F),
)


# --- Exercise 5: the H100's critical batch from its datasheet -------------------------


@dataclass(frozen=True)
class Exercise5:
    """Dense bf16 peak from the datasheet's sparse figure; critical batch 295 or 298."""

    dense_peak: ValueQuestion
    hbm_bandwidth: ValueQuestion
    critical_batch: ValueQuestion
    global_batch: ValueQuestion
    misconceptions: tuple[Misconception, ...]
    given: tuple[float, ...]


def _sparse_critical_batch() -> float:
    return matmul_critical_batch_approx(EX5_CHIP, compute="bf16", peak=EX5_CHIP.peak("bf16", sparse=True))


EX5 = Exercise5(
    dense_peak=ValueQuestion(
        "dense_peak",
        accepted=(ex5_dense_peak, ex5_dense_peak_rounded),
        tolerance=DATASHEET,
        mistakes=(Mistake(SPARSE_PEAK, lambda: EX5_CHIP.peak("bf16", sparse=True)),),
    ),
    hbm_bandwidth=ValueQuestion(
        "hbm_bandwidth",
        accepted=(lambda: EX5_CHIP.hbm_bandwidth,),
        tolerance=DATASHEET,
    ),
    critical_batch=ValueQuestion(
        "critical_batch",
        accepted=(ex5_critical_batch, ex5_critical_batch_rounded_peak),
        tolerance=TOKENS,
        mistakes=(
            Mistake(SPARSE_PEAK, _sparse_critical_batch),
            Mistake(HALVED_TWICE, lambda: ex5_critical_batch() / FLOPS_PER_MULTIPLY_ADD),
        ),
    ),
    global_batch=ValueQuestion(
        "global_batch",
        accepted=(lambda: ex5_accepted_global_batches()[0], lambda: ex5_accepted_global_batches()[1]),
        tolerance=Tolerance(atol=EX5_REPLICAS * TOKENS.atol, why="one token per replica"),
        mistakes=(
            Mistake(PER_REPLICA, lambda: ex5_accepted_critical_batches()[0]),
            Mistake(PER_REPLICA, lambda: ex5_accepted_critical_batches()[1]),
            Mistake(SPARSE_PEAK, lambda: EX5_REPLICAS * _sparse_critical_batch()),
        ),
    ),
    misconceptions=(SPARSE_PEAK,),
    given=(EX5_CHIP.peak("bf16", sparse=True), EX5_CHIP.hbm_bandwidth, EX5_REPLICAS),
)

EXERCISES: dict[str, Exercise1 | Exercise2 | Exercise3 | Exercise4 | Exercise5] = {
    "ex1_int8_matmul": EX1,
    "ex2_int8_weights": EX2,
    "ex3_roofline_plot": EX3,
    "ex4_batched_matmul": EX4,
    "ex5_h100_threshold": EX5,
}
"""Each graded notebook's file name (without ``.ipynb``) and its answer key."""
