"""nbgrader's autograde steps for one notebook, in memory: what a worker does to each notebook.

:func:`autograde` runs nbgrader's own preprocessors on a submitted notebook, in nbgrader's
order: sanitizing (the released kernelspec as ``OverwriteKernelspec`` gives it, ``ClearOutput``,
``RestoreCells`` in place of ``OverwriteCells`` and ``CheckCellMetadata``, ``DeduplicateIds``),
then grading (``SandboxedExecute`` in place of ``Execute``, ``JudgeAnswers``, ``PlainOutputs``,
``StudentNotes``, ``IgnorePattern``, ``ClearMetadataPreprocessor``), configured from the course's
``nbgrader_config.py`` as ``nbgrader autograde`` would be. The course's own steps are one module
each in :mod:`roofline_grading.autograde.steps`. The two lists are traitlets, as nbgrader's
``Autograde`` converter has them (:class:`Pipeline`: ``c.Pipeline.sanitize_preprocessors`` and
``c.Pipeline.autograde_preprocessors``), so a course adds a step of its own in
``nbgrader_config.py``; a list that would run a notebook outside the sandbox, or keep its markup,
is refused (:func:`checked`). :func:`scores` then reads each part's
score and comment with nbgrader's own rules (``nbgrader.utils.determine_grade`` and its
"No response." check), which ``SaveAutoGrades`` would have written to a gradebook.

nbgrader's ``Autograde`` converter would do the same through a gradebook of its own for each
student (it creates the student and the submission, queries the gradebook for each cell's score,
comment and kernelspec, and writes the notebook to disk between the two passes): a second of
bookkeeping per student that the driver does once, in the course's gradebook
(:func:`roofline_grading.autograde.gradebook.merge`).

>>> import nbformat
>>> cell = nbformat.v4.new_code_cell("assert True")
>>> cell.metadata["nbgrader"] = {"grade": True, "grade_id": "t", "locked": True, "points": 2,
...                              "solution": False, "task": False, "schema_version": 3}
>>> grades, comments = scores(nbformat.v4.new_notebook(cells=[cell]), NotebookStructure("ex", (), None))
>>> grades["t"], comments
(GradeResult(auto_score=2.0, max_score=2.0, needs_manual_grade=False), {})
"""

from __future__ import annotations

import copy
import functools
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from traitlets import List
from traitlets.config import Configurable

from roofline_grading.autograde.results import GradeResult
from roofline_grading.autograde.settings import Settings
from roofline_grading.autograde.structure import NotebookStructure

__all__ = ["GRADE", "SANITIZE", "Pipeline", "PipelineError", "Run", "autograde", "checked", "scores", "steps"]

NO_RESPONSE = "No response."
"""nbgrader's automatic comment on an answer cell left as released."""
_LOG = logging.getLogger("roofline_grading.autograde")


@dataclass(frozen=True)
class Run:
    """One student's grading: the run's settings, the student, the notebooks to grade in order,
    and the scratch folder their kernels run in."""

    settings: Settings
    student: str
    upcoming: list[str]
    scratch: Path
    following: str = ""
    """A notebook the worker's next student most likely hands in (empty: none), whose kernel
    starts while this student's last notebook runs (:func:`roofline_grading.autograde.kernels.take`)."""

    @property
    def run_root(self) -> Path:
        """Where each notebook's kernel runs (``<run_root>/<notebook>``) and leaves its report."""
        return self.scratch / "run"

    @property
    def verdicts_dir(self) -> Path:
        """Where ``JudgeAnswers`` leaves each notebook's misconceptions found."""
        return self.scratch / "verdicts"

    def config(self) -> Any:
        """The course's nbgrader configuration, with the grading steps' settings for this student."""
        settings = self.settings
        config = copy.deepcopy(_course_config(settings.config_file))
        config.RestoreCells.structures = settings.structures
        config.JudgeAnswers.structures = settings.structures
        config.JudgeAnswers.verdicts_dir = str(self.verdicts_dir)
        config.SandboxedExecute.sandbox = settings.sandbox
        config.SandboxedExecute.shutdown_kernel = "immediate"  # nothing to save: stop it, do not wait
        config.SandboxedExecute.timeout = settings.timeout
        # No run times in the graded notebook, and a cell's printing as one output however the kernel
        # flushed it: the same code then gives the same notebook, byte for byte (PlainOutputs joins
        # again what nbclient cannot: steps/plain_outputs.py's one_stream_each says why both).
        config.SandboxedExecute.record_timing = False
        config.SandboxedExecute.coalesce_streams = True
        config.SandboxedExecute.notebook_budget = settings.notebook_budget
        config.SandboxedExecute.upcoming = list(self.upcoming)
        config.SandboxedExecute.following = self.following
        config.SandboxedExecute.spares = str(settings.scratch / "next")
        config.SandboxedExecute.run_root = str(self.run_root)
        config.SandboxedExecute.secret = settings.secret.hex()
        config.SandboxedExecute.assignment = settings.assignment
        return config


@functools.lru_cache(maxsize=4)
def _course_config(config_file: Path | None) -> Any:
    """The course's ``nbgrader_config.py``, read once per process."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    if config_file is None:
        return Config()
    return PyFileConfigLoader(config_file.name, path=str(config_file.parent)).load_config()


SANITIZE = [
    "nbgrader.preprocessors.ClearOutput",
    "roofline_grading.autograde.steps.restore_cells.RestoreCells",
    "nbgrader.preprocessors.DeduplicateIds",
]
"""nbgrader's sanitizing steps, ``RestoreCells`` in place of ``OverwriteCells`` and ``CheckCellMetadata``."""
GRADE = [
    "roofline_grading.autograde.steps.sandboxed_execute.SandboxedExecute",
    "roofline_grading.autograde.steps.judge_answers.JudgeAnswers",
    "roofline_grading.autograde.steps.plain_outputs.PlainOutputs",
    "roofline_grading.autograde.steps.student_notes.StudentNotes",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
]
"""nbgrader's autograde steps, ``SandboxedExecute`` in place of ``Execute`` and nbgrader's
``LimitOutput`` left out (``SandboxedExecute`` keeps output small as it arrives)."""
_RUNS = "roofline_grading.autograde.steps.sandboxed_execute.SandboxedExecute"
_INERT = "roofline_grading.autograde.steps.plain_outputs.PlainOutputs"


class PipelineError(ValueError):
    """The course's list of steps would grade unsafely (the message says what to change)."""


class Pipeline(Configurable):
    """The autograde steps, in order, as nbgrader's ``Autograde`` converter lists them: a class or
    its dotted name each."""

    sanitize_preprocessors = List(SANITIZE, help="Steps before the notebook runs.").tag(config=True)
    autograde_preprocessors = List(GRADE, help="Steps that run and judge the notebook.").tag(config=True)


def steps(config: Any) -> list[type]:
    """The preprocessor classes ``config`` lists (``c.Pipeline.*_preprocessors``), in order.

    >>> from traitlets.config import Config
    >>> [step.__name__ for step in steps(Config())][:4]
    ['ClearOutput', 'RestoreCells', 'DeduplicateIds', 'SandboxedExecute']
    """
    pipeline = Pipeline(config=config)
    return checked([*pipeline.sanitize_preprocessors, *pipeline.autograde_preprocessors])


def checked(listed: list[Any]) -> list[type]:
    """The listed steps as classes, or a :class:`PipelineError` when they would run the notebook
    anywhere but in the sandbox, more than once, or leave its markup in the graded notebook.

    >>> try:
    ...     checked(["nbgrader.preprocessors.Execute"])
    ... except PipelineError as error:
    ...     print(error)
    c.Pipeline: Execute would run the notebook outside the sandbox; only SandboxedExecute runs it
    """
    from nbconvert.preprocessors import ExecutePreprocessor
    from traitlets.utils.importstring import import_item

    from roofline_grading.autograde.steps.plain_outputs import PlainOutputs
    from roofline_grading.autograde.steps.sandboxed_execute import SandboxedExecute

    try:
        classes = [import_item(step) if isinstance(step, str) else step for step in listed]
    except ImportError as error:
        raise PipelineError(f"c.Pipeline: a step cannot be imported: {error}") from None
    for step in classes:
        if issubclass(step, ExecutePreprocessor) and step is not SandboxedExecute:
            raise PipelineError(
                f"c.Pipeline: {step.__name__} would run the notebook outside the sandbox; only "
                "SandboxedExecute runs it"
            )
    runs = [i for i, step in enumerate(classes) if step is SandboxedExecute]
    inert = [i for i, step in enumerate(classes) if step is PlainOutputs]
    if len(runs) != 1 or not inert or inert[-1] < runs[0]:
        raise PipelineError(
            f"c.Pipeline: the steps must run the notebook once, with {_RUNS}, and then keep only "
            f"inert content, with {_INERT}"
        )
    return classes


def autograde(nb: Any, structure: NotebookStructure, run: Run, config: Any) -> Any:
    """Grade the notebook ``structure`` describes (an nbformat notebook, changed in place and returned)."""
    name = structure.name
    resources: dict[str, Any] = {
        "unique_key": name,
        "metadata": {"name": name, "path": str(run.run_root)},
        "nbgrader": {
            "student": run.student,
            "assignment": run.settings.assignment,
            "notebook": name,
            "db_url": "",
        },
    }
    if structure.kernelspec:  # nbgrader's OverwriteKernelspec, from the gradebook's copy
        nb.metadata["kernelspec"] = dict(structure.kernelspec)
    for step in steps(config):
        nb, resources = step(config=config)(nb, resources)
    return nb


def scores(nb: Any, structure: NotebookStructure) -> tuple[dict[str, GradeResult], dict[str, str | None]]:
    """Each graded part's score and each answer cell's automatic comment, by nbgrader's rules;
    a part of ``structure`` missing from ``nb`` scores 0, for a human to look at."""
    from nbgrader import utils

    grades: dict[str, GradeResult] = {}
    comments: dict[str, str | None] = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if not grade_id:
            continue
        if utils.is_grade(cell):
            auto, maximum = utils.determine_grade(cell, _LOG)
            auto_score = None if auto is None else float(auto)
            grades[grade_id] = GradeResult(auto_score, float(maximum), auto_score is None)
        if utils.is_solution(cell) or utils.is_task(cell):
            checksum = meta.get("checksum")
            unchanged = checksum is not None and checksum == utils.compute_checksum(cell)
            comments[grade_id] = NO_RESPONSE if unchanged and not utils.is_task(cell) else None
    for known in structure.cells:
        if (known.grade or known.task) and known.grade_id not in grades:
            grades[known.grade_id] = GradeResult(None if known.task else 0.0, known.points or 0.0, True)
    return grades, comments
