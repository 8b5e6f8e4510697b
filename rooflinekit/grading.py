"""Check a student's answer against an answer key, naming the likely misconception.

The graded notebooks' hidden tests are one line each, for example::

    assert_function(bytes_read, EX1.bytes_read)

where ``EX1.bytes_read`` comes from :mod:`rooflinekit.answer_key`. This module only
*compares*: the answer key says what is accepted, within which tolerance, and which known
mistakes produce which values; :mod:`rooflinekit.reference` computes the numbers.

Every ``assert_*`` function returns ``None`` when the answer is right and raises
:class:`AnswerError` (an ``AssertionError``) otherwise, so nbgrader scores the test cell 0
and its feedback shows the message. When a wrong answer matches a known mistake, the
message names the misconception in plain words.

Answers are converted to plain ``float`` / float64 ``ndarray`` values before any
comparison, so nothing a student's object defines (an ``__eq__`` that is always true, an
array subclass) takes part past that point. This module's frames set ``__tracebackhide__``,
so IPython's traceback in the feedback shows the test line and the message, not our code.

>>> q = ValueQuestion("critical_batch", accepted=(lambda: 243.2,), tolerance=Tolerance(atol=1.0),
...                   mistakes=(Mistake(Misconception("bf16", "You used the bf16 peak."), lambda: 121.6),))
>>> assert_value(243, q)      # within one token: accepted, returns None
>>> assert_value(121.6, q)
Traceback (most recent call last):
...
rooflinekit.grading.AnswerError: critical_batch = 121.6 is not right. You used the bf16 peak.
"""

from __future__ import annotations

import re
import textwrap
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

__all__ = [
    "AnswerError",
    "ChoiceQuestion",
    "Curve",
    "FigureQuestion",
    "FunctionQuestion",
    "Misconception",
    "Mistake",
    "Tolerance",
    "ValueQuestion",
    "as_array",
    "as_number",
    "assert_axis_labels",
    "assert_choice",
    "assert_curve_labels",
    "assert_curves",
    "assert_function",
    "assert_value",
]


class AnswerError(AssertionError):
    """A graded answer is wrong; the message says what was expected and, if known, why."""


def _fail(message: str, cause: BaseException | None = None) -> NoReturn:
    """Raise the message, wrapped to fit nbgrader's feedback page."""
    raise AnswerError(
        textwrap.fill(message, width=90, break_long_words=False, break_on_hyphens=False)
    ) from cause


# --- What a question is ----------------------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    """How close an answer must be: ``|answer - expected| <= atol + rtol * |expected|``.

    ``why`` says, for the instructor's guide and the tests, why this tolerance is right.

    >>> Tolerance(atol=1.0).accepts(244.0, 243.2)
    True
    >>> Tolerance(rtol=1e-9).accepts(np.array([1.0, 2.0]), np.array([1.0, 2.1]))
    False
    """

    rtol: float = 0.0
    atol: float = 0.0
    why: str = ""

    def accepts(self, answer: Any, expected: Any) -> bool:
        """True when the shapes agree and every element is within tolerance (NaN never is)."""
        got, want = np.asarray(answer, dtype=np.float64), np.asarray(expected, dtype=np.float64)
        if got.shape != want.shape:
            return False
        return bool(np.all(np.isclose(got, want, rtol=self.rtol, atol=self.atol, equal_nan=False)))

    def describe(self) -> str:
        """In words, e.g. ``'within 1 token'`` style text for messages.

        >>> Tolerance(rtol=1e-6).describe()
        'relative tolerance 1e-06'
        """
        parts = []
        if self.rtol:
            parts.append(f"relative tolerance {self.rtol:g}")
        if self.atol:
            parts.append(f"absolute tolerance {self.atol:g}")
        return " plus ".join(parts) or "exact"


@dataclass(frozen=True)
class Misconception:
    """A known wrong idea, with the plain-words message a student sees when it shows."""

    name: str
    message: str


@dataclass(frozen=True)
class Mistake:
    """What an answer holding ``misconception`` comes to: ``answer`` takes the same
    arguments as the question's reference and returns the mistaken value."""

    misconception: Misconception
    answer: Callable[..., Any]


@dataclass(frozen=True)
class ValueQuestion:
    """A number the student writes down. Any of ``accepted`` (callables, no arguments)
    is right; ``allow_infinite`` lets ``math.inf`` be an answer."""

    name: str
    accepted: tuple[Callable[[], Any], ...]
    tolerance: Tolerance
    mistakes: tuple[Mistake, ...] = ()
    allow_infinite: bool = False


@dataclass(frozen=True)
class FunctionQuestion:
    """A function the student writes, called at fixed ``cases`` and at ``random_count``
    cases drawn by ``random_case`` (sizes differ at every grading run)."""

    name: str
    parameters: str
    reference: Callable[..., Any]
    tolerance: Tolerance
    cases: tuple[tuple[Any, ...], ...]
    random_case: Callable[[np.random.Generator], tuple[Any, ...]] | None = None
    random_count: int = 5
    mistakes: tuple[Mistake, ...] = ()


@dataclass(frozen=True)
class ChoiceQuestion:
    """A word the student picks from ``choices``; only its first word counts, in any case
    (``"Memory-bound"`` reads as ``"memory"``)."""

    name: str
    accepted: Callable[[], str]
    choices: tuple[str, ...]
    mistakes: tuple[Mistake, ...] = ()


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
    """A matplotlib figure: its ``curves``, and words its axis labels must contain (any
    one of each tuple, case-insensitive). y data may be in any unit of ``unit_scales``."""

    name: str
    curves: tuple[Curve, ...]
    tolerance: Tolerance
    x_label_words: tuple[str, ...]
    y_label_words: tuple[str, ...]
    unit_scales: tuple[float, ...] = UNIT_SCALES


# --- Turning answers into plain values -----------------------------------------------


def as_number(answer: Any, name: str, *, allow_infinite: bool = False) -> float:
    """``answer`` as a plain ``float``, or an ``AnswerError`` saying what it should be.

    >>> as_number(np.float32(2.5), "x")
    2.5
    >>> as_number("243", "critical_batch")
    Traceback (most recent call last):
    ...
    rooflinekit.grading.AnswerError: critical_batch should be a number (an int or a float), not str '243'.
    """
    __tracebackhide__ = True
    if isinstance(answer, (bool, np.bool_, str, bytes)) or answer is None:
        _fail(f"{name} should be a number (an int or a float), not {_describe(answer)}.")
    try:
        value = np.array(answer, dtype=np.float64)
    except (TypeError, ValueError) as error:
        _fail(f"{name} should be a number (an int or a float), not {_describe(answer)}.", error)
    if value.ndim != 0:
        _fail(f"{name} should be a single number, not an array of shape {value.shape}.")
    number = float(value)
    if np.isnan(number) or (np.isinf(number) and not allow_infinite):
        _fail(f"{name} should be a finite number, not {number}.")
    return number


def as_array(answer: Any, name: str) -> np.ndarray[Any, np.dtype[np.float64]]:
    """``answer`` as a plain float64 ``ndarray`` (a copy, never a subclass).

    >>> as_array([1, 2], "y")
    array([1., 2.])
    """
    __tracebackhide__ = True
    if isinstance(answer, (str, bytes)) or answer is None:
        _fail(f"{name} should be numbers (a numpy array), not {_describe(answer)}.")
    try:
        return np.array(answer, dtype=np.float64, copy=True, subok=False)
    except (TypeError, ValueError) as error:
        _fail(f"{name} should be numbers (a numpy array), not {_describe(answer)}.", error)


# --- Checking answers ------------------------------------------------------------------


def assert_value(answer: Any, question: ValueQuestion) -> None:
    """Pass if ``answer`` is one of the accepted values; otherwise say what went wrong."""
    __tracebackhide__ = True
    got = as_number(answer, question.name, allow_infinite=question.allow_infinite)
    accepted = [float(value()) for value in question.accepted]
    if any(question.tolerance.accepts(got, value) for value in accepted):
        return None
    named = [
        m.misconception.message
        for m in question.mistakes
        if _is_mistake(got, float(m.answer()), accepted, question.tolerance)
    ]
    _fail(f"{question.name} = {got:.6g} is not right. " + _explain(named, got, accepted[0]))


def assert_function(
    function: Any, question: FunctionQuestion, rng: np.random.Generator | None = None
) -> None:
    """Call ``function`` at the question's fixed and random cases and compare each result
    with the reference (shapes included); a known mistake must fit every case to be named."""
    __tracebackhide__ = True
    call = f"{question.name}{question.parameters}"
    if not callable(function):
        _fail(f"{question.name} should be a function {call}, not {_describe(function)}.")
    rng = np.random.default_rng() if rng is None else rng
    cases = list(question.cases)
    if question.random_case is not None:
        cases += [question.random_case(rng) for _ in range(question.random_count)]
    results = [(case, _call(function, case, question.name)) for case in cases]
    expected = [question.reference(*case) for case in cases]
    wrong = [
        (case, got, want)
        for (case, got), want in zip(results, expected, strict=True)
        if not question.tolerance.accepts(got, want)
    ]
    if not wrong:
        return None
    named = [
        m.misconception.message
        for m in question.mistakes
        if _fits_every_case(m, results, expected, question.tolerance)
    ]
    case, got, want = wrong[0]
    where = f"{question.name}({_format_case(case)})"
    if got.shape != np.shape(want):
        _fail(
            f"{where} returned an array of shape {got.shape}; it should have shape {np.shape(want)} "
            "(one value per batch size)."
        )
    _fail(f"{where} returned {_format(got)}, which is not right. " + _explain(named, got, want))


def assert_choice(answer: Any, question: ChoiceQuestion) -> None:
    """Pass if the first word of ``answer`` is the accepted choice."""
    __tracebackhide__ = True
    options = " or ".join(repr(c) for c in question.choices)
    if not isinstance(answer, str):
        _fail(f"{question.name} should be a string, {options}, not {_describe(answer)}.")
    text = str.__str__(answer)  # a plain copy: a str subclass's methods take no part
    word = _first_word(text)
    if word not in question.choices:
        _fail(f"{question.name} should be {options}, not {text!r}.")
    right = question.accepted()
    if word == right:
        return None
    named = [m.misconception.message for m in question.mistakes if m.answer() == word and m.answer() != right]
    message = " ".join(dict.fromkeys(named)) if named else "Compare the two times (or the intensities) again."
    _fail(f"{question.name} = {text!r} is not right. {message}")


def assert_curves(figure: Any, question: FigureQuestion) -> None:
    """Every curve of the question is drawn: some line's x data are the curve's x values and
    its y data the curve's y values (in one of the accepted units)."""
    __tracebackhide__ = True
    lines = _lines(figure, question.name)
    for curve in question.curves:
        x, y = as_array(curve.x(), "x"), as_array(curve.y(), "y")
        if any(_line_shows(line, x, y, question) for line in lines):
            continue
        named = [
            m.misconception.message
            for m in curve.mistakes
            if any(_line_shows(line, x, as_array(m.answer(), "y"), question) for line in lines)
        ]
        message = (
            " ".join(named)
            if named
            else ("No line has these values: plot your function's values against B, one line per size.")
        )
        _fail(f"{question.name}: the curve for {curve.description} is missing or wrong. {message}")
    return None


def assert_curve_labels(figure: Any, question: FigureQuestion) -> None:
    """Each curve has a line whose label names it, and the figure shows a legend."""
    __tracebackhide__ = True
    lines = _lines(figure, question.name)
    labels = [str(line.get_label()) for line in lines if not str(line.get_label()).startswith("_")]
    for curve in question.curves:
        if not any(curve.label in label for label in labels):
            _fail(
                f"{question.name}: no line is labelled with {curve.label!r} ({curve.description}); "
                f"labels found: {labels}. Pass label=... to plot, e.g. label='D = F = {curve.label}'."
            )
    if not any(ax.get_legend() is not None for ax in figure.axes) and not figure.legends:
        _fail(f"{question.name}: add a legend (ax.legend()) so a reader can tell the curves apart.")
    return None


def assert_axis_labels(figure: Any, question: FigureQuestion) -> None:
    """The axes with lines have an x label and a y label with the expected words."""
    __tracebackhide__ = True
    _lines(figure, question.name)
    for ax in figure.axes:
        if not ax.get_lines():
            continue
        for axis, text, words in (
            ("x", ax.get_xlabel(), question.x_label_words),
            ("y", ax.get_ylabel(), question.y_label_words),
        ):
            if not any(_mentions(text, word) for word in words):
                wanted = " or ".join(repr(w) for w in words)
                _fail(
                    f"{question.name}: the {axis} axis label {text!r} should say what is plotted "
                    f"(mention {wanted}); use ax.set_{axis}label(...)."
                )
    return None


# --- Helpers ---------------------------------------------------------------------------


def _call(function: Callable[..., Any], case: tuple[Any, ...], name: str) -> np.ndarray[Any, Any]:
    """The student's result for one case as a float64 array; their warnings stay quiet,
    so a right answer is never marked down for a RuntimeWarning on stderr."""
    __tracebackhide__ = True
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            result = function(*case)
    except Exception as error:
        _fail(f"{name}({_format_case(case)}) raised {type(error).__name__}: {error}", error)
    return as_array(result, f"{name}({_format_case(case)})")


def _is_mistake(got: Any, mistaken: Any, accepted: Sequence[Any], tolerance: Tolerance) -> bool:
    """A mistake is named when the answer fits it and it cannot pass for a right answer."""
    return tolerance.accepts(got, mistaken) and not any(tolerance.accepts(mistaken, a) for a in accepted)


def _fits_every_case(
    mistake: Mistake,
    results: list[tuple[tuple[Any, ...], np.ndarray[Any, Any]]],
    expected: list[Any],
    tolerance: Tolerance,
) -> bool:
    mistaken = [mistake.answer(*case) for case, _ in results]
    fits = all(tolerance.accepts(got, m) for (_, got), m in zip(results, mistaken, strict=True))
    differs = any(not tolerance.accepts(m, e) for m, e in zip(mistaken, expected, strict=True))
    return fits and differs


def _explain(named: list[str], got: Any, expected: Any) -> str:
    named = list(dict.fromkeys(named))
    if len(named) > 1:
        return "More than one known mistake gives this value. " + " ".join(named)
    if named:
        return named[0]
    got_a, want_a = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if not np.all(np.isfinite(want_a)):
        return "In this model no finite value is right here; look at how the quantity depends on the sizes."
    with np.errstate(all="ignore"):
        ratio = got_a / want_a
    if ratio.size and np.all(np.isfinite(ratio)) and np.allclose(ratio, ratio.flat[0]):
        return f"It is {float(ratio.flat[0]):.4g} times the model's value; check each factor of the formula."
    return "It does not match the model; check each term of the formula."


def _first_word(text: str) -> str:
    match = re.match(r"\s*([a-z]+)", text.lower())
    return match.group(1) if match else ""


def _mentions(text: str, word: str) -> bool:
    """``word`` in ``text``, any case; a one-letter word (``B``) only on its own."""
    if len(word) > 1:
        return word.lower() in text.lower()
    return re.search(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", text, flags=re.IGNORECASE) is not None


def _lines(figure: Any, name: str) -> list[Any]:
    __tracebackhide__ = True
    from matplotlib.figure import Figure  # matplotlib loads only for the plot exercise

    if not isinstance(figure, Figure):
        _fail(
            f"{name} should be a matplotlib Figure (from fig, ax = plt.subplots()), not {_describe(figure)}."
        )
    lines = [line for ax in figure.axes for line in ax.get_lines()]
    if not lines:
        _fail(f"{name} has no lines: draw the curves with ax.plot(...).")
    return lines


def _line_shows(
    line: Any, x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], question: FigureQuestion
) -> bool:
    try:
        line_x = as_array(line.get_xdata(), "x data")
        line_y = as_array(line.get_ydata(), "y data")
    except AnswerError:
        return False
    if not question.tolerance.accepts(line_x, x):
        return False
    return any(question.tolerance.accepts(line_y, y * scale) for scale in question.unit_scales)


def _format(value: Any) -> str:
    array = np.asarray(value)
    if array.ndim == 0:
        return f"{float(array):.6g}"
    return np.array2string(array, precision=4, threshold=6)


def _format_case(case: tuple[Any, ...]) -> str:
    return ", ".join(_describe_argument(a) for a in case)


def _describe_argument(value: Any) -> str:
    array = np.asarray(value)
    if array.ndim == 0:
        return repr(value)
    return f"array of {array.size} sizes from {array.min():g} to {array.max():g}"


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"
