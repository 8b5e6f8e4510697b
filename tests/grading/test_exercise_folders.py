"""The exercise folders (roofline_grading/exercises/<name>/): what ``make exercises`` makes of them.

A folder's statement holds no made cell; ``make exercises`` writes the instructor's notebook in
``solutions/roofline/`` from it, with the setup, known-mistakes and every-check cells, and that is
the notebook committed and released.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from roofline_grading import fingerprints, setup_cell, statements
from roofline_grading.answer_key import EXERCISES
from roofline_grading.exercises import FOLDERS, STATEMENT, folder
from roofline_grading.fingerprints import update

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions" / "roofline"
MADE = ("setup", "known_mistakes", "every_check")


def grade_ids(path: Path) -> list[str]:
    cells = nbformat.read(path, as_version=4).cells
    return [c.metadata.get("nbgrader", {}).get("grade_id", "") for c in cells]


def test_a_folders_statement_holds_no_made_cell() -> None:
    for name in FOLDERS:
        prefix = name.split("_")[0]
        made = [f"{prefix}_{suffix}" for suffix in MADE]
        assert not set(made) & set(grade_ids(folder(name) / STATEMENT)), name


def test_the_committed_notebook_is_what_make_exercises_writes_from_the_folder(tmp_path: Path) -> None:
    written = statements.write(tmp_path, everything=True)
    assert [p.stem for p in written] == list(FOLDERS)
    for path in written:
        update(path)
        stale = f"solutions/roofline/{path.name} is not what make exercises writes from its folder"
        assert path.read_bytes() == (SOLUTIONS / path.name).read_bytes(), stale


def test_a_release_of_unchanged_folders_writes_nothing_and_says_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in FOLDERS:
        (tmp_path / f"{name}.ipynb").write_bytes((SOLUTIONS / f"{name}.ipynb").read_bytes())
    assert statements.write(tmp_path, everything=True) == []
    assert fingerprints.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out == ""
    edited = tmp_path / f"{FOLDERS[0]}.ipynb"
    notebook = nbformat.read(edited, as_version=4)
    notebook.cells[0].source += " (edited in solutions/, not in the folder)"
    nbformat.write(notebook, edited)
    assert statements.write(tmp_path, everything=True) == [edited]  # the folder's statement wins
    fingerprints.main([str(tmp_path)])
    assert capsys.readouterr().out.startswith(f"{edited}: ")  # said once, for that notebook alone
    assert edited.read_bytes() == (SOLUTIONS / edited.name).read_bytes()


def test_every_setup_cell_is_the_one_make_exercises_writes() -> None:
    for name, exercise in EXERCISES.items():
        cells = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4).cells
        assert cells[1].metadata["nbgrader"]["grade_id"].endswith("_setup")
        assert cells[1].source == setup_cell.source(plots=exercise.plots), name


def test_a_pasted_setup_cell_is_written_back(tmp_path: Path) -> None:
    notebook = nbformat.read(SOLUTIONS / "ex1_int8_matmul.ipynb", as_version=4)
    notebook.cells[1].source += "\nprint('pasted by hand')\n"
    path = tmp_path / "ex1_int8_matmul.ipynb"
    nbformat.write(notebook, path)
    assert update(path)
    assert nbformat.read(path, as_version=4).cells[1].source == setup_cell.SETUP
