"""Nothing of a grading round run in this checkout (``COURSE=.``, the Makefile's default) can be
committed by ``git add -A``: the class list, the students' work, the gradebook, the report, the
grades. The repository's own files stay tracked."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "roofline"

ROUND = [
    "students.csv",  # make roster ROSTER=students.csv: names and e-mail addresses
    "submissions.zip",  # the LMS's download, next to the Makefile
    "gradebook.db",
    "gradebook.db-journal",
    ".grading-secret",
    f"downloaded/{ASSIGNMENT}/extracted/lms/alice_ex1.ipynb",
    f"submitted/alice/{ASSIGNMENT}/ex1_int8_matmul.ipynb",
    f"submitted/alice/{ASSIGNMENT}/timestamp.txt",
    f"autograded/alice/{ASSIGNMENT}/ex1_int8_matmul.ipynb",
    f"autograded/{ASSIGNMENT}-report.txt",
    f"autograded/{ASSIGNMENT}-report.csv",
    f"autograded/{ASSIGNMENT}-misconceptions.csv",
    f"autograded/{ASSIGNMENT}-misconceptions.png",
    f"autograded/{ASSIGNMENT}-verdicts/alice.json",
    f"autograded/{ASSIGNMENT}-inputs/alice.json",
    f"feedback/alice/{ASSIGNMENT}/ex1_int8_matmul.html",
    "grades.csv",  # make grades
    "export/grades.csv",  # make grades GRADES=export/grades.csv
    # the same exports copied next to the Makefile, as an instructor might
    f"{ASSIGNMENT}-report.txt",
    f"{ASSIGNMENT}-report.csv",
    f"{ASSIGNMENT}-misconceptions.csv",
    f"{ASSIGNMENT}-verdicts/alice.json",
]
"""What a grading round writes in the course folder (the guide's commands), and its copies."""
OURS = [
    "nbgrader_config.py",
    f"solutions/{ASSIGNMENT}/ex1_int8_matmul.ipynb",
    f"exercises/{ASSIGNMENT}/ex1_int8_matmul.ipynb",
    "tests/e2e/crafted/class.toml",
    "grading/roofline_grading/plugins/export.py",
]
"""Files of the repository's own, which must stay tracked."""


def git(repository: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", *arguments], cwd=repository, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def test_a_grading_round_in_the_checkout_leaves_nothing_for_git_to_add(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    shutil.copy(ROOT / ".gitignore", tmp_path / ".gitignore")
    for name in ROUND + OURS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("alice,Alice,Liddell,alice@example.org\n")
    seen = git(tmp_path, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert sorted(line.removeprefix("?? ") for line in seen) == sorted([".gitignore", *OURS])
