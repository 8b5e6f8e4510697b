"""The driver grades as nbgrader would: the same honest class, graded by nbgrader's own
`nbgrader autograde` and by `make autograde`, gets the same points and comments, cell by cell.

The driver runs nbgrader's autograde steps itself, in memory, scores by nbgrader's rules and
writes the gradebook through nbgrader's API (grading/roofline_grading/autograde/pipeline.py);
this test is what tells a new nbgrader release apart from the one the driver mirrors
(grading/pyproject.toml pins the range it was run with). An honest class: the model answers, the
untouched release, and answers with known mistakes (which fail at public inputs, so that
nbgrader's own run, whose hidden tests judge on the spot with fresh random inputs, must agree).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.support.make_targets import make
from tests.support.slips import ASSIGNMENT, ROOT, SLIPS, answered, read

pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("parity")]

NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
CLASS = {
    "model": {n: answered(n, None, "en") for n in NOTEBOOKS},
    "blank": {n: read(ROOT / "exercises" / ASSIGNMENT / f"{n}.ipynb") for n in NOTEBOOKS},
    "slips": {n: answered(n, next(s for s in SLIPS if s.split("-")[0] == n.split("_")[0]), "en")
              for n in NOTEBOOKS},
}


def graded_cells(course: Path) -> dict[tuple[str, str, str], tuple[float | None, float, str | None]]:
    """(student, notebook, cell) -> (score, max score, automatic comment), from the gradebook."""
    from nbgrader.api import Gradebook

    found: dict[tuple[str, str, str], tuple[float | None, float, str | None]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in CLASS:
            for notebook in gradebook.find_submission(ASSIGNMENT, student).notebooks:
                for grade in notebook.grades:
                    score = None if grade.auto_score is None else float(grade.auto_score)
                    found[(student, notebook.name, grade.name)] = (score, float(grade.max_score), None)
                for comment in notebook.comments:
                    found[(student, notebook.name, f"comment:{comment.name}")] = (
                        None,
                        0.0,
                        comment.auto_comment,
                    )
    return found


def what_went_wrong(log: str) -> str:
    """The part of nbgrader's log that says why it failed: each traceback, else the log's end."""
    lines = log.splitlines()
    starts = [i for i, line in enumerate(lines) if "Traceback" in line or "| ERROR]" in line]
    if not starts:
        return log[-3000:]
    shown = sorted({j for i in starts[:3] for j in range(i, min(i + 40, len(lines)))})
    return "\n".join(lines[j] for j in shown)[-6000:]


@pytest.fixture(scope="module")
def template(released_course: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("parity") / "template"
    shutil.copytree(released_course, root)
    for student, notebooks in CLASS.items():
        folder = root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        for name, nb in notebooks.items():
            nbformat.write(nb, folder / f"{name}.ipynb")
    return root


def test_the_driver_gives_every_cell_the_points_and_comment_nbgrader_gives(template: Path) -> None:
    by_nbgrader = template.parent / "nbgrader"
    shutil.copytree(template, by_nbgrader)
    binaries = Path(sys.executable).parent
    environment = {**os.environ, "PATH": f"{binaries}{os.pathsep}{os.environ['PATH']}"}
    # nbclient's waits, lengthened for a loaded machine (the suite's other workers start sandboxes and
    # hostile notebooks beside this run: a kernel slow to start, or an idle message late past the
    # default 4 s, fails the whole student in nbgrader), since points, not speed, are compared here.
    patience = ["--Execute.startup_timeout=300", "--Execute.iopub_timeout=120"]
    done = subprocess.run(
        [str(binaries / "nbgrader"), "autograde", ASSIGNMENT, "--force", *patience],
        cwd=by_nbgrader,
        env=environment,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, what_went_wrong(done.stdout + done.stderr)
    by_driver = template.parent / "driver"
    shutil.copytree(template, by_driver)
    make("autograde", course=by_driver, JOBS="2")
    theirs, ours = graded_cells(by_nbgrader), graded_cells(by_driver)
    assert theirs.keys() == ours.keys()
    differ = {key: (theirs[key], ours[key]) for key in theirs if theirs[key] != ours[key]}
    assert not differ, differ
    assert any(score == 0 for score, _, _ in ours.values()) and any(s and s > 0 for s, _, _ in ours.values())
