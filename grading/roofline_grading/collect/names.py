"""Who submitted which notebook, read from a zip entry's path by the course's LMS plugin.

The plugin is the class ``c.ZipCollectApp.collector_plugin`` names in ``nbgrader_config.py``
(nbgrader's own seam; :mod:`roofline_grading.collect.lms` has Canvas, Moodle and plain names,
nbgrader's ``FileNameCollectorPlugin`` is the default). Its ``collect`` is given the path
``nbgrader zip_collect`` would have extracted the entry to,
``<course>/downloaded/<assignment>/extracted/<zip name>/<path in the zip>``, so a plugin written
for ``zip_collect`` reads the same names here. It must give ``student_id`` and ``file_id``; it
may give

- ``timestamp``: the submission's time, read as nbgrader reads it (``parse_utc``: a time without a
  zone is UTC);
- ``late``: True when the LMS marks the upload late;
- ``resubmission``: the LMS's number for the ``n``-th re-upload of the notebook (0: the first).

The notebook must be one the assignment released (as ``zip_collect --strict``). The student id
is filed normalised (:func:`roofline_grading.students.canonical`: ``ALICE`` and ``\uff41lice`` are
``alice``); the upload keeps the spelling the LMS gave (``spelling``), so that collect can refuse a
second spelling of one id.

>>> import logging
>>> from traitlets.config import Config
>>> config = Config()
>>> config.ZipCollectApp.collector_plugin = "roofline_grading.collect.lms.Canvas"
>>> names = Names(config, Path("/course"), "a", ["ex1_a.ipynb"], logging.getLogger("doctest"))
>>> upload = names.read("lms.zip", "subs/dave_late_1004_2004_ex1_a-2.ipynb")
>>> upload.student, upload.notebook, upload.late, upload.resubmission
('dave', 'ex1_a.ipynb', True, 2)
>>> print(names.read("lms.zip", "subs/dave_ex9.ipynb"))
its name is not one Canvas gives (c.ZipCollectApp.collector_plugin, c.Canvas.named_regexp)
"""

from __future__ import annotations

import logging
import os
import re
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from roofline_grading.collect.archives import shown
from roofline_grading.students import canonical

__all__ = ["EXTRACTED", "Names", "PatternError", "Upload", "plugin_class", "student_problem"]

EXTRACTED = "downloaded/{assignment}/extracted"
"""Where ``nbgrader zip_collect`` would extract the zips (relative to the course): the pattern is
matched against the entry's path as if it had been extracted there."""

class PatternError(RuntimeError):
    """The course's LMS plugin or its pattern cannot be used (the message says what to change)."""


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
    """The course's LMS plugin, ready to read entries' paths."""

    def __init__(self, config: Any, root: Path, assignment: str, released: list[str], log: logging.Logger):
        self.plugin_class = plugin_class(config, root)
        self.plugin = self.plugin_class(config=config, log=log)
        self.said = _settings(self.plugin)
        self.valid_ext = [str(e) for e in getattr(self.plugin, "valid_ext", [".ipynb"])]
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
        if extension not in self.valid_ext:
            return f"not a notebook ({', '.join(self.valid_ext)})"
        found = self.plugin.collect(f"{self.base}/{os.path.splitext(archive)[0]}/{path}")
        if not found:
            return f"its name is not one {self.plugin_class.__name__} gives ({self.said})"
        student, file_id = found.get("student_id"), found.get("file_id")
        if not isinstance(student, str) or not isinstance(file_id, str):
            return f"{self.plugin_class.__name__} gave it no student_id or no file_id"
        notebook = os.path.splitext(file_id)[0] + extension
        if notebook not in self.released:
            return f"{shown(notebook)} is not a notebook of {self.assignment}"
        problem = student_problem(student) or student_problem(canonical(student))
        if problem:
            return problem
        time, note = _time(found.get("timestamp"))
        late, again = bool(found.get("late")), found.get("resubmission")
        number = again if isinstance(again, int) and again > 0 else 0
        return Upload(canonical(student), notebook, time, late, number, note, spelling=student)


def plugin_class(config: Any, root: Path | None = None) -> type[Any]:
    """The class ``c.ZipCollectApp.collector_plugin`` names, as nbgrader's ``zip_collect`` reads it
    (nbgrader's ``FileNameCollectorPlugin`` when the course names none); a module in the course
    directory ``root``, beside ``nbgrader_config.py``, can hold it (nbgrader puts that directory
    on the path too).

    >>> from traitlets.config import Config
    >>> config = Config()
    >>> config.ZipCollectApp.collector_plugin = "roofline_grading.collect.lms.Moodle"
    >>> plugin_class(config).__name__
    'Moodle'
    >>> config.ZipCollectApp.collector_plugin = "lms.Blackboard"
    >>> try:
    ...     plugin_class(config)
    ... except PatternError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    c.ZipCollectApp.collector_plugin = 'lms.Blackboard' cannot be used: it cannot be imported
    (roofline_grading.collect.lms has Canvas, Moodle and PlainNames)
    """
    from nbgrader.plugins.base import BasePlugin
    from nbgrader.plugins.zipcollect import FileNameCollectorPlugin
    from traitlets import HasTraits, TraitError, Type

    class Seam(HasTraits):  # the trait as nbgrader's ZipCollectApp declares it, without the app
        collector_plugin = Type(FileNameCollectorPlugin, klass=BasePlugin)

    chosen = config.ZipCollectApp.get("collector_plugin", FileNameCollectorPlugin)
    path = [str(root)] if root is not None else []
    sys.path[:0] = path
    try:
        return Seam(collector_plugin=chosen).collector_plugin  # type: ignore[no-any-return]
    except TraitError as error:
        why = "it cannot be imported" if "imported" in str(error) else "it is not nbgrader's kind of plugin"
        raise PatternError(
            f"c.ZipCollectApp.collector_plugin = {chosen!r} cannot be used: {why} "
            "(roofline_grading.collect.lms has Canvas, Moodle and PlainNames)"
        ) from None
    finally:
        del sys.path[: len(path)]


def _settings(plugin: Any) -> str:
    """Where the plugin's naming is set, for the line of an entry it does not read; the plugin's
    pattern, checked, when it has one."""
    name = type(plugin).__name__
    said = f"c.ZipCollectApp.collector_plugin, c.{name}.named_regexp"
    pattern = getattr(plugin, "named_regexp", None)
    if pattern is None:
        return "c.ZipCollectApp.collector_plugin"
    if not pattern:
        raise PatternError(
            f"{name} has no pattern: set c.{name}.named_regexp in nbgrader_config.py, or choose a plugin "
            "that knows your LMS's names, c.ZipCollectApp.collector_plugin (see the instructor's guide)"
        )
    try:
        groups = re.compile(str(pattern)).groupindex
    except re.error as error:
        raise PatternError(f"c.{name}.named_regexp is not a regular expression: {error}") from None
    missing = [g for g in ("student_id", "file_id") if g not in groups]
    if missing:
        raise PatternError(
            f"c.{name}.named_regexp has no group {' or '.join(missing)}: "
            "it must give (?P<student_id>...) and (?P<file_id>...)"
        )
    return said


def _time(text: Any) -> tuple[datetime | None, str | None]:
    """The pattern's ``timestamp`` as nbgrader reads it, or why it is none."""
    from nbgrader.utils import parse_utc

    if not isinstance(text, str) or not text.strip():
        return None, None
    try:
        return parse_utc(text.strip()), None
    except (ValueError, OverflowError):
        return None, f"its timestamp {shown(repr(text))} is not a time: ignored"
