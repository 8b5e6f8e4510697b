"""Grade one student in a scratch course: what runs in each worker process.

For one student, :func:`grade_student`

1. reads each expected notebook from ``submitted/`` (never writing there) and keeps only what
   can be graded: valid notebooks and a valid ``timestamp.txt``; any other file is left out
   and reported;
2. plans the sanitizing of each notebook (:mod:`roofline_grading.autograde.structure`);
3. builds a scratch course (its own gradebook copied from a template without students) and
   runs nbgrader's autograde there, with :class:`RestoreCells` before nbgrader's sanitizing,
   :class:`SandboxedExecute` for its ``Execute`` (the kernel in the sandbox, holding only the
   student's code and the recorder), then :class:`JudgeAnswers` (the verdicts, judged here
   with the answer key) and :class:`PlainOutputs` before nbgrader saves the scores;
4. reads the scores nbgrader saved, and what each run reported (limits hit, output cut, what
   the code tried: :data:`roofline_grading.autograde.execute.REPORT`);
5. returns a :class:`~roofline_grading.autograde.results.StudentResult` with the graded
   notebooks' contents; the driver writes them and the scores into the course.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import shutil
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roofline_grading.autograde import kernels
from roofline_grading.autograde.execute import REPORT, SandboxedExecute
from roofline_grading.autograde.judging import JudgeAnswers, PlainOutputs
from roofline_grading.autograde.precheck import read_submission
from roofline_grading.autograde.restore import RestoreCells
from roofline_grading.autograde.results import GradeResult, NotebookResult, StudentResult
from roofline_grading.autograde.structure import NotebookStructure, plan
from roofline_grading.i18n import language_of

__all__ = ["Settings", "grade_student", "seed_for", "start_worker"]

TIMESTAMP = "timestamp.txt"
VERDICTS = "verdicts"
"""Scratch folder where JudgeAnswers leaves each notebook's misconceptions found."""


@dataclass(frozen=True)
class Settings:
    """What every worker needs to know, the same for all students of a run."""

    course_root: Path
    course_id: str
    config_file: Path | None
    submitted: Path
    assignment: str
    structures: dict[str, dict[str, Any]]
    """Notebook name -> NotebookStructure.to_json()."""
    template: Path
    scratch: Path
    secret: bytes
    timeout: int
    notebook_budget: int
    sandbox: dict[str, Any] = field(default_factory=dict)
    """How to confine each kernel (:class:`SandboxedExecute`'s ``sandbox``): ``mode`` (``bwrap``
    or ``off``), ``recorder``, ``prefixes``, ``masks``, ``fontlist``, ``memory_bytes``,
    ``processes``, ``group``."""


def seed_for(secret: bytes, assignment: str, student: str, notebook: str) -> str:
    """The hexadecimal seed of one student's random sizes in one notebook: the same at every
    regrade, unknown to anyone without the course's secret.

    >>> seed_for(b"k", "a", "s", "n") == seed_for(b"k", "a", "s", "n") != seed_for(b"k", "a", "t", "n")
    True
    """
    message = f"{assignment}\0{student}\0{notebook}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


def start_worker(settings: Settings) -> None:
    """Prepare a worker process: nbgrader loaded once, its logging quiet."""
    from sqlalchemy.exc import SAWarning

    logging.getLogger("traitlets").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=SAWarning)  # nbgrader's add_submission, under SQLAlchemy 2
    import nbgrader.converters  # noqa: F401  (once per worker, not per student)


def grade_student(settings: Settings, student: str) -> StudentResult:
    """Grade every notebook of one student (see the module's docstring)."""
    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="student-", dir=settings.scratch))
    try:
        result = _grade(settings, student, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result.seconds = time.monotonic() - started
    return result


def _grade(settings: Settings, student: str, scratch: Path) -> StudentResult:
    from nbgrader.utils import parse_utc

    source = settings.submitted / student / settings.assignment
    target = scratch / "submitted" / student / settings.assignment
    target.mkdir(parents=True)
    shutil.copyfile(settings.template, scratch / "gradebook.db")
    problems: list[str] = []
    expected = {f"{name}.ipynb" for name in settings.structures} | {TIMESTAMP}
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source).as_posix()
        if path.is_file() and relative not in expected:
            problems.append(f"ignored {relative} (only the notebooks are graded)")
    timestamp = None
    stamp = source / TIMESTAMP
    if stamp.is_symlink() or (stamp.exists() and not stamp.is_file()):
        problems.append(f"ignored {TIMESTAMP}: not a regular file")
    elif stamp.is_file():
        with stamp.open(errors="replace") as handle:
            text = handle.read(200).strip()
        try:
            timestamp = parse_utc(text) if text else None
        except (ValueError, OverflowError):
            problems.append(f"ignored {TIMESTAMP}: {text[:40]!r} is not a time")
        else:
            if timestamp is not None:
                (target / TIMESTAMP).write_text(text)

    notebooks = []
    for data in settings.structures.values():
        structure = NotebookStructure.from_json(data)
        try:
            notebooks.append(_prepare(structure, source, target))
        except Exception as error:  # whatever the file does to the readers, the others still count
            unreadable = NotebookResult(structure.name, "unreadable")
            unreadable.problems.append(f"could not be read ({type(error).__name__}: {error})"[:200])
            notebooks.append(unreadable)
    submitted = [n for n in notebooks if n.status == "graded"]
    if submitted:
        _autograde_all(settings, student, scratch, submitted)
    _read_scores(settings, student, scratch, notebooks)
    for notebook in notebooks:
        _finish(settings, student, scratch, notebook)
    return StudentResult(student, notebooks, timestamp=timestamp, problems=problems)


def _prepare(structure: NotebookStructure, source: Path, target: Path) -> NotebookResult:
    """Read one submitted notebook, plan its sanitizing, and put a copy in the scratch course
    if it can be graded."""
    name = structure.name
    submission = read_submission(source / f"{name}.ipynb")
    result = NotebookResult(name, "graded")
    if submission.problem == "missing":
        result.status = "missing"
        return result
    if submission.problem is not None:
        result.status = "unreadable"
        result.problems.append(submission.problem)
        return result
    import nbformat

    result.problems += list(submission.notes)
    language = language_of(submission.notebook.metadata)
    result.problems += list(plan(submission.notebook.cells, structure.in_language(language)).problems)
    if submission.notes:
        nbformat.write(submission.notebook, target / f"{name}.ipynb")
    else:
        (target / f"{name}.ipynb").write_bytes(submission.raw)
    return result


def _autograde_all(settings: Settings, student: str, scratch: Path, notebooks: list[NotebookResult]) -> None:
    """Run nbgrader on all of the student's notebooks at once; if it gives up on any (nbgrader
    then drops them all), run it again one notebook at a time, so that only that one is lost."""
    graded = scratch / "autograded" / student / settings.assignment
    try:
        _autograde(settings, student, scratch, "*", sorted(n.notebook for n in notebooks))
        whole = all((graded / f"{n.notebook}.ipynb").is_file() for n in notebooks)
    except Exception:
        whole = False
    for notebook in notebooks:
        path = graded / f"{notebook.notebook}.ipynb"
        if not whole:
            try:
                _autograde(settings, student, scratch, notebook.notebook, [notebook.notebook])
            except Exception as error:  # nbgrader gave up on this notebook; the others still count
                notebook.status = "failed"
                why = _run_failure(scratch, notebook.notebook) or f"{type(error).__name__}: {error}"
                notebook.problems.append(f"nbgrader could not grade it ({why})"[:400])
                continue
        if not path.is_file():
            notebook.status = "failed"
            notebook.problems.append("nbgrader could not grade it (no graded notebook)")
            continue
        notebook.autograded = path.read_bytes()


def _autograde(
    settings: Settings, student: str, scratch: Path, notebook_id: str, upcoming: list[str]
) -> None:
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        ClearOutput,
        DeduplicateIds,
        IgnorePattern,
        OverwriteKernelspec,
        SaveAutoGrades,
    )
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = Config()
    if settings.config_file is not None:
        config = PyFileConfigLoader(
            settings.config_file.name, path=str(settings.config_file.parent)
        ).load_config()
    config.CourseDirectory.root = str(scratch)
    config.CourseDirectory.course_id = settings.course_id
    config.CourseDirectory.assignment_id = settings.assignment
    config.CourseDirectory.student_id = student
    config.CourseDirectory.notebook_id = notebook_id
    config.CourseDirectory.db_url = f"sqlite:///{scratch / 'gradebook.db'}"
    # nbgrader's own lists, with RestoreCells in place of its OverwriteCells and CheckCellMetadata
    # (it restores every known cell's metadata and every locked cell's source from the gradebook's
    # copy the driver read once, where those query the gradebook cell by cell), SandboxedExecute for
    # its Execute, JudgeAnswers and PlainOutputs after it, and its LimitOutput left out
    # (SandboxedExecute keeps output small as it arrives).
    config.Autograde.sanitize_preprocessors = [ClearOutput, RestoreCells, DeduplicateIds, OverwriteKernelspec]
    config.Autograde.autograde_preprocessors = [
        SandboxedExecute,
        JudgeAnswers,
        PlainOutputs,
        IgnorePattern,
        ClearMetadataPreprocessor,
        SaveAutoGrades,
        AssignLatePenalties,
    ]
    config.Autograde.exclude_overwriting = {}
    config.RestoreCells.structures = settings.structures
    config.JudgeAnswers.structures = settings.structures
    config.JudgeAnswers.verdicts_dir = str(scratch / VERDICTS / student)
    config.SandboxedExecute.sandbox = settings.sandbox
    config.SandboxedExecute.shutdown_kernel = "immediate"  # nothing to save: stop it, do not wait
    config.SandboxedExecute.timeout = settings.timeout
    config.SandboxedExecute.notebook_budget = settings.notebook_budget
    config.SandboxedExecute.upcoming = list(upcoming)
    config.SandboxedExecute.run_root = str(scratch / "run")
    config.SandboxedExecute.seeds = {
        name: seed_for(settings.secret, settings.assignment, student, name) for name in settings.structures
    }
    coursedir = CourseDirectory(config=config)
    app = Autograde(coursedir=coursedir, config=config)
    app.force = True
    app.create_student = True
    app.log.setLevel(logging.CRITICAL)
    try:
        app.start()
    finally:
        kernels.discard_waiting()


def _read_scores(settings: Settings, student: str, scratch: Path, notebooks: list[NotebookResult]) -> None:
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{scratch / 'gradebook.db'}", settings.course_id) as gb:
        for notebook in notebooks:
            structure = NotebookStructure.from_json(settings.structures[notebook.notebook])
            tests = {c.grade_id: c.points or 0.0 for c in structure.cells if c.grade or c.task}
            found = None
            if notebook.status == "graded":
                try:
                    found = gb.find_submission_notebook(notebook.notebook, settings.assignment, student)
                except MissingEntry:
                    found = None
            if found is None:
                review = notebook.status in ("unreadable", "failed")
                if notebook.status == "graded":
                    notebook.status = "failed"
                    notebook.problems.append("nbgrader saved no scores for it")
                    review = True
                notebook.grades = {gid: GradeResult(0.0, points, review) for gid, points in tests.items()}
                continue
            notebook.grades = {
                g.name: GradeResult(
                    None if g.auto_score is None else float(g.auto_score),
                    float(g.max_score),
                    bool(g.needs_manual_grade),
                )
                for g in found.grades
            }
            notebook.comments = {c.name: c.auto_comment for c in found.comments}
            penalty = found.late_submission_penalty
            notebook.late_penalty = None if penalty is None else float(penalty)


def _run_failure(scratch: Path, notebook: str) -> str | None:
    """What stopped the notebook's run, as :class:`SandboxedExecute` wrote it down, if anything."""
    report = scratch / "run" / notebook / REPORT
    if not report.is_file():
        return None
    failure = json.loads(report.read_text()).get("failure")
    return str(failure) if failure else None


def _finish(settings: Settings, student: str, scratch: Path, notebook: NotebookResult) -> None:
    """Note what happened while the notebook ran, from the run's own report (what limits it hit,
    which cells ran past their time, lost the kernel or did not run, what its code tried), never
    from the notebook's outputs, which its code could have written; and the misconceptions the
    judge named."""
    verdicts = scratch / VERDICTS / student / f"{notebook.notebook}.json"
    if notebook.autograded is not None and verdicts.is_file():
        found = json.loads(verdicts.read_text())
        notebook.misconceptions = {str(q): [str(m) for m in ms] for q, ms in found.items()}
    report = scratch / "run" / notebook.notebook / REPORT
    if notebook.autograded is None or not report.is_file():
        return
    ran = json.loads(report.read_text())
    notebook.events += [str(e) for e in ran.get("limits", [])]
    notebook.attempts += [str(a) for a in ran.get("attempts", [])]
