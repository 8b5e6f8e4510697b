"""``make feedback``'s first step (roofline_grading.plugins.grades): every cell gets from
:class:`GradesAtOnce` the score, points and comment nbgrader's ``GetGrades`` gives it, in a few
queries a notebook instead of one or two a cell."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import GetGrades
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SAWarning

from roofline_grading.plugins.grades import GradesAtOnce

pytestmark = pytest.mark.grading  # a real nbgrader gradebook (made through alembic: seconds)

CELLS = [  # name, kind of cell, nbgrader's flags, points
    ("answer", "code", {"solution": True, "grade": True}, 2.0),
    ("tests", "code", {"grade": True}, 3.0),
    ("essay", "markdown", {"solution": True, "grade": True}, 1.0),
    ("task", "markdown", {"task": True}, 4.0),
    ("scratch", "code", {"solution": True}, None),
    ("hidden", "code", {"grade": True}, 5.0),
]


def course(url: str) -> nbformat.NotebookNode:
    """A gradebook at ``url`` holding one student's graded notebook ``nb`` of assignment ``a``
    (scores by the autograder and by hand, extra credit, comments of both kinds, a cell with
    neither), and the notebook as the feedback step reads it."""
    cells = []
    with Gradebook(url) as book:
        book.add_assignment("a")
        book.add_notebook("nb", "a")
        for name, kind, flags, points in CELLS:
            if flags.get("grade"):
                book.add_grade_cell(name, "nb", "a", max_score=points, cell_type=kind)
            if flags.get("solution"):
                book.add_solution_cell(name, "nb", "a")
            if flags.get("task"):
                book.add_task_cell(name, "nb", "a", max_score=points, cell_type=kind)
            make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
            grading = {"grade_id": name, "grade": False, "solution": False, "task": False, **flags}
            cells.append(make(f"# {name}", metadata={"nbgrader": {**grading, "points": points or 0}}))
        submitted(book, "s")
        book.find_grade("answer", "nb", "a", "s").auto_score = 2.0
        tests = book.find_grade("tests", "nb", "a", "s")
        tests.auto_score, tests.manual_score, tests.extra_credit = 0.0, 1.5, 0.5
        book.find_grade("task", "nb", "a", "s").manual_score = 3.0
        book.find_comment("answer", "nb", "a", "s").auto_comment = "No response."
        book.find_comment("essay", "nb", "a", "s").manual_comment = "Good, but say why."
        book.find_comment("task", "nb", "a", "s").auto_comment = "by the autograder"
        book.db.commit()
    return nbformat.v4.new_notebook(cells=cells)


def submitted(book: Gradebook, student: str) -> None:
    """``student`` in the class, with a submission of assignment ``a`` (every grade and comment empty)."""
    book.add_student(student)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)  # nbgrader's add_submission, under SQLAlchemy 2
        book.add_submission("a", student)


def resources(url: str) -> dict[str, Any]:
    return {"nbgrader": {"notebook": "nb", "assignment": "a", "student": "s", "db_url": url}}


@contextmanager
def counted() -> Iterator[list[str]]:
    """The SQL statements every engine sends meanwhile (opening a gradebook sends some too)."""
    sent: list[str] = []

    def note(*arguments: Any) -> None:
        sent.append(arguments[2])

    event.listen(Engine, "before_cursor_execute", note)
    try:
        yield sent
    finally:
        event.remove(Engine, "before_cursor_execute", note)


def test_each_cell_gets_what_nbgraders_get_grades_gives_it_in_as_many_queries_as_for_one_cell(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    notebook = course(url)
    with counted() as theirs:
        expected = GetGrades().preprocess(copy.deepcopy(notebook), resources(url))
    with counted() as ours:
        got = GradesAtOnce().preprocess(copy.deepcopy(notebook), resources(url))
    assert got == expected
    graded = {c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader for c in got[0].cells}
    assert (graded["tests"]["score"], graded["tests"]["points"]) == (2.0, 3.0)  # by hand, plus extra credit
    assert graded["essay"]["comment"] == "Good, but say why." and graded["scratch"]["comment"] is None
    assert (graded["task"]["score"], graded["task"]["comment"]) == (3.0, "by the autograder")
    assert got[1]["nbgrader"]["score"] == 7.0 and got[1]["nbgrader"]["max_score"] == 15.0
    one_cell = copy.deepcopy(notebook)
    one_cell.cells = one_cell.cells[:1]
    with counted() as ours_for_one:
        GradesAtOnce().preprocess(one_cell, resources(url))
    assert len(ours) == len(ours_for_one) < len(theirs)  # as many queries for one cell as for six


def test_a_cell_the_gradebook_does_not_have_fails_as_with_get_grades(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    notebook = course(url)
    notebook.cells.append(
        nbformat.v4.new_code_cell("# added", metadata={"nbgrader": {"grade_id": "added", "grade": True}})
    )
    for step in (GetGrades(), GradesAtOnce()):
        with pytest.raises(MissingEntry, match="No such grade: a/nb/added for s"):
            step.preprocess(copy.deepcopy(notebook), resources(url))


def test_one_step_for_many_notebooks_gives_each_its_own_students_grades(tmp_path: Path) -> None:
    """As ``nbgrader generate_feedback`` uses it: one step, a notebook after another."""
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    notebook = course(url)
    with Gradebook(url) as book:
        submitted(book, "t")
        book.find_grade("answer", "nb", "a", "t").auto_score = 1.0
        book.find_comment("essay", "nb", "a", "t").manual_comment = "Say more."
        book.db.commit()
    step = GradesAtOnce()
    for student in ("s", "t", "s"):
        student_resources = resources(url)
        student_resources["nbgrader"]["student"] = student
        got = step.preprocess(copy.deepcopy(notebook), copy.deepcopy(student_resources))
        assert got == GetGrades().preprocess(copy.deepcopy(notebook), student_resources), student
    answer = next(c for c in got[0].cells if c.metadata.nbgrader["grade_id"] == "answer")
    assert answer.metadata.nbgrader["score"] == 2.0  # s's, not t's
