"""Grade a class: students in parallel workers, one writer to the gradebook.

:func:`run` finds every collected submission (``submitted/<student>/<assignment>/``), hands each
student's submission, as bytes, the largest first (:mod:`roofline_grading.autograde.order`), to an
executor (:mod:`roofline_grading.autograde.executor`): worker processes on this machine
(:mod:`roofline_grading.autograde.local_pool`, up to ``jobs`` at once, the default) or the workers
of a Dask scheduler on any number of machines (:mod:`roofline_grading.autograde.dask_pool`,
``--scheduler ADDRESS``). As each student is done,
it writes the scores into the course's gradebook through nbgrader's API and the graded notebooks
into ``autograded/<student>/<assignment>/``. Only this process writes the gradebook, one student
at a time and each student once, so a run with 8 workers, or 80 on ten machines, writes exactly
what a run with 1 does. A progress bar (in a terminal) and a line per finished student show the
progress, and ``autograded/<assignment>-report.txt`` (and ``.csv``) says per submission what went
wrong and which students were graded again after a worker was lost;
``autograded/<assignment>-misconceptions.csv`` (and ``.png``) how many students made each known
mistake (:mod:`roofline_grading.autograde.misconceptions`).

Submitted files are only read: their hashes are compared before and after the run. A student
whose worker died is graded again (by the executor); one who could not be graded is reported with
every part 0 and the reason, for a human to look at: the run ends with every student graded or
named as not graded.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import stat
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from roofline_grading.autograde import (
    credentials,
    gradebook,
    grading_code,
    kernels,
    machine,
    misconceptions,
    order,
    pipeline,
    scratch,
    templates,
    worker,
)
from roofline_grading.autograde.executor import Executor
from roofline_grading.autograde.jobs import Graded, Job, Portable, read_job
from roofline_grading.autograde.progress import Progress
from roofline_grading.autograde.report import write_report
from roofline_grading.autograde.results import NotebookResult, StudentResult
from roofline_grading.autograde.settings import Settings
from roofline_grading.autograde.structure import NotebookStructure
from roofline_grading.inert import plain
from roofline_grading.sandbox import bwrap, limits
from roofline_grading.students import clash, spellings
from roofline_recorder import seccomp

__all__ = ["Options", "Outcome", "run"]

SECRET_FILE = ".grading-secret"
INPUTS = "{assignment}-inputs"
"""Where, under ``autograded/``, each student's hidden inputs are kept for the instructor (one JSON
file per student: notebook -> seed and cases; never copied into feedback)."""
BUDGET_FACTOR = 10
"""A notebook may run this many times the time a cell may run (unless told otherwise)."""


@dataclass(frozen=True)
class Options:
    """How to grade (the command line's options)."""

    course: Path
    assignment: str
    jobs: int = 0
    """Worker processes; 0: one per core."""
    students: tuple[str, ...] = ()
    """Grade only these (default: everyone who submitted)."""
    timeout: int | None = None
    """Seconds a cell may run (default: the course's ``Execute.timeout``, else 30)."""
    notebook_budget: int | None = None
    """Seconds a whole notebook may run (default: ``BUDGET_FACTOR`` times the cell limit)."""
    sandbox: str = "on"
    """``on`` (bubblewrap; refuse to grade without it) or ``off`` (student code runs as you)."""
    kernels: str = "auto"
    """How kernels start (:data:`~roofline_grading.autograde.templates.KERNELS`): ``cold``, ``warm``
    or ``auto`` (warm where the workers can fork them, else cold)."""
    memory_gb: float = 4.0
    """Memory one kernel and everything it starts may use together."""
    processes: int = 128
    """Processes one kernel may have running at once, itself included."""
    scheduler: str | None = None
    """The address of a Dask scheduler whose workers grade (None: worker processes on this machine)."""
    certs: Path = credentials.FOLDER
    """With ``scheduler``: the folder of the grading cluster's certificates (the driver's)."""


@dataclass
class Outcome:
    """What a run did."""

    results: list[StudentResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    retried: dict[str, list[str]] = field(default_factory=dict)
    """Students graded again after a worker was lost: why, each time."""
    report: Path | None = None
    seconds: float = 0.0

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0


@dataclass(frozen=True)
class _Plan:
    """A run, decided before anything is graded: the course, its notebooks, who, how."""

    options: Options
    course: gradebook.Course
    structures: dict[str, NotebookStructure]
    students: list[str]
    timeout: int
    budget: int
    jobs: int
    header: str


def run(options: Options, out: TextIO = sys.stdout, executor: Executor | None = None) -> Outcome:
    """Grade every submission of ``options.assignment`` (see the module's docstring); ``executor``:
    what grades (default: as ``options`` says, see :func:`executor_for`)."""
    started = time.monotonic()
    plan = _plan(options, out)
    outcome = Outcome()
    if plan is None:
        return outcome
    before = {s: _hashes(plan.course.submitted_dir(s, options.assignment)) for s in plan.students}
    executor = executor or executor_for(options, plan.jobs)  # local workers load nbgrader meanwhile
    plotting = threading.Thread(target=misconceptions.load_plotting, name="load-plotting")
    scratch.sweep()  # what a killed run left on this machine
    run_dir = scratch.folder("roofline-autograde-", machine.scratch_root(), machine.stop_kernels)
    try:
        settings = _settings(plan, run_dir)
        executor.warm_up(settings.sandbox)
        chosen = _remote_kernels(options) if options.scheduler else _choose_kernels(options, settings)
        kernels_text, checked = chosen
        header = plan.header.replace("{workers}", executor.describe()).replace("{kernels}", kernels_text)
        plan = replace(plan, header=header)
        print(plan.header, file=out, flush=True)
        portable = _portable(plan, settings)
        executor.preflight(portable, checked)  # after the warm check, a local pool starts no second kernel
        templates.stop()  # the one the first line's check started, in this process: workers have their own
        saver = _Saver(plan, outcome, out)
        plotting.start()
        with gradebook.opened(plan.course) as book, saver.progress:  # once: opening costs as much as a merge
            saver.book = book
            executor.grade(portable, _handed_out(plan), _reader(plan), saver.done)
    finally:
        executor.close()
        scratch.remove(run_dir)  # and what a worker that died left running in it
    _check_unchanged(plan, before, outcome)
    _check_all_graded(plan, outcome)
    if plotting.is_alive():
        plotting.join()
    outcome.seconds = time.monotonic() - started
    _report(plan, outcome, out)
    return outcome


def executor_for(options: Options, jobs: int) -> Executor:
    """What grades the run: the workers of the Dask scheduler ``options.scheduler`` names, else
    ``jobs`` worker processes on this machine."""
    if options.scheduler:
        from roofline_grading.autograde.dask_pool import DaskExecutor

        return DaskExecutor(options.scheduler, options.certs)
    from roofline_grading.autograde.local_pool import LocalExecutor

    return LocalExecutor(jobs)


def _plan(options: Options, out: TextIO) -> _Plan | None:
    """What the run will do (None, having said why, when there is nothing to grade); a
    :class:`~roofline_grading.autograde.gradebook.CourseError` when the course cannot be graded."""
    sandbox_text = _remote_sandbox(options.sandbox) if options.scheduler else _check_sandbox(options.sandbox)
    course = gradebook.open_course(options.course)
    try:  # the steps each worker will run, checked once here
        pipeline.steps(gradebook.load_config(course.root))
    except pipeline.PipelineError as error:
        raise gradebook.CourseError(f"{course.config_file}: {error}") from None
    structures = gradebook.read_structures(course, options.assignment)
    students = list(options.students) or course.students(options.assignment)
    if not students:
        print(
            f"No submissions of {options.assignment} in {course.submitted}: collect them first "
            "(make collect ZIP=...).",
            file=out,
        )
        return None
    missing = [s for s in students if not course.submitted_dir(s, options.assignment).is_dir()]
    if missing:
        raise gradebook.CourseError(f"no submission of {options.assignment} for {', '.join(missing)}")
    _, refused = spellings(students)
    if refused:  # folders made by hand: make collect files each id once, normalised
        spelling, kept = next(iter(refused.items()))
        raise gradebook.CourseError(f"{course.submitted}: {clash(kept, spelling)}")
    timeout = options.timeout or _configured_timeout(course) or 30
    budget = options.notebook_budget or BUDGET_FACTOR * timeout
    jobs = min(options.jobs or _cores(), len(students))
    header = (
        f"Grading {len(students)} submission{'' if len(students) == 1 else 's'} of {options.assignment} "
        "with {workers}; "
        f"sandbox: {sandbox_text}; kernels: {{kernels}}; a cell may run {timeout} s, a notebook {budget} s."
    )
    return _Plan(options, course, structures, students, timeout, budget, jobs, header)


def _settings(plan: _Plan, run_dir: Path) -> Settings:
    """The workers' settings on this machine."""
    options = plan.options
    sandbox = machine.sandbox_settings(
        "off" if options.sandbox == "off" else "bwrap",
        int(options.memory_gb * 2**30),
        options.processes,
        [str(options.course.resolve())],
        run_dir,
        secrets.token_hex(16),
        options.kernels,
    )
    return Settings(
        config_file=plan.course.config_file,
        submitted=plan.course.submitted,
        assignment=plan.options.assignment,
        structures={name: s.to_json() for name, s in plan.structures.items()},
        scratch=run_dir,
        secret=_secret(plan.course.root),
        timeout=plan.timeout,
        notebook_budget=plan.budget,
        sandbox=sandbox,
    )


def _portable(plan: _Plan, settings: Settings) -> Portable:
    """The run as it travels to a worker on another machine (see :class:`Portable`)."""
    config = settings.config_file
    return Portable(
        settings=settings,
        config_text=config.read_text() if config is not None else None,
        sandbox_mode=str(settings.sandbox["mode"]),
        memory_bytes=int(settings.sandbox["memory_bytes"]),
        processes=int(settings.sandbox["processes"]),
        protected=(str(plan.options.course.resolve()),),
        salt=str(settings.sandbox["salt"]),
        run_id=settings.scratch.name,
        kernels=plan.options.kernels,
        code=grading_code.identity(),
    )


def _handed_out(plan: _Plan) -> list[str]:
    """The students in the order the workers get them: the largest submissions first
    (:mod:`roofline_grading.autograde.order`), so that the workers finish together."""
    assignment = plan.options.assignment
    return order.longest_first(
        plan.students, lambda student: plan.course.submitted_dir(student, assignment), list(plan.structures)
    )


def _reader(plan: _Plan) -> Callable[[str], Job]:
    """How to read one student's submission into a job (what the worker reads: the notebooks and
    the timestamp)."""
    assignment = plan.options.assignment
    expected = {f"{name}.ipynb" for name in plan.structures} | {worker.TIMESTAMP}
    return lambda student: read_job(plan.course.submitted_dir(student, assignment), student, expected)


class _Saver:
    """What happens as each student is done: their grades into the gradebook (``book``, open for
    the whole run), their graded notebooks, misconceptions and inputs into the course, the
    progress. A student already saved is never saved again."""

    def __init__(self, plan: _Plan, outcome: Outcome, out: TextIO) -> None:
        self.plan, self.outcome, self.out = plan, outcome, out
        self.book: Any = None
        self.late = gradebook.late_penalties(plan.course)
        self.saved: set[str] = set()
        self.progress = Progress(len(plan.students), out)

    def done(self, graded: Graded) -> None:
        result = graded.result
        if result.student in self.saved:  # never expected: the executors send each student's result once
            self.outcome.errors.append(f"{result.student}: a second result came back and was ignored")
            return
        self.saved.add(result.student)
        course, assignment = self.plan.course, self.plan.options.assignment
        result.retries = list(graded.retries)
        try:
            result.late = gradebook.merge(course, assignment, result, self.book, self.late)
            _write_autograded(
                course.autograded_dir(result.student, assignment), result, course.release / assignment
            )
            misconceptions.save(course.autograded, assignment, result)
            _write_inputs(course.autograded / INPUTS.format(assignment=assignment), result)
        except Exception as error:
            self.outcome.errors.append(f"{result.student}: could not save the grades ({error})")
            result.problems.append(f"grades NOT saved: {error}")
        if graded.retries:
            self.outcome.retried[result.student] = list(graded.retries)
        self.outcome.results.append(result)
        self.progress.update(result, retried=bool(graded.retries))


def _check_unchanged(plan: _Plan, before: dict[str, dict[str, str]], outcome: Outcome) -> None:
    """An error for each student whose submitted files changed while they were graded (never expected)."""
    for student in plan.students:
        after = _hashes(plan.course.submitted_dir(student, plan.options.assignment))
        if after != before[student]:
            changed = sorted(set(after.items()) ^ set(before[student].items()))
            outcome.errors.append(f"{student}: submitted files changed during grading: {changed}")


def _check_all_graded(plan: _Plan, outcome: Outcome) -> None:
    """An error for each student no result came back for (never expected: each executor names the
    students it could not grade)."""
    graded = {r.student for r in outcome.results}
    for student in plan.students:
        if student not in graded:
            outcome.errors.append(f"{student}: not graded (no result came back)")


def _report(plan: _Plan, outcome: Outcome, out: TextIO) -> None:
    """The run's summary line, the report and the misconceptions' summary, on disk and on ``out``."""
    statuses = [r.status for r in outcome.results]
    kinds = (
        ("ok", "ok"),
        ("incomplete", "incomplete"),
        ("problems", "with problems put right"),
        ("flagged", "flagged for what their code tried"),
        ("failed", "with notebooks that could not be graded"),
    )
    counted = [f"{statuses.count(k)} {w}" for k, w in kinds if statuses.count(k) or k == "ok"]
    summary = f"Done in {_duration(outcome.seconds)}: " + ", ".join(counted) + "."
    course, assignment = plan.course, plan.options.assignment
    report = course.autograded / f"{assignment}-report.txt"
    retried = [f"Graded again: {s} ({'; '.join(why)})" for s, why in sorted(outcome.retried.items())]
    retried = [plain(line, 1000) for line in retried]
    lines = [plan.header, summary, *retried, *outcome.errors]
    write_report(report, report.with_suffix(".csv"), outcome.results, lines)
    outcome.report = report
    mistakes, _ = misconceptions.write_summary(course.autograded, assignment)
    print(f"{summary} Report: {report} (and .csv)", file=out, flush=True)
    for line in retried:  # after the summary, as in the report
        print(line, file=out)
    for error in outcome.errors:
        print(f"ERROR {plain(error, 1000)}", file=out)
    print(f"Known mistakes, part by part: {mistakes} (and .png)", file=out, flush=True)


def _write_autograded(directory: Path, result: StudentResult, released: Path) -> None:
    """Replace ``directory`` with the graded notebooks (read-only, as nbgrader writes them).

    A held notebook (one nbgrader could not grade, its parts waiting for a grader) gets the
    released notebook in its place, headed by a note: formgrader lists and opens only notebooks
    found here, and this is where the grader gives its parts their points."""
    fresh = directory.with_name(f".{directory.name}.new")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    for notebook in result.notebooks:
        content = notebook.autograded
        if content is None and any(g.needs_manual_grade for g in notebook.grades.values()):
            content = _held(_release_of(released, notebook.language) / f"{notebook.notebook}.ipynb", notebook)
        if content is not None:
            path = fresh / f"{notebook.notebook}.ipynb"
            path.write_bytes(content)
            path.chmod(0o444)
    if result.timestamp is not None:
        (fresh / worker.TIMESTAMP).write_text(str(result.timestamp))
    old = directory.with_name(f".{directory.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if directory.exists():
        directory.rename(old)
    fresh.rename(directory)
    shutil.rmtree(old, ignore_errors=True)


def _write_inputs(directory: Path, result: StudentResult) -> None:
    """Keep the hidden inputs each of the student's notebooks was asked, for the instructor."""
    directory.mkdir(parents=True, exist_ok=True)
    record = {n.notebook: n.inputs for n in result.notebooks if n.inputs}
    (directory / f"{result.student}.json").write_text(json.dumps(record, sort_keys=True) + "\n")


def _release_of(released: Path, language: str) -> Path:
    """The release of ``language`` beside the English one (``exercises/ko/roofline`` beside
    ``exercises/roofline``, as ``make exercises`` writes it), where there is one."""
    translated = released.parent / language / released.name
    return translated if language != "en" and translated.is_dir() else released


def _held(released: Path, notebook: NotebookResult) -> bytes:
    """The released notebook, headed by a note for the student who submitted it (its feedback
    page is made from it): their file could not be graded automatically, why, and that a grader
    grades it by hand from that file. Each answer cell says the answer is in the submitted file.
    It holds no name and no path: formgrader shows it to graders who may not see who it is."""
    import nbformat

    from roofline_grading.autograde.notes import held_notes, notes_cell

    why = "; ".join(notebook.problems) or "nbgrader could not grade it"
    note, stand_in = held_notes(why, notebook.language)
    held = nbformat.read(released, as_version=4)
    for cell in held.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = stand_in
    held.cells.insert(0, notes_cell([note, *notebook.notes], notebook.language))
    text: str = nbformat.writes(held)
    return text.encode()


def _hashes(directory: Path) -> dict[str, str]:
    """A fingerprint of every entry under ``directory``: a regular file's sha256, a link's target;
    nothing is read through a link or from a special file (a FIFO would block)."""
    found = {}
    for path in sorted(directory.rglob("*")):
        info = path.lstat()
        if stat.S_ISREG(info.st_mode):
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            found[path.relative_to(directory).as_posix()] = digest.hexdigest()
        elif not stat.S_ISDIR(info.st_mode):
            target = os.readlink(path) if stat.S_ISLNK(info.st_mode) else ""
            found[path.relative_to(directory).as_posix()] = f"{stat.filemode(info.st_mode)} {target}"
    return found


def _secret(root: Path) -> bytes:
    """The course's grading secret (created on first use), from which each student's random sizes derive."""
    path = root / SECRET_FILE
    if not path.is_file():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32) + "\n")
    return bytes.fromhex(path.read_text().strip())


def _check_sandbox(wanted: str) -> str:
    """What the run's first line says about the sandbox; refuses to grade without one unless told."""
    if wanted == "off":
        return "OFF (--sandbox off: student code runs with your permissions and can read your files)"
    why = bwrap.available()
    if why is not None:
        raise gradebook.CourseError(
            f"cannot confine the students' kernels: {why}. Install bubblewrap, or grade in a throwaway "
            "container or virtual machine with --sandbox off (student code then runs with your permissions "
            "and can read and change your files, the gradebook and other students' work)."
        )
    group = limits.open_group("probe", limits.Limits())
    group.close()
    unwatched = seccomp.available()
    watch = (
        "system calls watched from outside the kernel"
        if unwatched is None
        else f"the report sees only what the kernel's own monitor tells ({unwatched})"
    )
    return f"bubblewrap, process-tree limits by {group.kind}, {watch}"


def _cold(sandboxed: bool) -> str:
    """What the run's first line says of cold kernels: never a sandbox that ``--sandbox off`` has not.

    >>> _cold(False)
    'cold (each started in a new process, without a sandbox)'
    """
    where = "in a sandbox of its own" if sandboxed else "in a new process, without a sandbox"
    return f"cold (each started {where})"


def _choose_kernels(options: Options, settings: Settings) -> tuple[str, dict[str, Any] | None]:
    """How this machine's workers start kernels, for the run's first line: warm kernels are tried
    once here (a template started and one kernel forked from it) unless cold ones are asked for;
    ``auto`` falls back to cold where they cannot start, ``warm`` refuses to grade. With it, the
    sandbox settings a warm kernel started with here (None if none did), for the preflight."""
    if options.kernels == "cold" or settings.sandbox["mode"] != "bwrap":
        settings.sandbox["kernels"] = "cold"
        return _cold(settings.sandbox["mode"] == "bwrap"), None
    first = sorted(settings.structures)[0]
    tried = dict(settings.sandbox)  # as the kernel started: a fallback below changes the run's
    why = kernels.check_start(settings.sandbox, first, settings.scratch / "warm-check")
    why = templates.failure() or why  # a template that did not start: that kernel started cold
    if why is None:
        return "warm (forked from a template in each worker, each with a sandbox of its own)", tried
    templates.stop()
    if options.kernels == "warm":
        raise gradebook.CourseError(f"warm kernels cannot start here: {why}. Nothing was graded.")
    settings.sandbox["kernels"] = "cold"
    return f"cold (warm kernels cannot start here: {why})", None


def _remote_kernels(options: Options) -> tuple[str, None]:
    """What the run's first line says about the kernels when other machines grade (and no kernel
    started here: each worker checks its own)."""
    if options.kernels == "cold" or options.sandbox == "off":
        return _cold(options.sandbox != "off"), None
    return "warm on every worker whose template starts (cold on the others)", None


def _remote_sandbox(wanted: str) -> str:
    """What the run's first line says about the sandbox when other machines grade (each checks its own)."""
    if wanted == "off":
        return "OFF on every worker (--sandbox off: student code runs with the workers' permissions)"
    return (
        "bubblewrap on every worker (each starts one sandboxed kernel before it grades, and watches "
        "its kernels from outside where its system allows)"
    )


def _configured_timeout(course: gradebook.Course) -> int | None:
    config = gradebook.load_config(course.root)
    for section in ("SandboxedExecute", "Execute", "ExecutePreprocessor"):
        if section in config and "timeout" in config[section]:
            return int(config[section].timeout)
    return None


def _cores() -> int:
    """The cores this process may run on (fewer than the machine's in a container with a CPU set)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{seconds:.1f} s"
