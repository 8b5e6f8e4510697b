"""The whole grading round with the gradebook on a PostgreSQL server instead of a SQLite file.

Where several instructors and TAs grade at once they share a gradebook server: the course's
``nbgrader_config.py`` names it (``c.CourseDirectory.db_url = "postgresql+psycopg://..."``; the
instructor's guide, "The gradebook on a server"). A real PostgreSQL server, started for the test
(:mod:`tests.support.postgres`), holds the gradebook of a course through release (``make
exercises``), ``make grading-round`` (collect, autograde, feedback, export) and ``make
formgrader``; no SQLite file appears in the course.
"""

from __future__ import annotations

import csv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from tests.support.formgrader_server import api, start_formgrader
from tests.support.make_targets import command, make
from tests.support.postgres import postgres_server
from tests.support.slips import ASSIGNMENT, ROOT, answered, read, release_dir

pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("postgres")]

NOTEBOOK = "ex5_h100_threshold"
STUDENTS = {
    "model": lambda course: answered(NOTEBOOK, root=course),
    "sparse": lambda course: answered(NOTEBOOK, "ex5-sparse-peak", root=course),
    "blank": lambda course: read(release_dir("exercises", root=course) / f"{NOTEBOOK}.ipynb"),
}


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="module")
def graded(database: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course of one notebook whose gradebook is the server's, after release and the whole round."""
    course = tmp_path_factory.mktemp("postgres") / "course"
    (course / "solutions" / ASSIGNMENT).mkdir(parents=True)
    config = (ROOT / "nbgrader_config.py").read_text()
    (course / "nbgrader_config.py").write_text(f"{config}\nc.CourseDirectory.db_url = {database!r}\n")
    (course / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").write_bytes(
        (ROOT / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_bytes()
    )
    make("exercises", course=course)
    archive = course.parent / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for student, notebook in STUDENTS.items():
            zipped.writestr(f"submissions/{student}_{NOTEBOOK}.ipynb", nbformat.writes(notebook(course)))
    make("grading-round", course=course, ZIP=str(archive), GRADES="export/grades.csv")
    return course


def test_the_round_keeps_the_gradebook_on_the_server_and_exports_it(graded: Path, database: str) -> None:
    from nbgrader.api import Gradebook

    assert not list(graded.glob("*.db")), "a SQLite gradebook appeared in the course"
    with Gradebook(database, "roofline") as gb:
        (assignment,) = gb.assignments
        scores = {s.student_id: (s.score, s.max_score) for s in gb.find_assignment(ASSIGNMENT).submissions}
        assert [n.name for n in assignment.notebooks] == [NOTEBOOK]
    assert sorted(scores) == sorted(STUDENTS)
    model, maximum = scores["model"]
    assert model == maximum > scores["sparse"][0] > scores["blank"][0] == 0
    with (graded / "export" / "grades.csv").open(newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert {s: float(r["raw_score"]) for s, r in rows.items()} == {s: v[0] for s, v in scores.items()}
    for student in STUDENTS:
        assert (graded / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html").is_file(), student


def test_formgrader_lists_the_submissions_from_the_server(
    graded: Path, database: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    scratch = tmp_path_factory.mktemp("formgrader")
    running = start_formgrader(command("formgrader", course=graded), graded, scratch)
    try:
        listed = api(
            f"{running.url}/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{NOTEBOOK}", running.token
        )
    finally:
        running.stop()
    from nbgrader.api import Gradebook

    with Gradebook(database, "roofline") as gb:
        expected = {s.student_id: s.score for s in gb.find_assignment(ASSIGNMENT).submissions}
    assert {s["student"]: s["score"] for s in listed} == expected
