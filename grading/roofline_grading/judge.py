"""Judge a recorded answer against the answer key, in the grader's own process.

:func:`judge` takes a question, the cases the student's function was called at, and the
plain results recorded in the kernel (:mod:`roofline_recorder`), and returns ``None`` when
the answer is right or the feedback the student reads when it is not. When a wrong answer
matches a known mistake at every case, the feedback names the misconception in plain words;
otherwise it says how the answer differs from the model. :func:`assess` gives the same verdict
with the names of the misconceptions it found.

**What the hidden inputs may tell a student: one bit.** The feedback on a function question
depends only on the answer's results at the public cases, on whether it was right at *every*
hidden case (yes or no), and on the earlier parts' feedback, which obeys the same rule. When a
public case is wrong, everything the feedback says (where, what was returned, the known mistake,
"whatever its arguments", the ratio to the model) comes from the public cases alone. When only
hidden cases are wrong, the feedback is one fixed sentence whatever happened there: a wrong
value, an error of any class, a time-out, a lost copy, NaN, a wrong type, any number of wrong
cases. So a function that picks its behaviour from a hidden input learns at most that bit.
A :class:`Verdict` keeps the misconceptions for the feedback apart from those for the
instructor's misconception summary, which may be fitted at every case, hidden ones included.

A word answer that follows one argument alone at the public cases, as a threshold typed into it
does ("compute" above B = 243), is told that its answer does not follow its other arguments, never
a misconception: the public cases are chosen so that neither the right answer nor any known
mistake follows one argument alone (:func:`roofline_grading.questions.separating_cases`).

Several known mistakes can give the same results (2 bytes per int8 element and one operation per
multiply-add both double exercise 1's critical batch). Given the verdicts of the notebook's
earlier parts, the feedback names the one an earlier part shows ("It is the known mistake your
bytes_read makes."), drops one an earlier part is free of (right at its public cases, which
separate every known mistake from the right answer), and otherwise names them all as
alternatives: the visible checks say the same before submission
(:func:`roofline_grading.mistake_check.diagnosis`).

>>> from roofline_grading.questions import FunctionQuestion, Misconception, Mistake, Tolerance
>>> sparse = Misconception("sparse-peak", "This matches the sparse figure.")
>>> q = FunctionQuestion("ex5.dense_peak", "(flops)", lambda f: f / 2, Tolerance(rtol=1e-3),
...                      cases=((2.0,), (4.0,)), mistakes=(Mistake(sparse, lambda f: f),))
>>> judge(q, q.cases, {"kind": "function", "results": [{"value": 1.0}, {"value": 2.0}]}) is None
True
>>> judge(q, q.cases, {"kind": "function", "results": [{"value": 2.0}, {"value": 4.0}]})
'dense_peak(2) returned 2, which is not right. This matches the sparse figure.'
>>> wrong = assess(q, q.cases, {"kind": "function", "results": [{"value": 2.0}, {"value": 4.0}]})
>>> wrong.feedback_misconceptions, wrong.summary_misconceptions
(('sparse-peak',), ('sparse-peak',))

With a third case hidden (``public=2``), whatever the answer did there, the feedback is the same:

>>> cases, right = ((2.0,), (4.0,), (8.0,)), [{"value": 1.0}, {"value": 2.0}]
>>> said = {judge(q, cases, {"kind": "function", "results": [*right, hidden]}, public=2)
...         for hidden in ({"value": 8.0}, {"raised": "KeyError: 8.0"}, {"timed_out": True}, "garbage")}
>>> print(*said)  # doctest: +ELLIPSIS
dense_peak is right at the 2 inputs every notebook is checked at, but not at every input chosen ...
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from roofline_grading.i18n import translator
from roofline_grading.questions import (
    FigureQuestion,
    FunctionQuestion,
    Misconception,
    Mistake,
    Question,
    Tolerance,
    thresholds,
)
from rooflinekit.words import N_, Translate

__all__ = ["FOLLOWS_ONE_ARGUMENT", "Verdict", "assess", "first_said", "judge"]

FOLLOWS_ONE_ARGUMENT = N_(
    "At the inputs every notebook is checked at, {name} answers as a fixed threshold on {argument} would: "
    "{low} up to {argument} = {below}, {high} from {argument} = {above}, whatever its other arguments. Its "
    "answer does not follow them, and the right one does: compute it from every argument (the tests call "
    "it with other figures and sizes too)."
)
"""What a word answer that follows one argument alone (a threshold typed in) is told."""


@dataclass(frozen=True)
class Verdict:
    """What is wrong with an answer.

    ``feedback`` is what the student reads. ``feedback_misconceptions``: the known misconceptions
    the feedback names, fitted at the cases the feedback may depend on (the public ones); these
    alone steer a later part's feedback (``earlier``). ``summary_misconceptions``: those the answer
    fits at every case it was called at, hidden ones included, for the instructor's misconception
    summary (``roofline-misconceptions.*``) only: never shown to a student, never passed on.
    ``hidden_only``: the answer was right at every public case and not at every hidden one, and
    ``feedback`` is the one sentence that says so."""

    feedback: str
    feedback_misconceptions: tuple[str, ...] = ()
    summary_misconceptions: tuple[str, ...] = ()
    hidden_only: bool = False


Earlier = Sequence[tuple[Question, Verdict | None]]
"""The notebook's parts judged before a question, in order, each with its verdict (None: right)."""


def judge(
    question: Question,
    cases: Sequence[tuple[Any, ...]],
    payload: Any,
    language: str = "en",
    *,
    public: int | None = None,
    earlier: Earlier = (),
) -> str | None:
    """None if the recorded answer is right, otherwise the feedback (see the module's docstring),
    in ``language``."""
    verdict = assess(question, cases, payload, language, public=public, earlier=earlier)
    return None if verdict is None else verdict.feedback


def assess(
    question: Question,
    cases: Sequence[tuple[Any, ...]],
    payload: Any,
    language: str = "en",
    *,
    public: int | None = None,
    earlier: Earlier = (),
) -> Verdict | None:
    """None if the recorded answer is right, otherwise its :class:`Verdict`, in ``language``.

    The first ``public`` cases (all of them if None) may be shown in the feedback, and the first
    ``public`` results of ``payload`` are the answer's at them; the others are hidden, and of the
    answer there the feedback tells one thing only: whether it was right at every one of them (see
    the module's docstring). ``earlier``: the parts judged before, which tell apart known mistakes
    that give the same results."""
    tr = translator(language)
    if not isinstance(payload, dict):
        return Verdict(tr("The answer could not be read."))
    if isinstance(question, FigureQuestion):
        return _judge_figure(question, payload, tr, language)
    shown = len(cases) if public is None else max(0, min(public, len(cases)))
    return _judge_function(question, list(cases), payload, tr, language, shown, earlier)


def first_said(verdicts: Iterable[Verdict | None]) -> Verdict | None:
    """The verdict on a question answered by several records (or copies): the first that the public
    cases decide, else the first wrong only at hidden inputs (they all say the same), else None.

    >>> first_said([None, Verdict("hidden", hidden_only=True), Verdict("public"), None]).feedback
    'public'
    >>> first_said([None, Verdict("hidden", hidden_only=True)]).feedback, first_said([None])
    ('hidden', None)
    """
    wrong = [v for v in verdicts if v is not None]
    return next((v for v in wrong if not v.hidden_only), wrong[0] if wrong else None)


def _named(found: Sequence[Misconception]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(m.name for m in found))


def _prefer(
    found: Sequence[Misconception], earlier: Earlier, *, summary: bool = False
) -> tuple[list[Misconception], dict[str, str]]:
    """Of the known mistakes ``found`` to fit, those an earlier part shows, else those no earlier
    part is free of, else all; and for each kept one an earlier part shows, that part's name.

    For the feedback (``summary`` False) an earlier part shows the misconceptions its feedback
    names and is free of its known mistakes when it is right at its public cases; for the
    summary, the misconceptions it fits at every case, and free when right at every case.

    >>> from roofline_grading.questions import FunctionQuestion, Mistake, Tolerance
    >>> two, one = Misconception("two-bytes", "2 bytes."), Misconception("no-factor-two", "1 op.")
    >>> ops = FunctionQuestion("ex1.ops", "(B)", abs, Tolerance(), (), mistakes=(Mistake(one, abs),))
    >>> size = FunctionQuestion("ex1.bytes_read", "(B)", abs, Tolerance(), (), mistakes=(Mistake(two, abs),))
    >>> _prefer([two, one], [(size, Verdict("wrong", ("two-bytes",))), (ops, None)])
    ([Misconception(name='two-bytes', template='2 bytes.', values=())], {'two-bytes': 'bytes_read'})
    >>> [m.name for m in _prefer([two, one], [])[0]]
    ['two-bytes', 'no-factor-two']
    """
    shown: dict[str, str] = {}
    free: set[str] = set()
    for question, verdict in earlier:
        if verdict is None or (verdict.hidden_only and not summary):
            free |= {m.misconception.name for m in getattr(question, "mistakes", ())}
            continue
        for name in verdict.summary_misconceptions if summary else verdict.feedback_misconceptions:
            shown.setdefault(name, question.name)
    kept = [m for m in found if m.name in shown] or [m for m in found if m.name not in free] or list(found)
    return kept, {m.name: shown[m.name] for m in kept if m.name in shown}


def _texts(
    found: Sequence[Misconception], sources: dict[str, str], tr: Translate, language: str
) -> list[str]:
    """Each misconception's message, saying which earlier part makes the same mistake."""
    same = tr("It is the known mistake your {source} makes.")
    return [
        f"{same.format(source=sources[m.name])} {m.text(language)}" if m.name in sources else m.text(language)
        for m in found
    ]


# --- Functions ------------------------------------------------------------------------


def _judge_function(
    question: FunctionQuestion,
    cases: list[tuple[Any, ...]],
    payload: dict[str, Any],
    tr: Translate,
    language: str,
    shown: int,
    earlier: Earlier = (),
) -> Verdict | None:
    """Judged at the public cases alone; when they are right, one bit of the hidden ones."""
    results = _results(question, len(cases), payload, tr, shown)
    if isinstance(results, Verdict):
        return results
    public = cases[:shown]
    answers = _answers(question, public, results[:shown], tr)
    if isinstance(answers, Verdict):
        return answers
    verdict = _judge_public(question, public, answers, tr, language, earlier)
    if shown == len(cases):
        return verdict
    hidden = _hidden_answers(question, results[shown:], len(cases) - shown)
    if verdict is None and _right_at_every(question, cases[shown:], hidden):
        return None
    counted = _counted(question, cases, answers, hidden, earlier)
    if verdict is not None:
        return replace(verdict, summary_misconceptions=counted)
    return Verdict(_wrong_where_hidden(question, shown, tr), (), counted, hidden_only=True)


def _results(
    question: FunctionQuestion, count: int, payload: dict[str, Any], tr: Translate, shown: int
) -> list[Any] | Verdict:
    """The results recorded (public first), or the verdict on a payload that holds none to judge.
    Hidden results of the wrong number are left to the hidden check (they make it fail)."""
    if "not_callable" in payload:
        return Verdict(
            tr("{name} should be a function {call}, not {what}.").format(
                name=question.name, call=f"{question.name}{question.parameters}", what=payload["not_callable"]
            )
        )
    results = payload.get("results")
    if payload.get("hidden_missing") and isinstance(results, list) and len(results) == shown:
        return Verdict(
            tr(
                "{name} could not be checked at the inputs chosen at grading time: the test cell's "
                "check did not finish (was the notebook's code changed?)."
            ).format(name=question.name)
        )
    if not isinstance(results, list) or len(results) < shown or (shown == count and len(results) != count):
        return Verdict(tr("{name}: the answer could not be read at every case.").format(name=question.name))
    return results


def _answers(
    question: FunctionQuestion, cases: list[tuple[Any, ...]], results: list[Any], tr: Translate
) -> list[Any] | Verdict:
    """The answer at each public case, or the verdict on the first that holds no usable answer."""
    answers: list[Any] = []
    for case, result in zip(cases, results, strict=True):
        problem = _unusable(question, f"{question.name}({_format_case(case, tr)})", result, tr)
        if problem:
            return Verdict(problem)
        answers.append(result.get("value", result.get("word")))
    return answers


def _judge_public(
    question: FunctionQuestion,
    cases: list[tuple[Any, ...]],
    answers: list[Any],
    tr: Translate,
    language: str,
    earlier: Earlier,
) -> Verdict | None:
    """The verdict on usable answers at cases the feedback may show."""
    expected = [question.reference(*case) for case in cases]
    if question.returns == "word":
        return _judge_words(question, cases, answers, expected, tr, language, earlier)
    return _judge_numbers(question, cases, answers, expected, tr, language, earlier)


_FAILED = frozenset({"raised", "too_big", "timed_out", "wrong_type", "lost", "not_callable"})
"""The marks of a result that holds no answer (an error, a time-out, a lost copy, ...)."""


def _hidden_answers(question: FunctionQuestion, results: Any, count: int) -> list[Any] | None:
    """The answers at the hidden cases, or None when any result holds no usable answer, whatever
    the reason (all reasons alike: the feedback must not tell them apart)."""
    if not isinstance(results, list) or len(results) != count:
        return None
    answers = []
    for result in results:
        if not isinstance(result, dict) or _FAILED.intersection(result):
            return None
        value = result.get("word" if question.returns == "word" else "value")
        if question.returns == "word":
            if not isinstance(value, str):
                return None
        elif not isinstance(value, float | np.ndarray) or not _numbers(value):
            return None
        answers.append(value)
    return answers


def _numbers(value: float | np.ndarray) -> bool:
    """Real numbers, none of them NaN."""
    try:
        return not bool(np.any(np.isnan(np.asarray(value, dtype=np.float64))))
    except (TypeError, ValueError):
        return False


def _right_at_every(
    question: FunctionQuestion, cases: list[tuple[Any, ...]], answers: list[Any] | None
) -> bool:
    """Whether ``answers`` (None: not usable) are right at every one of ``cases``."""
    if answers is None:
        return False
    expected = [question.reference(*case) for case in cases]
    if question.returns == "word":
        return all(_first_word(a) == e for a, e in zip(answers, expected, strict=True))
    return all(question.tolerance.accepts(a, e) for a, e in zip(answers, expected, strict=True))


def _counted(
    question: FunctionQuestion,
    cases: list[tuple[Any, ...]],
    public: list[Any],
    hidden: list[Any] | None,
    earlier: Earlier,
) -> tuple[str, ...]:
    """The misconceptions for the instructor's summary: fitted at every case when the hidden
    answers are usable, else at the public cases."""
    answers = public if hidden is None else [*public, *hidden]
    fitted = cases[: len(answers)]
    expected = [question.reference(*case) for case in fitted]
    found, _ = _prefer(_fitting(question, fitted, answers, expected), earlier, summary=True)
    return _named(found)


def _fitting(
    question: FunctionQuestion, cases: list[tuple[Any, ...]], answers: list[Any], expected: list[Any]
) -> list[Misconception]:
    """The known mistakes the answers fit at every one of ``cases`` (and that are wrong at one)."""
    if question.returns == "word":
        words = [_first_word(a) for a in answers]
        return [
            m.misconception
            for m in question.mistakes
            if all(str(m.answer(*c)) == w for c, w in zip(cases, words, strict=True))
            and any(str(m.answer(*c)) != e for c, e in zip(cases, expected, strict=True))
        ]
    return [
        m.misconception
        for m in question.mistakes
        if _fits_every_case(m, cases, answers, expected, question.tolerance)
    ]


def _judge_numbers(
    question: FunctionQuestion,
    cases: list[tuple[Any, ...]],
    answers: list[Any],
    expected: list[Any],
    tr: Translate,
    language: str,
    earlier: Earlier,
) -> Verdict | None:
    """The verdict on numbers: right, or where and how wrong (a known mistake named when it fits,
    the one an earlier part shows first)."""
    wrong = [
        (index, case, got, want)
        for index, (case, got, want) in enumerate(zip(cases, answers, expected, strict=True))
        if not question.tolerance.accepts(got, want)
    ]
    if not wrong:
        return None
    found, sources = _prefer(_fitting(question, cases, answers, expected), earlier)
    named = _texts(found, sources, tr, language)
    index, case, got, want = wrong[0]
    where = f"{question.name}({_format_case(case, tr)})"
    if np.shape(got) != np.shape(want):
        return Verdict(
            tr(
                "{where} returned an array of shape {shape}; it should have shape {wanted} "
                "(one value per batch size)."
            ).format(where=where, shape=np.shape(got), wanted=np.shape(want))
        )
    if not found and _ignores_its_arguments(answers, expected):
        return Verdict(
            tr(
                "{call} returned {got} whatever its arguments. Compute the answer from the arguments: "
                "the tests call it with other figures and sizes too."
            ).format(call=f"{question.name}{question.parameters}", got=_format(got))
        )
    feedback = (
        tr("{where} returned {got}, which is not right.").format(where=where, got=_format(got))
        + " "
        + _explain(named, got, want, tr, ratio=index < len(question.cases))
    )
    return Verdict(feedback, _named(found), _named(found))


def _wrong_where_hidden(question: FunctionQuestion, public: int, tr: Translate) -> str:
    """The one sentence for an answer right at every public case and not at every hidden one,
    whatever went wrong there."""
    return tr(
        "{name} is right at the {public} inputs every notebook is checked at, but not at every input "
        "chosen at grading time (they are not shown). Make it work for any figures and sizes, "
        "computing the answer from its arguments."
    ).format(name=question.name, public=public)


def _unusable(question: FunctionQuestion, where: str, result: Any, tr: Translate) -> str | None:
    """What makes ``result``, the answer at the public case ``where``, unusable, in words."""
    if not isinstance(result, dict):
        return tr("{where}: the answer could not be read.").format(where=where)
    if "raised" in result:
        return tr("{where} raised {error}").format(where=where, error=result["raised"])
    if "too_big" in result:
        return tr("{where} returned an array of shape {shape}, far more values than asked.").format(
            where=where, shape=tuple(result["too_big"])
        )
    if "timed_out" in result:
        return tr("{where} did not return within the time a cell may run.").format(where=where)
    wanted = _wanted(question, tr)
    should = tr("{where} should return {wanted}.").format(where=where, wanted=wanted)
    if "wrong_type" in result:
        return tr("{where} should return {wanted}, not {what}.").format(
            where=where, wanted=wanted, what=result["wrong_type"]
        )
    key = "word" if question.returns == "word" else "value"
    if key not in result:
        return should
    value = result[key]
    if question.returns == "word":
        return None if isinstance(value, str) else should
    if not isinstance(value, float | np.ndarray):
        return should
    if np.any(np.isnan(value)):
        return tr("{where} returned NaN, not a number.").format(where=where)
    return None


def _wanted(question: FunctionQuestion, tr: Translate) -> str:
    if question.returns == "word":
        return tr("a string, {choices}").format(choices=_or(question.choices, tr))
    return tr("a number (or a numpy array of numbers)")


def _judge_words(
    question: FunctionQuestion,
    cases: list[tuple[Any, ...]],
    answers: list[Any],
    expected: list[Any],
    tr: Translate,
    language: str,
    earlier: Earlier = (),
) -> Verdict | None:
    words = [_first_word(a) for a in answers]
    options = _or(question.choices, tr)
    for case, word, answer in zip(cases, words, answers, strict=True):
        if word not in question.choices:
            return Verdict(
                tr("{where} should return {wanted}, not {what}.").format(
                    where=f"{question.name}({_format_case(case, tr)})", wanted=options, what=repr(answer)
                )
            )
    wrong = [(c, w) for c, w, e in zip(cases, words, expected, strict=True) if w != e]
    if not wrong:
        return None
    case, word = wrong[0]
    found, sources = _prefer(_fitting(question, cases, answers, expected), earlier)
    named = _texts(found, sources, tr, language)
    if not found and _ignores_its_arguments(words, expected):
        return Verdict(
            tr(
                "{call} returned {got} whatever its arguments. Compute the answer from the arguments: "
                "the tests call it with other figures and sizes too."
            ).format(call=f"{question.name}{question.parameters}", got=repr(word))
        )
    message = (
        " ".join(dict.fromkeys(named))
        if named
        else _threshold(question, cases, words, expected, tr)
        or tr("Compare the two times (or the intensities) again.")
    )
    wrong_word = tr("{where} returned {got}, which is not right.").format(
        where=f"{question.name}({_format_case(case, tr)})", got=repr(word)
    )
    return Verdict(f"{wrong_word} {message}", _named(found), _named(found))


def _threshold(
    question: FunctionQuestion,
    cases: list[tuple[Any, ...]],
    words: list[str],
    expected: list[str],
    tr: Translate,
) -> str | None:
    """What to say of words that follow one argument alone as a fixed threshold on it does (a
    number written into the answer, say), where the right words do not: None if they do not."""
    follows = [i for i in thresholds(cases, words) if i not in thresholds(cases, expected)]
    if not follows:
        return None
    index = follows[0]
    ordered = sorted((float(case[index]), word) for case, word in zip(cases, words, strict=True))
    low, high = ordered[0][1], ordered[-1][1]
    below = max(value for value, word in ordered if word == low)
    above = min(value for value, word in ordered if word == high)
    return tr(FOLLOWS_ONE_ARGUMENT).format(
        name=question.name,
        argument=question.arguments[index],
        low=repr(low),
        high=repr(high),
        below=f"{below:g}",
        above=f"{above:g}",
    )


def _fits_every_case(
    mistake: Mistake,
    cases: list[tuple[Any, ...]],
    answers: list[Any],
    expected: list[Any],
    tolerance: Tolerance,
) -> bool:
    """A mistake is named when the answer fits it at every case and it is not itself right."""
    mistaken = [mistake.answer(*case) for case in cases]
    fits = all(tolerance.accepts(got, m) for got, m in zip(answers, mistaken, strict=True))
    differs = any(not tolerance.accepts(m, e) for m, e in zip(mistaken, expected, strict=True))
    return fits and differs


def _ignores_its_arguments(answers: list[Any], expected: list[Any]) -> bool:
    """The same answer at every case, where the right answers differ: a number copied in."""
    first = np.asarray(answers[0])
    same = all(np.array_equal(np.asarray(a), first) for a in answers[1:])
    varies = any(not np.array_equal(np.asarray(e), np.asarray(expected[0])) for e in expected[1:])
    return len(answers) > 1 and same and varies


def _explain(named: list[str], got: Any, expected: Any, tr: Translate, *, ratio: bool = True) -> str:
    """The known mistakes ``named``, or how ``got`` compares with ``expected`` (``ratio``: as a
    factor, at a case the question states)."""
    named = list(dict.fromkeys(named))
    if len(named) > 1:
        return tr("More than one known mistake gives this value.") + " " + " ".join(named)
    if named:
        return named[0]
    no_match = tr("It does not match the model; check each term of the formula.")
    if not ratio:
        return no_match
    got_a, want_a = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if not np.all(np.isfinite(want_a)):
        return tr(
            "In this model no finite value is right here; look at how the quantity depends on the sizes."
        )
    with np.errstate(all="ignore"):
        times = got_a / want_a
    if times.size and np.all(np.isfinite(times)) and np.allclose(times, times.flat[0]):
        return tr("It is {times} times the model's value; check each factor of the formula.").format(
            times=f"{float(times.flat[0]):.4g}"
        )
    return no_match


# --- Figures --------------------------------------------------------------------------


def _judge_figure(
    question: FigureQuestion, payload: dict[str, Any], tr: Translate, language: str
) -> Verdict | None:
    figure = payload.get("figure")
    name = question.variable
    unreadable = Verdict(tr("{name}: the figure could not be read.").format(name=name))
    if not isinstance(figure, dict):
        return unreadable
    if "not_a_figure" in figure:
        return Verdict(
            tr("{name} should be a matplotlib Figure (from fig, ax = plt.subplots()), not {what}.").format(
                name=name, what=figure["not_a_figure"]
            )
        )
    try:
        lines = [(_array(d["x"]), _array(d["y"]), str(d["label"])) for d in figure["lines"]]
        axes = [
            (str(a["xlabel"]), str(a["ylabel"]), int(a["lines"]), bool(a["legend"])) for a in figure["axes"]
        ]
        legends = int(figure["figure_legends"])
    except (KeyError, TypeError, ValueError):
        return unreadable
    if not lines:
        return Verdict(tr("{name} has no lines: draw the curves with ax.plot(...).").format(name=name))
    if question.aspect == "curves":
        return _judge_curves(question, lines, tr, language)
    problem = (
        _judge_curve_labels(question, lines, axes, legends, tr)
        if question.aspect == "curve_labels"
        else _judge_axis_labels(question, axes, tr)
    )
    return None if problem is None else Verdict(problem)


def _judge_curves(
    question: FigureQuestion, lines: list[tuple[Any, Any, str]], tr: Translate, language: str
) -> Verdict | None:
    for curve in question.curves:
        x, y = np.asarray(curve.x(), dtype=np.float64), np.asarray(curve.y(), dtype=np.float64)
        if any(_shows(question, line, x, y) for line in lines):
            continue
        found = [
            m.misconception
            for m in curve.mistakes
            if any(_shows(question, line, x, np.asarray(m.answer(), dtype=np.float64)) for line in lines)
        ]
        message = (
            " ".join(m.text(language) for m in found)
            if found
            else tr("No line has these values: plot your function's values against B, one line per size.")
        )
        missing = tr("{name}: the curve for {curve} is missing or wrong.").format(
            name=question.variable, curve=curve.description
        )
        feedback = f"{missing} {message}"
        return Verdict(feedback, _named(found), _named(found))
    return None


def _judge_curve_labels(
    question: FigureQuestion,
    lines: list[tuple[Any, Any, str]],
    axes: list[tuple[str, str, int, bool]],
    legends: int,
    tr: Translate,
) -> str | None:
    labels = [label for _, _, label in lines if not label.startswith("_")]
    for curve in question.curves:
        if not any(curve.label in label for label in labels):
            return tr(
                "{name}: no line is labelled with {label} ({curve}); labels found: {labels}. "
                "Pass label=... to plot, e.g. label='D = F = {size}'."
            ).format(
                name=question.variable,
                label=repr(curve.label),
                curve=curve.description,
                labels=labels,
                size=curve.label,
            )
    if not any(legend for *_, legend in axes) and not legends:
        return tr("{name}: add a legend (ax.legend()) so a reader can tell the curves apart.").format(
            name=question.variable
        )
    return None


def _judge_axis_labels(
    question: FigureQuestion, axes: list[tuple[str, str, int, bool]], tr: Translate
) -> str | None:
    for xlabel, ylabel, count, _ in axes:
        if not count:
            continue
        for axis, text, words in (
            ("x", xlabel, question.x_label_words),
            ("y", ylabel, question.y_label_words),
        ):
            if not any(_mentions(text, word) for word in words):
                return tr(
                    "{name}: the {axis} axis label {text} should say what is plotted (mention {wanted}); "
                    "use ax.set_{axis}label(...)."
                ).format(name=question.variable, axis=axis, text=repr(text), wanted=_or(words, tr))
    return None


def _shows(question: FigureQuestion, line: tuple[Any, Any, str], x: Any, y: Any) -> bool:
    line_x, line_y, _ = line
    if line_x is None or line_y is None or not question.tolerance.accepts(line_x, x):
        return False
    return any(question.tolerance.accepts(line_y, y * scale) for scale in question.unit_scales)


def _array(value: Any) -> Any:
    return None if value is None else np.asarray(value, dtype=np.float64)


# --- Words ----------------------------------------------------------------------------


def _first_word(text: Any) -> str:
    match = re.match(r"\s*([a-z]+)", str(text).lower())
    return match.group(1) if match else ""


def _mentions(text: str, word: str) -> bool:
    """``word`` in ``text``, any case; a one-letter word (``B``) only on its own."""
    if len(word) > 1:
        return word.lower() in text.lower()
    return re.search(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", text, flags=re.IGNORECASE) is not None


def _format(value: Any) -> str:
    array = np.asarray(value)
    if array.ndim == 0:
        return f"{float(array):.6g}"
    return np.array2string(array, precision=4, threshold=6)


def _format_case(case: tuple[Any, ...], tr: Translate) -> str:
    return ", ".join(_describe_argument(a, tr) for a in case)


def _describe_argument(value: Any, tr: Translate) -> str:
    array = np.asarray(value)
    if array.ndim == 0:
        return f"{value:g}" if isinstance(value, float) else repr(value)
    return tr("array of {count} sizes from {low} to {high}").format(
        count=array.size, low=f"{array.min():g}", high=f"{array.max():g}"
    )


def _or(options: Sequence[str], tr: Translate) -> str:
    """``'a' or 'b'`` in the reader's language."""
    return tr(" or ").join(repr(option) for option in options)
