"""Who submitted which notebook, read from a zip entry's path with the course's own pattern.

The course's ``c.FileNameCollectorPlugin.named_regexp`` (``nbgrader_config.py``) is applied by
nbgrader's own ``FileNameCollectorPlugin`` (with its ``valid_ext``) to the path
``nbgrader zip_collect`` would have extracted the entry to,
``<course>/downloaded/<assignment>/extracted/<zip name>/<path in the zip>``, so a pattern written
for ``zip_collect`` reads the same names here. The pattern must give the groups ``student_id`` and
``file_id``; it may give

- ``timestamp``: the submission's time, read as nbgrader reads it (``parse_utc``: a time without a
  zone is UTC);
- ``late``: non-empty when the LMS marks the upload late. Without this group, the marker Canvas
  writes, ``_late_`` (or ``_LATE_``) between the student's name and the notebook's, counts.

The notebook must be one the assignment released (as ``zip_collect --strict``). A file name ending
in ``-<n>`` before its extension is the LMS's ``n``-th re-upload of the notebook (Canvas names a
file uploaded again under the same name ``name-1.ipynb``, then ``name-2.ipynb``). The student id
is filed normalised (:func:`roofline_grading.students.canonical`: ``ALICE`` and ``\uff41lice`` are
``alice``); the upload keeps the spelling the LMS gave (``spelling``), so that collect can refuse a
second spelling of one id.

>>> import tempfile, logging
>>> from traitlets.config import Config
>>> config = Config()
>>> config.FileNameCollectorPlugin.named_regexp = (
...     r".*/(?P<student_id>[a-z]+)_(?:late_)?(?:[0-9]+_)*(?P<file_id>ex1)(?:-[0-9]+)?\\.ipynb")
>>> names = Names(config, Path("/course"), "a", ["ex1.ipynb"], logging.getLogger("doctest"))
>>> names.read("lms.zip", "subs/dave_late_1004_2004_ex1-2.ipynb")
Upload(student='dave', notebook='ex1.ipynb', time=None, late=True, resubmission=2, note=None, spelling='dave')
>>> names.read("lms.zip", "subs/dave_ex9.ipynb")
"its name does not match the course's pattern (c.FileNameCollectorPlugin.named_regexp)"
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from roofline_grading.autograde.archives import shown
from roofline_grading.students import canonical

__all__ = ["EXTRACTED", "Names", "PatternError", "Upload", "student_problem"]

EXTRACTED = "downloaded/{assignment}/extracted"
"""Where ``nbgrader zip_collect`` would extract the zips (relative to the course): the pattern is
matched against the entry's path as if it had been extracted there."""

_LATE = re.compile(r"_late_", re.IGNORECASE)


class PatternError(RuntimeError):
    """The course's pattern cannot be used (the message says what to change)."""


@dataclass(frozen=True)
class Upload:
    """One notebook one student uploaded, as the LMS names it."""

    student: str
    notebook: str
    """The released notebook it is, e.g. ``ex1_int8_matmul.ipynb``."""
    time: datetime | None
    """When it was submitted (UTC), if the name says (the pattern's ``timestamp`` group)."""
    late: bool
    """Whether the LMS marks it late."""
    resubmission: int
    """The LMS's ``-<n>`` re-upload number (0: the first upload)."""
    note: str | None = None
    """Something to tell about it (a ``timestamp`` that is not a time)."""
    spelling: str = ""
    """The student id as the LMS spelled it (``student`` is its normalised form)."""


def student_problem(student: str) -> str | None:
    """Why ``student`` cannot name the student's folder under ``submitted/`` (None if it can).

    >>> student_problem("j.doe-3"), student_problem("..")
    (None, "the student id '..' cannot name a folder")
    """
    if (
        not student
        or student != student.strip()
        or student.startswith(".")
        or any(c in student for c in "/\\")
        or not student.isprintable()
    ):
        return f"the student id {shown(repr(student))} cannot name a folder"
    return None


class Names:
    """The course's pattern, ready to read entries' paths."""

    def __init__(self, config: Any, root: Path, assignment: str, released: list[str], log: logging.Logger):
        from nbgrader.plugins.zipcollect import FileNameCollectorPlugin

        self.plugin = FileNameCollectorPlugin(config=config, log=log)
        pattern = str(self.plugin.named_regexp)
        if not pattern:
            raise PatternError(
                "nbgrader_config.py sets no c.FileNameCollectorPlugin.named_regexp: the pattern that "
                "reads the student and the notebook from each file's path (see the instructor's guide)"
            )
        try:
            groups = re.compile(pattern).groupindex
        except re.error as error:
            raise PatternError(
                f"c.FileNameCollectorPlugin.named_regexp is not a regular expression: {error}"
            ) from None
        missing = [g for g in ("student_id", "file_id") if g not in groups]
        if missing:
            raise PatternError(
                f"c.FileNameCollectorPlugin.named_regexp has no group {' or '.join(missing)}: "
                "it must give (?P<student_id>...) and (?P<file_id>...)"
            )
        self.has_late_group = "late" in groups
        self.assignment = assignment
        self.released = set(released)
        self.base = (root / EXTRACTED.format(assignment=assignment)).as_posix()

    def read(self, archive: str, path: str) -> Upload | str:
        """The upload the entry ``path`` of the zip named ``archive`` is, or why it is none."""
        name = path.rsplit("/", 1)[-1]
        if name.startswith("._") or path.startswith("__MACOSX/") or "/__MACOSX/" in path:
            return "macOS metadata (__MACOSX, ._ files), not a submission"
        extension = os.path.splitext(name)[1]
        if extension == ".zip":
            return "a zip inside the zip: extract it and name it on the command line"
        if extension not in self.plugin.valid_ext:
            return f"not a notebook ({', '.join(self.plugin.valid_ext)})"
        groups = self.plugin.collect(f"{self.base}/{os.path.splitext(archive)[0]}/{path}")
        if not groups:
            return "its name does not match the course's pattern (c.FileNameCollectorPlugin.named_regexp)"
        student, file_id = groups.get("student_id"), groups.get("file_id")
        if not isinstance(student, str) or not isinstance(file_id, str):
            return "the course's pattern gave it no student_id or no file_id"
        notebook = os.path.splitext(file_id)[0] + extension
        if notebook not in self.released:
            return f"{shown(notebook)} is not a notebook of {self.assignment}"
        problem = student_problem(student) or student_problem(canonical(student))
        if problem:
            return problem
        stem = os.path.splitext(os.path.basename(notebook))[0]
        time, note = _time(groups.get("timestamp"))
        late = bool(groups.get("late")) if self.has_late_group else _late_marker(name, stem)
        resubmission = _resubmission(name, stem, extension)
        return Upload(canonical(student), notebook, time, late, resubmission, note, spelling=student)


def _time(text: Any) -> tuple[datetime | None, str | None]:
    """The pattern's ``timestamp`` as nbgrader reads it, or why it is none."""
    from nbgrader.utils import parse_utc

    if not isinstance(text, str) or not text.strip():
        return None, None
    try:
        return parse_utc(text.strip()), None
    except (ValueError, OverflowError):
        return None, f"its timestamp {shown(repr(text))} is not a time: ignored"


def _late_marker(name: str, stem: str) -> bool:
    """Whether the file name carries Canvas's late marker before the notebook's name.

    >>> _late_marker("smithjane_LATE_12_34_ex1.ipynb", "ex1")
    True
    >>> _late_marker("bob_12_ex1_late_.ipynb", "ex1_late_")
    False
    """
    at = name.rfind(stem)
    return at > 0 and bool(_LATE.search(name[:at]))


def _resubmission(name: str, stem: str, extension: str) -> int:
    """The LMS's re-upload number: ``n`` when the name ends in ``<notebook>-<n><extension>``.

    >>> _resubmission("a_ex1-2.ipynb", "ex1", ".ipynb"), _resubmission("a_lab-1.ipynb", "lab-1", ".ipynb")
    (2, 0)
    """
    match = re.search(rf"{re.escape(stem)}-([0-9]+){re.escape(extension)}$", name)
    return int(match.group(1)) if match else 0
