"""The plan that puts a submitted notebook's structure right (roofline_grading.autograde.structure):
deleted and edited cells back exactly as the release has them, moved test cells after the cells
they check, duplicate ids and malformed metadata dropped."""

from __future__ import annotations

import copy
from typing import Any

import nbformat

from roofline_grading.autograde.structure import apply_plan, plan
from tests.support.graded_notebooks import EX5, RELEASE, model, structure_of


def sanitized(nb: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, tuple[str, ...]]:
    structure = structure_of(EX5)
    the_plan = plan(nb.cells, structure)
    nb = copy.deepcopy(nb)
    apply_plan(nb, the_plan)
    return nb, the_plan.problems


ROLE = ("grade", "grade_id", "locked", "solution", "task", "points")


def known_cells(nb: nbformat.NotebookNode) -> list[tuple[str, str, dict[str, Any]]]:
    """Each cell with nbgrader metadata: its grade id, type and role (what nbgrader grades by)."""
    return [
        (
            c.metadata.nbgrader.grade_id,
            c.cell_type,
            {k: v for k, v in c.metadata.nbgrader.items() if k in ROLE},
        )
        for c in nb.cells
        if "nbgrader" in c.metadata
    ]


def test_an_untouched_submission_needs_nothing_put_right() -> None:
    nb = model(EX5)
    fixed, problems = sanitized(nb)
    assert problems == ()
    assert known_cells(fixed) == known_cells(nb)


def test_deleted_edited_and_relabelled_cells_are_put_back_as_released() -> None:
    release = nbformat.read(RELEASE / f"{EX5}.ipynb", as_version=4)
    nb = model(EX5)
    by_id = {c.metadata.nbgrader.grade_id: c for c in nb.cells if "nbgrader" in c.metadata}
    by_id["ex5_dense_peak"].source = "assert True"
    by_id["ex5_dense_peak"].metadata.nbgrader.points = 100
    by_id["ex5_hbm_bandwidth"].metadata.nbgrader.update(grade=False, locked=False, solution=True)
    by_id["ex5_global_batch"].metadata.nbgrader.grade_id = "bonus"
    nb.cells.remove(by_id["ex5_critical_answer"])
    nb.cells.remove(by_id["ex5_critical_batch"])
    fixed, problems = sanitized(nb)
    assert known_cells(fixed) == known_cells(release)
    joined = " | ".join(problems)
    for words in (
        "test cell 'ex5_dense_peak' was edited (restored)",
        "test cell 'ex5_dense_peak' had its points changed to 100 (restored)",
        "test cell 'ex5_hbm_bandwidth' had its nbgrader flags changed (grade, locked, solution; restored)",
        "unknown part ('bonus'; ignored)",
        "answer cell 'ex5_critical_answer' was deleted (put back, empty)",
        "test cell 'ex5_critical_batch' was deleted (put back)",
        "test cell 'ex5_global_batch' was deleted (put back)",
    ):
        assert words in joined
    restored = [
        c for c in fixed.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex5_critical_answer"
    ]
    assert restored[0].source == structure_of(EX5).cell("ex5_critical_answer").released
    nbformat.validate(fixed)


def test_a_test_cell_moved_above_the_cells_it_needs_is_put_back_after_them() -> None:
    """A student who moves a hidden test above its answer (or above a helper the answer needs)
    would lose the part to a NameError: the test cell goes back where the release runs it."""
    nb = model(EX5)
    by_id = {c.metadata.nbgrader.grade_id: c for c in nb.cells if "nbgrader" in c.metadata}
    nb.cells.remove(by_id["ex5_critical_batch"])
    nb.cells.insert(nb.cells.index(by_id["ex5_peak_answer"]), by_id["ex5_critical_batch"])
    extra = nbformat.v4.new_code_cell("note = 'a cell of my own'")
    nb.cells.insert(nb.cells.index(by_id["ex5_global_answer"]) + 1, extra)
    fixed, problems = sanitized(nb)
    order = [c.metadata.get("nbgrader", {}).get("grade_id", c.source) for c in fixed.cells]
    position = order.index
    assert position("ex5_critical_answer") < position("ex5_critical_batch") < position("ex5_global_answer")
    assert order.index("ex5_global_answer") + 1 == order.index(extra.source)  # the student's own cell stays
    moved = "test cell 'ex5_critical_batch' was moved above answer cell 'ex5_critical_answer'"
    assert f"{moved} (put back after it)" in problems


def test_of_two_cells_with_one_id_the_last_keeps_it_and_the_other_loses_its_role() -> None:
    nb = model(EX5)
    fake = copy.deepcopy(
        next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex5_dense_peak")
    )
    fake.source = "assert True"
    nb.cells.append(fake)
    the_plan = plan(nb.cells, structure_of(EX5))
    assert the_plan.kept[len(nb.cells) - 1] == "ex5_dense_peak"
    assert len(the_plan.stripped) == 1
    assert (
        "2 cells carry the id of test cell 'ex5_dense_peak' (only the last one keeps it)" in the_plan.problems
    )


def test_malformed_nbgrader_metadata_is_dropped() -> None:
    nb = model(EX5)
    weird = [[], {}, "grade", {"grade": True, "points": 100}, {"grade_id": 7}]
    for metadata in weird:
        nb.cells.append(nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": metadata}))
    fixed, problems = sanitized(nb)
    assert all("nbgrader" not in c.metadata for c in fixed.cells[-len(weird) :])
    assert sum("unknown part" in p for p in problems) == 3  # the empty ones go without a word
    assert known_cells(fixed) == known_cells(model(EX5))
