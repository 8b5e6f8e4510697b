"""One student's grading as it travels to a worker, and what comes back.

A :class:`Job` holds what the worker needs of one submission, as bytes (no shared filesystem):
each notebook and the ``timestamp.txt`` the driver found in ``submitted/<student>/<assignment>/``,
and the names and sizes of everything else there (the worker only reports those). A
:class:`Portable` holds what every job of a run shares: the run's :class:`Settings`, the course's
``nbgrader_config.py`` as text and how to confine each kernel, which a worker on another machine
turns into settings of its own (:mod:`roofline_grading.autograde.machine`). The seed of each
notebook's hidden inputs travels with them: it is drawn on the worker from the run's secret and
the student's code (:mod:`roofline_grading.autograde.inputs`), so it is the same on any machine.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "ex1.ipynb").write_text("{}")
>>> _ = (folder / "notes.txt").write_text("my notes")
>>> job = read_job(folder, "alice", {"ex1.ipynb", "timestamp.txt"})
>>> job.entries["ex1.ipynb"], job.entries["notes.txt"]
(Entry(kind='file', data=b'{}', size=2), Entry(kind='file', data=b'', size=8))
>>> job.materialize(folder / "copy")
>>> (folder / "copy" / "ex1.ipynb").read_text(), (folder / "copy" / "notes.txt").stat().st_size
('{}', 8)
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roofline_grading.autograde.precheck import MAX_BYTES
from roofline_grading.autograde.results import GradeResult, NotebookResult, StudentResult
from roofline_grading.autograde.settings import Settings

__all__ = ["Entry", "Graded", "Job", "Portable", "not_graded", "read_job"]


@dataclass(frozen=True)
class Entry:
    """One entry of a submitted folder: ``file`` (its bytes when the worker reads them, else
    only its size), ``link`` or ``special`` (a FIFO, a socket, a device: never read)."""

    kind: str
    data: bytes = b""
    size: int = 0


@dataclass(frozen=True)
class Job:
    """One student's submission, as bytes: relative path -> :class:`Entry`."""

    student: str
    entries: dict[str, Entry]

    def materialize(self, directory: Path) -> None:
        """Write the submission into ``directory`` as the worker reads it: a file the worker does not
        read (too large, or not graded) becomes a sparse file of its size, a link a link to nowhere,
        a special file a FIFO; the worker then says of each what it says of the original."""
        directory.mkdir(parents=True, exist_ok=True)
        for relative, entry in sorted(self.entries.items()):
            path = directory / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if entry.kind == "file":
                with path.open("wb") as handle:
                    handle.write(entry.data)
                    handle.truncate(entry.size)
            elif entry.kind == "link":
                path.symlink_to("/nonexistent/roofline-submitted-link")
            else:
                os.mkfifo(path, 0o600)


def read_job(directory: Path, student: str, expected: set[str]) -> Job:
    """The submission in ``directory``: the bytes of the ``expected`` files (relative paths) that
    the worker may read, the size of every other file. Nothing is read through a link or from a
    special file."""
    entries = {}
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory).as_posix()
        info = path.lstat()
        if stat.S_ISDIR(info.st_mode):
            continue
        if stat.S_ISLNK(info.st_mode):
            entries[relative] = Entry("link")
        elif not stat.S_ISREG(info.st_mode):
            entries[relative] = Entry("special")
        elif relative in expected and info.st_size <= MAX_BYTES:
            entries[relative] = Entry("file", path.read_bytes(), info.st_size)
        else:
            entries[relative] = Entry("file", size=info.st_size)
    return Job(student, entries)


@dataclass(frozen=True)
class Portable:
    """What every job of a run shares, as it travels to another machine: the driver's settings
    (their paths mean something on the driver's machine only), the course's ``nbgrader_config.py``
    (None: the course has none), and how to confine each kernel there."""

    settings: Settings
    config_text: str | None
    sandbox_mode: str
    memory_bytes: int
    processes: int
    protected: tuple[str, ...]
    salt: str
    run_id: str
    kernels: str = "cold"
    """How each worker starts its kernels (``warm``, ``auto``: warm where it can; ``cold``)."""
    code: tuple[tuple[str, str], ...] = ()
    """The driver's grading code (:func:`roofline_grading.autograde.grading_code.identity`)."""


@dataclass
class Graded:
    """What comes back for one student: the result, why earlier attempts were lost (each a
    sentence: empty when it was graded at the first attempt) and where it was graded."""

    result: StudentResult
    retries: list[str] = field(default_factory=list)
    worker: str = ""


def not_graded(settings: Settings, student: str, why: str) -> StudentResult:
    """A student the workers could not grade: every part 0, for a human to look at."""
    notebooks = []
    for name, data in settings.structures.items():
        cells: list[dict[str, Any]] = data["cells"]
        points = {c["grade_id"]: c["points"] or 0.0 for c in cells if c["grade"] or c["task"]}
        result = NotebookResult(name, "failed")
        result.grades = {gid: GradeResult(0.0, p, True) for gid, p in points.items()}
        notebooks.append(result)
    return StudentResult(student, notebooks, problems=[why])
