"""The instructor's notebooks of the exercise folders, written where nbgrader releases from.

``make exercises`` (``roofline-grading release``) first writes each folder's ``statement.ipynb``
(:mod:`roofline_grading.exercises`) to ``solutions/<assignment>/<name>.ipynb``, then
:mod:`roofline_grading.fingerprints` writes what is made of every notebook there (its setup,
known-mistakes and every-check cells), then nbgrader releases it. The notebook in ``solutions/`` is
therefore made, never edited: its source is the folder's statement. A notebook already made from
the folder's statement as it is stays as it is (nothing is written, and ``make exercises`` says
nothing of it).

A course folder other than this repository (``--course DIR``) gets the folder exercises it already
holds refreshed, and no new one: a course made of a few notebooks stays so.

>>> import tempfile
>>> course = Path(tempfile.mkdtemp())
>>> written = write(course / "solutions" / "roofline", everything=True)
>>> "ex9_memory_hierarchy.ipynb" in [p.name for p in written]
True
>>> write(Path(tempfile.mkdtemp()), everything=False)
[]
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from roofline_grading.cells import made_cell_ids
from roofline_grading.exercises import FOLDERS, STATEMENT, folder

__all__ = ["REPOSITORY", "write"]

REPOSITORY = Path(__file__).resolve().parents[2]
"""This repository (the course whose ``solutions/`` holds every folder exercise)."""


def write(solutions: Path, *, everything: bool, only: str | None = None) -> list[Path]:
    """Write each folder's statement to ``solutions/<name>.ipynb`` (every folder's with
    ``everything``, else only those already there; ``only``: that folder's alone, always); the
    notebooks that changed."""
    changed = []
    for name in FOLDERS:
        target = solutions / f"{name}.ipynb"
        if only is not None and name != only:
            continue
        if not (everything or only or target.exists()):
            continue
        source = (folder(name) / STATEMENT).read_bytes()
        if not target.exists() or _statement_of(target) != _statement_of(folder(name) / STATEMENT):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source)
            changed.append(target)
    return changed


def _statement_of(path: Path) -> str:
    """The notebook at ``path`` without the cells ``make exercises`` writes: the statement it was
    made from (a folder's statement is its own)."""
    notebook = nbformat.read(path, as_version=4)
    made = made_cell_ids(path.parent.name if path.name == STATEMENT else path.stem)
    notebook.cells = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") not in made]
    return str(nbformat.writes(notebook))
