"""When each student submitted: the ``timestamp.txt`` nbgrader's late penalty is computed from.

What an LMS's zip says about time, and what ``make collect`` makes of it:

- a submission time in the file's name (the pattern's ``timestamp`` group) is the time;
- the dates of the zip's entries are not submission times: Canvas and Moodle stamp every entry
  with the moment the zip was made (and a zip you make yourself, with your files' dates), so they
  only order two uploads of one notebook (:mod:`roofline_grading.collect.duplicates`);
- an upload the LMS marks late (Canvas's ``late_`` in the name) keeps its own time when the name
  gives one after the due date; otherwise it gets a time :data:`LATE_BY` after the assignment's due
  date in the gradebook, so that nbgrader's penalty applies (the smallest one, for a penalty that
  grows with lateness). With no due date in the gradebook, the marker cannot be applied: the
  summary says so and how to set one.

A student's time is the latest of their notebooks' times. The file is written as
``2026-03-02 09:00:00.000000 UTC``, which nbgrader's ``parse_utc`` reads (as the grading worker
does).

>>> from datetime import datetime
>>> due = datetime(2026, 3, 1, 12)
>>> decision = decide([(None, True)], due)
>>> stamp(decision.time)
'2026-03-01 12:00:01.000000 UTC'
>>> print(decision.said)
late (LMS marker): 2026-03-01 12:00:01 UTC, 1 s after the due date (no submission time in the zip)
>>> decide([(None, True)], None).said
'late (LMS marker), not applied: no due date'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from roofline_grading.autograde.precheck import TIMESTAMP

if TYPE_CHECKING:
    from roofline_grading.autograde.gradebook import Course

__all__ = ["LATE_BY", "TIMESTAMP", "Decision", "decide", "due_date", "read_stamp", "stamp", "write_stamp"]

LATE_BY = timedelta(seconds=1)
"""How long after the due date an upload the LMS marks late, without a time of its own, is stamped."""


def stamp(time: datetime) -> str:
    """``time`` (UTC) as ``timestamp.txt`` holds it."""
    return f"{time:%Y-%m-%d %H:%M:%S.%f} UTC"


def _short(time: datetime) -> str:
    return f"{time:%Y-%m-%d %H:%M:%S} UTC"


def due_date(course: Course, assignment: str) -> datetime | None:
    """The assignment's due date in the course's gradebook (UTC), or None if it has none."""
    if not course.has_gradebook():
        return None
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(course.db_url, course.course_id) as gb:
        try:
            due = gb.find_assignment(assignment).duedate
        except MissingEntry:
            return None
    return due if isinstance(due, datetime) else None


@dataclass(frozen=True)
class Decision:
    """A student's submission time from this collect's uploads, and what their line says of it."""

    time: datetime | None
    said: str | None = None
    late: str | None = None
    """None (not marked late), ``timed`` (marked late, its own time after the due date),
    ``after-due`` (stamped :data:`LATE_BY` after the due date) or ``no-due`` (not applied)."""


def decide(uploads: Iterable[tuple[datetime | None, bool]], due: datetime | None) -> Decision:
    """The time of a student's uploads, each given as (its time or None, marked late): the
    latest of their times, a late-marked upload's as the module says."""
    decided: list[tuple[datetime, str | None]] = []
    unapplied = False
    for time, late in uploads:
        kind = None
        if late and due is None:
            unapplied = True
        elif late and due is not None and (time is None or time <= due):
            kind = "after-due" if time is None else "early"
            time = due + LATE_BY
        elif late:
            kind = "timed"
        if time is not None:
            decided.append((time, kind))
    if not decided:
        return Decision(None, _said("no-due", None), "no-due") if unapplied else Decision(None)
    time, kind = max(decided, key=lambda d: d[0])
    if unapplied:
        return Decision(time, _said("no-due", time), "no-due")
    if kind is None:
        return Decision(time, f"submitted {_short(time)}")
    return Decision(time, _said(kind, time), "after-due" if kind == "early" else kind)


def _said(kind: str, time: datetime | None) -> str:
    if time is None:
        return "late (LMS marker), not applied: no due date"
    if kind == "no-due":
        return f"late (LMS marker), not applied: no due date; submitted {_short(time)}"
    if kind in ("after-due", "early"):
        why = "no submission time in the zip" if kind == "after-due" else "its own time is not after it"
        return f"late (LMS marker): {_short(time)}, {LATE_BY.seconds} s after the due date ({why})"
    return f"late (LMS marker), submitted {_short(time)}"


def read_stamp(folder: Path) -> datetime | None:
    """The time in ``folder/timestamp.txt``, if it holds one nbgrader reads."""
    from nbgrader.utils import parse_utc

    path = folder / TIMESTAMP
    if path.is_symlink() or not path.is_file():
        return None
    try:
        text = path.read_text(errors="replace")[:200].strip()
        return parse_utc(text) if text else None
    except (ValueError, OverflowError, OSError):
        return None


def write_stamp(folder: Path, time: datetime | None) -> None:
    """Write ``time`` into ``folder/timestamp.txt`` (remove the file for None)."""
    path = folder / TIMESTAMP
    if time is None:
        path.unlink(missing_ok=True)
        return
    partial = folder / f".{TIMESTAMP}.collecting"
    partial.write_text(stamp(time) + "\n")
    partial.replace(path)
