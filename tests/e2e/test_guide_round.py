"""The instructor's guide (book/instructor-guide.md), followed literally in a fresh clone.

A clone of this repository (what CI and an instructor start from), its own `make venv`, then the
guide's steps in its order and with its commands, as the user the tests run as (root in CI):
record the assignment and a due date with a late penalty, import the class list, collect a
Canvas-style zip holding a late upload, a re-upload, a file that is not a notebook and entries
no collect may take, autograde, start formgrader, write feedback, export grades; then nothing of
the round (the class list in the clone's root included) is there for `git add -A`, and nothing
is there that the guide's table "What a round writes" does not name. Then the same clone moves
its gradebook to a PostgreSQL server (tests/support/postgres.py starts one) with the commands of
"The gradebook on a server", read from the guide, and grades the round again there: the late
student's penalty and the absent student's row come back in `grades.csv`. Whatever fails as
written here is a bug of the guide or of the course, whichever side is wrong.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import urllib.parse
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from tests.support.formgrader_server import api, first_visit, start_formgrader
from tests.support.guide import console_commands, section
from tests.support.postgres import postgres_server
from tests.support.slips import ASSIGNMENT, ROOT, answered, read

pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("guide-round")]

NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
DUE = "2026-03-01 23:59:00 UTC"
ROSTER = [  # Canvas's ids: the student's sortable name, lower case, no spaces
    ("martinalice", "Alice", "Martin"),
    ("smithbob", "Bob", "Smith"),
    ("leedave", "Dave", "Lee"),
    ("kimerin", "Erin", "Kim"),
    ("parkfrank", "Frank", "Park"),  # submits nothing
]
LATE, ABSENT = "leedave", "parkfrank"


def run(clone: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """A command in the clone, as the instructor types it there (no variable of this test's)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST"))}
    environment["PATH"] = os.pathsep.join(
        p for p in environment.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT))
    )
    done = subprocess.run(
        command, cwd=clone, capture_output=True, text=True, env=environment, timeout=1800, check=False
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


def canvas_zip(path: Path) -> Path:
    """What Canvas's "Download Submissions" gives: `<lastfirst>_[late_]<user id>_<file id>_<name>`,
    a re-upload as `<name>-1`; plus what an LMS or a student adds."""
    model = {n: nbformat.writes(answered(n, None, "en")) for n in NOTEBOOKS}
    blank = {n: nbformat.writes(read(ROOT / "exercises" / ASSIGNMENT / f"{n}.ipynb")) for n in NOTEBOOKS}
    with zipfile.ZipFile(path, "w") as archive:
        for n in NOTEBOOKS:
            archive.writestr(f"submissions/martinalice_1001_{2000 + len(n)}_{n}.ipynb", model[n])
            archive.writestr(f"submissions/leedave_late_1004_{4000 + len(n)}_{n}.ipynb", model[n])
            text = "my answers are in the PDF" if n == NOTEBOOKS[0] else model[n]
            archive.writestr(f"submissions/kimerin_1005_{5000 + len(n)}_{n}.ipynb", text)
            archive.writestr(f"submissions/smithbob_1002_{3000 + len(n)}_{n}.ipynb", blank[n])
            archive.writestr(f"submissions/smithbob_1002_{3100 + len(n)}_{n}-1.ipynb", model[n])  # re-upload
        archive.writestr("submissions/index.html", "<html>the LMS's own index</html>")
        archive.writestr(f"../escape_1006_6001_{NOTEBOOKS[0]}.ipynb", model[NOTEBOOKS[0]])
        link = zipfile.ZipInfo(f"submissions/linked_1007_7001_{NOTEBOOKS[0]}.ipynb")
        link.external_attr = 0o120777 << 16  # a symbolic link
        archive.writestr(link, "/etc/passwd")
    return path


def written_by_the_round(clone: Path, before: set[str]) -> set[str]:
    """Every file git ignores in the clone that was not there before the round."""
    listed = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=clone, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return {line[3:] for line in listed.splitlines() if line.startswith("!! ")} - before


def named_in_the_guide() -> list[re.Pattern[str]]:
    """The paths the table of "What a round writes" names, as patterns (``<student>``: any id; a
    folder: everything under it)."""
    rows = [line for line in section("What a round writes").splitlines() if line.startswith("| `")]
    patterns = []
    for row in rows:
        for path in re.findall(r"`([^`]+)`", row.split("|")[1]):
            pattern = re.escape(path).replace(re.escape("<student>"), r"[^/]+")
            patterns.append(re.compile(pattern + (".*" if path.endswith("/") else "")))
    assert len(patterns) > 10, rows
    return patterns


def grades(clone: Path) -> dict[str, dict[str, str]]:
    with (clone / "grades.csv").open(newline="") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


def check_the_late_and_the_absent(clone: Path) -> None:
    """``grades.csv`` and the report: the late student's penalty, the absent student's row."""
    rows = grades(clone)
    assert sorted(rows) == sorted(i for i, *_ in ROSTER)
    full = float(rows["martinalice"]["max_score"])
    assert float(rows["martinalice"]["score"]) == float(rows["smithbob"]["score"]) == full  # the re-upload
    late = rows[LATE]
    assert float(late["raw_score"]) == full and float(late["late_submission_penalty"]) == full
    assert float(late["score"]) == 0 and late["timestamp"]
    assert float(rows[ABSENT]["score"]) == 0 and rows[ABSENT]["last_name"] == "Park"
    assert 0 < float(rows["kimerin"]["score"]) < full
    with (clone / "autograded" / f"{ASSIGNMENT}-report.csv").open(newline="") as handle:
        report = {row["student"]: row for row in csv.DictReader(handle)}
    assert report[LATE]["summary"].startswith(f"0/{full:g} late (-{full:g}): submitted ")
    assert (report[LATE]["score"], report[LATE]["raw_score"]) == ("0", f"{full:g}")
    assert f"late penalty {full:g} points ({full:g}/{full:g} before it)" in report[LATE]["details"]


@dataclass
class Round:
    """The guide's round in a fresh clone: the clone, the zip, what was there before, the outputs."""

    clone: Path
    zip: Path
    before: set[str]
    autograded: str


def follow_the_round(clone: Path, zip_path: Path, formgrader_scratch: Path) -> str:
    """Steps 3 to 6 as the guide gives them: collect, autograde, formgrader, feedback, grades
    (the output of ``make autograde``)."""
    collected = run(clone, "make", "collect", f"ZIP={zip_path}").stdout
    for skipped in ("index.html", "escape_", "linked_"):
        assert skipped in collected, (skipped, collected)
    graded = run(clone, "make", "autograde").stdout
    assert "Done in" in graded and "flagged" not in graded.split("Done in")[1], graded[-2000:]
    server = start_formgrader(["make", "-C", str(clone), "formgrader"], clone, formgrader_scratch)
    try:
        assert [a["name"] for a in api(f"{server.url}/formgrader/api/assignments", server.token)] == [
            ASSIGNMENT
        ]
        # Formgrader's own address, a page deep in it, opened first (as a browser does: cookies
        # only): its list comes from its API, which the login its token gave must reach.
        deep = f"{server.url}/formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOKS[0]}?token={server.token}"
        browser = first_visit(deep)
        listed = browser.json(f"{server.url}/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{NOTEBOOKS[0]}")
        assert sorted(s["student"] for s in listed) == sorted(i for i, *_ in ROSTER[:4])
    finally:
        server.stop()
    run(clone, "make", "feedback")
    for student in ("martinalice", "kimerin"):
        assert sorted(p.stem for p in (clone / "feedback" / student / ASSIGNMENT).glob("*.html")) == NOTEBOOKS
    run(clone, "make", "grades")
    return graded


@pytest.fixture(scope="module")
def sqlite_round(tmp_path_factory: pytest.TempPathFactory) -> Round:
    """The guide from "Before the first round" to step 6, the gradebook a SQLite file."""
    tmp_path = tmp_path_factory.mktemp("guide")
    clone = tmp_path / "course"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300)
    assert shutil.which("bwrap"), "install bubblewrap (.ci/run does), as the guide says"
    # Before the first round.
    run(clone, "make", "venv")
    before = written_by_the_round(clone, set())
    run(clone, "make", "exercises")
    run(clone, ".venv/bin/nbgrader", "db", "assignment", "add", ASSIGNMENT, f"--duedate={DUE}")
    with (clone / "nbgrader_config.py").open("a") as config:
        config.write('c.LateSubmissionPlugin.penalty_method = "zero"\n')
    roster = clone / "students.csv"  # where the guide's command line reads it: names and e-mails
    roster.write_text(
        "id,first_name,last_name,email\n" + "".join(f"{i},{first},{last},\n" for i, first, last in ROSTER)
    )
    run(clone, "make", "roster", "ROSTER=students.csv")
    before.add("students.csv")  # the instructor's own file, not the round's
    changed = subprocess.run(
        ["git", "status", "--porcelain", "exercises", "solutions"], cwd=clone, capture_output=True, text=True
    ).stdout
    assert not changed.strip(), f"make exercises changed the committed release:\n{changed}"
    zip_path = canvas_zip(tmp_path / "submissions.zip")
    graded = follow_the_round(clone, zip_path, tmp_path / "formgrader")
    return Round(clone, zip_path, before, graded)


def test_the_guides_grading_round_in_a_fresh_clone(sqlite_round: Round) -> None:
    clone = sqlite_round.clone
    for student, *_ in ROSTER[:4]:
        assert (
            sorted(p.stem for p in (clone / "submitted" / student / ASSIGNMENT).glob("*.ipynb")) == NOTEBOOKS
        )
    assert (clone / "submitted" / LATE / ASSIGNMENT / "timestamp.txt").is_file()
    check_the_late_and_the_absent(clone)
    # The late penalty is on the late student's line as it is printed.
    full = float(grades(clone)["martinalice"]["max_score"])
    assert re.search(rf"\] {LATE}: 0/{full:g} late \(-{full:g}\): submitted ", sqlite_round.autograded)
    # Nothing of the round (the class list, the students' work, the gradebook, the report, the
    # grades) is there for `git add -A` to take: only the late penalty the guide has you configure.
    left = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True).stdout
    assert left.splitlines() == [" M nbgrader_config.py"], left


def test_every_file_the_round_writes_is_in_the_guides_table(sqlite_round: Round) -> None:
    written = written_by_the_round(sqlite_round.clone, sqlite_round.before)
    assert written
    patterns = named_in_the_guide()
    unnamed = sorted(path for path in written if not any(p.fullmatch(path) for p in patterns))
    assert not unnamed, f"the round wrote what 'What a round writes' does not name: {unnamed}"
    for folder in ("roofline-verdicts", "roofline-inputs"):  # the two the guide once left out
        assert any(path.startswith(f"autograded/{folder}/") for path in written), folder


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def test_the_guides_postgresql_section_after_a_round_in_sqlite(
    sqlite_round: Round, database: str, tmp_path: Path
) -> None:
    """The clone's course moves its gradebook to the server with the section's commands, as
    written but for the server's address, and grades the round again there."""
    from nbgrader.api import Gradebook

    clone = sqlite_round.clone
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(database).query)
    host, port = query["host"][0], query["port"][0]
    server = f"postgresql+psycopg://postgres@/roofline_gradebook?host={host}&port={port}"
    commands = console_commands("The gradebook on a server (PostgreSQL)")
    assert [c.split()[0] for c in commands] == ["createdb", "echo", "make", ".venv/bin/nbgrader", "make"]
    assert "make exercises" in commands[2] and f'--duedate="{DUE}"' in commands[3]
    assert commands[4].startswith("make roster ROSTER=students.csv")
    for command in commands:
        typed = command.replace("-h db.example.edu -U grader", f"-h {host} -p {port} -U postgres")
        typed = typed.replace("postgresql+psycopg://grader@db.example.edu/roofline_gradebook", server)
        run(clone, "bash", "-c", typed)
    follow_the_round(clone, sqlite_round.zip, tmp_path / "formgrader")
    check_the_late_and_the_absent(clone)
    with Gradebook(server, "roofline") as gb:  # the rows came from the server's gradebook
        assert str(gb.find_assignment(ASSIGNMENT).duedate) == DUE.removesuffix(" UTC")
        assert sorted(s.id for s in gb.students) == sorted(i for i, *_ in ROSTER)
        assert sorted(s.student_id for s in gb.find_assignment(ASSIGNMENT).submissions) == sorted(
            i for i, *_ in ROSTER[:4]
        )
