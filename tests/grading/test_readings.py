"""Every honest reading of a statement gets its points, or the statement rules it out in so many words.

The answer key declares, beside each question's known mistakes, the ways a careful student may
read it (:class:`roofline_grading.questions.Reading`): what such a student writes, and whether it
earns the point. Here each reading is submitted as a function, the way a submission is graded:
the recorder calls it at the issued public and hidden inputs, the record is encoded and decoded,
and the judge decides, telling the student what the public inputs alone allow
(:mod:`roofline_grading.session`, :mod:`roofline_grading.judge`). A reading that earns gets full
credit at every draw; one that does not gets zero at every draw (it is wrong at a public input),
its words are in the released statement in every language, and the feedback names its known
mistake, or none when it is not one. A hard-coded threshold is told that its answer does not
follow the inputs, never a misconception it does not hold.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest

from roofline_grading import answer_key as key
from roofline_grading.exercises.ex1_int8_matmul import answers as ex1
from roofline_grading.exercises.ex1_int8_matmul import key as ex1_key
from roofline_grading.exercises.ex9_memory_hierarchy import answers as ex9_answers
from roofline_grading.exercises.ex9_memory_hierarchy import key as ex9
from roofline_grading.i18n import LANGUAGES, translator
from roofline_grading.judge import FOLLOWS_ONE_ARGUMENT, Verdict, assess
from roofline_grading.questions import FunctionQuestion, Reading, public_cases, thresholds
from roofline_grading.session import answered, issue_one

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = {
    q.id: (notebook, q)
    for notebook, exercise in key.EXERCISES.items()
    for q in exercise.questions
    if isinstance(q, FunctionQuestion)
}
READINGS = [(qid, reading) for qid, (_, q) in FUNCTIONS.items() for reading in q.readings]
REFUSED = [(qid, reading) for qid, reading in READINGS if not reading.earns]
SEEDS = ("1", "2", "3")


def _id(value: Any) -> str:
    return value.name if isinstance(value, Reading) else str(value)


def graded(question: FunctionQuestion, answer: Any, seed: str, language: str = "en") -> Verdict | None:
    """What grading makes of ``answer``: recorded at the public and hidden inputs ``seed`` draws,
    judged as a student reads it (the hidden inputs not shown)."""
    issued = issue_one(question, seed)
    return assess(question, issued.cases, answered(issued, answer), language, public=len(issued.public))


def statement(notebook: str, language: str) -> str:
    """The released notebook's words, every Markdown cell, one space between words."""
    folder = ROOT / "exercises" / ("" if language == "en" else language) / "roofline"
    cells = nbformat.read(folder / f"{notebook}.ipynb", as_version=4).cells
    return " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")


# --- What the answer key declares ---------------------------------------------------------


def test_every_function_question_of_exercises_1_to_9_declares_its_readings() -> None:
    assert sorted(key.EXERCISES) == sorted(f.stem for f in (ROOT / "solutions" / "roofline").glob("*.ipynb"))
    for qid, (_, question) in FUNCTIONS.items():
        assert question.readings, f"{qid} declares no reading"
        names = [r.name for r in question.readings]
        assert len(names) == len(set(names)), qid


def test_the_readings_the_review_found_are_declared_with_their_outcome() -> None:
    """The width D of exercise 6 as a whole number (4,396 beside the model's 4,395.56); exercise 9's
    tile with the output's write (512 and 656, not 481 and 591); each replica's batch (per replica
    against global); bits against bytes; (d)'s critical batch as exercise 1's limit."""
    for qid in ("ex6.two_chip_critical_d", "ex6.critical_d", "ex6.nodes_critical_d"):
        readings = {r.name: r for r in FUNCTIONS[qid][1].readings}
        assert readings["rounded-up"].earns and readings["rounded-down"].earns and readings["decimals"].earns
        assert not readings["per-gpu-share"].earns
    tile = {r.name: r for r in FUNCTIONS["ex9.smallest_tile"][1].readings}
    assert not tile["output-write"].earns and tile["rounded-up"].earns and tile["decimals"].earns
    with_output = tile["output-write"].answer(*ex9.SMALLEST, ex9.VMEM_BANDWIDTH)
    assert with_output > ex9_answers.smallest_tile()
    assert not {r.name: r for r in FUNCTIONS["ex5.global_batch"][1].readings}["per-replica"].earns
    assert not {r.name: r for r in FUNCTIONS["ex6.nic_bandwidth"][1].readings}["bits-as-bytes"].earns
    assert not {r.name: r for r in FUNCTIONS["ex1.limited_by"][1].readings}["critical-batch"].earns


def test_a_reading_that_does_not_earn_needs_its_words_and_one_that_earns_has_none() -> None:
    with pytest.raises(ValueError, match="needs the words"):
        Reading("r", "a reading", abs, earns=False)
    with pytest.raises(ValueError, match="ruled out by nothing"):
        Reading("r", "a reading", abs, earns=True, ruled_out_by="words")


# --- Each reading, submitted ---------------------------------------------------------------


@pytest.mark.parametrize(("qid", "reading"), READINGS, ids=_id)
def test_each_reading_gets_full_credit_or_none_at_every_draw(qid: str, reading: Reading) -> None:
    _, question = FUNCTIONS[qid]
    for seed in SEEDS:
        verdict = graded(question, reading.answer, seed)
        if reading.earns:
            assert verdict is None, (seed, verdict)
            continue
        assert verdict is not None, f"{reading.name} ({reading.description}) earns the point at seed {seed}"
        # Wrong at a public input: zero whatever the hidden inputs drawn, and told where.
        assert not verdict.hidden_only, verdict.feedback


@pytest.mark.parametrize(("qid", "reading"), REFUSED, ids=_id)
def test_the_feedback_on_a_refused_reading_names_its_mistake_or_none(qid: str, reading: Reading) -> None:
    """Named: the reading's own known mistake (with those no public input tells from it, as
    alternatives); never a mistake it does not make."""
    _, question = FUNCTIONS[qid]
    for language in LANGUAGES:
        verdict = graded(question, reading.answer, "1", language)
        assert verdict is not None
        if reading.misconception is None:
            assert verdict.feedback_misconceptions == (), verdict.feedback
        else:
            assert reading.misconception.name in verdict.feedback_misconceptions, verdict.feedback
            message = " ".join(reading.misconception.text(language).split())
            assert message in " ".join(verdict.feedback.split())


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("qid", "reading"), REFUSED, ids=_id)
def test_a_refused_reading_is_ruled_out_by_the_statement_in_so_many_words(
    qid: str, reading: Reading, language: str
) -> None:
    notebook, _ = FUNCTIONS[qid]
    assert reading.ruled_out_by is not None
    words = " ".join(translator(language)(reading.ruled_out_by).split())
    if language != "en":
        assert words != " ".join(reading.ruled_out_by.split()), f"untranslated: {reading.ruled_out_by!r}"
    assert words in statement(notebook, language), f"{notebook} ({language}) does not say {words!r}"


# --- A threshold written into the answer ---------------------------------------------------


def hard_coded(B: int, D: int, F: int) -> str:
    """Exercise 1's limit as a student who computed the critical batch once and typed it in does."""
    typed_in = int(ex1.critical_batch())
    return "compute" if typed_in < B else "memory"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_hard_coded_threshold_is_told_its_answer_does_not_follow_the_inputs(language: str) -> None:
    question = key.question("ex1.limited_by")
    assert isinstance(question, FunctionQuestion)
    told = {seed: graded(question, hard_coded, seed, language) for seed in SEEDS}
    verdict = told["1"]
    assert verdict is not None and verdict.feedback_misconceptions == ()
    said = " ".join(verdict.feedback.split())
    follows = translator(language)(FOLLOWS_ONE_ARGUMENT).rsplit("}", 1)[1]  # after the last figure
    assert follows in said, said
    assert "'memory'" in said and "'compute'" in said
    assert ex1_key.TEXT_BANDWIDTH.text(language) not in said
    # From the public inputs alone: the same whatever hidden inputs were drawn.
    assert {v.feedback if v else None for v in told.values()} == {verdict.feedback}


def test_the_text_bandwidth_mistake_is_still_named_and_is_no_threshold() -> None:
    question = key.question("ex1.limited_by")
    assert isinstance(question, FunctionQuestion)
    text = next(m for m in question.mistakes if m.misconception == ex1_key.TEXT_BANDWIDTH)
    verdict = graded(question, text.answer, "1")
    assert verdict is not None and verdict.feedback_misconceptions == ("text-bandwidth",)
    assert "does not follow" not in verdict.feedback


@pytest.mark.parametrize("qid", [qid for qid, (_, q) in FUNCTIONS.items() if q.returns == "word"])
def test_at_the_public_inputs_no_right_answer_or_known_mistake_follows_one_argument_alone(qid: str) -> None:
    """So an answer that does (a number typed in) is never told a known mistake, and the right
    answer is not one."""
    _, question = FUNCTIONS[qid]
    cases = public_cases(question)
    for answer in (question.reference, *(m.answer for m in question.mistakes)):
        assert thresholds(cases, [str(answer(*case)) for case in cases]) == (), (qid, answer)
