"""What happened to a notebook while it was graded, told to the student who submitted it.

The report tells the instructor what happened in the grader's words (grade ids, limits, paths).
The student reads the graded notebook, as a feedback page: ``StudentNotes``
(:mod:`roofline_grading.autograde.steps.student_notes`), the last of the grading steps, heads it
with a short Markdown cell saying, in the language of the notebook's release and in the
student's terms, what was put right before it ran (a changed, deleted or moved cell), what
stopped it (a time limit, a lost kernel, memory), whether output was cut, and that its code tried
something the sandbox does not allow. It never names a path, the grader, a classmate or anything
hidden. :func:`held_notes` does the same for a notebook that could not be
graded at all, which a grader grades by hand.

The notes are templates in the catalog; what fills them (a cell's grade id, the reason a file
could not be read) is quoted as a Markdown code span that nothing in it can close
(:func:`roofline_grading.inert.code_span`), so a grade id or an error message holding Markdown or
HTML shows as the text it is, in the feedback page and in formgrader.

>>> notes(None, {"timed_out": ["ex5_peak_answer"], "timeout": 30, "tried": True}, "en")[0]
'The cell `ex5_peak_answer` ran longer than the 30 s a cell may run, and was stopped.'
"""

from __future__ import annotations

import re
from typing import Any

from nbformat.v4 import new_markdown_cell

from roofline_grading.autograde.structure import NotebookStructure, Plan
from roofline_grading.i18n import LANGUAGES, translator
from roofline_grading.inert import code_span
from rooflinekit.words import N_

__all__ = ["NOTES_KEY", "held_notes", "language_of_file", "notes", "notes_cell"]

NOTES_KEY = "grading_notes"
"""The key, under the cell metadata's ``roofline`` entry, that marks the notes cell."""

NOTES_CELL_ID = "roofline-grading-notes"
_TITLE = N_("Grading notes")
_EDITED = N_("You changed the locked cell {cell}; it was put back as released before grading.")
_ROLE = N_("The grading settings of the cell {cell} were changed; they were put back before grading.")
_DELETED = N_("The cell {cell} was missing from your file; it was put back as released before grading.")
_DELETED_ANSWER = N_(
    "Your answer cell {cell} was missing from your file; it was put back empty, so its part scores nothing."
)
_MOVED = N_(
    "The test cell {cell} came before the cells it checks; it was moved back after them before grading."
)
_STRIPPED = N_("A cell carried grading settings that are not part of this exercise; they were ignored.")
_TIMED_OUT = N_("The cell {cell} ran longer than the {seconds} s a cell may run, and was stopped.")
_LOST = N_("The Python kernel stopped while it ran the cell {cell}; the cells after it did not run.")
_BUDGET = N_("The notebook used up the time it may run; {count} code cells at its end did not run.")
_MEMORY = N_("Your code used more memory than grading allows; it was stopped.")
_PROCESSES = N_(
    "Your code started more processes or threads than grading allows; the extra ones were refused."
)
_CUT = N_("Your notebook printed more than grading keeps; some of its output was cut.")
_TRIED = N_(
    "Your code tried something the grading sandbox does not allow (such as reading files outside its own "
    "folder, the network or other processes); your instructor sees what. It earned and cost no points."
)
_HELD = N_(
    "This notebook could not be graded automatically: {why}. Your instructor grades it by hand, from the "
    "file you submitted."
)
_HELD_ANSWER = N_("# Your answer is in the file you submitted; it could not be read here.")


def notes(plan: Plan | None, ran: dict[str, Any], language: str) -> list[str]:
    """The notes for one graded notebook: what ``plan`` put right and what the run (``ran``, as
    :class:`~roofline_grading.autograde.steps.sandboxed_execute.SandboxedExecute` tells it) saw,
    in ``language``."""
    tr = translator(language)
    said: list[str] = []
    if plan is not None and plan.structure is not None:
        said += _restored(plan, tr)
    seconds = ran.get("timeout", 30)
    said += [tr(_TIMED_OUT).format(cell=code_span(c), seconds=seconds) for c in ran.get("timed_out", [])]
    said += [tr(_LOST).format(cell=code_span(c)) for c in ran.get("died", [])]
    if ran.get("not_run"):
        said.append(tr(_BUDGET).format(count=int(ran["not_run"])))
    limits = " ".join(ran.get("limits", []))
    said += [tr(_MEMORY)] if "memory limit" in limits else []
    said += [tr(_PROCESSES)] if "process limit" in limits else []
    said += [tr(_CUT)] if ran.get("cut") else []
    said += [tr(_TRIED)] if ran.get("tried") else []
    return list(dict.fromkeys(said))


def _restored(plan: Plan, tr: Any) -> list[str]:
    structure: NotebookStructure = plan.structure  # type: ignore[assignment]
    said = []
    for grade_id in plan.missing:
        answer = structure.cell(grade_id).solution
        said.append(tr(_DELETED_ANSWER if answer else _DELETED).format(cell=code_span(grade_id)))
    for grade_id, kind in plan.changed:
        template = _EDITED if kind == "edited" else _ROLE
        said.append(tr(template).format(cell=code_span(grade_id)))
    said += [tr(_MOVED).format(cell=code_span(grade_id)) for grade_id in plan.moved]
    said += [tr(_STRIPPED)] if plan.ignored else []
    return said


def notes_cell(said: list[str], language: str) -> Any:
    """The Markdown cell that heads the notebook with ``said``; its id is always the same, so that the
    same run gives the same graded notebook, byte for byte, wherever it is graded."""
    title = translator(language)(_TITLE)
    cell = new_markdown_cell(f"**{title}**\n\n" + "\n".join(f"- {line}" for line in said), id=NOTES_CELL_ID)
    cell.metadata["roofline"] = {NOTES_KEY: True}
    return cell


def language_of_file(raw: bytes) -> str:
    """The language a submitted file that cannot be read as a notebook was most likely written in
    (its release's metadata, if its bytes still hold it), for the notes it is given.

    >>> language_of_file(b'{"metadata": {"roofline": {"language": "ko"}}, "cells": [')
    'ko'
    """
    declared = (found.decode() for found in re.findall(rb'"language"\s*:\s*"([\w-]+)"', raw[:4_000_000]))
    return next((code for code in declared if code in LANGUAGES[1:]), LANGUAGES[0])


def held_notes(why: str, language: str) -> tuple[str, str]:
    """For a notebook that could not be graded, in ``language``: the note that heads it and the
    text that stands in for each answer. ``why`` is the technical reason, quoted as a code span
    whatever it holds (it can quote the submitted file).

    >>> held_notes("not a valid notebook: '<img src=x>' is not of type 'object'", "en")[0][:95]
    "This notebook could not be graded automatically: `not a valid notebook: '<img src=x>' is not of"
    """
    tr = translator(language)
    return tr(_HELD).format(why=code_span(why)), tr(_HELD_ANSWER)
