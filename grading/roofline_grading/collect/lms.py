"""How each learning-management system names the files of its "download all submissions" zip.

Each LMS is one class: a collector plugin of nbgrader's own kind (a subclass of nbgrader's
``FileNameCollectorPlugin``), chosen in the course's ``nbgrader_config.py`` by the trait
``nbgrader zip_collect`` itself reads, so one line picks an LMS for both:

    c.ZipCollectApp.collector_plugin = "roofline_grading.collect.lms.Moodle"

A plugin's ``collect(path)`` is given the path ``nbgrader zip_collect`` would have extracted the
entry to and returns nbgrader's dictionary (``student_id``, ``file_id``, optionally
``timestamp``), or None for a file that is no submission. ``make collect`` also reads two keys
that nbgrader ignores, when a plugin gives them: ``late`` (True when the LMS marks the upload
late) and ``resubmission`` (the LMS's number for a file uploaded again under one name; 0 for the
first upload). A plugin's pattern can be changed without a class, by
``c.<Plugin>.named_regexp`` (or ``c.FileNameCollectorPlugin.named_regexp``, which every plugin
here inherits).

>>> import logging
>>> canvas = Canvas(log=logging.getLogger("doctest"))
>>> found = canvas.collect("/c/x/smithjane_late_123_456_ex1_int8_matmul-2.ipynb")
>>> found["student_id"], found["file_id"], found["late"], found["resubmission"]
('smithjane', 'ex1_int8_matmul', True, 2)
>>> Moodle().collect("/c/x/Jane Smith_1234567_assignsubmission_file_/ex1_int8_matmul.ipynb")["student_id"]
'Jane Smith'
>>> PlainNames().collect("/c/x/bob_ex2_int8_weights.ipynb")["file_id"]
'ex2_int8_weights'
"""

from __future__ import annotations

import os
import re
from textwrap import dedent
from typing import Any

from nbgrader.plugins.zipcollect import FileNameCollectorPlugin
from traitlets import Enum, Unicode

__all__ = ["CANVAS", "MOODLE", "NOTEBOOK", "PLAIN", "STUDENT", "Canvas", "Moodle", "PlainNames"]

NOTEBOOK = r"(?P<file_id>ex[0-9]+_[A-Za-z0-9_]+?)"
"""The course's notebook names, ``ex<n>_<words>`` (which notebooks were released is checked after)."""
STUDENT = r"(?P<student_id>[^\W_](?:[^\W_]|[.\-])*)"
"""A student id in a file name: letters of any script, digits, ``.`` and ``-``; no ``_``, which
separates the name's fields."""

PLAIN = rf"^.*/{STUDENT}_{NOTEBOOK}\.ipynb$"
CANVAS = rf"^.*/{STUDENT}_(?P<late>(?i:late_))?(?:[0-9]+_)*{NOTEBOOK}(?:-[0-9]+)?\.ipynb$"
MOODLE = (
    r"^.*/(?P<student_id>[^/_]+)_(?P<participant>[0-9]+)_assignsubmission_file(?:_?/(?:.*/)?|_)"
    rf"{NOTEBOOK}(?:-[0-9]+)?\.ipynb$"
)

_LATE = re.compile(r"_late_", re.IGNORECASE)


class PlainNames(FileNameCollectorPlugin):  # type: ignore[misc]  # nbgrader is untyped
    """``<student>_<notebook>.ipynb`` at any depth: a zip you make yourself."""

    named_regexp = Unicode(PLAIN, help="The pattern of a plain file name.").tag(config=True)


class Canvas(FileNameCollectorPlugin):  # type: ignore[misc]
    """Canvas's "Download Submissions": ``<lastfirst>_[late_]<user id>_<file id>_<name>[-<n>].ipynb``.

    Canvas (``lib/content_zipper.rb``) writes ``late_`` (``LATE_`` in recent versions) when it
    counts the submission late, and names a file uploaded again under the same name
    ``name-1.ipynb``, then ``name-2.ipynb``. A plain ``<student>_<notebook>.ipynb`` reads too.
    """

    named_regexp = Unicode(
        CANVAS,
        help=dedent(
            """The pattern of Canvas's names. It may give the group `late` (non-empty when the upload
            is late); without it, `_late_` before the notebook's name counts."""
        ),
    ).tag(config=True)

    def collect(self, submitted_file: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = super().collect(submitted_file)
        if not found or not isinstance(found.get("file_id"), str):
            return found
        name = submitted_file.rsplit("/", 1)[-1]
        stem = os.path.splitext(os.path.basename(found["file_id"]))[0]
        late = bool(found["late"]) if "late" in found else late_marker(name, stem)
        return {**found, "late": late, "resubmission": resubmission(name, stem)}


class Moodle(FileNameCollectorPlugin):  # type: ignore[misc]
    """Moodle's "Download all submissions": a folder ``<full name>_<participant>_assignsubmission_file_``
    per student (Moodle 3.1 and later), or, with "Download submissions in folders" off, files named
    ``<full name>_<participant>_assignsubmission_file_<name>``.

    Moodle (``mod/assign/locallib.php``, ``download_submissions``) writes the full name with ``_``
    made a space, then the participant number it gives the student in this assignment. It marks
    no upload late in the name and keeps one file per name, so there is nothing more to read.
    Under blind marking the name is the word "Participant": set ``c.Moodle.student = "participant"``.
    """

    named_regexp = Unicode(MOODLE, help="The pattern of Moodle's names.").tag(config=True)
    student = Enum(
        ["name", "participant"],
        default_value="name",
        help="What identifies the student: the full name, or the participant number (blind marking).",
    ).tag(config=True)

    def collect(self, submitted_file: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = super().collect(submitted_file)
        if found and self.student == "participant" and found.get("participant"):
            return {**found, "student_id": found["participant"]}
        return found


def late_marker(name: str, stem: str) -> bool:
    """Whether the file name carries Canvas's late marker before the notebook's name.

    >>> late_marker("smithjane_LATE_12_34_ex1.ipynb", "ex1")
    True
    >>> late_marker("bob_12_ex1_late_.ipynb", "ex1_late_")
    False
    """
    at = name.rfind(stem)
    return at > 0 and bool(_LATE.search(name[:at]))


def resubmission(name: str, stem: str) -> int:
    """Canvas's re-upload number: ``n`` when the name ends in ``<notebook>-<n>.<extension>``.

    >>> resubmission("a_ex1-2.ipynb", "ex1"), resubmission("a_lab-1.ipynb", "lab-1")
    (2, 0)
    """
    match = re.search(rf"{re.escape(stem)}-([0-9]+)\.[^.]+$", name)
    return int(match.group(1)) if match else 0
