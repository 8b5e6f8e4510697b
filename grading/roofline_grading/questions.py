"""What a graded question is: the answer's form, the reference, the tolerance, the known mistakes.

Every question of the course asks for something the grader can call or read in the student's
kernel and judge outside it:

- :class:`FunctionQuestion`: a function of the sizes or of the figures an exercise gives.
  It is called at its *public* cases (the question's fixed cases, the exercise's own figures
  among them, and cases that separate each known mistake from the right answer:
  :func:`public_cases`) and at *hidden* ones drawn from a secret seed (:func:`hidden_cases`),
  so a number copied from the book earns nothing and a known mistake fails at every draw.
- :class:`FigureQuestion`: one aspect of a matplotlib figure (its curves, their labels, its
  axis labels), read as plain data.

A function question also declares its readings (:class:`Reading`): the ways a careful student may read
its statement, each with what such a student writes and whether it earns the point (the
tolerance accepts it) or is ruled out by the statement in so many words.

>>> q = FunctionQuestion("ex5.dense_peak", "(datasheet_flops)", lambda f: f / 2, Tolerance(rtol=1e-3),
...                      cases=((1.979e15,),), random_case=lambda rng: (float(rng.uniform(1e14, 1e16)),))
>>> q.name, len(public_cases(q)), len(hidden_cases(q, rng_for(q, "2a")))
('dense_peak', 1, 5)
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from roofline_grading.i18n import translator

__all__ = [
    "UNIT_SCALES",
    "Curve",
    "FigureQuestion",
    "FunctionQuestion",
    "Misconception",
    "Mistake",
    "Question",
    "Reading",
    "Tolerance",
    "draw_cases",
    "hidden_cases",
    "public_cases",
    "rng_for",
    "separates",
    "separating_cases",
    "thresholds",
]


@dataclass(frozen=True)
class Tolerance:
    """How close an answer must be: ``|answer - expected| <= atol + rtol * |expected|``
    (infinities equal only themselves, NaN nothing). ``why`` says why it is right.

    >>> Tolerance(atol=1.0).accepts(244.0, 243.2)
    True
    >>> Tolerance(rtol=1e-9).accepts(np.array([1.0, 2.0]), np.array([1.0, 2.1]))
    False
    """

    rtol: float = 0.0
    atol: float = 0.0
    why: str = ""

    def accepts(self, answer: Any, expected: Any) -> bool:
        """True when the shapes agree and every element is within tolerance."""
        got, want = np.asarray(answer, dtype=np.float64), np.asarray(expected, dtype=np.float64)
        if got.shape != want.shape:
            return False
        return bool(np.all(np.isclose(got, want, rtol=self.rtol, atol=self.atol, equal_nan=False)))


@dataclass(frozen=True)
class Misconception:
    """A known wrong idea, with the plain-words message a student sees when it shows.

    ``template`` is the English message, marked for translation; figures in it are placeholders
    filled from ``values``, so that a translation carries no number of its own.

    >>> m = Misconception("text-bandwidth", "This matches {bw} B/s.", (("bw", "8.2e11"),))
    >>> m.message, m.text("ko") == m.message or "8.2e11" in m.text("ko")
    ('This matches 8.2e11 B/s.', True)
    """

    name: str
    template: str
    values: tuple[tuple[str, str], ...] = ()

    @property
    def message(self) -> str:
        """The message in English."""
        return self.text("en")

    def text(self, language: str = "en") -> str:
        """The message in ``language`` (English where it has no translation)."""
        return translator(language)(self.template).format(**dict(self.values))


@dataclass(frozen=True)
class Mistake:
    """What an answer holding ``misconception`` gives: ``answer`` takes the same arguments
    as the question's reference and returns the mistaken result."""

    misconception: Misconception
    answer: Callable[..., Any]


@dataclass(frozen=True)
class Reading:
    """One way a careful student may read a question, and whether it earns the point.

    ``answer`` is what a student who reads the question this way writes: it takes the question's
    arguments. ``earns``: the question's tolerance accepts it at every input. A reading that does
    not earn is ruled out by the statement in so many words: ``ruled_out_by`` holds those words,
    in English and marked for translation (the statement in another language holds their
    translation), and ``misconception`` is the known mistake the feedback names for it (None: the
    feedback names none, and the public cases separate it from every known mistake).

    >>> Reading("rounded-up", "the batch rounded up to a whole token", round, earns=True).ruled_out_by
    >>> Reading("per-replica", "one replica's batch", abs, earns=False)
    Traceback (most recent call last):
    ...
    ValueError: reading per-replica: one that does not earn needs the words that rule it out
    """

    name: str
    description: str
    answer: Callable[..., Any]
    earns: bool
    ruled_out_by: str | None = None
    misconception: Misconception | None = None

    def __post_init__(self) -> None:
        if not self.earns and not self.ruled_out_by:
            raise ValueError(f"reading {self.name}: one that does not earn needs the words that rule it out")
        if self.earns and (self.ruled_out_by or self.misconception):
            raise ValueError(f"reading {self.name}: a reading that earns is ruled out by nothing")


@dataclass(frozen=True)
class FunctionQuestion:
    """A function the student writes, ``id`` (``"ex1.bytes_read"``) with ``parameters``
    (``"(B, D, F)"``); it returns a number (or array) or, with ``returns="word"``, one of
    ``choices``."""

    id: str
    parameters: str
    reference: Callable[..., Any]
    tolerance: Tolerance
    cases: tuple[tuple[Any, ...], ...]
    random_case: Callable[[np.random.Generator], tuple[Any, ...]] | None = None
    random_count: int = 5
    mistakes: tuple[Mistake, ...] = ()
    returns: str = "number"
    choices: tuple[str, ...] = ()
    readings: tuple[Reading, ...] = ()

    @property
    def name(self) -> str:
        """The function's name in the notebook."""
        return self.id.split(".", 1)[1]

    @property
    def arguments(self) -> tuple[str, ...]:
        """The names of the function's arguments, from ``parameters``: ``("B", "D", "F")``."""
        return tuple(a.strip() for a in self.parameters.strip("()").split(",") if a.strip())


@dataclass(frozen=True)
class Curve:
    """One curve a figure must show: a word its label must contain, its x and y data, and
    the y data known mistakes give."""

    label: str
    description: str
    x: Callable[[], Any]
    y: Callable[[], Any]
    mistakes: tuple[Mistake, ...] = ()


UNIT_SCALES = tuple(10.0 ** (-3 * k) for k in range(6))
"""FLOP/s, kFLOP/s, MFLOP/s, GFLOP/s, TFLOP/s, PFLOP/s: any is a fine unit for a y axis."""


@dataclass(frozen=True)
class FigureQuestion:
    """One ``aspect`` of the figure ``variable`` (``"curves"``, ``"curve_labels"`` or
    ``"axis_labels"``): its ``curves``, and words its axis labels must contain (any one of
    each tuple, case-insensitive); y data may be in any unit of ``unit_scales``."""

    id: str
    variable: str
    aspect: str
    curves: tuple[Curve, ...]
    tolerance: Tolerance
    x_label_words: tuple[str, ...]
    y_label_words: tuple[str, ...]
    unit_scales: tuple[float, ...] = UNIT_SCALES

    @property
    def name(self) -> str:
        return self.variable


Question = FunctionQuestion | FigureQuestion


def rng_for(question: Question, seed: str | None) -> np.random.Generator:
    """The generator a question's random cases come from: the same for the same ``seed``
    (hexadecimal, or any text) and question; fresh entropy when ``seed`` is None.

    >>> q = FunctionQuestion("ex1.ops", "(B)", abs, Tolerance(), cases=())
    >>> int(rng_for(q, "2a").integers(1 << 30)) == int(rng_for(q, "2a").integers(1 << 30))
    True
    """
    if not seed:
        return np.random.default_rng()
    try:
        entropy = int(seed, 16)
    except ValueError:
        entropy = int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:16], "big")
    return np.random.default_rng([entropy, zlib.crc32(question.id.encode("utf-8"))])


SEPARATION_MARGIN = 10.0
"""A separating case puts a mistake this many tolerances away from the right answer, so that
any answer holding the mistake (computed in any order, rounded as the tolerance allows) fails."""
SEPARATION_SEARCH = 4000
"""Candidates tried, from a fixed stream of the question's random cases, to separate one mistake."""


def separates(question: FunctionQuestion, mistake: Mistake, case: tuple[Any, ...]) -> bool:
    """True when the answer ``mistake`` gives at ``case`` is clearly wrong there: another word, or a
    number more than ``SEPARATION_MARGIN`` tolerances from the right one (an infinite answer only
    equals the same infinity).

    >>> half = Mistake(Misconception("halved", "Halved."), lambda n: n / 2)
    >>> q = FunctionQuestion("ex0.id", "(n)", lambda n: float(n), Tolerance(atol=1.0), cases=())
    >>> separates(q, half, (10,)), separates(q, half, (30,))
    (False, True)
    """
    return _apart(question, question.reference, mistake.answer, case)


def _apart(question: FunctionQuestion, one: Callable[..., Any], other: Callable[..., Any], case: Any) -> bool:
    """True when ``one`` and ``other`` answer ``case`` clearly apart (see :func:`separates`)."""
    try:
        right, wrong = one(*case), other(*case)
    except (ArithmeticError, ValueError):
        return False
    if question.returns == "word":
        return str(right) != str(wrong)
    wide = Tolerance(
        rtol=question.tolerance.rtol * SEPARATION_MARGIN, atol=question.tolerance.atol * SEPARATION_MARGIN
    )
    right_a, wrong_a = np.asarray(right, dtype=np.float64), np.asarray(wrong, dtype=np.float64)
    if right_a.shape != wrong_a.shape or np.any(np.isnan(right_a)) or np.any(np.isnan(wrong_a)):
        return False
    return not wide.accepts(wrong_a, right_a)


def thresholds(cases: Sequence[tuple[Any, ...]], words: Sequence[str]) -> tuple[int, ...]:
    """The arguments whose value alone decides ``words`` at ``cases`` as a fixed threshold on it
    would (one word up to some value, the other above it), by position; none when the words are
    all the same (that answer ignores every argument).

    >>> cases = [(1, 5), (2, 9), (3, 1), (4, 7)]
    >>> thresholds(cases, ["memory", "memory", "compute", "compute"])  # compute from the first at 3
    (0,)
    >>> thresholds(cases, ["memory", "compute", "memory", "compute"])  # compute from the second at 7
    (1,)
    >>> thresholds(cases, ["memory", "compute", "compute", "memory"])
    ()
    """
    if len(set(words)) < 2:
        return ()
    found = []
    for index in range(min(len(case) for case in cases)):
        try:
            values = [float(case[index]) for case in cases]
        except (TypeError, ValueError):
            continue
        ordered = sorted(zip(values, words, strict=True))
        ties = all(w == v for (x, w), (y, v) in itertools.pairwise(ordered) if x == y)
        changes = sum(w != v for (_, w), (_, v) in itertools.pairwise(ordered))
        if ties and changes == 1:
            found.append(index)
    return tuple(found)


_SEPARATING: dict[str, tuple[tuple[Any, ...], ...]] = {}


def separating_cases(question: FunctionQuestion) -> tuple[tuple[Any, ...], ...]:
    """Cases to add to the fixed ones, the first of a fixed stream of the question's random cases
    that do each job no fixed (or earlier added) case does: separate every known mistake, and every
    reading that earns nothing, from the right answer; separate every such reading that names no
    known mistake from every known mistake; and, for a word, show that neither the right answer
    nor a known mistake follows one argument alone as a fixed threshold does (so that an answer that
    does is never told a known mistake). The same for every run and every course."""
    if question.id in _SEPARATING:
        return _SEPARATING[question.id]
    found: list[tuple[Any, ...]] = []
    if question.random_case is not None:
        stream = np.random.default_rng([zlib.crc32(question.id.encode("utf-8")), 0x5E9A])
        refused = [r for r in question.readings if not r.earns]
        pairs = [(question.reference, m.answer) for m in question.mistakes]
        pairs += [(question.reference, r.answer) for r in refused]
        pairs += [(r.answer, m.answer) for r in refused if r.misconception is None for m in question.mistakes]
        for one, other in pairs:
            _search(question, stream, found, functools.partial(_apart, question, one, other))
        if question.returns == "word":
            for answer in (question.reference, *(m.answer for m in question.mistakes)):
                _unthreshold(question, stream, found, answer)
    _SEPARATING[question.id] = tuple(found)
    return _SEPARATING[question.id]


def _search(
    question: FunctionQuestion,
    stream: np.random.Generator,
    found: list[tuple[Any, ...]],
    does: Callable[[tuple[Any, ...]], bool],
) -> None:
    """Add to ``found`` the first case of ``stream`` that ``does``, unless a case so far already does."""
    assert question.random_case is not None
    if any(does(case) for case in (*question.cases, *found)):
        return
    for _ in range(SEPARATION_SEARCH):
        case = question.random_case(stream)
        if does(case):
            found.append(case)
            return


def _unthreshold(
    question: FunctionQuestion,
    stream: np.random.Generator,
    found: list[tuple[Any, ...]],
    answer: Callable[..., Any],
) -> None:
    """Add cases until ``answer``'s words follow no argument alone as a fixed threshold does."""

    def follows(cases: Sequence[tuple[Any, ...]], index: int) -> bool:
        try:
            return index in thresholds(cases, [str(answer(*case)) for case in cases])
        except (ArithmeticError, ValueError):
            return False

    def breaks(known: list[tuple[Any, ...]], index: int, case: tuple[Any, ...]) -> bool:
        return not follows([*known, case], index)

    for index in range(len(question.arguments)):
        known = [*question.cases, *found]
        if follows(known, index):
            _search(question, stream, found, functools.partial(breaks, known, index))


def public_cases(question: FunctionQuestion) -> tuple[tuple[Any, ...], ...]:
    """The cases every answer is called at, in every run: the fixed ones, then the separating ones."""
    return (*question.cases, *separating_cases(question))


def hidden_cases(question: FunctionQuestion, rng: np.random.Generator) -> list[tuple[Any, ...]]:
    """``random_count`` random cases from ``rng``: the inputs no student sees."""
    if question.random_case is None:
        return []
    return [question.random_case(rng) for _ in range(question.random_count)]


def draw_cases(question: FunctionQuestion, rng: np.random.Generator) -> list[tuple[Any, ...]]:
    """Every input a function is called at: its public cases, then hidden ones from ``rng``."""
    return [*public_cases(question), *hidden_cases(question, rng)]
