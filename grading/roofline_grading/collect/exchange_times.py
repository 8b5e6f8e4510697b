"""When each hub student submitted, by the exchange's clock (make hub-collect, after nbgrader collect).

nbgrader's ``submit`` runs as the student: it writes the time into the submission's
``timestamp.txt`` and into its folder's name in the exchange's ``inbound/``
(``<student>+<assignment>+<time>+<random>``), both of which the student could write themselves.
What the student cannot set is the folder's and its files' inode change times (``st_ctime``: the
kernel's clock, at the last write or change of mode): a submission is never earlier than the
latest of them, less :data:`SLACK` for the time ``submit`` itself takes.

For each student ``nbgrader collect`` filed in ``submitted/``, :func:`check` finds the exchange's
folder of that submission (in the folder of the course id ``nbgrader_config.py`` sets) and, when
its ``timestamp.txt`` claims a time more than :data:`SLACK` before the exchange received it,
writes the exchange's time instead, in one line per student.

    python -m roofline_grading.collect.exchange_times ASSIGNMENT --course DIR --exchange DIR

>>> from datetime import datetime
>>> received(datetime(2026, 3, 1, 12, 0), datetime(2026, 3, 1, 12, 0, 4)) is None   # submit's own seconds
True
>>> received(datetime(2026, 3, 1, 9, 0), datetime(2026, 3, 1, 12, 0))
datetime.datetime(2026, 3, 1, 12, 0)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from roofline_grading.autograde.gradebook import CourseError, open_course
from roofline_grading.collect.submission_times import read_stamp, stamp, write_stamp

__all__ = ["SLACK", "check", "received"]

SLACK = timedelta(seconds=60)
"""How long nbgrader's ``submit`` may take between its time and its last write (copying the notebooks)."""


def received(claimed: datetime, changed: datetime) -> datetime | None:
    """The exchange's time ``changed`` if ``claimed`` is more than :data:`SLACK` before it, else None."""
    return changed if changed - claimed > SLACK else None


def _changed(folder: Path) -> datetime:
    """The latest inode change time of ``folder`` and everything in it (UTC, naive as nbgrader's)."""
    latest = max(path.lstat().st_ctime for path in [folder, *folder.rglob("*")])
    return datetime.fromtimestamp(latest, UTC).replace(tzinfo=None)


def check(course: Path, exchange: Path, assignment: str, course_id: str) -> list[str]:
    """Correct each collected submission's time from the exchange (module docstring); the lines said."""
    said = []
    inbound = exchange / course_id / "inbound"
    for folder in sorted((course / "submitted").glob(f"*/{assignment}")):
        student, claimed = folder.parent.name, read_stamp(folder)
        if claimed is None:
            continue
        sources = [p for p in inbound.glob(f"{student}+{assignment}+*") if read_stamp(p) == claimed]
        if not sources:
            said.append(
                f"{student}: no submission in {inbound} holds the time {stamp(claimed)}; left as it is"
            )
            continue
        correct = received(claimed, max(_changed(source) for source in sources))
        if correct is not None:
            write_stamp(folder, correct)
            said.append(
                f"{student}: the submission says {stamp(claimed)}, the exchange received it {stamp(correct)}"
            )
    return said


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignment")
    parser.add_argument("--course", type=Path, default=Path("."))
    parser.add_argument("--exchange", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        course_id = open_course(args.course).course_id
    except CourseError as error:
        print(f"hub-collect: {error}", file=sys.stderr)
        return 2
    if not (args.exchange / course_id / "inbound").is_dir():
        print(
            f"hub-collect: {args.exchange} holds no course {course_id} (name the hub's EXCHANGE)",
            file=sys.stderr,
        )
        return 2
    lines = check(args.course, args.exchange, args.assignment, course_id)
    print("\n".join(lines) or "hub-collect: every submission's time agrees with the exchange's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
