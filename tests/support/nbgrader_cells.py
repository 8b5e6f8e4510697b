"""Small notebooks for the grading steps' unit tests, cell by cell, as nbgrader's own tests build
theirs (``nbgrader/tests/__init__.py``): an answer cell, a test cell, a Markdown cell, and the
structure the gradebook would hold for them. No kernel runs any of it."""

from __future__ import annotations

from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from roofline_grading.autograde.structure import NotebookStructure, SourceCell

NAME = "ex1_small"
ANSWER = SourceCell("answer", "code", False, False, True, False, None, "x = 1", "# YOUR CODE HERE")
TEST = SourceCell(
    "check",
    "code",
    True,
    True,
    False,
    False,
    2.0,
    "assert x == 1\n### BEGIN HIDDEN TESTS\n### END HIDDEN TESTS",
    "assert x == 1",
)
TEXT = SourceCell("statement", "markdown", True, False, False, False, None, "Set **x**.", "Set **x**.")
STRUCTURE = NotebookStructure(NAME, (TEXT, ANSWER, TEST), kernelspec=None)


def cell(known: SourceCell, source: str | None = None) -> Any:
    """The cell as a student's file holds it: the released source, or ``source`` written in it."""
    text = known.released if source is None else source
    made = new_markdown_cell(text) if known.cell_type == "markdown" else new_code_cell(text)
    made.metadata["nbgrader"] = known.metadata()
    return made


def submitted(*cells: Any) -> Any:
    """A notebook of ``cells`` (the released three, the answer written, when none are given)."""
    chosen = cells or (cell(TEXT), cell(ANSWER, "x = 1"), cell(TEST))
    return new_notebook(
        cells=list(chosen),
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )


def resources(**more: Any) -> dict[str, Any]:
    """What nbgrader hands each step for the notebook :data:`NAME`."""
    return {"nbgrader": {"notebook": NAME, "student": "alice", "assignment": "a"}, **more}


def configured(step: type, **traits: Any) -> Any:
    """``step`` with the gradebook's structure of :data:`NAME`, where it takes one."""
    structures = {NAME: STRUCTURE.to_json()}
    return (
        step(structures=structures, **traits) if "structures" in step.class_trait_names() else step(**traits)
    )


def written(nb: Any) -> Any:
    """The notebook as nbformat would write and read it back (what formgrader and feedback read)."""
    return nbformat.reads(nbformat.writes(nb), as_version=4)
