"""The guide's "A class on a JupyterHub" (book/instructor-guide.md), followed literally.

The instructor is a system user the test creates; the rest is the section's commands, read from
the guide and typed in its order: the instructor clones the course into a private folder of their
own and makes its environment; as root, a student's account and group, and ``make hub`` (without
the tests' ROOFLINE_HUB_OPEN_REPOSITORY: the clone is private, as the guide has it); the round's
``make`` targets as the instructor, in the clone. Between release and collect a student logs in
with their password and fetches and submits through the hub's nbgrader API, as the Assignment
List's buttons do; a second student joins while the hub runs, as the guide says, and logs in
without a restart. After the round: the first student fetches the feedback; the second can read
neither the answer key in ``grading/``, the solutions, the grading secret nor the gradebook; and
formgrader, in the instructor's Lab on the hub, refuses release and collect naming the targets
the guide uses instead. Whatever fails as written is a bug of the guide or of the course.

What this machine needs that an instructor's would not is in one place, :func:`this_machine`.
The browser rounds and the Korean Lab are tests/e2e/test_hub.py's.
"""

from __future__ import annotations

import csv
import os
import pwd
import re
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.guide import console_commands
from tests.support.hub import (
    HUB_DIR,
    Hub,
    Login,
    as_user,
    free_port,
    python_every_user_may_run,
    readable_by_every_user,
    removed_afterwards,
    serving,
)
from tests.support.make_targets import ROOT
from tests.support.slips import ASSIGNMENT, answered

pytestmark = [pytest.mark.lab, pytest.mark.slow, pytest.mark.xdist_group("hub")]

SECTION = "A class on a JupyterHub"
INSTRUCTOR, STUDENTS = "rkguide-prof", ("rkguide-ann", "rkguide-bo")
PIP_CACHE = ROOT / "_build" / "hub-guide-pip"


def this_machine(base: Path, port: int) -> dict[str, str]:
    """The settings this machine adds to the guide's commands, in their environment (make reads
    its variables there), and why each:

    - HUB_PYTHON, and the instructor's ``python3`` (first on their PATH): the Python 3.11 or later
      every user may run that the guide asks for, the system's (the tests' own may be in root's
      home, where no other user may enter);
    - HUB_DIR: the tests' hub folder (the student environment, the proxy), shared with
      tests/e2e/test_hub.py and kept across runs, as a machine's own hub folder is: installing it
      takes minutes;
    - HUB_PORT: a free port (other tests' hubs may run);
    - EXCHANGE: the test's own, removed with it, not the machine's /srv/nbgrader/exchange.

    The address, ``HUB_IP``, is the guide's command's own setting: loopback instead of 10.0.0.5.
    """
    python = python_every_user_may_run()
    return {
        "HUB_PYTHON": str(python),
        "PATH": f"{python.parent}:/usr/bin:/bin",
        "HUB_DIR": str(HUB_DIR),
        "HUB_PORT": str(port),
        "EXCHANGE": str(base / "exchange"),
    }


@dataclass
class Guide:
    """The section's commands, as the test types them: the machine's set-up, then the round."""

    clone: str
    student: list[str]
    hub: str
    round: list[str]

    @classmethod
    def read(cls, origin: Path) -> Guide:
        commands = console_commands(SECTION)
        assert len(commands) == 11, commands
        clone, *student, hub = commands[:4]
        assert clone.startswith("git clone ... ~/roofline && cd ~/roofline && make venv"), clone
        assert "chmod 700 ~/roofline" in clone and "useradd" in student[0] and "passwd" in student[0]
        assert hub.startswith("sudo make hub HUB_IP=10.0.0.5"), hub
        assert [c.split("#")[0].split() for c in commands[4:]] == [
            ["make", target]
            for target in (
                "exercises",
                "hub-release",
                "hub-collect",
                "autograde",
                "feedback",
                "hub-return",
                "grades",
            )
        ]
        return cls(
            clone.replace("git clone ...", f"git clone {origin}"),
            [as_root(line) for line in student],
            as_root(hub).replace("HUB_IP=10.0.0.5", "HUB_IP=127.0.0.1"),
            commands[4:],
        )


def as_root(line: str) -> str:
    """A line the guide has typed with ``sudo``, as root types it (this machine has no sudo)."""
    return re.sub(r"\bsudo ", "", line)


def root_environment(settings: dict[str, str]) -> dict[str, str]:
    """Root's shell: this process's environment without the test's (pytest, this checkout's
    environment, the tests' ROOFLINE_HUB_OPEN_REPOSITORY), with the machine's settings."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST", "ROOFLINE_"))}
    kept["PATH"] = os.pathsep.join(p for p in kept["PATH"].split(os.pathsep) if not p.startswith(str(ROOT)))
    return {**kept, **{k: v for k, v in settings.items() if k != "PATH"}}


@dataclass
class Class:
    guide: Guide
    hub: Hub
    settings: dict[str, str]
    passwords: dict[str, str]

    @property
    def clone(self) -> Path:
        return self.hub.course

    def instructor(self, line: str) -> str:
        """The instructor types ``line`` in the clone; its output."""
        done = as_user(INSTRUCTOR, "bash", "-c", line, cwd=self.clone, **self.settings)
        assert done.returncode == 0, f"{line}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    def add_student(self, name: str) -> None:
        """The guide's second and third commands, as root, for the student ``name``."""
        password = self.passwords[name]
        for line in self.guide.student:
            typed = re.sub(r"\bann\b", name, line)
            subprocess.run(
                ["bash", "-c", typed],
                input=f"{password}\n{password}\n",
                env=root_environment(self.settings),
                capture_output=True,
                text=True,
                check=True,
            )

    def login(self, name: str) -> Login:
        login = Login(self.hub, name, self.passwords[name])
        assert login.logged_in, name
        return login


def pressed(login: Login, button: str) -> dict[str, object]:
    """What the Assignment List's button (fetch, submit, fetch_feedback) answers for the assignment."""
    answer = login.post(f"assignments/{button}", {"course_id": "roofline", "assignment_id": ASSIGNMENT})
    assert answer.status_code == 200, answer.text
    reply: dict[str, object] = answer.json()
    assert reply["success"] is True, reply
    return reply


@pytest.fixture(scope="module")
def hub_class() -> Iterator[Class]:
    """The section's set-up: the instructor's clone, the first student, the hub running."""
    readable_by_every_user(HUB_DIR)  # the student environment the students' servers run from
    base = Path(tempfile.mkdtemp(prefix="rkguide-", dir="/tmp"))
    base.chmod(0o755)  # every user passes through to the exchange
    passwords = {name: secrets.token_urlsafe(12) for name in (INSTRUCTOR, *STUDENTS)}
    port = free_port()
    settings = this_machine(base, port)
    try:
        with removed_afterwards([INSTRUCTOR, *STUDENTS]):
            subprocess.run(["useradd", "-m", "-s", "/bin/bash", INSTRUCTOR], check=True)
            login = f"{INSTRUCTOR}:{passwords[INSTRUCTOR]}\n"
            subprocess.run(["chpasswd"], input=login, text=True, check=True)
            origin = base / "origin.git"  # where the instructor clones from: the course's repository
            subprocess.run(["git", "clone", "--quiet", "--bare", str(ROOT), str(origin)], check=True)
            PIP_CACHE.mkdir(parents=True, exist_ok=True)
            subprocess.run(["chown", "-R", f"{INSTRUCTOR}:", str(origin), str(PIP_CACHE)], check=True)
            guide = Guide.read(origin)
            home = Path(pwd.getpwnam(INSTRUCTOR).pw_dir)
            hub = Hub("", home / "roofline", Path(settings["EXCHANGE"]), base / "hub.log")
            # pip's wheels for the instructor's make venv, kept across runs (time only)
            kept = Class(guide, hub, {**settings, "PIP_CACHE_DIR": str(PIP_CACHE)}, passwords)
            done = as_user(INSTRUCTOR, "bash", "-c", guide.clone, cwd=home, **kept.settings)
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
            kept.add_student(STUDENTS[0])
            make_hub = ["bash", "-c", guide.hub]
            with serving(make_hub, root_environment(settings), port, hub.log, cwd=hub.course) as url:
                hub.url = url
                yield kept
    finally:
        shutil.rmtree(base, ignore_errors=True)


@dataclass
class Round:
    course: Path
    said: dict[str, str]


@pytest.fixture(scope="module")
def hub_round(hub_class: Class) -> Round:
    """The round's commands; between release and collect, the first student fetches, answers
    every notebook with the model answers and submits; the second joins while the hub runs."""
    said = {}
    notebooks = sorted(p.stem for p in (ROOT / "exercises" / ASSIGNMENT).glob("*.ipynb"))
    for line in hub_class.guide.round:
        said[line.split()[1]] = hub_class.instructor(line)
        if line.startswith("make hub-release"):
            ann = hub_class.login(STUDENTS[0])
            ann.spawn()
            pressed(ann, "fetch")
            for notebook in notebooks:
                ann.save(f"{ASSIGNMENT}/{notebook}.ipynb", answered(notebook))
            pressed(ann, "submit")
            hub_class.add_student(STUDENTS[1])  # later, the hub running
    return Round(hub_class.clone, said)


def test_the_student_gets_full_points_and_the_feedback_in_the_assignment_list(
    hub_class: Class, hub_round: Round
) -> None:
    with (hub_round.course / "grades.csv").open(newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    ann = rows[STUDENTS[0]]
    assert float(ann["score"]) == float(ann["max_score"]) > 0, ann
    login = hub_class.login(STUDENTS[0])
    login.spawn()  # the Lab's page: the student's server's own login, through the hub
    pressed(login, "fetch_feedback")
    listed = login.get("assignments?course_id=roofline").json()["value"]
    (submitted,) = [a for a in listed if a["status"] == "submitted"]
    latest = max(submitted["submissions"], key=lambda s: s["timestamp"])
    assert latest["has_local_feedback"] is True
    home = Path(pwd.getpwnam(STUDENTS[0]).pw_dir)
    pages = sorted(p.stem for p in (home / latest["local_feedback_path"]).glob("*.html"))
    assert pages == sorted(p.stem for p in (ROOT / "exercises" / ASSIGNMENT).glob("*.ipynb"))


def test_a_student_who_joins_later_logs_in_without_a_restart_and_fetches(
    hub_class: Class, hub_round: Round
) -> None:
    bo = hub_class.login(STUDENTS[1])
    bo.spawn()
    listed = bo.get("assignments?course_id=roofline").json()["value"]
    assert [(a["assignment_id"], a["status"]) for a in listed] == [(ASSIGNMENT, "released")]


def test_a_student_cannot_read_the_answer_key_the_solutions_the_secret_or_the_gradebook(
    hub_class: Class, hub_round: Round
) -> None:
    clone = hub_round.course
    private = [
        clone / ".grading-secret",
        clone / "gradebook.db",
        next((clone / "solutions" / ASSIGNMENT).glob("*.ipynb")),
        next((clone / "grading" / "roofline_grading" / "exercises").glob("*/key.py")),
        next((clone / "grading" / "roofline_grading" / "exercises").glob("*/answers.py")),
    ]
    for path in private:
        assert path.is_file(), path  # there, for the instructor
        denied = as_user(STUDENTS[1], "cat", str(path))
        assert denied.returncode != 0 and "Permission denied" in denied.stderr, path
    listing = as_user(STUDENTS[1], "ls", str(clone / "grading"))
    assert listing.returncode != 0 and "Permission denied" in listing.stderr


def test_formgrader_on_the_hub_is_the_courses_and_refuses_release_and_collect_naming_the_targets(
    hub_class: Class, hub_round: Round
) -> None:
    professor = hub_class.login(INSTRUCTOR)
    professor.spawn()
    listed = professor.get("formgrader/api/assignments").json()
    assert [a["name"] for a in listed] == [ASSIGNMENT]  # the course's config: solutions/, not ko
    for step, target in (("release", "make hub-release"), ("collect", "make hub-collect")):
        answer = professor.post(f"formgrader/api/assignment/{ASSIGNMENT}/{step}", {})
        assert answer.status_code == 200, answer.text
        refused = answer.json()
        assert refused["success"] is False and target in refused["error"], refused
