""""Write your own exercise" (book/instructor-guide.md), followed literally in a fresh clone.

A clone of this repository and its own `make venv`; then the section's commands as it writes them
(its console blocks, run in the clone) with what it says to do in between: register the copy in
`FOLDERS`, change one figure (the attention's block, in `given.py` and in the statement's words)
and one answer (part (e): a tile that fills the memory exactly no longer fits, in the statement's
model answer and in `answers.py`), check it, release it (`make exercises`) and grade a class of
two on it (`make roster`, `make collect`, `make autograde`, `make grades`). The new exercise
earns its points and nothing else of the course changes: git sees the new folder, the registry's
one new line and the two notebooks `make exercises` writes from the folder.
"""

from __future__ import annotations

import csv
import os
import re
import shlex
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest

from tests.e2e.test_guide_round import run
from tests.support.slips import ASSIGNMENT, ROOT, answered, read

pytestmark = pytest.mark.grading

NEW = "ex11_tiles"
FOLDER = f"grading/roofline_grading/exercises/{NEW}"
REGISTRY = "grading/roofline_grading/exercises/__init__.py"


def section() -> str:
    guide = (ROOT / "book" / "instructor-guide.md").read_text(encoding="utf-8")
    start = guide.index("### Write your own exercise")
    return guide[start : guide.index("\n## ", start)]


def commands(text: str) -> list[str]:
    """The commands of the section's console blocks, in order (after their ``$ ``)."""
    return [line.strip()[2:] for line in text.splitlines() if line.strip().startswith("$ ")]


def edit(path: Path, old: str, new: str, count: int | None = None) -> None:
    text = path.read_text(encoding="utf-8")
    found = text.count(old)
    assert found and (count is None or found == count), (path, old, found)
    path.write_text(text.replace(old, new), encoding="utf-8")


def change_it(clone: Path) -> None:
    """Step 2 and 3 of the section: the registry's line, one figure, one answer."""
    registry = clone / REGISTRY
    text = registry.read_text(encoding="utf-8")
    listed = r'(FOLDERS: tuple\[str, \.\.\.\] = \(\n(?:    "[^"]+",\n)+)'
    registry.write_text(re.sub(listed, rf'\1    "{NEW}",\n', text), encoding="utf-8")
    folder = clone / FOLDER
    edit(folder / "given.py", "BLOCK = 512", "BLOCK = 256", 1)
    edit(folder / "statement.ipynb", "128, 512)", "128, 256)")
    for path, held in ((folder / "statement.ipynb", "held_bytes"), (folder / "answers.py", "tile_bytes")):
        edit(path, f"{held}(b, b, b) <= capacity_bytes", f"{held}(b, b, b) < capacity_bytes", 1)


def check(clone: Path, command: str) -> list[str]:
    """The check's problem lines (it exits 1 while there is one)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST"))}
    environment["PATH"] = os.pathsep.join(
        p for p in environment.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT))
    )
    done = subprocess.run(shlex.split(command), cwd=clone, capture_output=True, text=True, check=False,
                          timeout=1800, env=environment)
    lines = done.stdout.splitlines()
    assert done.returncode == (1 if lines[:-1] else 0), done.stdout + done.stderr
    assert lines[-1].startswith(f"{NEW}: {len(lines) - 1} problem(s); checked "), lines[-1]
    return lines[:-1]


def class_zip(clone: Path, path: Path) -> Path:
    """Canvas's zip of a class of two: one hands in the model answers, one the blank release."""
    model = nbformat.writes(answered(NEW, None, "en", root=clone))
    blank = nbformat.writes(read(clone / "exercises" / ASSIGNMENT / f"{NEW}.ipynb"))
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"submissions/martinalice_1001_2001_{NEW}.ipynb", model)
        archive.writestr(f"submissions/smithbob_1002_3001_{NEW}.ipynb", blank)
    return path


def test_an_instructor_writes_checks_releases_and_grades_an_exercise_of_their_own(tmp_path: Path) -> None:
    clone = tmp_path / "course"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300)
    run(clone, "make", "venv")
    copy, rename, check_command = commands(section())
    run(clone, "bash", "-c", copy)
    run(clone, "bash", "-c", rename)
    change_it(clone)

    before = check(clone, check_command)  # not released yet: it says so
    gaps = ("make exercises", "the ko release", "the translated page")
    assert before and all(any(words in line for words in gaps) for line in before), before
    run(clone, "make", "exercises")
    after = check(clone, check_command.replace("check ex11", "check ex11 --draws 10"))
    translation = ("the ko release", "the translated page")  # the one gap: its translation
    assert after and all(any(words in line for words in translation) for line in after), after

    roster = "id,first_name,last_name\nmartinalice,Alice,Martin\nsmithbob,Bob,Smith\n"
    (clone / "students.csv").write_text(roster)
    run(clone, "make", "roster", "ROSTER=students.csv")
    run(clone, "make", "collect", f"ZIP={class_zip(clone, tmp_path / 'submissions.zip')}")
    graded = run(clone, "make", "autograde").stdout
    assert "Done in" in graded and "flagged" not in graded.split("Done in")[1], graded[-2000:]
    run(clone, "make", "grades")
    with (clone / "grades.csv").open(newline="") as handle:
        score = {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}
    solution = read(clone / "solutions" / ASSIGNMENT / f"{NEW}.ipynb")
    parts = [c.metadata["nbgrader"] for c in solution.cells if c.metadata.get("nbgrader", {}).get("grade")]
    points = sum(meta["points"] for meta in parts)
    assert score == {"martinalice": points, "smithbob": 0.0}

    (clone / "students.csv").unlink()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=clone,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    made = {f"?? solutions/{ASSIGNMENT}/{NEW}.ipynb", f"?? exercises/{ASSIGNMENT}/{NEW}.ipynb"}
    assert {line for line in status if not line.startswith(f"?? {FOLDER}/")} == {f" M {REGISTRY}", *made}
    registry = subprocess.run(["git", "diff", "-U0", REGISTRY], cwd=clone, capture_output=True, text=True,
                              check=True).stdout
    changed = [line for line in registry.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == [f'+    "{NEW}",']
