"""Grading across machines: a real Dask scheduler and two workers, as separate processes.

The scheduler and its workers are started here as an instructor starts them on other machines
(``dask scheduler``, ``dask worker ADDRESS --nthreads 1``; book/instructor-guide.md, "Grading a
large class"), and ``make autograde SCHEDULER=...`` grades a small class through them. The class
gets the same points, graded notebooks, feedback and report as with the local workers
(``make autograde JOBS=2``). Then a worker is killed, with all it started, while it grades: every
student is still graded, and saved, exactly once, and the report names who was graded again;
with the scheduler allowing no failure, the student it was grading is named as not graded.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from tests.support.make_targets import command, make
from tests.support.slips import ASSIGNMENT, ROOT, answered, read, release_dir

pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("distributed")]

NOTEBOOK = "ex5_h100_threshold"
CLASS = {
    "model": lambda course: answered(NOTEBOOK, root=course),
    "blank": lambda course: read(release_dir("exercises", root=course) / f"{NOTEBOOK}.ipynb"),
    "sparse": lambda course: answered(NOTEBOOK, "ex5-sparse-peak", root=course),
    "replica": lambda course: answered(NOTEBOOK, "ex5-per-replica", root=course),
}
BIN = Path(sys.executable).parent


@dataclass
class Cluster:
    """A Dask scheduler and its workers, each ``dask`` command in a session of its own."""

    address: str
    scheduler: subprocess.Popen[bytes]
    workers: dict[str, subprocess.Popen[bytes]]

    def kill(self, name: str) -> None:
        """Kill worker ``name`` and everything it started at once, as when its machine disappears."""
        os.killpg(self.workers[name].pid, signal.SIGKILL)
        self.workers[name].wait()

    def stop(self) -> None:
        for process in [*self.workers.values(), self.scheduler]:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in [*self.workers.values(), self.scheduler]:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def start_cluster(directory: Path, allowed_failures: int = 3) -> Cluster:
    """A scheduler (on a free port, with ``allowed_failures``) and two one-thread workers."""
    directory.mkdir(parents=True, exist_ok=True)
    address_file = directory / "scheduler.json"
    environment = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": str(allowed_failures)}
    with (directory / "scheduler.log").open("wb") as log:  # the process writes to its own copy
        scheduler = subprocess.Popen(
            [str(BIN / "dask"), "scheduler", "--scheduler-file", str(address_file), "--port", "0",
             "--dashboard-address", ":0"],
            stdout=log, stderr=log, env=environment, start_new_session=True,
        )  # fmt: skip
    workers = {}
    for name in ("w1", "w2"):
        with (directory / f"{name}.log").open("wb") as log:
            workers[name] = subprocess.Popen(
                [str(BIN / "dask"), "worker", "--scheduler-file", str(address_file), "--nthreads", "1",
                 "--name", name, "--no-dashboard"],
                stdout=log, stderr=log, start_new_session=True,
            )  # fmt: skip
    cluster = Cluster("", scheduler, workers)
    try:
        from distributed import Client

        deadline = time.monotonic() + 120
        while not address_file.is_file():
            assert scheduler.poll() is None and time.monotonic() < deadline, "dask scheduler did not start"
            time.sleep(0.2)
        time.sleep(0.5)  # the file is written, then the scheduler listens
        with Client(scheduler_file=str(address_file), timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
            cluster.address = client.scheduler.address
    except BaseException:
        cluster.stop()
        raise
    return cluster


@pytest.fixture(scope="module")
def course_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course of one notebook (ex5), released, with a fixed secret and four students' submissions."""
    root = tmp_path_factory.mktemp("distributed") / "template"
    (root / "solutions" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copy(ROOT / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", root / "solutions" / ASSIGNMENT)
    make("exercises", course=root)
    (root / ".grading-secret").write_text("fedcba9876543210" * 4 + "\n")
    for student, notebook in CLASS.items():
        folder = root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(notebook(root), folder / f"{NOTEBOOK}.ipynb")
        (folder / "timestamp.txt").write_text("2026-03-01 10:00:00.000000 UTC")
    subprocess.run([sys.executable, "-c", "import matplotlib.pyplot"], check=True)  # font cache, once
    return root


@dataclass
class Run:
    """One grading run: its course, console output, report (text, rows) and gradebook grades."""

    course: Path
    output: str
    report: list[str]
    rows: dict[str, dict[str, str]]
    grades: dict[tuple[str, str], tuple[float | None, bool]]
    submissions: dict[str, int]


def copy_course(template: Path, name: str) -> Path:
    course = template.parent / name
    shutil.copytree(template, course)
    return course


def finish(course: Path, output: str) -> Run:
    """The run's results, once ``make autograde`` is done; ``make feedback`` too."""
    from nbgrader.api import Gradebook

    make("feedback", course=course)
    report = (course / "autograded" / f"{ASSIGNMENT}-report.txt").read_text().splitlines()
    with (course / "autograded" / f"{ASSIGNMENT}-report.csv").open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    grades = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "roofline") as gb:
        submissions = gb.find_assignment(ASSIGNMENT).submissions
        counted = Counter(s.student_id for s in submissions)
        for submission in submissions:
            for notebook in submission.notebooks:
                for part in notebook.grades:
                    score = None if part.auto_score is None else float(part.auto_score)
                    grades[(submission.student_id, part.name)] = (score, bool(part.needs_manual_grade))
    return Run(course, output, report, rows, grades, dict(counted))


def grade(template: Path, name: str, **variables: str) -> Run:
    course = copy_course(template, name)
    done = make("autograde", course=course, AUTOGRADE_OPTIONS="--timeout 30", **variables)
    return finish(course, done.stdout)


@pytest.fixture(scope="module")
def local(course_template: Path) -> Run:
    return grade(course_template, "local", JOBS="2")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    started = start_cluster(tmp_path_factory.mktemp("cluster"))
    yield started
    started.stop()


def shown(run: Run) -> list[str]:
    """The students in the progress lines, in the order they were done."""
    return re.findall(rf"^\[\s*\d+/{len(CLASS)}\] ([\w.-]+): ", run.output, flags=re.MULTILINE)


def feedback(course: Path, student: str) -> str:
    return (course / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html").read_text()


def test_a_class_graded_by_two_dask_workers_gets_what_the_local_workers_give(
    local: Run, cluster: Cluster, course_template: Path
) -> None:
    distributed = grade(course_template, "dask", SCHEDULER=cluster.address)
    assert f"with the Dask scheduler at {cluster.address} (2 workers" in distributed.output.splitlines()[0]
    assert sorted(shown(distributed)) == sorted(CLASS) == sorted(shown(local))
    assert distributed.grades == local.grades
    assert local.rows["model"]["score"] == local.rows["model"]["max_score"] != local.rows["blank"]["score"]
    assert distributed.rows == local.rows
    assert distributed.report[2:] == local.report[2:]  # all but the header (how) and the time taken
    for student in CLASS:
        graded = Path("autograded") / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        assert (distributed.course / graded).read_bytes() == (local.course / graded).read_bytes(), student
        assert feedback(distributed.course, student) == feedback(local.course, student), student


def grade_killing_a_worker(cluster: Cluster, course: Path) -> str:
    """``make autograde`` through ``cluster``, killing the first worker seen grading, 2 s after."""
    from distributed import Client

    process = subprocess.Popen(
        command("autograde", course=course, SCHEDULER=cluster.address, AUTOGRADE_OPTIONS="--timeout 30"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    with Client(cluster.address, timeout="30s") as client:
        victim = None
        while victim is None and process.poll() is None:
            busy = client.run(lambda dask_worker: bool(dask_worker.state.executing))
            names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
            victim = next((names[a] for a, executing in busy.items() if executing), None)
            time.sleep(0.2)
    assert victim is not None, "the run ended before any worker was seen grading"
    time.sleep(2)  # its kernel is running
    cluster.kill(victim)
    output, _ = process.communicate(timeout=900)
    assert process.returncode == 0, output
    return output


def test_a_worker_killed_mid_run_loses_no_one_and_its_students_are_graded_once_and_named(
    local: Run, course_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cluster = start_cluster(tmp_path_factory.mktemp("killed"))
    try:
        course = copy_course(course_template, "killed")
        run = finish(course, grade_killing_a_worker(cluster, course))
    finally:
        cluster.stop()
    assert sorted(shown(run)) == sorted(CLASS), run.output
    assert run.submissions == dict.fromkeys(CLASS, 1)
    assert run.grades == local.grades  # the retried are graded as anywhere else
    again = [line for line in run.report if line.startswith("Graded again: ")]
    assert again, run.report
    for line in again:
        assert re.fullmatch(
            r"Graded again: [\w.-]+ \(the worker it was sent to was lost \(1 time\); graded again on tcp://\S+\)",
            line,
        ), line
    assert "retried so far" in run.output


def test_a_student_whose_workers_all_died_is_named_as_not_graded_and_the_rest_are_graded(
    local: Run, course_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cluster = start_cluster(tmp_path_factory.mktemp("no-failure-allowed"), allowed_failures=0)
    try:
        course = copy_course(course_template, "not-graded")
        run = finish(course, grade_killing_a_worker(cluster, course))
    finally:
        cluster.stop()
    assert sorted(shown(run)) == sorted(CLASS)
    lost = {s for s, row in run.rows.items() if "not graded: " in row["details"]}
    assert lost and len(lost) < len(CLASS), run.rows
    for student in lost:
        assert "more than the scheduler's allowed-failures" in run.rows[student]["details"]
        assert run.rows[student]["status"] == "failed"
        assert all(score == 0 and manual for (s, _), (score, manual) in run.grades.items() if s == student)
    for (student, part), score in run.grades.items():
        if student not in lost:
            assert score == local.grades[(student, part)]
