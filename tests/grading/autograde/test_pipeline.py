"""The autograde pipeline (roofline_grading.autograde.pipeline): nbgrader's steps and the course's,
in nbgrader's order, as two traitlets lists a course can change, never to grade unsafely; and the
scores read by nbgrader's rules."""

from __future__ import annotations

import pytest
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbformat.v4 import new_output
from nbgrader.preprocessors import ClearOutput, DeduplicateIds, IgnorePattern
from nbgrader.utils import compute_checksum
from traitlets.config import Config

from roofline_grading.autograde.pipeline import GRADE, NO_RESPONSE, PipelineError, scores, steps
from roofline_grading.autograde.steps.judge_answers import JudgeAnswers
from roofline_grading.autograde.steps.plain_outputs import PlainOutputs
from roofline_grading.autograde.steps.restore_cells import RestoreCells
from roofline_grading.autograde.steps.sandboxed_execute import SandboxedExecute
from roofline_grading.autograde.steps.student_notes import StudentNotes
from tests.support.nbgrader_cells import ANSWER, STRUCTURE, TEST, TEXT, cell, submitted


def test_the_steps_are_nbgraders_in_its_order_with_the_courses_in_place_of_its_own() -> None:
    assert steps(Config()) == [
        ClearOutput,
        RestoreCells,
        DeduplicateIds,
        SandboxedExecute,
        JudgeAnswers,
        PlainOutputs,
        StudentNotes,
        IgnorePattern,
        ClearMetadataPreprocessor,
    ]


def test_a_course_adds_a_step_of_its_own_in_its_configuration() -> None:
    config = Config()
    config.Pipeline.autograde_preprocessors = [*GRADE, "nbgrader.preprocessors.ClearHiddenTests"]
    assert steps(config)[-1].__name__ == "ClearHiddenTests"


@pytest.mark.parametrize(
    ("listed", "said"),
    [
        (
            ["nbgrader.preprocessors.Execute", *GRADE[1:]],
            "Execute would run the notebook outside the sandbox",
        ),
        ([g for g in GRADE if "PlainOutputs" not in g], "and then keep only inert content"),
        ([*GRADE[2:], *GRADE[:2]], "and then keep only inert content"),  # PlainOutputs before the run
        ([*GRADE, GRADE[0]], "run the notebook once"),
        (["nowhere.Step", *GRADE], "a step cannot be imported"),
    ],
)
def test_a_list_that_would_grade_unsafely_is_refused_in_one_line(listed: list[str], said: str) -> None:
    config = Config()
    config.Pipeline.autograde_preprocessors = listed
    with pytest.raises(PipelineError, match=said):
        steps(config)


def test_a_part_scores_by_nbgraders_rules_and_an_untouched_answer_reads_no_response() -> None:
    test = cell(TEST)
    test.outputs = [new_output("error", ename="AssertionError", evalue="", traceback=[])]
    untouched = cell(ANSWER)
    untouched.metadata["nbgrader"]["checksum"] = compute_checksum(untouched)
    grades, comments = scores(submitted(cell(TEXT), untouched, test), STRUCTURE)
    assert (grades["check"].auto_score, grades["check"].max_score) == (0.0, 2.0)
    assert comments == {"answer": NO_RESPONSE}


def test_a_part_missing_from_the_graded_notebook_scores_zero_for_a_human_to_look_at() -> None:
    grades, _ = scores(submitted(cell(TEXT), cell(ANSWER, "x = 1")), STRUCTURE)
    assert grades["check"] == type(grades["check"])(0.0, 2.0, True)
