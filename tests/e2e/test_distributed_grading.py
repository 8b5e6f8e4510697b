"""Grading across machines: a real Dask scheduler and two workers, as separate processes.

The scheduler and its workers are started here as the instructor's guide starts them on other
machines (book/instructor-guide.md, "Grading a large class": ``make cluster-certs``, ``make
cluster-scheduler HOST=...``, ``make cluster-worker SCHEDULER=... HOST=...``), told to listen on
127.0.0.2, a loopback address that is not 127.0.0.1, and ``make autograde SCHEDULER=...`` grades a
small class through them. The class gets the same points, graded notebooks, feedback and report
as with the local workers (``make autograde JOBS=2``). The cluster lets in no one without the
course's certificates, and listens nowhere but on the address it was given (its HTTP servers on
127.0.0.1, answering ``/health`` only). Then a worker is killed, with all it started, while it
grades: every student is still graded, and saved, exactly once, the report names who was
graded again, and the killed worker's run folders are gone once a worker starts again on the
machine; with the scheduler allowing no failure, the student it was grading is named as not
graded. A run that a worker with other grading code refuses is refused with the worker's address
and leaves no run folder on the others; such a worker joining mid-run stops the run, naming
itself and the students not graded yet.
"""

from __future__ import annotations

import asyncio
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import pytest

from roofline_grading.autograde import credentials
from tests.support.make_targets import command, make
from tests.support.processes import (
    descendants,
    held_folders,
    listening,
    remove_orphaned,
    session,
    shared_memory,
)
from tests.support.slips import ASSIGNMENT, ROOT, answered, read, release_dir

pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("distributed")]

NOTEBOOK = "ex5_h100_threshold"
CRAFTED = Path(__file__).with_name("crafted")
MUTE = """
class Everything(set):
    def __contains__(self, item):
        return True


def MUTE(monitor):
    monitor._busy = Everything()
"""


def hostile(*code: str) -> Callable[[Path], nbformat.NotebookNode]:
    """A student whose figures cell ends with ``code`` (``@name``: the hostile class's crafted/name.ipy)."""

    def build(course: Path) -> nbformat.NotebookNode:
        nb = answered(NOTEBOOK, root=course)
        (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex5_figures"]
        cell.source += "\n" + "".join(
            (CRAFTED / f"{piece[1:]}.ipy").read_text() if piece.startswith("@") else piece for piece in code
        )
        return nb

    return build


CLASS = {
    "model": lambda course: answered(NOTEBOOK, root=course),
    "blank": lambda course: read(release_dir("exercises", root=course) / f"{NOTEBOOK}.ipynb"),
    "sparse": lambda course: answered(NOTEBOOK, "ex5-sparse-peak", root=course),
    "replica": lambda course: answered(NOTEBOOK, "ex5-per-replica", root=course),
    "muted": hostile(MUTE, "@mute-monitor"),  # silences its kernel's monitor, then signals and reads /proc
    "frames": hostile("@hidden-frames"),  # writes bad frames into two of its hidden channels
}
HOST = "127.0.0.2"
"""The address the cluster is told to listen on: loopback, and not 127.0.0.1, where its HTTP
servers listen, nor 0.0.0.0 (every interface), Dask's default."""


@dataclass
class Cluster:
    """A scheduler and its workers started with the course's make targets, each in a session of
    its own, and the course's certificates (``certs``) they take."""

    directory: Path
    certs: Path
    address: str = ""
    scheduler: subprocess.Popen[bytes] | None = None
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def security(self) -> Any:
        """The driver's credentials: what a client of the course connects with."""
        return credentials.security(self.certs, "driver")

    def start_worker(self, name: str, environment: dict[str, str] | None = None) -> None:
        """``make cluster-worker`` on this machine, one worker process named ``name``."""
        started = command(
            "cluster-worker", SCHEDULER=self.address, HOST=HOST, CERTS=str(self.certs),
            CLUSTER_OPTIONS=f"--nworkers 1 --name {name}",
        )  # fmt: skip
        with (self.directory / f"{name}.log").open("ab") as log:  # the process writes to its own copy
            self.workers[name] = subprocess.Popen(
                started,
                stdout=log,
                stderr=log,
                start_new_session=True,
                env={**os.environ, **(environment or {})},
            )

    def pids(self, *names: str) -> set[int]:
        """The processes of the workers ``names`` (default: of the scheduler and every worker)."""
        chosen = [self.workers[n] for n in names] if names else [self.scheduler, *self.workers.values()]
        return set().union(*(session(p.pid) for p in chosen if p is not None))

    def kill(self, name: str) -> None:
        """Kill worker ``name`` and everything it started at once, as when its machine disappears
        (and with the machine, its /dev/shm: the semaphores its processes held are removed)."""
        group = session(self.workers[name].pid)
        held = shared_memory(group)
        os.killpg(self.workers[name].pid, signal.SIGKILL)
        self.workers[name].wait()
        remove_orphaned(held, group)

    def address_of(self, name: str) -> str:
        """The address the scheduler knows worker ``name`` by."""
        from distributed import Client

        with Client(self.address, security=self.security(), timeout="60s") as client:
            workers = client.scheduler_info()["workers"]
        return next(str(a) for a, w in workers.items() if w["name"] == name)

    def wait_for(self, workers: int) -> None:
        from distributed import Client

        with Client(self.address, security=self.security(), timeout="60s") as client:
            client.wait_for_workers(workers, timeout=120)

    def stop(self) -> None:
        running = [p for p in [*self.workers.values(), self.scheduler] if p is not None and p.poll() is None]
        for process in running:
            os.killpg(process.pid, signal.SIGTERM)
        for process in running:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def start_cluster(
    directory: Path, certs: Path, allowed_failures: int = 3, foreign: dict[str, str] | None = None
) -> Cluster:
    """A scheduler (on a free port, with ``allowed_failures``) and two one-process workers, w1 and
    w2, as the guide starts them; ``foreign``: w2's environment, when it runs other grading code."""
    directory.mkdir(parents=True, exist_ok=True)
    cluster = Cluster(directory, certs)
    environment = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": str(allowed_failures)}
    log_file = directory / "scheduler.log"
    started = command("cluster-scheduler", HOST=HOST, CERTS=str(certs), CLUSTER_OPTIONS="--port 0")
    with log_file.open("wb") as log:
        cluster.scheduler = subprocess.Popen(
            started, stdout=log, stderr=log, env=environment, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 120
        while not (found := re.search(r"Scheduler at:\s+(tls://\S+)", log_file.read_text())):
            assert cluster.scheduler.poll() is None, log_file.read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        cluster.address = found[1]
        cluster.start_worker("w1")
        cluster.start_worker("w2", foreign)
        cluster.wait_for(2)
    except BaseException:
        cluster.stop()
        raise
    return cluster


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The course's certificates, made as the guide makes them."""
    folder = tmp_path_factory.mktemp("certs") / "cluster"
    make("cluster-certs", course=folder.parent, CERTS=str(folder))
    return folder


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
def cluster(tmp_path_factory: pytest.TempPathFactory, certs: Path) -> Iterator[Cluster]:
    started = start_cluster(tmp_path_factory.mktemp("cluster"), certs)
    yield started
    started.stop()


def shown(run: Run) -> list[str]:
    """The students in the progress lines, in the order they were done."""
    return re.findall(r"^\[\s*\d+/\d+\] ([\w.-]+): ", run.output, flags=re.MULTILINE)


def feedback(course: Path, student: str) -> str:
    return (course / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html").read_text()


def test_a_class_graded_by_two_dask_workers_gets_what_the_local_workers_give(
    local: Run, cluster: Cluster, course_template: Path
) -> None:
    distributed = grade(course_template, "dask", SCHEDULER=cluster.address, CERTS=str(cluster.certs))
    first = distributed.output.splitlines()[0]
    assert f"with the Dask scheduler at {cluster.address} (2 workers" in first
    assert "dashboard" not in distributed.output  # none is served: none is advertised
    assert sorted(shown(distributed)) == sorted(CLASS) == sorted(shown(local))
    assert distributed.grades == local.grades
    assert local.rows["model"]["score"] == local.rows["model"]["max_score"] != local.rows["blank"]["score"]
    assert distributed.rows == local.rows
    muted, frames = local.rows["muted"]["details"], local.rows["frames"]["details"]
    assert "seen from outside the kernel: sent signal 15 to process 1" in muted
    assert "could not see everything" in muted
    assert "the copy answering ex5.dense_peak sent JSON nested 30000 deep" in frames
    scores = {part: score for (student, part), (score, _) in local.grades.items() if student == "frames"}
    assert scores["ex5_dense_peak"] == scores["ex5_hbm_bandwidth"] == 0  # a bad frame costs its question
    assert scores["ex5_critical_batch"] and scores["ex5_global_batch"]  # and no other
    assert distributed.report[2:] == local.report[2:]  # all but the header (how) and the time taken
    for student in CLASS:
        graded = Path("autograded") / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        assert (distributed.course / graded).read_bytes() == (local.course / graded).read_bytes(), student
        assert feedback(distributed.course, student) == feedback(local.course, student), student
    assert not held_folders(cluster.pids()), "the workers kept the run's folders after it"


async def knock(address: str, security: Any) -> str:
    """Connect to ``address`` with ``security`` (None: none, plain TCP) and ask who is there."""
    from distributed.comm import connect

    if security is None:
        comm = await connect(address.replace("tls://", "tcp://"), timeout=10)
    else:
        comm = await connect(address, timeout=10, **security.get_connection_args("client"))
    try:
        await comm.write({"op": "identity"})
        answer: dict[str, Any] = await comm.read()
    finally:
        await comm.close()
    return str(answer["type"])


def knocked(address: str, security: Any) -> str:
    """:func:`knock`, run to its end in a thread of its own: an earlier browser test on this pytest
    worker leaves Playwright's sync API holding an event loop that counts as running in the main
    thread, and ``asyncio.run`` refuses to start inside one."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(lambda: asyncio.run(knock(address, security))).result()


def test_the_cluster_lets_in_no_one_without_the_courses_certificates(
    cluster: Cluster, tmp_path: Path
) -> None:
    from distributed import Client

    make("cluster-certs", course=tmp_path, CERTS=str(tmp_path / "another"))  # another authority's
    another = credentials.security(tmp_path / "another", "driver")
    with Client(cluster.address, security=cluster.security(), timeout="30s") as client:
        workers = client.scheduler_info()["workers"]
    doors = [cluster.address, *workers, *(w["nanny"] for w in workers.values())]
    assert len(doors) == 5
    for door in doors:
        for stranger in (None, another):
            with pytest.raises(OSError):  # distributed's CommClosedError: refused at the handshake
                knocked(door, stranger)
        assert knocked(door, cluster.security()) in ("Scheduler", "Worker", "Nanny")
    for stranger in (None, another):
        with pytest.raises(OSError):
            plain = cluster.address.replace("tls://", "tcp://")
            Client(cluster.address if stranger else plain, security=stranger, timeout="10s")


def test_no_port_of_the_cluster_listens_beyond_the_address_it_was_given(cluster: Cluster) -> None:
    from distributed import Client

    with Client(cluster.address, security=cluster.security(), timeout="30s") as client:
        workers = client.scheduler_info()["workers"]
    grading = {cluster.address, *workers, *(w["nanny"] for w in workers.values())}
    ports = listening(cluster.pids())
    assert {f"tls://{host}:{port}" for host, port in ports if host == HOST} == grading
    http = {port for host, port in ports if host != HOST}
    assert {host for host, _ in ports} - {HOST} == {"127.0.0.1"}, ports  # nothing on 0.0.0.0 nor ::
    assert len(http) == 3  # the scheduler's and each worker's HTTP server
    for port in http:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as answer:
            assert answer.read() == b"ok"
        for page in ("/status", "/info/main/workers.html", "/json/identity.json", "/metrics"):
            with pytest.raises(urllib.error.HTTPError, match="404"):
                urllib.request.urlopen(f"http://127.0.0.1:{port}{page}", timeout=10)


def foreign_package(directory: Path) -> dict[str, str]:
    """The environment of a worker whose grading package has an uncommitted file the driver's has not."""
    package = ROOT / "grading" / "roofline_grading"
    shutil.copytree(package, directory / "roofline_grading", ignore=shutil.ignore_patterns("__pycache__"))
    (directory / "roofline_grading" / "uncommitted.txt").write_text("an edit not on the driver's machine\n")
    return {"PYTHONPATH": str(directory)}


def test_a_run_a_worker_refuses_as_foreign_leaves_no_run_folder_on_any_worker(
    course_template: Path, certs: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """w2 grades with other code (an uncommitted file in the grading package): it refuses the run
    after w1 has made its run folder and started a kernel there; the run stops, and w1's folders go."""
    foreign = foreign_package(tmp_path_factory.mktemp("foreign"))
    cluster = start_cluster(tmp_path_factory.mktemp("refused"), certs, foreign=foreign)
    try:
        w2 = cluster.address_of("w2")
        course = copy_course(course_template, "refused")
        process = subprocess.Popen(
            command("autograde", course=course, SCHEDULER=cluster.address, CERTS=str(certs)),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        seen: set[Path] = set()
        while process.poll() is None:
            seen |= held_folders(cluster.pids("w1") | descendants(process.pid))
            time.sleep(0.1)
        output, _ = process.communicate()
        left = {folder for folder in seen if folder.exists()}
        still = held_folders(cluster.pids())
    finally:
        cluster.stop()
    assert process.returncode == 2, output
    assert f"a worker cannot grade: {w2}: its grading code is not the driver's (roofline_grading " in output
    assert w2.startswith(f"tls://{HOST}:") and "uncommitted edit" in output and "Nothing was graded" in output
    assert any(f.name.startswith("roofline-worker-") for f in seen), seen  # w1 had made its run folder
    assert not left and not still, (left, still)


def test_a_worker_with_other_code_joining_mid_run_stops_it_naming_itself_and_who_is_left(
    course_template: Path, certs: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Once the first student is done, w3 joins with other grading code and w1 and w2 are lost:
    the students they held go to w3, which cannot grade them. The run stops: the students graded
    are saved, and the line names w3 by its address, the students not graded and how to grade them.
    (Four more students take 60 s each, so that the run is still going when w3 has joined, however
    long a loaded machine takes to start it; none of them is graded, so the wait costs nothing.)"""
    cluster = start_cluster(tmp_path_factory.mktemp("joins"), certs)
    try:
        course = copy_course(course_template, "joins")
        slow = [f"slow{n}" for n in range(1, 5)]
        for student in slow:
            folder = course / "submitted" / student / ASSIGNMENT
            folder.mkdir(parents=True)
            nbformat.write(hostile("import time\ntime.sleep(60)\n")(course), folder / f"{NOTEBOOK}.ipynb")
        process = subprocess.Popen(
            command("autograde", course=course, SCHEDULER=cluster.address, CERTS=str(certs),
                    AUTOGRADE_OPTIONS="--timeout 90"),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        assert process.stdout is not None
        output = ""
        while not re.search(r"^\[\s*1/", output, flags=re.MULTILINE):
            line = process.stdout.readline()
            assert line, f"the run ended before its first student:\n{output}"
            output += line
        cluster.start_worker("w3", foreign_package(tmp_path_factory.mktemp("foreign-w3")))
        cluster.wait_for(3)
        w3 = cluster.address_of("w3")
        cluster.kill("w1")
        cluster.kill("w2")
        rest, _ = process.communicate(timeout=600)
        output += rest
    finally:
        cluster.stop()
    assert process.returncode == 2, output
    everyone = {*CLASS, *slow}
    graded = re.findall(rf"^\[\s*\d+/{len(everyone)}\] ([\w.-]+): ", output, flags=re.MULTILINE)
    left = sorted(everyone - set(graded))
    assert graded and left, output
    assert f"a worker cannot grade: {w3}: its grading code is not the driver's (roofline_grading " in output
    assert "uncommitted edit" in output and "start this worker again" in output
    assert f"the {len(graded)} students graded so far are saved" in output
    assert f"Not graded ({len(left)}): {', '.join(left)}." in output
    options = " ".join(f"--student {s}" for s in left)
    assert f'make autograde SCHEDULER={cluster.address} AUTOGRADE_OPTIONS="{options}"' in output
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "roofline") as gb:
        saved = sorted(s.student_id for s in gb.find_assignment(ASSIGNMENT).submissions)
    assert saved == sorted(graded)


SLOW = "slow"
"""The student a worker is killed grading: their notebook sleeps 10 s, so that the kill, 2 s after
the worker is seen grading them, lands mid-notebook (another student may take under 2 s)."""


def grade_killing_a_worker(cluster: Cluster, course: Path) -> tuple[str, str, set[Path]]:
    """``make autograde`` through ``cluster`` of the class and :data:`SLOW`, killing the worker seen
    grading :data:`SLOW`, 2 s after: the run's output, the worker killed and the folders it held."""
    from distributed import Client

    folder = course / "submitted" / SLOW / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(hostile("import time\ntime.sleep(10)\n")(course), folder / f"{NOTEBOOK}.ipynb")

    process = subprocess.Popen(
        command("autograde", course=course, SCHEDULER=cluster.address, CERTS=str(cluster.certs),
                AUTOGRADE_OPTIONS="--timeout 30"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    with Client(cluster.address, security=cluster.security(), timeout="30s") as client:
        victim = None
        while victim is None and process.poll() is None:
            busy = client.run(lambda dask_worker: [str(task.key) for task in dask_worker.state.executing])
            names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
            grading_slow = [a for a, keys in busy.items() if any(k.endswith(f"-{SLOW}") for k in keys)]
            victim = names[grading_slow[0]] if grading_slow else None
            time.sleep(0.2)
    assert victim is not None, f"the run ended before a worker was seen grading {SLOW}"
    time.sleep(2)  # its kernel is running
    held = held_folders(cluster.pids(victim))
    cluster.kill(victim)
    output, _ = process.communicate(timeout=900)
    assert process.returncode == 0, output
    return output, victim, held


def test_a_worker_killed_mid_run_loses_no_one_and_its_students_are_graded_once_and_named(
    local: Run, course_template: Path, certs: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cluster = start_cluster(tmp_path_factory.mktemp("killed"), certs)
    try:
        course = copy_course(course_template, "killed")
        output, victim, held = grade_killing_a_worker(cluster, course)
        run = finish(course, output)
        cluster.start_worker(victim)  # the next start on that machine
        cluster.wait_for(2)
    finally:
        cluster.stop()
    assert sorted(shown(run)) == sorted([*CLASS, SLOW]), run.output
    assert run.submissions == dict.fromkeys([*CLASS, SLOW], 1)
    class_grades = {(student, part): g for (student, part), g in run.grades.items() if student != SLOW}
    assert class_grades == local.grades  # the retried are graded as anywhere else
    assert any(line.startswith(f"Graded again: {SLOW} ") for line in run.report), run.report
    again = [line for line in run.report if line.startswith("Graded again: ")]
    assert again, run.report
    for line in again:
        found = re.fullmatch(
            r"Graded again: ([\w.-]+) \((the worker it was sent to was lost \(1 time\); graded again on tls://\S+)\)",
            line,
        )
        assert found, line
        assert run.rows[found[1]]["details"].endswith(f"graded again: {found[2]}")  # the CSV has it too
        assert line in run.output.split("Done in ")[1]  # printed after the run's summary
    assert "retried so far" in run.output
    assert any(f.name.startswith("roofline-worker-") for f in held), held  # its run folder, at least
    assert not [folder for folder in held if folder.exists()]  # SIGKILL ran nothing: the next start did


def test_a_student_whose_workers_all_died_is_named_as_not_graded_and_the_rest_are_graded(
    local: Run, course_template: Path, certs: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cluster = start_cluster(tmp_path_factory.mktemp("no-failure-allowed"), certs, allowed_failures=0)
    try:
        course = copy_course(course_template, "not-graded")
        run = finish(course, grade_killing_a_worker(cluster, course)[0])
    finally:
        cluster.stop()
    assert sorted(shown(run)) == sorted([*CLASS, SLOW])
    lost = {s for s, row in run.rows.items() if "not graded: " in row["details"]}
    assert SLOW in lost and len(lost) < len(CLASS), run.rows
    for student in lost:
        assert "more than the scheduler's allowed-failures" in run.rows[student]["details"]
        assert run.rows[student]["status"] == "failed"
        assert all(score == 0 and manual for (s, _), (score, manual) in run.grades.items() if s == student)
    for (student, part), score in run.grades.items():
        if student not in lost:
            assert score == local.grades[(student, part)], student
