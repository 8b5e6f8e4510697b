"""Exercise 8's answer key: each part's question, the known mistakes and the readings.

Each graded part is one function below that builds its question: the model answer
(:mod:`.answers`), the tolerance, the public cases (the statement's own kernels first, from
:mod:`.given`), how a random case is drawn, the known mistakes and the readings.

>>> [q.id for q in exercise().questions][:2]
['ex8.achieved_flops', 'ex8.achieved_bandwidth']
>>> [m.misconception.name for m in exercise().question("mfu").mistakes]
['sparse-peak', 'percent', 'micro-as-milli']
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from roofline_grading.authoring import (
    MODEL,
    TERABYTE,
    WORD,
    Exercise,
    dense_peak,
    earns,
    log_uniform,
    random_chip,
    refused,
)
from roofline_grading.misconceptions import BINARY_TERABYTES, SPARSE_PEAK
from roofline_grading.questions import FunctionQuestion, Misconception, Mistake, Reading
from rooflinekit.words import N_

from . import answers, given

__all__ = ["MICRO_AS_MILLI", "PERCENT", "RAW_RATES", "exercise"]

MICRO_AS_MILLI = Misconception(
    "micro-as-milli",
    N_(
        "This matches reading microseconds as milliseconds. A microsecond (µs) is 1e-6 s; a millisecond "
        "(ms) is 1e-3 s."
    ),
)
PERCENT = Misconception(
    "percent",
    N_("This matches giving a percentage. The question asks for a fraction: 0.5 for half, not 50."),
)
RAW_RATES = Misconception(
    "raw-rates",
    N_(
        "This matches comparing the FLOP/s achieved with the bytes per second achieved. The two are in "
        "different units, and FLOP/s are almost always the larger number; compare the shares of the chip "
        "each uses: the fraction of the peak (MFU) with the fraction of the bandwidth (MBU)."
    ),
)

FIGURES = {kernel: answers.figures(kernel) for kernel in given.KERNELS}
BETWEEN = (4e11, 1e9, 1000.0, given.DATASHEET_BF16, given.DATASHEET_TB)
"""A kernel of 400 FLOPs a byte: above the H100's critical intensity, below twice it."""
BINARY_SHARE = TERABYTE / 2.0**40
"""A terabyte over 2**40 bytes: what a bandwidth read in binary terabytes is off by."""


def _random_run(rng: np.random.Generator) -> tuple[float, float, float, float, float]:
    """(FLOPs, bytes, microseconds, datasheet FLOP/s, TB/s): a chip like random_chip's, a run of 1 µs
    to 100 ms using 0.1% to 90% of the nearer limit, at an intensity of 0.2 to 5 times the chip's."""
    peak, bandwidth = random_chip(rng)
    microseconds = log_uniform(rng, 1.0, 1e5)
    intensity = peak / bandwidth * log_uniform(rng, 0.2, 5.0)
    share = log_uniform(rng, 1e-3, 0.9)
    flops = share * min(peak, intensity * bandwidth) * microseconds * answers.MICROSECOND
    return flops, flops / intensity, microseconds, 2 * peak, round(bandwidth / TERABYTE, 4)


def _as_milli(microseconds: Any) -> Any:
    return microseconds * 1e3


def _whole_teraflops(datasheet_flops: float) -> float:
    """The dense peak rounded down to whole TFLOP/s first, as NVIDIA's 989 is."""
    return math.floor(dense_peak(datasheet_flops) / TERABYTE) * TERABYTE


def _bound(flops: Any, moved: Any, us: Any, sheet: float, tb: float) -> str:
    """Which roof bounds the kernel: its intensity against the dense peak over the bandwidth."""
    ridge = dense_peak(sheet) / (tb * TERABYTE)
    return "compute" if flops / moved > ridge else "memory"


def _raw_rates(flops: Any, moved: Any, us: Any, sheet: float, tb: float) -> str:
    faster = answers.achieved_flops(flops, us) > answers.achieved_bandwidth(moved, us)
    return "compute" if faster else "memory"


def _milliseconds(rate: Callable[[Any, Any], Any]) -> Reading:
    """The reading of a rate whose time was taken in milliseconds."""
    return refused("milliseconds", "the time read as milliseconds",
                   lambda amount, us: rate(amount, _as_milli(us)),
                   N_("the time it took in microseconds"), MICRO_AS_MILLI)


def achieved_flops() -> FunctionQuestion:
    """(a) The FLOP/s a kernel achieved."""
    return FunctionQuestion(
        "ex8.achieved_flops",
        "(flops, microseconds)",
        answers.achieved_flops,
        MODEL,
        cases=(*((f[0], f[2]) for f in FIGURES.values()), (1e12, 1.0)),
        random_case=lambda rng: (_random_run(rng)[0], _random_run(rng)[2]),
        mistakes=(Mistake(MICRO_AS_MILLI, lambda flops, us: answers.achieved_flops(flops, _as_milli(us))),),
        readings=(
            _milliseconds(answers.achieved_flops),
            refused("teraflops", "the rate in TFLOP/s, as a profiler shows it",
                    lambda flops, us: answers.achieved_flops(flops, us) / TERABYTE,
                    N_("in FLOP/s, not TFLOP/s")),
        ),
    )


def achieved_bandwidth() -> FunctionQuestion:
    """(b) The B/s a kernel achieved."""
    return FunctionQuestion(
        "ex8.achieved_bandwidth",
        "(bytes_moved, microseconds)",
        answers.achieved_bandwidth,
        MODEL,
        cases=(*((f[1], f[2]) for f in FIGURES.values()), (1e9, 1.0)),
        random_case=lambda rng: (_random_run(rng)[1], _random_run(rng)[2]),
        mistakes=(
            Mistake(MICRO_AS_MILLI, lambda moved, us: answers.achieved_bandwidth(moved, _as_milli(us))),
        ),
        readings=(
            _milliseconds(answers.achieved_bandwidth),
            refused("terabytes", "the rate in TB/s, as the datasheet gives it",
                    lambda moved, us: answers.achieved_bandwidth(moved, us) / TERABYTE,
                    N_("in B/s, not TB/s")),
        ),
    )


def mfu() -> FunctionQuestion:
    """(c) The share of the dense peak achieved."""
    return FunctionQuestion(
        "ex8.mfu",
        "(flops, microseconds, datasheet_flops)",
        answers.mfu,
        MODEL,
        cases=(*((f[0], f[2], f[3]) for f in FIGURES.values()), (1e12, 1000.0, 2e15)),
        random_case=lambda rng: tuple(_random_run(rng)[i] for i in (0, 2, 3)),
        mistakes=(
            Mistake(SPARSE_PEAK, lambda flops, us, sheet: answers.mfu(flops, us, sheet) / 2),
            Mistake(PERCENT, lambda flops, us, sheet: 100 * answers.mfu(flops, us, sheet)),
            Mistake(MICRO_AS_MILLI, lambda flops, us, sheet: answers.mfu(flops, _as_milli(us), sheet)),
        ),
        readings=(
            refused("as-printed", "the share of the datasheet's figure as printed",
                    lambda flops, us, sheet: answers.mfu(flops, us, sheet) / 2,
                    N_("the fraction of the GPU's dense bf16 peak"), SPARSE_PEAK),
            refused("percent", "a percentage", lambda flops, us, sheet: 100 * answers.mfu(flops, us, sheet),
                    N_("as fractions (0.5 for half), not percentages"), PERCENT),
            refused("whole-teraflops", "the dense peak rounded to whole TFLOP/s first (989 for the H100)",
                    lambda flops, us, sheet: answers.achieved_flops(flops, us) / _whole_teraflops(sheet),
                    N_("with the figures as given, unrounded")),
        ),
    )


def mbu() -> FunctionQuestion:
    """(d) The share of the memory bandwidth achieved."""
    return FunctionQuestion(
        "ex8.mbu",
        "(bytes_moved, microseconds, terabytes_per_second)",
        answers.mbu,
        MODEL,
        cases=(*((f[1], f[2], f[4]) for f in FIGURES.values()), (1e9, 1000.0, 2.0)),
        random_case=lambda rng: tuple(_random_run(rng)[i] for i in (1, 2, 4)),
        mistakes=(
            Mistake(BINARY_TERABYTES, lambda moved, us, tb: answers.mbu(moved, us, tb) * BINARY_SHARE),
            Mistake(PERCENT, lambda moved, us, tb: 100 * answers.mbu(moved, us, tb)),
            Mistake(MICRO_AS_MILLI, lambda moved, us, tb: answers.mbu(moved, _as_milli(us), tb)),
        ),
        readings=(
            refused("binary", "a terabyte as 2**40 bytes",
                    lambda moved, us, tb: answers.mbu(moved, us, tb) * BINARY_SHARE,
                    N_("(1 TB is 1e12 bytes)"), BINARY_TERABYTES),
            refused("percent", "a percentage", lambda moved, us, tb: 100 * answers.mbu(moved, us, tb),
                    N_("as fractions (0.5 for half), not percentages"), PERCENT),
        ),
    )


def closest_limit() -> FunctionQuestion:
    """(e) The limit the kernel is closest to: compute or memory."""
    closest = answers.closest_limit
    return FunctionQuestion(
        "ex8.closest_limit",
        "(flops, bytes_moved, microseconds, datasheet_flops, terabytes_per_second)",
        closest,
        WORD,
        cases=(*FIGURES.values(), BETWEEN),
        random_case=_random_run,
        mistakes=(
            Mistake(RAW_RATES, _raw_rates),
            Mistake(
                SPARSE_PEAK, lambda flops, moved, us, sheet, tb: closest(flops, moved, us, 2 * sheet, tb)
            ),
            Mistake(
                BINARY_TERABYTES,
                lambda flops, moved, us, sheet, tb: closest(flops, moved, us, sheet, tb / BINARY_SHARE),
            ),
        ),
        returns="word",
        choices=("compute", "memory"),
        readings=(
            # The same answer: MFU over MBU is the intensity over the critical intensity, whatever the time.
            earns("roofline-bound", "which roof bounds the kernel: its intensity against the ridge", _bound),
            refused("raw-rates", "the FLOP/s achieved against the bytes per second achieved",
                    _raw_rates, N_("as fractions of each"), RAW_RATES),
        ),
    )


def exercise() -> Exercise:
    """Exercise 8's answer key: its parts in the statement's order, the misconceptions it exists
    to catch, and the figures its statement gives."""
    return Exercise(
        "ex8_measured_kernel",
        questions=(achieved_flops(), achieved_bandwidth(), mfu(), mbu(), closest_limit()),
        misconceptions=(SPARSE_PEAK, MICRO_AS_MILLI, BINARY_TERABYTES),
        given=(
            given.DATASHEET_BF16,
            given.DATASHEET_TB,
            *(v for shape, us in given.KERNELS.values() for v in (*shape, us)),
            *(v for f in FIGURES.values() for v in f[:2]),
        ),
    )
