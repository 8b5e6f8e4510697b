"""What the hidden inputs may tell a student: one bit per question.

A student's function can pick its behaviour from the inputs drawn at grading time (raise an error
whose class encodes a digit, time out on odd inputs, return NaN or a string on others), and a
resubmission with one more comment gets a new draw. So whatever the answer does at a hidden input,
the feedback on a function question may depend on the answer's results at the public inputs and
on one bit only (right at every hidden input, or not), and so may the earlier parts' feedback that
steers a later part's. The property test below draws public results of every kind, and hidden
results of every failure kind with the same bit, and reads a whole notebook's feedback; the
examples after it run real functions through the recorder, the record format and the judge, and
through the preprocessor that writes the verdicts into a graded notebook.
"""

from __future__ import annotations

import builtins
import functools
import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_output

from roofline_grading import answer_key as key
from roofline_grading.autograde.steps.judge_answers import JudgeAnswers, recorded_questions
from roofline_grading.i18n import translator
from roofline_grading.judge import Verdict, assess, judge
from roofline_grading.questions import FunctionQuestion
from roofline_grading.session import Issued, answered, issue, issue_one, spec
from roofline_recorder import MIMETYPE, collect
from roofline_recorder.encode import decode, encode
from rooflinekit.languages import CODES
from tests.support.graded_notebooks import model, structure_of

SEED = "b17"
CHAINS: dict[str, list[FunctionQuestion]] = {
    notebook: [q for q in exercise.questions if isinstance(q, FunctionQuestion)]
    for notebook, exercise in key.EXERCISES.items()
}
"""Each notebook's function questions, in the order they are judged (each the next one's earlier)."""
ISSUED: dict[str, Issued] = {q.id: issue_one(q, SEED) for chain in CHAINS.values() for q in chain}

SENTENCE = (
    "{name} is right at the {public} inputs every notebook is checked at, but not at every input chosen "
    "at grading time (they are not shown). Make it work for any figures and sizes, computing the "
    "answer from its arguments."
)
"""The one sentence a student reads for a question right at the public inputs and not at every
hidden one, whatever went wrong there."""


def fixed_sentence(question: FunctionQuestion, language: str = "en") -> str:
    return translator(language)(SENTENCE).format(name=question.name, public=len(ISSUED[question.id].public))


def function(qid: str) -> FunctionQuestion:
    question = ISSUED[qid].question
    assert isinstance(question, FunctionQuestion)
    return question


@functools.cache
def behaviour(qid: str, index: int) -> tuple[dict[str, Any], ...]:
    """The results, public then hidden, of the reference (index 0) or of a known mistake."""
    question = function(qid)
    answer = question.reference if index == 0 else question.mistakes[index - 1].answer
    return tuple(answered(ISSUED[qid], answer)["results"])


# --- What an answer may give at one case ------------------------------------------------------

ERRORS = sorted(n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException))


@functools.cache
def failures(qid: str) -> st.SearchStrategy[Any]:
    """Results that are never right: every way an answer fails at a case."""
    question = function(qid)
    raised = st.builds(
        lambda name, text: {"raised": f"{name}: {text}"},
        st.sampled_from([*ERRORS, "Leak_3_14", "CustomError"]),
        st.text(max_size=12),
    )
    fixed: list[Any] = [
        {"timed_out": True},
        {"lost": True},
        {"too_big": [10**7]},
        {"wrong_type": "a list"},
        {"not_callable": "a float"},
        {},
        None,
        "garbage",
        [1.0],
    ]
    if question.returns == "word":
        fixed += [{"word": 3.0}, {"value": 1.0}, {"word": "perhaps"}, {"word": ""}]
    else:
        fixed += [{"value": float("nan")}, {"value": np.array([1.0, np.nan])}, {"value": "12"}, {"word": "x"}]
    return st.one_of(raised, st.sampled_from(fixed))


@functools.cache
def wrong_value(qid: str, index: int) -> st.SearchStrategy[Any]:
    """A value of the asked kind that the answer key does not accept at the ``index``-th case."""
    question = function(qid)
    want = question.reference(*ISSUED[qid].cases[index])
    if question.returns == "word":
        return st.sampled_from([{"word": c} for c in question.choices if c != want])

    def scaled(factor: float) -> dict[str, Any]:
        with np.errstate(all="ignore"):  # an infinite right answer gives NaN: not right either
            value = np.asarray(want, dtype=np.float64) * factor + 7.0
        return {"value": value} if not question.tolerance.accepts(value, want) else {"lost": True}

    return st.builds(scaled, st.sampled_from([-1.0, 0.0, 0.5, 2.0, 3.0, 1e3]))


@functools.cache
def anything(qid: str, index: int) -> st.SearchStrategy[Any]:
    """Whatever an answer may give at the ``index``-th case: right, a known mistake's value, any
    number, any failure."""
    known = st.integers(0, len(function(qid).mistakes)).map(lambda b: behaviour(qid, b)[index])
    numbers = st.floats(allow_nan=True, allow_infinity=True).map(lambda x: {"value": x})
    words = st.text(max_size=12).map(lambda w: {"word": w})
    return st.one_of(known, failures(qid), wrong_value(qid, index), words, numbers)


@st.composite
def public_results(draw: st.DrawFn, question: FunctionQuestion) -> list[Any]:
    """An answer's results at the public cases: the reference's or a known mistake's, some cases
    (or none) replaced by anything."""
    base = behaviour(question.id, draw(st.integers(0, len(question.mistakes))))
    count = len(ISSUED[question.id].public)
    return [base[i] if draw(st.integers(0, 3)) else draw(anything(question.id, i)) for i in range(count)]


@st.composite
def hidden_results(draw: st.DrawFn, question: FunctionQuestion, right: bool) -> list[Any]:
    """Results at the hidden cases, right at every one of them or not (then any mix of everything,
    with at least one case certainly not right, or one result too few or too many)."""
    issued = ISSUED[question.id]
    first = len(issued.public)
    if right:
        return list(behaviour(question.id, 0)[first:])
    results = [draw(anything(question.id, first + i)) for i in range(len(issued.hidden))]
    spoiled = draw(st.integers(0, len(results) - 1))
    results[spoiled] = draw(
        st.one_of(failures(question.id), wrong_value(question.id, first + spoiled))
    )
    shape = draw(st.sampled_from(["as is", "one short", "one more"]))
    return results[:-1] if shape == "one short" else results + results[:1] if shape == "one more" else results


def read(
    parts: Sequence[FunctionQuestion],
    publics: Sequence[list[Any]],
    hiddens: Sequence[list[Any]],
    language: str,
) -> list[tuple[Any, ...] | None]:
    """What a student reads of each part (and what a later part's feedback may use), judged in
    order, each part's verdict passed on to the next."""
    earlier: list[tuple[Any, Verdict | None]] = []
    said = []
    for question, public, hidden in zip(parts, publics, hiddens, strict=True):
        issued = ISSUED[question.id]
        payload = {"kind": "function", "results": [*public, *hidden]}
        verdict = assess(
            question, issued.cases, payload, language, public=len(issued.public), earlier=earlier
        )
        earlier.append((question, verdict))
        said.append(None if verdict is None else (verdict.feedback, verdict.feedback_misconceptions))
    return said


def read_at_public_cases(
    parts: Sequence[FunctionQuestion], publics: Sequence[list[Any]], language: str
) -> list[Verdict | None]:
    """Each part judged at its public cases alone, as if there were no others."""
    earlier: list[tuple[Any, Verdict | None]] = []
    for question, public in zip(parts, publics, strict=True):
        cases = ISSUED[question.id].public
        earlier.append(
            (
                question,
                assess(question, cases, {"kind": "function", "results": public}, language, earlier=earlier),
            )
        )
    return [verdict for _, verdict in earlier]


@pytest.mark.slow  # 25 generated answers, each judged at every input (seconds)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_whatever_an_answer_does_at_hidden_inputs_a_notebook_reads_one_bit_per_question(
    data: st.DataObject,
) -> None:
    """Two draws of hidden results with the same bits, part by part: the same feedback for the whole
    notebook; a part wrong at a public case reads what its public cases alone say; a part right at
    them reads nothing, or the one sentence."""
    notebook = data.draw(st.sampled_from(sorted(CHAINS)))
    language = data.draw(st.sampled_from(CODES))
    chain = CHAINS[notebook]
    parts = chain[: data.draw(st.integers(1, len(chain)))]  # the notebook's first parts, in order
    publics = [data.draw(public_results(q)) for q in parts]
    bits = [data.draw(st.booleans()) for _ in parts]
    one = [data.draw(hidden_results(q, bit)) for q, bit in zip(parts, bits, strict=True)]
    other = [data.draw(hidden_results(q, bit)) for q, bit in zip(parts, bits, strict=True)]

    said = read(parts, publics, one, language)
    assert said == read(parts, publics, other, language)
    alone = read_at_public_cases(parts, publics, language)
    for question, bit, verdict, public in zip(parts, bits, said, alone, strict=True):
        if public is not None:  # wrong at a public case: the public cases alone decide what it says
            assert verdict == (public.feedback, public.feedback_misconceptions), question.id
        elif bit:
            assert verdict is None, question.id
        else:
            assert verdict == (fixed_sentence(question, language), ()), question.id


# --- Examples: real functions, recorded and judged ---------------------------------------------

DENSE_PEAK = key.question("ex5.dense_peak")
LIMITED_BY = key.question("ex1.limited_by")
FIRST_HIDDEN = issue_one(DENSE_PEAK, SEED).hidden[0]


def right_at_public_inputs(question: Any, otherwise: Callable[..., Any]) -> Callable[..., Any]:
    """An answer that is the model's at the public inputs and ``otherwise`` at the others."""
    public = {repr(case) for case in issue_one(question, SEED).public}

    def answer(*arguments: Any) -> Any:
        if repr(tuple(arguments)) in public:
            return question.reference(*arguments)
        return otherwise(*arguments)

    return answer


def _raise(error: BaseException) -> Any:
    raise error


def _digit(value: Any) -> int:
    """A digit of a hidden input, which the answer tries to smuggle out."""
    return int(abs(float(np.ravel(value)[0])) * 1e-9) % 10


AT_HIDDEN_INPUTS: dict[str, Callable[..., Any]] = {
    "returns a wrong number": lambda *a: 12345.0,
    "is wrong at one of them only": lambda *a: 0.0 if a == FIRST_HIDDEN else DENSE_PEAK.reference(*a),
    "raises IndentationError": lambda *a: _raise(IndentationError("no")),
    "raises an error picked by a digit of the input": lambda *a: _raise(
        [KeyError, ValueError, ZeroDivisionError, IndexError, OSError, TypeError, NameError, EOFError][
            _digit(a[0]) % 8
        ]("x")
    ),
    "raises a class named after the input": lambda *a: _raise(
        type(f"Leak_{_digit(a[0])}", (Exception,), {})()
    ),
    "returns NaN": lambda *a: float("nan"),
    "returns a string": lambda *a: f"{a}",
    "returns None": lambda *a: None,
    "returns an array far too big": lambda *a: np.zeros(200_000),
    "returns an array of another shape": lambda *a: np.zeros(_digit(a[0]) + 2),
}


@pytest.mark.parametrize("kind", AT_HIDDEN_INPUTS)
def test_an_answer_right_at_the_public_inputs_reads_one_sentence_whatever_fails_at_the_hidden_ones(
    kind: str,
) -> None:
    issued = issue_one(DENSE_PEAK, SEED)
    answer = right_at_public_inputs(DENSE_PEAK, AT_HIDDEN_INPUTS[kind])
    said = judge(DENSE_PEAK, issued.cases, answered(issued, answer), public=len(issued.public))
    assert said == (
        "dense_peak is right at the 2 inputs every notebook is checked at, but not at every input chosen at "
        "grading time (they are not shown). Make it work for any figures and sizes, computing the answer "
        "from its arguments."
    )
    assert judge(DENSE_PEAK, issued.cases, answered(issued, answer), "ko", public=len(issued.public)) == (
        fixed_sentence(DENSE_PEAK, "ko")
    )


def test_a_copy_that_ran_out_of_time_or_was_lost_reads_the_same_sentence() -> None:
    issued = issue_one(DENSE_PEAK, SEED)
    public = answered(issued, DENSE_PEAK.reference)["results"][: len(issued.public)]
    said = {
        judge(DENSE_PEAK, issued.cases, {"kind": "function", "results": [*public, *[what] * 5]}, public=2)
        for what in ({"timed_out": True}, {"lost": True})
    }
    assert said == {fixed_sentence(DENSE_PEAK)}


def test_a_word_answer_reads_the_same_sentence_for_another_word_or_a_failure_at_hidden_inputs() -> None:
    issued = issue_one(LIMITED_BY, SEED)
    said = {
        judge(
            LIMITED_BY,
            issued.cases,
            answered(issued, right_at_public_inputs(LIMITED_BY, other)),
            public=len(issued.public),
        )
        for other in (
            lambda *a: "maybe",
            lambda *a: "memory",
            lambda *a: _raise(KeyError("B")),
            lambda *a: 2.0,
        )
    }
    assert said == {fixed_sentence(LIMITED_BY)}


def test_resubmitting_to_new_draws_learns_one_bit_per_submission() -> None:
    """A function that encodes a digit of each hidden input in the error it raises, submitted again
    and again with one more comment (a new draw each time): the same sentence every time."""
    answer = right_at_public_inputs(
        DENSE_PEAK, AT_HIDDEN_INPUTS["raises an error picked by a digit of the input"]
    )
    said = set()
    for submission in range(8):
        issued = issue_one(DENSE_PEAK, f"{submission:04x}")
        said.add(judge(DENSE_PEAK, issued.cases, answered(issued, answer), public=len(issued.public)))
    assert said == {fixed_sentence(DENSE_PEAK)}


def test_two_mistakes_alike_at_the_public_inputs_are_named_as_alternatives_and_counted_as_the_one_made() -> (
    None
):
    """Exercise 2's critical batch: the int8 peak and 2-byte weights give the same batch at its public
    inputs and not at others. The feedback, which may not tell hidden inputs apart, names both; the
    instructor's summary, which may, counts the one made."""
    question = key.question("ex2.critical_batch")
    issued = issue_one(question, SEED)
    made = next(m for m in question.mistakes if m.misconception.name == "int8-peak-for-bf16")
    verdict = assess(question, issued.cases, answered(issued, made.answer), public=len(issued.public))
    assert verdict is not None and "More than one known mistake gives this value." in verdict.feedback
    assert set(verdict.feedback_misconceptions) == {"int8-peak-for-bf16", "two-byte-weights"}
    assert verdict.summary_misconceptions == ("int8-peak-for-bf16",)


# --- Through the preprocessor that writes the verdicts into the graded notebook -----------------

EX5 = "ex5_h100_threshold"


def graded(
    answers: dict[str, Callable[..., Any]], hidden: dict[str, list[dict[str, Any]]]
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Ex. 5 with the model answers, each test cell holding the record of ``answers`` (the model's
    where not given) and its copies' answers (``hidden``, by question; one right copy where not
    given), judged: each test cell's ``AnswerError`` (empty when right), and the misconceptions kept
    for the instructor's summary."""
    issued, structure = issue(EX5, SEED), structure_of(EX5)
    nb = model(EX5)
    copies: dict[str, list[dict[str, Any]]] = {}
    for count, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        cell.execution_count = count + 1
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if not cell.metadata.get("nbgrader", {}).get("grade"):
            continue
        for qid in recorded_questions(structure.cell(grade_id).source):
            answer = answers.get(qid, issued[qid].question.reference)
            record = {"question": qid, **collect(spec(issued[qid]), answer)}
            cell.outputs.append(new_output("display_data", data={MIMETYPE: encode(record)}))
            right = decode(encode(collect(spec(issued[qid], hidden=True), answer)))
            copies[qid] = [{"cell": count + 1, **c} for c in hidden.get(qid, [right])]
    folder = Path(tempfile.mkdtemp())
    preprocessor = JudgeAnswers(structures={EX5: structure.to_json()}, verdicts_dir=str(folder))
    resources = {"nbgrader": {"notebook": EX5}, "roofline_issued": issued, "roofline_answered": copies}
    out, _ = preprocessor.preprocess(nb, resources)
    errors = {
        cell.metadata["nbgrader"]["grade_id"]: " ".join(
            " ".join(o.evalue.split()) for o in cell.outputs if o.output_type == "error"
        )
        for cell in out.cells
        if cell.metadata.get("nbgrader", {}).get("grade")
    }
    return errors, json.loads((folder / f"{EX5}.json").read_text())


def test_in_the_graded_notebook_every_failure_of_the_copies_reads_one_sentence() -> None:
    """dense_peak's copy raising, running out of time, lost, or one of two copies wrong: the graded
    cell says the same; critical_batch, after it, is untouched."""
    n = len(issue_one(DENSE_PEAK, SEED).hidden)
    outcomes = [
        [{"results": [{"raised": "IndentationError: no"}] * n}],
        [{"timed_out": True}],
        [{"lost": True}],
        [
            {"results": [{"value": 1.0}] * n},
            {"results": answered(issue_one(DENSE_PEAK, SEED), DENSE_PEAK.reference)["results"][2:]},
        ],
    ]
    said = [graded({}, {"ex5.dense_peak": outcome})[0] for outcome in outcomes]
    assert all(s == said[0] for s in said)
    assert said[0]["ex5_dense_peak"] == fixed_sentence(DENSE_PEAK)
    assert said[0]["ex5_critical_batch"] == ""


def test_a_wrong_public_answer_reads_the_same_whatever_its_copies_did() -> None:
    """The sparse figure (a known mistake) everywhere: the feedback names it, from the public inputs,
    whether the copy answered, raised or was lost; the summary counts it where the copy answered."""
    sparse = next(m for m in DENSE_PEAK.mistakes).answer
    n = len(issue_one(DENSE_PEAK, SEED).hidden)
    copies: list[list[dict[str, Any]]] = [
        [
            {
                "results": decode(encode(collect(spec(issue_one(DENSE_PEAK, SEED), hidden=True), sparse)))[
                    "results"
                ]
            }
        ],
        [{"results": [{"raised": "KeyError: 1"}] * n}],
        [{"lost": True}],
    ]
    runs = [graded({"ex5.dense_peak": sparse}, {"ex5.dense_peak": c}) for c in copies]
    said = {errors["ex5_dense_peak"] for errors, _ in runs}
    assert len(said) == 1 and DENSE_PEAK.mistakes[0].misconception.message in said.pop()
    assert all(summary == {"ex5.dense_peak": ["sparse-peak"]} for _, summary in runs)
