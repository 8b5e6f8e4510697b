"""How long does grading a class take: sequential and parallel, against executing the notebooks alone?

Builds two temporary courses (the repository's nbgrader config and solutions, `nbgrader
generate_assignment`) and a class in each:

- uniform: ``--students`` synthetic students handing in ``--notebooks``: model answers, some parts
  left unanswered, some answers slipped (each student differs);
- mixed: ``--mixed-students`` handing in every notebook of the course, as a real class does
  (``--mixed-notebooks``: these only): half with the model answers (every third of them with a
  slip), one broken (its kernel exits in its first answer), the rest blank (the notebooks as
  released); their ids sort the short ones first.

Then, interleaved over ``--repeat`` rounds (the order rotates each round, so machine noise hits all
alike), it times in fresh copies of each course:

- floor: executing the same notebooks (hidden tests in place) with nbclient alone, one fresh
  kernel per notebook, one after the other: the work any grader must do;
- nbgrader: ``nbgrader autograde --create --force``, nbgrader's own sequential run (uniform class);
- driver, 1 worker: ``python -m roofline_grading.autograde --jobs 1`` (``make autograde JOBS=1``),
  each notebook in the bubblewrap sandbox, every answer judged outside the kernel;
- driver, N workers: the same with ``--jobs N`` (default 2);
- driver, Dask, N workers: the same through the course's grading cluster, a Dask scheduler and N
  one-thread workers on this machine, TLS with the course's certificates (``--scheduler``;
  started once before the rounds, as they would be on grading machines): on the same cores, the
  engine's overhead per student;
- the three driver runs again with warm kernels (``--kernels warm``, named ``..., warm``): each
  worker forks its notebooks' kernels from a template that has imported what they import.

It prints both classes side by side: each contender's median time, a notebook's share of it, the
cores it kept busy and the CPU seconds a notebook cost (counted in a cpuacct cgroup of the
benchmark's own where it may make one, else from ``/proc/stat`` for the whole machine: then run it
on an idle one), the ratios (2 workers over 1, and the most that can be: a worker starts the next
notebook's kernel while it grades this one, so on a class of several notebooks one worker keeps
more than one core busy), and whether every run gave every student the same total score. Then a
notebook graded alone, its cost split into its kernel's start, its execution and its judging, for
a model and a blank submission, with cold kernels and with warm ones; the driver's own ceiling:
the students it commits per second when its workers are infinitely fast (an executor that hands
back at once a result made from each submission: the driver reads the submissions, merges into
the gradebook, writes the graded notebooks and the report, as in a real run); and from these a
projection of a class of 10,000 students x 9 notebooks on N machines of M cores, from the CPU a
notebook cost with Dask (cold kernels, then warm).

    python benchmarks/bench_autograde.py [--students 40] [--mixed-students 18] [--repeat 3] [--jobs 2]
        [--notebooks NAME ...] [--mixed-notebooks NAME ...] [--ceiling-students 300]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ASSIGNMENT = "roofline"
ENV = {
    **os.environ,
    "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # nbgrader calls alembic through PATH
    "OPENBLAS_NUM_THREADS": "1",  # as the driver's kernels: one core per notebook, for every contender
    "OMP_NUM_THREADS": "1",
}
SLIPS = (
    ("BYTES_PER_ELEMENT = 1", "BYTES_PER_ELEMENT = 2"),
    ("COMPUTE_PEAK = 1.97e14", "COMPUTE_PEAK = 3.94e14"),
    ("return datasheet_flops / 2", "return datasheet_flops"),
    ("B * D + B * D * F", "B * D + D * F"),
)


def build_course(directory: Path, notebooks: list[str]) -> Path:
    course = directory / "course"
    (course / "solutions" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    for name in notebooks:
        shutil.copy(ROOT / "solutions" / ASSIGNMENT / f"{name}.ipynb", course / "solutions" / ASSIGNMENT)
    run([str(BIN / "nbgrader"), "generate_assignment", ASSIGNMENT, "--force"], cwd=course)
    (course / ".grading-secret").write_text("42" * 32 + "\n")
    return course


def _model_answers(solution: Path) -> dict[str, str]:
    """The model answer of each answer cell of ``solution``, by grade id, without nbgrader's markers."""
    import nbformat

    nb = nbformat.read(solution, as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: _without_markers(c.source)
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }


def build_class(course: Path, students: int) -> None:
    """Student i answers with the model answers, leaves every (i % 4 + 3)-th answer cell empty
    when i is odd, and makes slip i % 4 when i % 3 == 0."""
    import nbformat

    for path in sorted((course / "solutions" / ASSIGNMENT).glob("*.ipynb")):
        answers = _model_answers(path)
        for i in range(students):
            nb = nbformat.read(course / "exercises" / ASSIGNMENT / path.name, as_version=4)
            answer_cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") in answers]
            for k, cell in enumerate(answer_cells):
                if i % 2 and k % (i % 4 + 3) == 2:
                    continue  # left as released: unanswered
                source = answers[cell.metadata["nbgrader"]["grade_id"]]
                if i % 3 == 0:
                    source = source.replace(*SLIPS[i % 4])
                cell.source = source
            folder = course / "submitted" / f"student{i:02d}" / ASSIGNMENT
            folder.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, folder / path.name)


def build_mixed_class(course: Path, students: int) -> None:
    """A class that is not uniform, every notebook of the course handed in: half the students
    (at least one) with the model answers (every third of them with a slip: wrong), one broken
    (its kernel exits in its first answer cell), the rest blank (the notebooks as released).
    Their ids sort the short submissions first (``blank``, ``broken``, ``model``)."""
    import nbformat

    answered = max(1, students // 2)
    for path in sorted((course / "solutions" / ASSIGNMENT).glob("*.ipynb")):
        answers = _model_answers(path)
        released = course / "exercises" / ASSIGNMENT / path.name
        for i in range(students):
            nb = nbformat.read(released, as_version=4)
            cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") in answers]
            if i < answered:
                kind = f"model{i:02d}"
                for cell in cells:
                    source = answers[cell.metadata["nbgrader"]["grade_id"]]
                    cell.source = source.replace(*SLIPS[i % 4]) if i % 3 == 2 else source
            elif i == answered:
                kind = "broken"
                cells[0].source = "import os\nos._exit(1)"
            else:
                kind = f"blank{i - answered - 1:02d}"
            folder = course / "submitted" / kind / ASSIGNMENT
            folder.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, folder / path.name)


def _without_markers(source: str) -> str:
    return "\n".join(
        line
        for line in source.splitlines()
        if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line
    )


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=ENV, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def floor(course: Path) -> None:
    """Execute every submitted notebook, test cells as the gradebook holds them, with nbclient alone
    (run in a fresh interpreter by :func:`time_floor`)."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    tests = {}
    for path in (course / "solutions" / ASSIGNMENT).glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("locked") and cell.cell_type == "code":
                tests[(path.stem, meta["grade_id"])] = cell.source
    work = Path(tempfile.mkdtemp(prefix="floor-"))
    for path in sorted((course / "submitted").glob(f"*/{ASSIGNMENT}/*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            key = (path.stem, cell.metadata.get("nbgrader", {}).get("grade_id"))
            if key in tests:
                cell.source = tests[key]
        client = NotebookClient(
            nb, timeout=30, allow_errors=True, resources={"metadata": {"path": str(work)}}
        )
        with contextlib.suppress(DeadKernelError):  # a notebook that ends its kernel: the rest is not run
            client.execute()
    shutil.rmtree(work, ignore_errors=True)


CPUACCT = Path("/sys/fs/cgroup/cpuacct")


class CpuMeter:
    """CPU seconds spent by this benchmark and everything it starts (the graders, their kernels,
    the Dask cluster), from a cpuacct cgroup of its own where this process may make one (cgroup v1,
    as root); else the whole machine's busy seconds from ``/proc/stat`` (then run it on an idle
    machine). ``what`` says which."""

    def __init__(self) -> None:
        self.group: Path | None = CPUACCT / f"bench-autograde-{os.getpid()}"
        try:
            self.group.mkdir()
            (self.group / "cgroup.procs").write_text(str(os.getpid()))
            self.what = "this benchmark's processes (a cpuacct cgroup)"
        except OSError:
            self.group = None
            self.what = "the whole machine (/proc/stat): other work counts too"

    def seconds(self) -> float:
        if self.group is not None:
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        try:
            fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        except (OSError, ValueError):
            return float("nan")
        idle = fields[3] + fields[4]  # idle and iowait
        return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        if self.group is not None:
            (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
            for _ in range(50):  # its last children may take a moment to go
                try:
                    self.group.rmdir()
                    return
                except OSError:
                    time.sleep(0.1)


def time_floor(course: Path) -> float:
    start = time.perf_counter()
    run([sys.executable, __file__, "--floor-only", str(course)], cwd=course)
    return time.perf_counter() - start


def time_nbgrader(course: Path) -> float:
    start = time.perf_counter()
    run([str(BIN / "nbgrader"), "autograde", ASSIGNMENT, "--create", "--force"], cwd=course)
    return time.perf_counter() - start


def time_driver(jobs: int, kernels: str) -> Callable[[Path], float]:
    def timed(course: Path) -> float:
        start = time.perf_counter()
        command = [
            sys.executable,
            "-m",
            "roofline_grading.autograde",
            ASSIGNMENT,
            "--course",
            str(course),
            "--jobs",
            str(jobs),
            "--kernels",
            kernels,
        ]
        run_driver(command, course)
        return time.perf_counter() - start

    return timed


STUDENT_LINE = re.compile(r"^\[ *\d+/\d+\] ")
"""The driver's line for each student it has saved."""
STEADY: dict[Path, float] = {}
"""Each driver run's seconds from its first student's line to its last one, by course."""


def run_driver(command: list[str], course: Path) -> None:
    """:func:`run` for the driver, noting when each student's line comes: from the first to the
    last, the run grades students without its fixed cost (starting, checking, summing up)."""
    lines, seen = [], []
    with tempfile.TemporaryFile("w+") as errors:
        with subprocess.Popen(
            command, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=errors, text=True
        ) as process:
            assert process.stdout is not None
            for line in process.stdout:
                lines.append(line)
                if STUDENT_LINE.match(line):
                    seen.append(time.perf_counter())
        errors.seek(0)
        if process.returncode != 0:
            raise SystemExit(
                f"{' '.join(command)} failed:\n{''.join(lines)[-3000:]}\n{errors.read()[-3000:]}"
            )
    STEADY[course] = seen[-1] - seen[0] if len(seen) > 1 else float("nan")


class Cluster:
    """The course's grading cluster on this machine (a scheduler and ``workers`` one-process
    workers, as ``make cluster-scheduler`` and ``make cluster-worker`` start them: TLS with the
    course's certificates), for the whole benchmark."""

    def __init__(self, workers: int, directory: Path) -> None:
        from distributed import Client

        from roofline_grading.autograde import certificates, cluster, credentials

        self.certs = directory / "certs"
        certificates.make(self.certs)
        # The scheduler takes a port of the system's choosing as it binds (a port probed free here
        # could be taken, on a loaded machine, before the scheduler started) and writes its address.
        found = directory / "scheduler.json"
        command, environment = cluster.scheduler_command("127.0.0.1", 0, self.certs)
        self.processes = [self._start([*command, "--scheduler-file", str(found)], environment)]
        deadline = time.monotonic() + 120
        self.address = self._written(found, deadline)
        for _ in range(workers):
            self.processes.append(
                self._start(*cluster.worker_command(self.address, "127.0.0.1", self.certs, 1, None))
            )
        security = credentials.security(self.certs, "driver")
        while True:
            try:
                with Client(self.address, security=security, timeout="5s") as client:
                    client.wait_for_workers(workers, timeout=120)
                    break
            except OSError:
                assert time.monotonic() < deadline, "the grading cluster did not start"
                time.sleep(0.5)

    def _written(self, found: Path, deadline: float) -> str:
        """The address the scheduler wrote to ``found`` once it listens."""
        while True:
            with contextlib.suppress(OSError, ValueError, KeyError):
                return str(json.loads(found.read_text())["address"])
            assert self.processes[0].poll() is None, "the scheduler stopped"
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)

    @staticmethod
    def _start(command: list[str], environment: dict[str, str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            command,
            env={**ENV, **environment},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def stop(self) -> None:
        for process in self.processes:
            os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            process.wait(timeout=60)


def time_dask(cluster: Cluster, kernels: str) -> Callable[[Path], float]:
    def timed(course: Path) -> float:
        start = time.perf_counter()
        command = [sys.executable, "-m", "roofline_grading.autograde", ASSIGNMENT, "--course", str(course)]
        command += ["--kernels", kernels]
        run_driver([*command, "--scheduler", cluster.address, "--certs", str(cluster.certs)], course)
        return time.perf_counter() - start

    return timed


class InstantExecutor:
    """Workers infinitely fast: each student's result at once, made from their submission (every
    part full marks, the submitted notebook as the graded one), for the driver's own ceiling."""

    def describe(self) -> str:
        return "infinitely fast workers"

    def warm_up(self, sandbox: Any) -> None:
        pass

    def preflight(self, portable: Any, checked: Any = None) -> None:
        pass

    def grade(self, portable: Any, students: Any, job_of: Any, done: Any) -> None:
        from roofline_grading.autograde.jobs import Graded
        from roofline_grading.autograde.results import GradeResult, NotebookResult, StudentResult

        for student in students:
            job = job_of(student)
            notebooks = []
            for name, structure in portable.settings.structures.items():
                cells = [c for c in structure["cells"] if c["grade"] or c["task"]]
                grades = {
                    c["grade_id"]: GradeResult(c["points"] or 0.0, c["points"] or 0.0, False) for c in cells
                }
                graded = NotebookResult(name, "graded", grades, autograded=job.entries[f"{name}.ipynb"].data)
                notebooks.append(graded)
            done(Graded(StudentResult(student, notebooks)))

    def close(self) -> None:
        pass


def driver_ceiling(course: Path) -> float:
    """Students the driver commits per second with infinitely fast workers (run in a fresh
    interpreter by :func:`time_ceiling`)."""
    import io

    import roofline_grading.autograde.driver as driver

    outcome = driver.run(driver.Options(course, ASSIGNMENT), out=io.StringIO(), executor=InstantExecutor())
    return len(outcome.results) / outcome.seconds


def time_ceiling(directory: Path, notebooks: list[str], students: int) -> float:
    course = build_course(directory, notebooks)
    build_class(course, students)
    done = run([sys.executable, __file__, "--ceiling-only", str(course)], cwd=course)
    return float(done.stdout.split()[-1])


def totals(course: Path) -> dict[str, float]:
    """Each student's total score in the gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "roofline") as gb:
        return {s.student.id: float(s.score) for s in gb.assignment_submissions(ASSIGNMENT)}


def split(course: Path, students: list[str], kernels: str) -> dict[str, dict[str, list[float]]]:
    """Each notebook of ``students``, graded one at a time as a worker grades it with ``kernels``
    (cold or warm; a warm kernel's template started before the first), its cost in three parts:
    ``start`` (its sandboxed kernel started until it answers), ``execution`` (nbgrader's execute
    step: the cells, the hidden inputs' copies, the report) and ``judging`` (every other step, the
    answers judged, the scores read). Run in a fresh interpreter by :func:`time_split`."""
    import io

    from jupyter_core.utils import run_sync

    import roofline_grading.autograde.driver as driver
    from roofline_grading.autograde import kernels as sandboxed
    from roofline_grading.autograde import templates, worker
    from roofline_grading.autograde.pipeline import Run, autograde, scores
    from roofline_grading.autograde.precheck import read_submission
    from roofline_grading.autograde.steps.sandboxed_execute import SandboxedExecute
    from roofline_grading.autograde.structure import NotebookStructure

    executed: list[float] = []
    original = SandboxedExecute.preprocess

    def timed(self: Any, nb: Any, resources: Any = None, km: Any = None) -> Any:
        start = time.perf_counter()
        try:
            return original(self, nb, resources, km)
        finally:
            executed.append(time.perf_counter() - start)

    SandboxedExecute.preprocess = timed  # type: ignore[method-assign]
    worker.start_worker()
    plan = driver._plan(driver.Options(course, ASSIGNMENT, students=tuple(students)), io.StringIO())
    assert plan is not None
    settings = driver._settings(plan, Path(tempfile.mkdtemp(prefix="split-", dir="/dev/shm")))
    settings.sandbox["kernels"] = kernels
    if kernels == "warm":
        assert templates.current(settings.sandbox) is not None, templates.failure()
    found: dict[str, dict[str, list[float]]] = {}
    for student in students:
        phases = found.setdefault(student.rstrip("0123456789"), {"start": [], "execution": [], "judging": []})
        for name, data in sorted(settings.structures.items()):
            run_ = Run(settings, student, upcoming=[name], scratch=settings.scratch / student)
            nb = read_submission(settings.submitted / student / ASSIGNMENT / f"{name}.ipynb").notebook
            began = time.perf_counter()
            kernel = sandboxed.prepare(name, settings.sandbox, run_.run_root)
            client = kernel.km.client()
            client.start_channels()
            run_sync(sandboxed.until_ready)(client, kernel.km, 60)
            client.stop_channels()
            sandboxed._WAITING[name] = kernel  # the execute step takes it as it takes one started early
            started = time.perf_counter()
            scores(
                autograde(nb, NotebookStructure.from_json(data), run_, run_.config()),
                NotebookStructure.from_json(data),
            )
            phases["start"].append(started - began)
            phases["execution"].append(executed[-1])
            phases["judging"].append(time.perf_counter() - started - executed[-1])
    templates.stop()
    shutil.rmtree(settings.scratch, ignore_errors=True)
    return found


def time_split(course: Path, students: list[str]) -> dict[str, dict[str, list[float]]]:
    """:func:`split` with cold kernels, then warm ones (each kind of submission as ``kind, warm``)."""
    found: dict[str, dict[str, list[float]]] = {}
    for kernels in ("cold", "warm"):
        options = ["--split-kernels", kernels, "--split-only", str(course), *students]
        done = run([sys.executable, __file__, *options], cwd=course)
        parts = json.loads(done.stdout.strip().splitlines()[-1])
        found.update({kind if kernels == "cold" else f"{kind}, warm": p for kind, p in parts.items()})
    return found


def count(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number no smaller than ``least``, or a message saying so.

    >>> count(1)("3"), count(0)("0")
    (3, 0)
    >>> count(1)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a whole number of at least 1, not 0
    """

    def parse(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            number = None
        if number is None or number < least:
            raise argparse.ArgumentTypeError(f"must be a whole number of at least {least}, not {text}")
        return number

    return parse


def options(every: list[str]) -> argparse.ArgumentParser:
    """The benchmark's options; ``every``: the notebooks a class may hand in."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=count(1), default=40, help="the uniform class")
    parser.add_argument("--mixed-students", type=count(0), default=18, help="the mixed class (0: none)")
    parser.add_argument(
        "--repeat", type=count(1), default=3, help="interleaved rounds; medians are over these"
    )
    parser.add_argument("--jobs", type=count(1), default=2, help="workers of the parallel run")
    for option, which in (("--notebooks", "uniform"), ("--mixed-notebooks", "mixed")):
        explained = f"the {which} class's notebooks (default: all)"
        parser.add_argument(option, nargs="+", choices=every, metavar="NAME", help=explained)
    parser.add_argument("--ceiling-students", type=count(1), default=300, help="the driver's ceiling's class")
    parser.add_argument("--floor-only", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--ceiling-only", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--split-only", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--split-kernels", default="cold", help=argparse.SUPPRESS)
    return parser


def main() -> None:
    every = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
    args = options(every).parse_args()
    if args.floor_only:
        floor(args.floor_only)
        return
    if args.ceiling_only:
        print(f"{driver_ceiling(args.ceiling_only):.3f}")
        return
    if args.split_only:
        print(json.dumps(split(Path(args.split_only[0]), args.split_only[1:], args.split_kernels)))
        return
    notebooks = args.notebooks or every
    meter = CpuMeter()
    results: dict[str, Measured] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-autograde-") as scratch:
            cluster = Cluster(args.jobs, Path(scratch))
            try:
                subprocess.run(
                    [sys.executable, "-c", "import matplotlib.pyplot"], env=ENV, check=True
                )  # fonts
                uniform = build_course(Path(scratch) / "uniform", notebooks)
                build_class(uniform, args.students)
                results["uniform"] = measure(
                    contenders(args.jobs, cluster, True), uniform, args.repeat, meter
                )
                if args.mixed_students:
                    mixed = build_course(Path(scratch) / "mixed", args.mixed_notebooks or every)
                    build_mixed_class(mixed, args.mixed_students)
                    results["mixed"] = measure(
                        contenders(args.jobs, cluster, False), mixed, args.repeat, meter
                    )
                    parts = time_split(
                        mixed, ["model00", "blank00"] if args.mixed_students > 2 else ["model00"]
                    )
                else:
                    parts = time_split(uniform, ["student00"])
            finally:
                cluster.stop()
            ceiling = time_ceiling(Path(scratch) / "ceiling", notebooks, args.ceiling_students)
    finally:
        meter.close()
    print_results(results, meter, args)
    print_split(parts)
    print_scaling(results, ceiling, len(notebooks), args)


def contenders(jobs: int, cluster: Cluster, nbgrader: bool) -> dict[str, Callable[[Path], float]]:
    """What each class is graded by (nbgrader's own sequential run only when ``nbgrader``)."""
    chosen: dict[str, Callable[[Path], float]] = {"floor (nbclient alone)": time_floor}
    if nbgrader:
        chosen["nbgrader autograde (sequential)"] = time_nbgrader
    for kernels, named in (("cold", ""), ("warm", WARM)):
        chosen[f"driver, 1 worker{named}"] = time_driver(1, kernels)
        chosen[f"driver, {jobs} workers{named}"] = time_driver(jobs, kernels)
        chosen[f"driver, Dask, {jobs} workers{named}"] = time_dask(cluster, kernels)
    return chosen


FLOOR = "floor (nbclient alone)"
WARM = ", warm"
"""What the warm kernels' contenders, ratios and split add to the cold ones' names."""


@dataclass
class Measured:
    """One class's runs: each contender's times and CPU seconds, the totals each graded run
    gave, and how many notebooks the class hands in."""

    samples: dict[str, list[float]]
    cpu: dict[str, list[float]]
    scores: dict[str, dict[str, float]]
    students: int
    notebooks: int
    steady: dict[str, list[float]]
    """Each driver run's seconds from its first student's line to its last (:data:`STEADY`)."""

    def median(self, name: str) -> float:
        return statistics.median(self.samples[name])

    def steady_ratio(self, name: str) -> float:
        """A notebook's share of the contender's steady seconds (its students after the first,
        without the run's fixed cost), over the floor's share of the floor's time."""
        if self.students < 2 or not self.steady.get(name):
            return float("nan")
        per_notebook = (
            statistics.median(self.steady[name]) / (self.students - 1) / (self.notebooks / self.students)
        )
        return per_notebook / (self.median(FLOOR) / self.notebooks)

    def cores(self, name: str) -> float:
        """Cores the contender kept busy on average."""
        return statistics.median(c / t for c, t in zip(self.cpu[name], self.samples[name], strict=True))


def measure(
    contenders: dict[str, Callable[[Path], float]], template: Path, repeat: int, meter: CpuMeter
) -> Measured:
    """Each contender's times and CPU seconds, ``repeat`` interleaved rounds over the class in
    ``template``, and the totals each graded run gave."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    cpu: dict[str, list[float]] = {name: [] for name in contenders}
    scores: dict[str, dict[str, float]] = {}
    steady: dict[str, list[float]] = {}
    for round_ in range(repeat):
        names = list(contenders)
        names = names[round_ % len(names) :] + names[: round_ % len(names)]
        for name in names:
            course = template.parent / f"run-{round_}-{re.sub(r'[^a-z0-9]+', '-', name)}"
            shutil.copytree(template, course)
            before = meter.seconds()
            samples[name].append(contenders[name](course))
            cpu[name].append(meter.seconds() - before)
            if course in STEADY:
                steady.setdefault(name, []).append(STEADY.pop(course))
            if not name.startswith("floor"):
                scores[f"{name}, round {round_ + 1}"] = totals(course)
            shutil.rmtree(course)
            print(
                f"  {template.parent.name}, round {round_ + 1}: {name}: {samples[name][-1]:.1f} s", flush=True
            )
    submitted = list((template / "submitted").glob(f"*/{ASSIGNMENT}/*.ipynb"))
    students = len(list((template / "submitted").iterdir()))
    return Measured(samples, cpu, scores, students, len(submitted), steady)


def counted(number: int, noun: str) -> str:
    """``number`` and ``noun``, plural unless one.

    >>> counted(1, "notebook"), counted(3, "student")
    ('1 notebook', '3 students')
    """
    return f"{number} {noun}{'' if number == 1 else 's'}"


def print_results(results: dict[str, Measured], meter: CpuMeter, args: argparse.Namespace) -> None:
    """Each class's medians side by side, their ratios, and whether every driver run agreed."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"\nMedians of {args.repeat} interleaved rounds, {os.cpu_count()} cores, load average {load:.1f}; "
        f"CPU counted: {meter.what}."
    )
    heads = [
        f"{k}: {counted(m.students, 'student')} x {counted(m.notebooks // m.students, 'notebook')}"
        for k, m in results.items()
    ]
    print((f"  {'':<34}" + "".join(f"{h:<44}" for h in heads)).rstrip())
    print(
        f"  {'':<34}"
        + "".join(
            f"{'time':>8} {'a notebook':>11} {'cores':>6} {'CPU/nb':>7} {'/floor':>7}   " for _ in heads
        )
    )
    names = list(dict.fromkeys(n for m in results.values() for n in m.samples))
    for name in names:
        row = ""
        for m in results.values():
            if name not in m.samples:
                row += f"{'-':>8}{'':36}"
                continue
            t = m.median(name)
            cpu = statistics.median(m.cpu[name]) / m.notebooks
            vs = t / m.median("floor (nbclient alone)")
            row += f"{t:8.1f}s {t / m.notebooks:9.2f} s {m.cores(name):6.2f} {cpu:6.2f}s {vs:7.2f}   "
        print(f"  {name:<34}{row}".rstrip())
    for named in ("", WARM):
        for label, ratio in _ratios(args.jobs, named).items():
            print((f"  {label:<66}" + "".join(f"{ratio(m):8.2f}{'':36}" for m in results.values())).rstrip())
    # The driver draws each notebook's hidden inputs from its code and the course's secret, so its
    # runs agree exactly; plain nbgrader judges in the kernel with fresh inputs at every run.
    for kind, m in results.items():
        driver_scores = {k: v for k, v in m.scores.items() if k.startswith("driver")}
        same = len({tuple(sorted(t.items())) for t in driver_scores.values()}) == 1
        print(f"  {kind}: every driver run gave every student the same total: {'yes' if same else 'NO'}")
        if not same:
            raise SystemExit("scores differ between runs")


def _ratios(jobs: int, named: str) -> dict[str, Callable[[Measured], float]]:
    """The ratios printed for the cold kernels' contenders (``named`` empty) or the warm ones'."""
    one, many = f"driver, 1 worker{named}", f"driver, {jobs} workers{named}"
    dask = f"driver, Dask, {jobs} workers{named}"
    return {
        f"speed-up {jobs} workers over 1 worker{named}:": lambda m: m.median(one) / m.median(many),
        f"  most it can be ({jobs} cores / cores 1 worker keeps busy){named}:": lambda m: (
            min(jobs, os.cpu_count() or 1) / m.cores(one)
        ),
        f"ratio driver 1 worker{named} / floor:": lambda m: m.median(one) / m.median(FLOOR),
        f"  a notebook without the run's fixed cost (students 2..n){named}:": lambda m: m.steady_ratio(one),
        f"ratio Dask {jobs} workers / local {jobs} workers{named}:": lambda m: (
            m.median(dask) / m.median(many)
        ),
    }


def print_split(parts: dict[str, dict[str, list[float]]]) -> None:
    """A notebook's cost in its three parts, for each kind of submission (medians over its notebooks)."""
    print("\n  A notebook graded alone, median over the notebooks:     start   execution   judging")
    for kind, phases in parts.items():
        start, execution, judging = (statistics.median(phases[p]) for p in ("start", "execution", "judging"))
        label = f"{kind} ({counted(len(phases['start']), 'notebook')})"
        print(f"    {label:<52}{start:6.2f} s  {execution:6.2f} s  {judging:6.2f} s")


def print_scaling(
    results: dict[str, Measured], ceiling: float, notebooks: int, args: argparse.Namespace
) -> None:
    """The driver's ceiling, and a class of 10,000 x 9 notebooks projected from the CPU a notebook
    costs with {jobs} workers (the mixed class's, if measured)."""
    m = results.get("mixed") or results["uniform"]
    size = f"{counted(args.ceiling_students, 'student')} x {counted(notebooks, 'notebook')}"
    print(
        f"\n  driver's ceiling (infinitely fast workers, {size}): {ceiling:.1f} students committed per second"
    )
    per_ceiling = ceiling * notebooks / 9  # its cost is per notebook: merges, files
    for named, kernels in (("", "cold"), (WARM, "warm")):
        per_notebook = statistics.median(m.cpu[f"driver, Dask, {args.jobs} workers{named}"]) / m.notebooks
        costs = (
            f"{per_notebook:.2f} s of one core a notebook (Dask, {kernels} kernels, "
            f"{counted(m.students, 'student')}); driver at most {per_ceiling:.1f} students of 9 notebooks/s"
        )
        projected = "Projected: 10,000 students x 9 notebooks, one Dask worker per core, one driver"
        print(f"\n  {projected} ({costs}):")
        print(f"    {'machines x cores':<18}" + "".join(f"{c:>10} cores" for c in (2, 8, 32, 64)))
        for machines in (1, 4, 16, 64):
            row = [
                max(90_000 * per_notebook / (machines * cores), 10_000 / per_ceiling)
                for cores in (2, 8, 32, 64)
            ]
            print(f"    {machines:>3} machines      " + "".join(f"{_hours(s):>16}" for s in row))


def _hours(seconds: float) -> str:
    hours, rest = divmod(round(seconds / 60), 60)
    return f"{hours} h {rest:02d} min" if hours else f"{rest} min"


if __name__ == "__main__":
    main()
