"""The feedback pages' scores and comments, read from the gradebook a notebook at a time.

``make feedback`` (``nbgrader generate_feedback``) first copies each graded cell's score and each
answer's comment from the gradebook into the notebook (nbgrader's ``GetGrades``). ``GetGrades``
asks for every cell on its own, through six joined tables: a query for an answer's comment, two
for a score (its points are loaded apart), and another try when the first kind of cell looked at
is not the cell's (a score is looked for among grade cells, then task cells; a comment among
answer cells, then task cells). A notebook of this course has 13 to 27 cells to look up.
:class:`GradesAtOnce`, which ``nbgrader_config.py`` puts in its place
(``c.GenerateFeedback.preprocessors``), reads the submitted notebook, its grades and its comments
in three queries, the first time a cell needs them, and gives each cell what ``GetGrades`` gives
it: the same score, points and comment, found in the same order of cell kinds. A cell those
queries did not find is asked for as ``GetGrades`` asks, and fails as it fails.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from nbformat import NotebookNode
from nbgrader.api import BaseCell, Comment, Grade, Gradebook
from nbgrader.preprocessors import GetGrades

__all__ = ["Entries", "GradesAtOnce", "read_entries"]

SCORE_KINDS = ("GradeCell", "TaskCell")
"""Where ``Gradebook.find_grade`` looks for a score's cell, in its order."""
COMMENT_KINDS = ("SolutionCell", "TaskCell")
"""Where ``Gradebook.find_comment`` looks for a comment's cell, in its order."""
Value = TypeVar("Value")


@dataclass(frozen=True)
class Entries:
    """One submitted notebook's grades and comments, by cell name."""

    scores: dict[str, tuple[float, float]]
    """Each graded cell's score and points (its maximum score)."""
    comments: dict[str, str | None]
    """Each answer cell's comment (None where it has none)."""


def read_entries(gradebook: Gradebook, notebook: str, assignment: str, student: str) -> Entries:
    """The grades and comments of ``student``'s ``notebook`` of ``assignment``, in three queries
    (a :class:`nbgrader.api.MissingEntry` if there is no such submitted notebook).

    >>> import tempfile, warnings
    >>> folder = tempfile.TemporaryDirectory()
    >>> with Gradebook(f"sqlite:///{folder.name}/gradebook.db") as book, warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # nbgrader's add_submission, under SQLAlchemy 2
    ...     _ = book.add_assignment("a"), book.add_notebook("nb", "a"), book.add_student("s")
    ...     _ = book.add_grade_cell("q", "nb", "a", max_score=2, cell_type="code")
    ...     _ = book.add_solution_cell("q", "nb", "a"), book.add_submission("a", "s")
    ...     book.find_grade("q", "nb", "a", "s").auto_score = 1.5
    ...     read_entries(book, "nb", "a", "s")
    Entries(scores={'q': (1.5, 2.0)}, comments={'q': None})
    >>> folder.cleanup()
    """
    submission = gradebook.find_submission_notebook(notebook, assignment, student)
    graded = (  # columns, not objects: the score and points as the gradebook computes them
        gradebook.db.query(BaseCell.name, BaseCell.type, Grade.score, Grade.max_score)
        .join(Grade, Grade.cell_id == BaseCell.id)
        .filter(Grade.notebook_id == submission.id)
    )
    scores = _first_of_kinds(((n, k, (score, points)) for n, k, score, points in graded), SCORE_KINDS)
    commented = (
        gradebook.db.query(BaseCell.name, BaseCell.type, Comment.comment)
        .join(Comment, Comment.cell_id == BaseCell.id)
        .filter(Comment.notebook_id == submission.id)
    )
    return Entries(scores, _first_of_kinds(commented, COMMENT_KINDS))


def _first_of_kinds(rows: Iterable[tuple[str, str, Value]], kinds: tuple[str, ...]) -> dict[str, Value]:
    """Each name's value from the row of the earliest of ``kinds`` (rows of other kinds left out)."""
    found: dict[str, tuple[int, Value]] = {}
    for name, kind, value in rows:
        if kind in kinds and (name not in found or kinds.index(kind) < found[name][0]):
            found[name] = (kinds.index(kind), value)
    return {name: value for name, (_, value) in found.items()}


class GradesAtOnce(GetGrades):  # type: ignore[misc]
    """nbgrader's ``GetGrades``, reading a notebook's grades and comments at once (see the
    module's docstring)."""

    _entries: Entries | None = None

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        self._entries = None  # read again for each notebook, once its gradebook is open
        try:
            return super().preprocess(nb, resources)  # type: ignore[no-any-return]
        finally:
            self._entries = None

    def _read(self) -> Entries:
        if self._entries is None:
            ids = (self.notebook_id, self.assignment_id, self.student_id)
            self._entries = read_entries(self.gradebook, *ids)
        return self._entries

    def _get_score(self, cell: NotebookNode, resources: Any) -> None:
        entry = self._read().scores.get(cell.metadata["nbgrader"]["grade_id"])
        if entry is None:
            super()._get_score(cell, resources)
            return
        cell.metadata.nbgrader["score"], cell.metadata.nbgrader["points"] = entry

    def _get_comment(self, cell: NotebookNode, resources: Any) -> None:
        name = cell.metadata["nbgrader"]["grade_id"]
        comments = self._read().comments
        if name not in comments:
            super()._get_comment(cell, resources)
            return
        cell.metadata.nbgrader["comment"] = comments[name]
