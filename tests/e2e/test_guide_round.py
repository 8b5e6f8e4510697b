"""The instructor's guide (book/instructor-guide.md), followed literally in a fresh clone.

A clone of this repository (what CI and an instructor start from), its own `make venv`, then the
guide's steps in its order and with its commands, as the user the tests run as (root in CI):
record the assignment and a due date with a late penalty, import the class list, collect a
Canvas-style zip holding a late upload, a re-upload, a file that is not a notebook and entries
no collect may take, autograde, start formgrader, write feedback, export grades; then nothing of
the round (the class list in the clone's root included) is there for `git add -A`. Whatever fails
as written here is a bug of the guide or of the course, whichever side is wrong.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest

from tests.support.formgrader_server import api, start_formgrader
from tests.support.slips import ASSIGNMENT, ROOT, answered, read

pytestmark = pytest.mark.grading

NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
DUE = "2026-03-01 23:59:00 UTC"
ROSTER = [  # Canvas's ids: the student's sortable name, lower case, no spaces
    ("martinalice", "Alice", "Martin"),
    ("smithbob", "Bob", "Smith"),
    ("leedave", "Dave", "Lee"),
    ("kimerin", "Erin", "Kim"),
    ("parkfrank", "Frank", "Park"),  # submits nothing
]


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


def test_the_guides_grading_round_in_a_fresh_clone(tmp_path: Path) -> None:
    clone = tmp_path / "course"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300)
    assert shutil.which("bwrap"), "install bubblewrap (.ci/run does), as the guide says"
    # Before the first round.
    run(clone, "make", "venv")
    run(clone, "make", "exercises")
    run(clone, ".venv/bin/nbgrader", "db", "assignment", "add", ASSIGNMENT, f"--duedate={DUE}")
    with (clone / "nbgrader_config.py").open("a") as config:
        config.write('c.LateSubmissionPlugin.penalty_method = "zero"\n')
    roster = clone / "students.csv"  # where the guide's command line reads it: names and e-mails
    roster.write_text(
        "id,first_name,last_name,email\n" + "".join(f"{i},{first},{last},\n" for i, first, last in ROSTER)
    )
    run(clone, "make", "roster", "ROSTER=students.csv")
    changed = subprocess.run(
        ["git", "status", "--porcelain", "exercises", "solutions"], cwd=clone, capture_output=True, text=True
    ).stdout
    assert not changed.strip(), f"make exercises changed the committed release:\n{changed}"
    # 3. Collect.
    collected = run(clone, "make", "collect", f"ZIP={canvas_zip(tmp_path / 'submissions.zip')}").stdout
    for skipped in ("index.html", "escape_", "linked_"):
        assert skipped in collected, (skipped, collected)
    for student, *_ in ROSTER[:4]:
        assert (
            sorted(p.stem for p in (clone / "submitted" / student / ASSIGNMENT).glob("*.ipynb")) == NOTEBOOKS
        )
    assert (clone / "submitted" / "leedave" / ASSIGNMENT / "timestamp.txt").is_file()
    # 4. Autograde.
    graded = run(clone, "make", "autograde").stdout
    assert "Done in" in graded and "flagged" not in graded.split("Done in")[1], graded[-2000:]
    # Formgrader starts, as the guide starts it, and lists the assignment.
    server = start_formgrader(["make", "-C", str(clone), "formgrader"], clone, tmp_path / "formgrader")
    try:
        assert [a["name"] for a in api(f"{server.url}/formgrader/api/assignments", server.token)] == [
            ASSIGNMENT
        ]
    finally:
        server.stop()
    # 5. and 6. Feedback, grades.
    run(clone, "make", "feedback")
    for student in ("martinalice", "kimerin"):
        assert sorted(p.stem for p in (clone / "feedback" / student / ASSIGNMENT).glob("*.html")) == NOTEBOOKS
    run(clone, "make", "grades")
    with (clone / "grades.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["student_id"] for r in rows] == sorted(i for i, *_ in ROSTER)
    score = {r["student_id"]: float(r["score"]) for r in rows}
    full = float(rows[0]["max_score"])
    assert score["martinalice"] == score["smithbob"] == full  # the re-upload was taken
    assert (
        score["leedave"] == 0
        and float(next(r for r in rows if r["student_id"] == "leedave")["raw_score"]) == full
    )
    assert 0 < score["kimerin"] < full and score["parkfrank"] == 0
    assert next(r for r in rows if r["student_id"] == "leedave")["timestamp"]
    # Nothing of the round (the class list, the students' work, the gradebook, the report, the
    # grades) is there for `git add -A` to take: only the late penalty the guide has you configure.
    left = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True).stdout
    assert left.splitlines() == [" M nbgrader_config.py"], left
