"""The RestoreCells step (roofline_grading.autograde.steps.restore_cells), on small notebooks and no
kernel: what the student changed of the release is put back before the notebook runs."""

from __future__ import annotations

import pytest

from roofline_grading.autograde.steps.restore_cells import RestoreCells
from tests.support.nbgrader_cells import ANSWER, TEST, TEXT, cell, configured, resources, submitted


def restored(nb: object) -> tuple[object, dict[str, object]]:
    return configured(RestoreCells)(nb, resources())


def test_a_notebook_as_released_is_left_as_it_is_with_the_answer_kept() -> None:
    nb, given = restored(submitted())
    assert [c.source for c in nb.cells] == ["Set **x**.", "x = 1", TEST.source]
    assert given["roofline_plan"].problems == ()


def test_an_edited_test_cell_gets_its_released_source_and_hidden_tests_back() -> None:
    nb, given = restored(submitted(cell(TEXT), cell(ANSWER, "x = 1"), cell(TEST, "pass  # nothing to fail")))
    assert nb.cells[2].source == TEST.source
    assert given["roofline_plan"].changed == (("check", "edited"),)


def test_a_deleted_test_cell_is_put_back_after_the_answer_it_checks() -> None:
    nb, given = restored(submitted(cell(TEXT), cell(ANSWER, "x = 2")))
    assert [c.metadata["nbgrader"]["grade_id"] for c in nb.cells] == ["statement", "answer", "check"]
    assert given["roofline_plan"].missing == ("check",)


def test_a_test_cell_turned_into_an_answer_cell_is_a_test_cell_again() -> None:
    tampered = cell(TEST)
    tampered.metadata["nbgrader"].update(grade=False, solution=True, points=0)
    nb, _ = restored(submitted(cell(TEXT), cell(ANSWER, "x = 1"), tampered))
    assert (
        nb.cells[2].metadata["nbgrader"]["grade"] is True and nb.cells[2].metadata["nbgrader"]["points"] == 2
    )


def test_a_notebook_the_gradebook_does_not_know_is_refused() -> None:
    with pytest.raises(ValueError, match="no structure for notebook 'other'"):
        configured(RestoreCells)(submitted(), {"nbgrader": {"notebook": "other"}})
