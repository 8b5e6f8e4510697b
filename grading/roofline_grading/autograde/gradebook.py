"""The course's nbgrader setup and gradebook, as the grading driver uses them.

- :func:`open_course` reads ``nbgrader_config.py`` and finds the course's directories and its
  gradebook: a SQLite file (nbgrader's default) or, where instructors share it, a PostgreSQL
  server (``c.CourseDirectory.db_url = "postgresql+psycopg://..."``, any SQLAlchemy URL nbgrader takes).
- :func:`read_structures` reads each notebook's known cells from the gradebook (what
  ``nbgrader generate_assignment`` stored), in the released order.
- :func:`merge` writes one student's results into the course's gradebook through nbgrader's
  own API, with the late penalty nbgrader's ``AssignLatePenalties`` would give
  (:func:`late_penalties`). Only the driver's process calls it, one student at a time; the
  workers never open the gradebook, and a student's kernel never sees it.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SAWarning

from roofline_grading.autograde.results import Lateness, StudentResult
from roofline_grading.autograde.structure import NotebookStructure, SourceCell
from roofline_grading.cells import HIDDEN_TESTS
from roofline_grading.i18n import LANGUAGES

__all__ = [
    "Course",
    "CourseError",
    "late_penalties",
    "merge",
    "open_course",
    "opened",
    "read_structures",
]



class CourseError(RuntimeError):
    """The course directory is not ready to grade (the message says what to do)."""


@dataclass(frozen=True)
class Course:
    """Where an nbgrader course keeps things."""

    root: Path
    course_id: str
    config_file: Path | None
    submitted: Path
    autograded: Path
    release: Path
    gradebook: Path | None
    """The SQLite gradebook's file (None: the gradebook is on a database server, ``db_url``)."""
    source: Path | None = None
    """Where the instructor's versions are (``solutions/``); translated ones in ``<source>/<language>/``."""
    server_url: str | None = None
    """The gradebook's SQLAlchemy URL when it is not a SQLite file (``postgresql+psycopg://...``)."""

    @property
    def db_url(self) -> str:
        return self.server_url or f"sqlite:///{self.gradebook}"

    def has_gradebook(self) -> bool:
        """Whether there is a gradebook yet (on a server: assumed; nbgrader creates its tables)."""
        return self.gradebook is None or self.gradebook.is_file()

    def submitted_dir(self, student: str, assignment: str) -> Path:
        return self.submitted / student / assignment

    def autograded_dir(self, student: str, assignment: str) -> Path:
        return self.autograded / student / assignment

    def students(self, assignment: str) -> list[str]:
        """Every student with a folder for ``assignment`` under ``submitted/``, sorted."""
        if not self.submitted.is_dir():
            return []
        return sorted(p.name for p in self.submitted.iterdir() if (p / assignment).is_dir())


def load_config(root: Path) -> Any:
    """The course's ``nbgrader_config.py`` as a traitlets ``Config`` (empty if there is none)."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    if not (root / "nbgrader_config.py").is_file():
        return Config()
    return PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()


def open_course(root: Path) -> Course:
    """The course in ``root`` as its ``nbgrader_config.py`` describes it."""
    from nbgrader.coursedir import CourseDirectory

    root = root.resolve()
    if not root.is_dir():
        raise CourseError(f"no course directory {root}")
    config = load_config(root)
    config.CourseDirectory.root = str(root)
    directory = CourseDirectory(config=config)

    def path(name: str) -> Path:
        return root / str(getattr(directory, f"{name}_directory"))

    db_url = str(directory.db_url)
    sqlite = db_url.startswith("sqlite:///")
    if not sqlite and not db_url.startswith("postgresql"):
        raise CourseError(
            f"the gradebook's db_url {db_url.split(':')[0]}:... is not one the course supports: a SQLite "
            "file (sqlite:///path, the default) or a PostgreSQL server (postgresql+psycopg://...)"
        )
    config_file = root / "nbgrader_config.py"
    return Course(
        root=root,
        course_id=str(directory.course_id),
        config_file=config_file if config_file.is_file() else None,
        submitted=path("submitted"),
        autograded=path("autograded"),
        release=path("release"),
        gradebook=Path(db_url.removeprefix("sqlite:///")) if sqlite else None,
        source=path("source"),
        server_url=None if sqlite else db_url,
    )


def read_structures(course: Course, assignment: str) -> dict[str, NotebookStructure]:
    """Each notebook of ``assignment`` with its known cells, from the gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    if not course.has_gradebook():
        raise CourseError(
            f"no gradebook at {course.gradebook}: generate the assignment first "
            f"(make exercises, i.e. nbgrader generate_assignment {assignment})"
        )
    structures = {}
    with Gradebook(course.db_url, course.course_id) as gb:
        try:
            notebooks = gb.find_assignment(assignment).notebooks
        except MissingEntry:
            raise CourseError(
                f"the gradebook has no assignment {assignment!r}: generate it first "
                f"(make exercises, i.e. nbgrader generate_assignment {assignment})"
            ) from None
        for notebook in notebooks:
            released = _released_sources(course.release / assignment / f"{notebook.name}.ipynb")
            grade = {c.name: c for c in notebook.grade_cells}
            task = {c.name: c for c in notebook.task_cells}
            solution = {c.name for c in notebook.solution_cells}
            cells = []
            for source in notebook.source_cells:
                graded = grade.get(source.name) or task.get(source.name)
                cells.append(
                    SourceCell(
                        grade_id=source.name,
                        cell_type=source.cell_type,
                        locked=bool(source.locked),
                        grade=source.name in grade,
                        solution=source.name in solution,
                        task=source.name in task,
                        points=float(graded.max_score) if graded is not None else None,
                        source=source.source or "",
                        released=released.get(source.name, HIDDEN_TESTS.sub("", source.source or "")),
                        checksum=source.checksum,
                    )
                )
            order = {grade_id: i for i, grade_id in enumerate(released)}
            cells.sort(key=lambda c: order.get(c.grade_id, len(order)))
            kernelspec = json.loads(notebook.kernelspec) if notebook.kernelspec else None
            releases = _translated_releases(course, assignment, notebook.name)
            cells = [_with_translations(cell, releases) for cell in cells]
            structures[notebook.name] = NotebookStructure(notebook.name, tuple(cells), kernelspec)
    if not structures:
        raise CourseError(f"assignment {assignment!r} has no notebooks in the gradebook")
    return dict(sorted(structures.items()))


Release = tuple[dict[str, tuple[str, str | None]], dict[str, tuple[str, str | None]]]
"""A translated release of one notebook: its instructor version's and its student version's cells."""


def _translated_releases(course: Course, assignment: str, notebook: str) -> dict[str, Release]:
    """Each translated release of ``notebook`` (``<source>/<language>/`` and ``<release>/<language>/``,
    as ``make exercises`` writes them), read once, by language."""
    if course.source is None:
        return {}
    found = {}
    for language in LANGUAGES[1:]:
        sources = _cells(course.source / language / assignment / f"{notebook}.ipynb")
        released = _cells(course.release / language / assignment / f"{notebook}.ipynb")
        if sources and released:
            found[language] = (sources, released)
    return found


def _with_translations(cell: SourceCell, releases: dict[str, Release]) -> SourceCell:
    """``cell`` with its sources in each translated release that has it."""
    translations: dict[str, dict[str, Any]] = {}
    for language, (sources, released) in releases.items():
        if cell.grade_id in sources and cell.grade_id in released:
            source, _ = sources[cell.grade_id]
            text, checksum = released[cell.grade_id]
            translations[language] = {"source": source, "released": text, "checksum": checksum}
    return replace(cell, translations=translations) if translations else cell


def _cells(path: Path) -> dict[str, tuple[str, str | None]]:
    """grade id -> (source, checksum) of each nbgrader cell of the notebook at ``path`` (none if absent)."""
    import nbformat

    if not path.is_file():
        return {}
    found = {}
    for cell in nbformat.read(path, as_version=4).cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id"):
            found[meta["grade_id"]] = (cell.source, meta.get("checksum"))
    return found


def _released_sources(path: Path) -> dict[str, str]:
    """grade id -> source in the released notebook, in its order (empty if there is none)."""
    return {grade_id: source for grade_id, (source, _) in _cells(path).items()}


@contextmanager
def opened(course: Course) -> Iterator[Any]:
    """The course's gradebook (nbgrader's ``Gradebook``), open for a whole run of :func:`merge`."""
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url, course.course_id) as gb:
        yield gb


def late_penalties(course: Course) -> Any:
    """nbgrader's ``AssignLatePenalties`` as the course configures it (its late-submission plugin)."""
    from nbgrader.preprocessors import AssignLatePenalties

    step = AssignLatePenalties(config=load_config(course.root))
    step.init_plugin()
    return step


def merge(
    course: Course, assignment: str, result: StudentResult, gb: Any = None, late: Any = None
) -> Lateness | None:
    """Write one student's results into the course's gradebook (``gb``, if open already), with
    the late penalty ``late`` (:func:`late_penalties`) gives; return how late the submission was
    and the points the penalty took (None: on time, or the assignment has no due date). A manual
    score a grader gave earlier stays (and the part is marked for review, as nbgrader does when it
    regrades)."""
    if gb is None:
        with opened(course) as fresh:
            return merge(course, assignment, result, fresh, late)
    try:
        return _merge(gb, assignment, result, late or late_penalties(course))
    except Exception:
        gb.db.rollback()  # this student's changes only; the gradebook stays usable for the next
        raise


def _merge(gb: Any, assignment: str, result: StudentResult, late: Any) -> Lateness | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)  # nbgrader's add_submission, under SQLAlchemy 2
        gb.update_or_create_student(result.student)
        extra = {"timestamp": result.timestamp} if result.timestamp is not None else {}
        submission = gb.update_or_create_submission(assignment, result.student, **extra)
        seconds_late = submission.total_seconds_late
        notebooks = _submitted_notebooks(gb, submission)
        for notebook in notebooks:
            mine = result.notebook(notebook.name)
            for grade in notebook.grades:
                score = mine.grades.get(grade.name) if mine is not None else None
                grade.auto_score = score.auto_score if score is not None else 0.0
                manual = score.needs_manual_grade if score is not None else False
                grade.needs_manual_grade = manual or grade.manual_score is not None
            for comment in notebook.comments:
                comment.auto_comment = mine.comments.get(comment.name) if mine is not None else None
            if mine is not None and mine.flagged:
                notebook.flagged = True
            notebook.late_submission_penalty = None
        if seconds_late > 0:
            gb.db.flush()
            penalty_of = late.plugin_inst.late_submission_penalty
            for notebook in notebooks:
                gb.db.refresh(notebook, ["score"])  # the score these grades make: a penalty is taken from it
                penalty = penalty_of(result.student, notebook.score, seconds_late)
                if penalty is not None:  # as nbgrader: not below 0, not above the notebook's score
                    notebook.late_submission_penalty = min(max(float(penalty), 0.0), notebook.score)
        gb.db.commit()
    if seconds_late <= 0:
        return None
    taken = sum(n.late_submission_penalty or 0.0 for n in notebooks)
    return Lateness(submission.timestamp, submission.duedate, float(taken))


def _submitted_notebooks(gb: Any, submission: Any) -> list[Any]:
    """The submission's notebooks with their grades, comments and the cells naming them, in three
    queries: read one attribute at a time, each grade's and comment's cell was a query of its own
    (hundreds a student, most of the driver's time on a class of many notebooks)."""
    from nbgrader.api import Comment, Grade, SubmittedNotebook
    from sqlalchemy.orm import joinedload, selectinload

    query = gb.db.query(SubmittedNotebook).filter(SubmittedNotebook.assignment_id == submission.id)
    return list(
        query.options(
            joinedload(SubmittedNotebook.notebook),
            selectinload(SubmittedNotebook.grades).joinedload(Grade.cell),
            selectinload(SubmittedNotebook.comments).joinedload(Comment.cell),
        )
        .populate_existing()
        .all()
    )
