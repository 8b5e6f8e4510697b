"""The graded notebooks as the grading tests use them: the gradebook's copy of a notebook's
structure, built from the solution and the release, and the release with the model answers in."""

from __future__ import annotations

from pathlib import Path

import nbformat

from roofline_grading.autograde.structure import NotebookStructure, SourceCell

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions" / "roofline"
RELEASE = ROOT / "exercises" / "roofline"
NOTEBOOKS = sorted(p.stem for p in SOLUTIONS.glob("*.ipynb"))


def structure_of(name: str) -> NotebookStructure:
    """What the gradebook holds for a notebook, built from the solution and release files."""
    solution = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)
    release = nbformat.read(RELEASE / f"{name}.ipynb", as_version=4)
    released = {
        c.metadata["nbgrader"]["grade_id"]: c.source for c in release.cells if "nbgrader" in c.metadata
    }
    cells = []
    for cell in solution.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta:
            continue
        cells.append(
            SourceCell(
                grade_id=meta["grade_id"],
                cell_type=cell.cell_type,
                locked=meta.get("locked", False) or not meta.get("solution", False),
                grade=meta.get("grade", False),
                solution=meta.get("solution", False),
                task=meta.get("task", False),
                points=float(meta["points"]) if "points" in meta else None,
                source=released[meta["grade_id"]] if meta.get("solution") else cell.source,
                released=released[meta["grade_id"]],
            )
        )
    return NotebookStructure(name, tuple(cells), kernelspec=None)


def model(name: str) -> nbformat.NotebookNode:
    """The release with the model answers written in."""
    answers = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    nb = nbformat.read(RELEASE / f"{name}.ipynb", as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    return nb

EX5 = "ex5_h100_threshold"
