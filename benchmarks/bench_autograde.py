"""How long does grading a class take: sequential and parallel, against executing the notebooks alone?

Builds a temporary course (the repository's nbgrader config and solutions, `nbgrader
generate_assignment`) and a class of synthetic students: model answers, some parts left
unanswered, some answers slipped (each student differs, all notebooks of the assignment). Then,
interleaved over ``--repeat`` rounds (the order rotates each round, so machine noise hits all
alike), it times in fresh copies of the course:

- floor: executing the same notebooks (hidden tests in place) with nbclient alone, one fresh
  kernel per notebook, one after the other: the work any grader must do;
- nbgrader: ``nbgrader autograde --create --force``, nbgrader's own sequential run;
- driver, 1 worker: ``python -m roofline_grading.autograde --jobs 1`` (``make autograde JOBS=1``),
  each notebook in the bubblewrap sandbox, every answer judged outside the kernel;
- driver, N workers: the same with ``--jobs N`` (default 2);
- driver, Dask, N workers: the same through the course's grading cluster, a Dask scheduler and N
  one-thread workers on this machine, TLS with the course's certificates (``--scheduler``;
  started once before the rounds, as they would be on grading machines): on the same cores, the
  engine's overhead per student.

It prints the median of each with the cores it kept busy on average (from ``/proc/stat``: the
whole machine, so run it on an otherwise idle one), the ratios (aims: the driver with 1 worker
at most 1.2 x the floor; with 2 workers on 2 cores at least 1.7 x faster than with 1), and
whether every run gave every student the same total score. Then the driver's own ceiling: the
students it commits per second when its workers are infinitely fast (an executor that hands back
at once a result made from each submission: the driver reads the submissions, merges into the
gradebook, writes the graded notebooks and the report, as in a real run), and from these a
projection of a class of 10,000 students x 5 notebooks on N machines of M cores.

    python benchmarks/bench_autograde.py [--students 40] [--repeat 3] [--jobs 2] [--notebooks NAME ...]
        [--ceiling-students 300]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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


def build_class(course: Path, students: int) -> None:
    """Student i answers with the model answers, leaves every (i % 4 + 3)-th answer cell empty
    when i is odd, and makes slip i % 4 when i % 3 == 0."""
    import nbformat

    for path in sorted((course / "solutions" / ASSIGNMENT).glob("*.ipynb")):
        solution = nbformat.read(path, as_version=4)
        answers = {
            c.metadata["nbgrader"]["grade_id"]: _without_markers(c.source)
            for c in solution.cells
            if c.metadata.get("nbgrader", {}).get("solution")
        }
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
        NotebookClient(
            nb, timeout=30, allow_errors=True, resources={"metadata": {"path": str(work)}}
        ).execute()
    shutil.rmtree(work, ignore_errors=True)


def busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy since it started (NaN where /proc/stat is missing)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def time_floor(course: Path) -> float:
    start = time.perf_counter()
    run([sys.executable, __file__, "--floor-only", str(course)], cwd=course)
    return time.perf_counter() - start


def time_nbgrader(course: Path) -> float:
    start = time.perf_counter()
    run([str(BIN / "nbgrader"), "autograde", ASSIGNMENT, "--create", "--force"], cwd=course)
    return time.perf_counter() - start


def time_driver(jobs: int) -> Callable[[Path], float]:
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
        ]
        run(command, cwd=ROOT)
        return time.perf_counter() - start

    return timed


class Cluster:
    """The course's grading cluster on this machine (a scheduler and ``workers`` one-process
    workers, as ``make cluster-scheduler`` and ``make cluster-worker`` start them: TLS with the
    course's certificates), for the whole benchmark."""

    def __init__(self, workers: int, directory: Path) -> None:
        from distributed import Client

        from roofline_grading.autograde import certificates, cluster, credentials

        self.certs = directory / "certs"
        certificates.make(self.certs)
        with socket.socket() as probe:  # a free port, for the scheduler to take at once
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.address = f"tls://127.0.0.1:{port}"
        commands = [cluster.scheduler_command("127.0.0.1", port, self.certs)]
        commands += [cluster.worker_command(self.address, "127.0.0.1", self.certs, 1, None)] * workers
        self.processes = [
            subprocess.Popen(
                command, env={**ENV, **environment}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            for command, environment in commands
        ]  # fmt: skip
        deadline = time.monotonic() + 120
        security = credentials.security(self.certs, "driver")
        while True:
            try:
                with Client(self.address, security=security, timeout="5s") as client:
                    client.wait_for_workers(workers, timeout=120)
                    break
            except OSError:
                assert time.monotonic() < deadline, "the grading cluster did not start"
                time.sleep(0.5)

    def stop(self) -> None:
        for process in self.processes:
            os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            process.wait(timeout=60)


def time_dask(cluster: Cluster) -> Callable[[Path], float]:
    def timed(course: Path) -> float:
        start = time.perf_counter()
        command = [sys.executable, "-m", "roofline_grading.autograde", ASSIGNMENT, "--course", str(course)]
        run([*command, "--scheduler", cluster.address, "--certs", str(cluster.certs)], cwd=ROOT)
        return time.perf_counter() - start

    return timed


class InstantExecutor:
    """Workers infinitely fast: each student's result at once, made from their submission (every
    part full marks, the submitted notebook as the graded one), for the driver's own ceiling."""

    def describe(self) -> str:
        return "infinitely fast workers"

    def preflight(self, portable: Any) -> None:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds; medians are over these")
    parser.add_argument("--jobs", type=int, default=2, help="workers of the parallel run")
    parser.add_argument("--notebooks", nargs="+", help="grade only these notebooks (default: all five)")
    parser.add_argument("--ceiling-students", type=int, default=300, help="class of the driver's ceiling")
    parser.add_argument("--floor-only", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--ceiling-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor_only:
        floor(args.floor_only)
        return
    if args.ceiling_only:
        print(f"{driver_ceiling(args.ceiling_only):.3f}")
        return
    notebooks = args.notebooks or sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as scratch:
        cluster = Cluster(args.jobs, Path(scratch))
        try:
            contenders: dict[str, Callable[[Path], float]] = {
                "floor (nbclient alone)": time_floor,
                "nbgrader autograde (sequential)": time_nbgrader,
                "driver, 1 worker": time_driver(1),
                f"driver, {args.jobs} workers": time_driver(args.jobs),
                f"driver, Dask, {args.jobs} workers": time_dask(cluster),
            }
            samples, busy, scores = measure(contenders, notebooks, args.students, args.repeat)
        finally:
            cluster.stop()
        ceiling = time_ceiling(Path(scratch) / "ceiling", notebooks, args.ceiling_students)
    print_results(samples, busy, scores, args.students * len(notebooks), args)
    print_scaling(samples, ceiling, len(notebooks), args)


def measure(
    contenders: dict[str, Callable[[Path], float]], notebooks: list[str], students: int, repeat: int
) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, dict[str, float]]]:
    """Each contender's times and busy cores, ``repeat`` interleaved rounds over a class of
    ``students``, and the totals each graded run gave."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    busy: dict[str, list[float]] = {name: [] for name in contenders}
    scores: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-autograde-") as scratch:
        template = build_course(Path(scratch), notebooks)
        build_class(template, students)
        subprocess.run([sys.executable, "-c", "import matplotlib.pyplot"], env=ENV, check=True)  # font cache
        for round_ in range(repeat):
            names = list(contenders)
            names = names[round_ % len(names) :] + names[: round_ % len(names)]
            for name in names:
                course = Path(scratch) / f"run-{round_}-{re.sub(r'[^a-z0-9]+', '-', name)}"
                shutil.copytree(template, course)
                before = busy_seconds()
                samples[name].append(contenders[name](course))
                busy[name].append((busy_seconds() - before) / samples[name][-1])
                if not name.startswith("floor"):
                    scores[f"{name}, round {round_ + 1}"] = totals(course)
                shutil.rmtree(course)
                print(f"  round {round_ + 1}: {name}: {samples[name][-1]:.1f} s", flush=True)
    return samples, busy, scores


def print_results(
    samples: dict[str, list[float]],
    busy: dict[str, list[float]],
    scores: dict[str, dict[str, float]],
    notebooks_graded: int,
    args: argparse.Namespace,
) -> None:
    """Medians side by side, their ratios, and whether every driver run agreed."""
    medians = {name: statistics.median(times) for name, times in samples.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"\nGrading {args.students} students x {notebooks_graded // args.students} notebooks "
        f"({notebooks_graded} notebooks), {os.cpu_count()} cores, median of {args.repeat} interleaved "
        f"rounds (load average now {load:.1f}):"
    )
    for name, median in medians.items():
        cores = statistics.median(busy[name])
        print(
            f"  {name:<34} {median:8.1f} s   {median / notebooks_graded:6.2f} s a notebook"
            f"   {cores:4.2f} cores busy"
        )
    floor_time, nbgrader_time = medians["floor (nbclient alone)"], medians["nbgrader autograde (sequential)"]
    one, many = medians["driver, 1 worker"], medians[f"driver, {args.jobs} workers"]
    print(f"  ratio nbgrader sequential / floor:       {nbgrader_time / floor_time:.2f}")
    print(f"  ratio driver 1 worker / floor:           {one / floor_time:.2f}   (aim: <= 1.2)")
    aim = "(aim: >= 1.7 with 2 workers on 2 cores)"
    print(f"  speed-up {args.jobs} workers over 1 worker:       {one / many:.2f}   {aim}")
    one_busy = statistics.median(busy["driver, 1 worker"])
    ceiling = min(args.jobs, os.cpu_count() or 1) / one_busy
    limit = f"{args.jobs} workers at most {ceiling:.2f} x faster"
    print(f"    (1 worker keeps {one_busy:.2f} cores busy: {limit})")
    print(f"  speed-up {args.jobs} workers over nbgrader:       {nbgrader_time / many:.2f}")
    # The driver draws each notebook's hidden inputs from its code and the course's secret, so its
    # runs agree exactly; plain nbgrader judges in the kernel with fresh inputs at every run.
    driver_scores = {k: v for k, v in scores.items() if k.startswith("driver")}
    same = len({tuple(sorted(t.items())) for t in driver_scores.values()}) == 1
    print(f"  every driver run gave every student the same total: {'yes' if same else 'NO'}")
    if not same:
        raise SystemExit("scores differ between runs")


def print_scaling(
    samples: dict[str, list[float]], ceiling: float, notebooks: int, args: argparse.Namespace
) -> None:
    """The engine's overhead, the driver's ceiling, and a class of 10,000 x 5 notebooks projected."""
    local = statistics.median(samples[f"driver, {args.jobs} workers"])
    dask = statistics.median(samples[f"driver, Dask, {args.jobs} workers"])
    one = statistics.median(samples["driver, 1 worker"])
    print(f"  ratio Dask {args.jobs} workers / local {args.jobs} workers:  {dask / local:.2f}")
    print(f"    (per student: local {local / args.students:.2f} s, Dask {dask / args.students:.2f} s)")
    size = f"{args.ceiling_students} students x {notebooks} notebooks"
    print(
        f"  driver's ceiling (infinitely fast workers, {size}): {ceiling:.1f} students committed per second"
    )
    # A student of 5 notebooks costs one worker (one core) 5/notebooks times what it cost here; a
    # worker keeps one core busy; the engine's per-student overhead is as measured on these cores,
    # never counted as a gain (its workers are started before the run, the local pool within it).
    per_student = one / args.students * 5 / notebooks * max(1.0, dask / local)
    per_ceiling = ceiling * notebooks / 5  # its cost is per notebook: merges, files
    costs = f"{per_student:.1f} s of one core a student; driver at most {per_ceiling:.1f} students/s"
    print(f"\n  Projected: 10,000 students x 5 notebooks, one Dask worker per core, one driver ({costs}):")
    print(f"    {'machines x cores':<18}" + "".join(f"{m:>10} cores" for m in (2, 8, 32, 64)))
    for machines in (1, 4, 16, 64):
        row = [
            max(10_000 * per_student / (machines * cores), 10_000 / per_ceiling) for cores in (2, 8, 32, 64)
        ]
        print(f"    {machines:>3} machines      " + "".join(f"{_hours(s):>16}" for s in row))


def _hours(seconds: float) -> str:
    hours, rest = divmod(round(seconds / 60), 60)
    return f"{hours} h {rest:02d} min" if hours else f"{rest} min"


if __name__ == "__main__":
    main()
