"""The last grading step: the graded notebook headed with what happened to it, for the student.

:class:`StudentNotes` puts a Markdown cell first, in the language of the notebook's release, with
the notes :func:`roofline_grading.autograde.notes.notes` words from what the earlier steps left in
the resources (``roofline_plan``: what :class:`RestoreCells` put right; ``roofline_run``: what
stopped the run); a notebook with nothing to tell gets no cell.

>>> import nbformat
>>> nb, _ = StudentNotes()(nbformat.v4.new_notebook(), {"roofline_run": {"limits": ["memory limit"]}})
>>> print(nb.cells[0].source.splitlines()[-1])
- Your code used more memory than grading allows; it was stopped.
"""

from __future__ import annotations

from typing import Any

from nbgrader.preprocessors import NbGraderPreprocessor

from roofline_grading.autograde.notes import notes, notes_cell
from roofline_grading.i18n import language_of

__all__ = ["StudentNotes"]


class StudentNotes(NbGraderPreprocessor):  # type: ignore[misc]
    """Head the graded notebook with the student's notes (see the module's docstring)."""

    def preprocess(self, nb: Any, resources: Any) -> tuple[Any, Any]:
        language = language_of(nb.metadata)
        said = notes(resources.get("roofline_plan"), resources.get("roofline_run", {}), language)
        if said:
            cell = notes_cell(said, language)
            taken = {c.get("id") for c in nb.cells}  # a student's cell may hold the id already
            candidates = (cell.id, *(f"{cell.id}-{n}" for n in range(1, len(taken) + 2)))
            cell.id = next(c for c in candidates if c not in taken)
            nb.cells.insert(0, cell)
        return nb, resources
