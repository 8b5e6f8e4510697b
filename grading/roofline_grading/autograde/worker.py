"""Grade one student: what runs in each worker process.

For one student, :func:`grade_student`

1. reads each expected notebook from ``submitted/`` (never writing there) and keeps only what
   can be graded: valid notebooks and a valid ``timestamp.txt``; any other file is left out
   and reported;
2. plans the sanitizing of each notebook (:mod:`roofline_grading.autograde.structure`);
3. grades each notebook with nbgrader's autograde steps, in memory
   (:mod:`roofline_grading.autograde.pipeline`, the course's steps in
   :mod:`roofline_grading.autograde.steps`): ``RestoreCells`` in nbgrader's sanitizing,
   ``SandboxedExecute`` for its ``Execute`` (the kernel in the sandbox, holding only the
   student's code and the recorder; the next notebook's kernel starts while this one is
   judged), then ``JudgeAnswers`` (the verdicts, judged here with the answer key) and
   ``PlainOutputs``, and scores it by nbgrader's rules;
4. reads what each run reported (limits hit, output cut, what the code tried:
   :data:`roofline_grading.autograde.steps.sandboxed_execute.REPORT`) and the misconceptions judged;
5. returns a :class:`~roofline_grading.autograde.results.StudentResult` with the scores and
   the graded notebooks' contents; the driver writes them into the course and its gradebook.
"""

from __future__ import annotations

import copy
import json
import logging
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from roofline_grading.autograde import kernels, templates
from roofline_grading.autograde.notes import language_of_file, notes
from roofline_grading.autograde.pipeline import Run, autograde, scores, steps
from roofline_grading.autograde.precheck import SUBMISSION_SECRET, TIMESTAMP, read_submission
from roofline_grading.autograde.results import GradeResult, NotebookResult, StudentResult
from roofline_grading.autograde.settings import Settings
from roofline_grading.autograde.steps.sandboxed_execute import REPORT
from roofline_grading.autograde.structure import NotebookStructure, plan
from roofline_grading.i18n import language_of

__all__ = ["TIMESTAMP", "grade_student", "ready", "start_worker"]


def start_worker() -> None:
    """Prepare a worker process: nbgrader's steps loaded once, their logging quiet."""
    logging.getLogger("traitlets").setLevel(logging.ERROR)
    from traitlets.config import Config

    steps(Config())  # nbgrader's and the course's steps imported once per worker, not per student


def ready() -> bool:
    """Nothing: a task that makes the pool start a worker process (and load what it needs) early."""
    return True


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
    problems: list[str] = []
    expected = {f"{name}.ipynb" for name in settings.structures} | {TIMESTAMP, SUBMISSION_SECRET}
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

    structures = {name: NotebookStructure.from_json(data) for name, data in settings.structures.items()}
    notebooks: list[NotebookResult] = []
    readable: dict[str, Any] = {}
    for structure in structures.values():
        try:
            result, nb = _prepare(structure, source)
        except Exception as error:  # whatever the file does to the readers, the others still count
            result, nb = NotebookResult(structure.name, "unreadable"), None
            result.problems.append(f"could not be read ({type(error).__name__}: {error})"[:200])
        notebooks.append(result)
        if nb is not None:
            readable[structure.name] = nb
    first = next(iter(structures), "")  # what the worker's next student most likely hands in first
    run = Run(settings, student, upcoming=list(readable), scratch=scratch, following=first)
    try:
        config = run.config()
        for index, notebook in enumerate(notebooks):
            if notebook.notebook in readable:
                nb, structure = readable[notebook.notebook], structures[notebook.notebook]
                notebooks[index] = _autograde_once(run, config, notebook, nb, structure)
    finally:
        kernels.discard_waiting(keep_next=True)
    for notebook in notebooks:
        if notebook.status != "graded":
            notebook.grades = _zero(structures[notebook.notebook], notebook)
        _finish(run, notebook)
    return StudentResult(student, notebooks, timestamp=timestamp, problems=problems)


def _prepare(structure: NotebookStructure, source: Path) -> tuple[NotebookResult, Any]:
    """Read one submitted notebook and plan its sanitizing: its result so far, and the notebook
    if it can be graded."""
    name = structure.name
    submission = read_submission(source / f"{name}.ipynb")
    result = NotebookResult(name, "graded")
    if submission.problem == "missing":
        result.status = "missing"
        return result, None
    if submission.problem is not None:
        result.status = "unreadable"
        result.problems.append(submission.problem)
        result.language = language_of_file(submission.raw)
        return result, None
    result.problems += list(submission.notes)
    language = result.language = language_of(submission.notebook.metadata)
    result.problems += list(plan(submission.notebook.cells, structure.in_language(language)).problems)
    return result, submission.notebook


def _autograde_once(
    run: Run, config: Any, notebook: NotebookResult, nb: Any, structure: NotebookStructure
) -> NotebookResult:
    """:func:`_autograde`, and again, cold, if the warm kernels' template ended meanwhile (its
    kernel ended with it): what the notebook's grading gives never depends on the template."""
    before, submitted = copy.deepcopy(notebook), copy.deepcopy(nb)  # grading changes the notebook
    _autograde(run, config, notebook, nb, structure)
    if not templates.lost():
        return notebook
    kernels.discard_waiting()  # the next notebook's kernel, forked from it too
    _autograde(run, config, before, submitted, structure)
    return before


def _autograde(
    run: Run, config: Any, notebook: NotebookResult, nb: Any, structure: NotebookStructure
) -> None:
    """Grade one notebook: its graded copy and scores into ``notebook``, or why it could not be graded."""
    import nbformat

    try:
        graded = autograde(nb, structure, run, config)
        notebook.grades, notebook.comments = scores(graded, structure)
        notebook.autograded = nbformat.writes(graded).encode()
    except Exception as error:  # this notebook cannot be graded; the others still count
        notebook.status = "failed"
        why = _run_failure(run.run_root, notebook.notebook) or f"{type(error).__name__}: {error}"
        notebook.problems.append(f"nbgrader could not grade it ({why})"[:400])
        notebook.autograded = None


def _zero(structure: NotebookStructure, notebook: NotebookResult) -> dict[str, GradeResult]:
    """Every part of a notebook that was not graded: 0, and for a human to look at unless it was
    simply not submitted."""
    review = notebook.status in ("unreadable", "failed")
    parts = [c for c in structure.cells if c.grade or c.task]
    return {c.grade_id: GradeResult(0.0, c.points or 0.0, review) for c in parts}


def _run_failure(run_root: Path, notebook: str) -> str | None:
    """What stopped the notebook's run, as ``SandboxedExecute`` wrote it down, if anything."""
    report = run_root / notebook / REPORT
    if not report.is_file():
        return None
    failure = json.loads(report.read_text()).get("failure")
    return str(failure) if failure else None


def _finish(run: Run, notebook: NotebookResult) -> None:
    """Note what happened while the notebook ran, from the run's own report (what limits it hit,
    which cells ran past their time, lost the kernel or did not run, what its code tried), never
    from the notebook's outputs, which its code could have written; and the misconceptions the
    judge named. A notebook that could not be graded keeps all of it too, and the notes its
    student reads."""
    verdicts = run.verdicts_dir / f"{notebook.notebook}.json"
    if notebook.autograded is not None and verdicts.is_file():
        found = json.loads(verdicts.read_text())
        notebook.misconceptions = {str(q): [str(m) for m in ms] for q, ms in found.items()}
    report = run.run_root / notebook.notebook / REPORT
    if not report.is_file():
        return
    ran = json.loads(report.read_text())
    notebook.events += [str(e) for e in ran.get("limits", [])]
    notebook.attempts += [str(a) for a in ran.get("attempts", [])]
    notebook.inputs = {"seed": ran.get("seed"), "hidden": ran.get("hidden", {})}
    if notebook.autograded is None:
        told = {"limits": ran.get("student_limits", []), "tried": bool(ran.get("tried"))}
        notebook.notes = notes(None, told, notebook.language)
