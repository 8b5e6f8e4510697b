"""The StudentNotes step (roofline_grading.autograde.steps.student_notes), on small notebooks and no
kernel: what happened to the notebook, told to its student first, in the release's language."""

from __future__ import annotations

from nbformat.v4 import new_markdown_cell

from roofline_grading.autograde.notes import NOTES_CELL_ID
from roofline_grading.autograde.steps.restore_cells import RestoreCells
from roofline_grading.autograde.steps.student_notes import StudentNotes
from tests.support.nbgrader_cells import ANSWER, TEXT, cell, configured, resources, submitted


def test_a_notebook_with_nothing_to_tell_gets_no_notes() -> None:
    nb, _ = StudentNotes()(submitted(), resources(roofline_run={}))
    assert [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells] == [
        "statement",
        "answer",
        "check",
    ]


def test_what_restore_put_right_and_what_stopped_the_run_head_the_notebook() -> None:
    nb, given = configured(RestoreCells)(submitted(cell(TEXT), cell(ANSWER, "x = 1")), resources())
    given["roofline_run"] = {"timed_out": ["answer"], "timeout": 30}
    nb, _ = StudentNotes()(nb, given)
    first = nb.cells[0]
    assert first.id == NOTES_CELL_ID and first.source.startswith("**Grading notes**")
    assert "The cell `check` was missing from your file" in first.source
    assert "The cell `answer` ran longer than the 30 s a cell may run" in first.source


def test_the_notes_are_in_the_language_of_the_release() -> None:
    nb = submitted()
    nb.metadata["roofline"] = {"language": "ko"}
    nb, _ = StudentNotes()(nb, resources(roofline_run={"cut": True}))
    assert nb.cells[0].source.startswith("**") and "Grading notes" not in nb.cells[0].source


def test_a_students_cell_holding_the_notes_id_keeps_it_and_the_notes_take_another() -> None:
    squatter = new_markdown_cell("mine", id=NOTES_CELL_ID)
    nb, _ = StudentNotes()(submitted(squatter), resources(roofline_run={"cut": True}))
    assert nb.cells[1].id == NOTES_CELL_ID and nb.cells[1].source == "mine"
    assert nb.cells[0].id == f"{NOTES_CELL_ID}-1"
