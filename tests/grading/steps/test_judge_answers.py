"""The JudgeAnswers step (roofline_grading.autograde.steps.judge_answers), on small notebooks and
no kernel: each test cell's records judged with the answer key, the verdict written into the cell."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from nbformat.v4 import new_code_cell, new_notebook, new_output

from roofline_grading import answer_key as key
from roofline_grading.autograde.steps.judge_answers import ANSWER_ERROR, JudgeAnswers, recorded_questions
from roofline_grading.autograde.structure import NotebookStructure, SourceCell
from roofline_grading.questions import FunctionQuestion
from roofline_grading.session import issue_one, spec
from roofline_recorder import MIMETYPE, collect
from roofline_recorder.encode import decode, encode
from tests.support.graded_notebooks import EX5, structure_of


def test_the_hidden_tests_name_the_questions_they_record() -> None:
    structure = structure_of(EX5)
    asked = [recorded_questions(c.source) for c in structure.cells if c.grade]
    assert asked == [["ex5.dense_peak"], ["ex5.hbm_bandwidth"], ["ex5.critical_batch"], ["ex5.global_batch"]]


# --- On a one-cell notebook, no kernel: the records a run would leave, judged ----------------

QUESTION = next(
    q
    for exercise in key.EXERCISES.values()
    for q in exercise.questions
    if isinstance(q, FunctionQuestion) and q.mistakes
)
"""A function question of the answer key with a known mistake (which one does not matter)."""
ISSUED = issue_one(QUESTION, "unit")
CHECK = SourceCell(
    "check",
    "code",
    True,
    True,
    False,
    False,
    1.0,
    f'assert True\n### BEGIN HIDDEN TESTS\nrecord("{QUESTION.id}", answer)\n### END HIDDEN TESTS',
    "assert True",
)
NOTEBOOK = QUESTION.id.split(".")[0] + "_unit"


def judged(answer: Any, *, outputs: tuple[Any, ...] = (), record: bool = True) -> tuple[Any, dict[str, Any]]:
    """The test cell after JudgeAnswers, its run having recorded ``answer`` (and printed ``outputs``),
    with the misconceptions kept for the instructor's summary."""
    test = new_code_cell(CHECK.source, execution_count=1)
    test.metadata["nbgrader"] = CHECK.metadata()
    test.outputs = list(outputs)
    if record:
        made = {"question": QUESTION.id, **collect(spec(ISSUED), answer)}
        test.outputs.append(new_output("display_data", data={MIMETYPE: encode(made)}))
    hidden = [{"cell": 1, **decode(encode(collect(spec(ISSUED, hidden=True), answer)))}]
    folder = Path(tempfile.mkdtemp())
    step = JudgeAnswers(
        structures={NOTEBOOK: NotebookStructure(NOTEBOOK, (CHECK,), None).to_json()}, verdicts_dir=str(folder)
    )
    given = {
        "nbgrader": {"notebook": NOTEBOOK},
        "roofline_issued": {QUESTION.id: ISSUED},
        "roofline_answered": {QUESTION.id: hidden},
    }
    nb, _ = step(new_notebook(cells=[test]), given)
    return nb.cells[0], json.loads((folder / f"{NOTEBOOK}.json").read_text())


def errors(cell: Any) -> list[str]:
    return [o["ename"] for o in cell.outputs if o["output_type"] == "error"]


def test_a_right_answer_keeps_its_points_and_the_record_leaves_the_notebook() -> None:
    cell, found = judged(QUESTION.reference, outputs=(new_output("stream", name="stderr", text="warning\n"),))
    assert errors(cell) == [] and found == {}
    assert [(o["output_type"], o.get("name")) for o in cell.outputs] == [
        ("stream", "stdout")
    ]  # no 0 for stderr


def test_a_known_mistake_fails_the_cell_with_its_feedback_and_is_counted_for_the_instructor() -> None:
    mistake = QUESTION.mistakes[0]
    cell, found = judged(mistake.answer)
    assert errors(cell) == [ANSWER_ERROR]
    assert found == {QUESTION.id: [mistake.misconception.name]}


def test_a_test_cell_that_recorded_nothing_says_so() -> None:
    cell, _ = judged(QUESTION.reference, record=False)
    assert errors(cell) == [ANSWER_ERROR]
    assert "the test could not record an answer" in cell.outputs[-1]["evalue"]


def test_a_last_value_printed_by_a_test_cell_is_no_partial_score() -> None:
    shown = new_output("execute_result", data={"text/plain": "0.5"}, execution_count=1)
    cell, _ = judged(QUESTION.reference, outputs=(shown,))
    assert [o["output_type"] for o in cell.outputs] == ["display_data"]  # nbgrader reads no score from it


def test_a_cell_that_failed_already_is_left_to_nbgrader_without_a_second_error() -> None:
    failed = new_output("error", ename="NameError", evalue="answer", traceback=[])
    cell, _ = judged(QUESTION.mistakes[0].answer, outputs=(failed,))
    assert errors(cell) == ["NameError"]
