"""What every exercise's answer key is made of: the exercise, the tolerances, the random draws
and the readings' helpers, shared by the keys of :mod:`roofline_grading.answer_key` and of the
exercise folders (:mod:`roofline_grading.exercises`).

An exercise folder's ``key.py`` builds its :class:`Exercise` from these pieces and from
:mod:`roofline_grading.questions` (questions, misconceptions, mistakes, readings).

>>> COUNT.rtol, TOKENS.atol
(1e-09, 1.0)
>>> [r.name for r in roundings(lambda x: x / 3, "tokens")]
['decimals', 'rounded-up', 'rounded-down', 'nearest']
>>> roundings(lambda x: x / 3, "tokens")[1].answer(10)
4.0
>>> dense_peak(1.979e15) / TERABYTE, FLOPS_PER_MULTIPLY_ADD
(989.5, 2)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from roofline_grading.questions import FunctionQuestion, Misconception, Mistake, Question, Reading, Tolerance
from rooflinekit.exercises import EX1_SHAPE
from rooflinekit.words import N_

__all__ = [
    "COUNT",
    "FLOPS_PER_MULTIPLY_ADD",
    "MODEL",
    "REPLICAS",
    "SHAPES",
    "TERABYTE",
    "TILE",
    "TOKENS",
    "UNITS",
    "WIDTH",
    "WORD",
    "Exercise",
    "at_shapes",
    "dense_peak",
    "earns",
    "log_uniform",
    "random_chip",
    "random_shape",
    "random_two_peaks",
    "refused",
    "rounded",
    "roundings",
    "whole_count",
]

COUNT = Tolerance(rtol=1e-9, why=N_("whole numbers, exact in float64; room only for float rounding"))
MODEL = Tolerance(rtol=1e-6, why=N_("a few multiplications of the given figures; any order of operations"))
TOKENS = Tolerance(atol=1.0, why=N_("a batch is a whole number of tokens: round down, up, or keep decimals"))
REPLICAS = Tolerance(rtol=1e-2, why=N_("each replica's batch (100 tokens or more) may be rounded to a token"))
TILE = Tolerance(atol=1.0, why=N_("a tile is a whole number of rows: round up, or keep decimals"))
WIDTH = Tolerance(atol=1.0, why=N_("a width is a whole number of elements: round down, up, or keep decimals"))
WORD = Tolerance(why=N_("a word: its first word, in any case, must be the right one"))
UNITS: dict[Tolerance, str] = {TOKENS: N_("token"), TILE: N_("row"), WIDTH: N_("element")}
"""What an absolute tolerance counts in (the guide's table of tolerances says "1 token either way")."""

FLOPS_PER_MULTIPLY_ADD = 2
"""Each term of a dot product is a multiply and an add."""
TERABYTE = 1e12
"""A terabyte in a datasheet's TB/s or TFLOP/s: 10**12, not 2**40."""


def dense_peak(datasheet_flops: float) -> float:
    """A datasheet's bf16 figure assumes 2:4 sparsity; dense math runs at half of it."""
    return datasheet_flops / 2


@dataclass(frozen=True)
class Exercise:
    """One graded notebook: its questions, the misconceptions it exists to catch, and the
    figures its problem statement gives (``plots``: its setup cell loads matplotlib too)."""

    notebook: str
    questions: tuple[Question, ...]
    misconceptions: tuple[Misconception, ...]
    given: tuple[float, ...]
    plots: bool = False

    def question(self, name: str) -> Question:
        """The question ``<notebook prefix>.name``, e.g. ``EX1.question("bytes_read")``."""
        for q in self.questions:
            if q.id.split(".", 1)[1] == name:
                return q
        raise KeyError(f"{self.notebook} has no question {name!r}")


# --- Random inputs -----------------------------------------------------------------------


def log_uniform(rng: np.random.Generator, low: float, high: float) -> float:
    """A number from ``low`` to ``high``, uniform in its logarithm (every decade as likely)."""
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


def random_chip(rng: np.random.Generator) -> tuple[float, float]:
    """A bandwidth from 1e11 to 1e13 B/s and a peak 100 to 1000 times it, like real chips."""
    bandwidth = log_uniform(rng, 1e11, 1e13)
    return bandwidth * log_uniform(rng, 100, 1000), bandwidth


def random_two_peaks(rng: np.random.Generator) -> tuple[float, float, float]:
    """(int8 peak, bf16 peak, bandwidth): the integer units 1.5 to 4 times faster."""
    peak, bandwidth = random_chip(rng)
    return peak, peak / float(rng.uniform(1.5, 4.0)), bandwidth


def random_shape(rng: np.random.Generator) -> tuple[int, int, int]:
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
"""Fixed (B, D, F) at which every function of a matmul's sizes is checked, besides random ones."""


def at_shapes(
    qid: str,
    reference: Callable[..., Any],
    tolerance: Tolerance,
    *mistakes: Mistake,
    returns: str = "number",
    choices: tuple[str, ...] = (),
    readings: tuple[Reading, ...] = (),
) -> FunctionQuestion:
    """A question asking a function of a matmul's sizes ``(B, D, F)``, at :data:`SHAPES` and at
    shapes drawn by :func:`random_shape`."""
    return FunctionQuestion(
        qid,
        "(B, D, F)",
        reference,
        tolerance,
        cases=SHAPES,
        random_case=random_shape,
        mistakes=mistakes,
        returns=returns,
        choices=choices,
        readings=readings,
    )


# --- Readings ---------------------------------------------------------------------------


def earns(name: str, description: str, answer: Callable[..., Any]) -> Reading:
    """A reading the tolerance accepts at every input."""
    return Reading(name, description, answer, True)


def refused(
    name: str,
    description: str,
    answer: Callable[..., Any],
    words: str,
    misconception: Misconception | None = None,
) -> Reading:
    """A reading the statement rules out with ``words`` (marked with ``N_``), named in the feedback
    as ``misconception`` if it is one."""
    return Reading(name, description, answer, False, words, misconception)


def rounded(reference: Callable[..., Any], how: Callable[[float], float]) -> Callable[..., Any]:
    """``reference``'s answer rounded by ``how`` (an infinite one left as it is)."""

    def answer(*arguments: Any) -> Any:
        value = float(reference(*arguments))
        return value if math.isinf(value) else float(how(value))

    return answer


def roundings(reference: Callable[..., Any], whole: str) -> tuple[Reading, ...]:
    """The readings of a question whose answer is a whole number of ``whole`` (tokens, rows,
    elements) that the model gives with decimals: kept, rounded up, down or to the nearest."""
    return (
        earns("decimals", f"the real number the model gives, not a whole number of {whole}", reference),
        earns("rounded-up", f"the first whole number of {whole} past it", rounded(reference, math.ceil)),
        earns("rounded-down", f"the last whole number of {whole} below it", rounded(reference, math.floor)),
        earns("nearest", f"the nearest whole number of {whole}", rounded(reference, round)),
    )


def whole_count(reference: Callable[..., Any]) -> Reading:
    """A count of bytes or operations returned as a Python int (the model gives a float)."""
    return earns("integer", "the count as an int, not a float", lambda *a: round(float(reference(*a))))
