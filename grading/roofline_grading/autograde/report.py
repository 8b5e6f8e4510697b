"""The grading report: one short line per submission, then the details; as text and as CSV.

The text report reads at a glance: the run's header, then one line per student (at most about
160 characters: the score, a late marker with the points the late penalty took, the status, the
most serious problem and how many others), then, for each student with anything to say, every
clause, one per line (a late submission's times and penalty, and why a student was graded
again, among them). The CSV has one row per student with the same line and all the clauses, for
a spreadsheet, and the score before and after the late penalty, as ``grades.csv`` has them.

Both are safe to open: a student's id and every clause is one plain line (no control or format
character reaches a terminal: :func:`roofline_grading.inert.plain`), and no cell of the CSV
starts a spreadsheet formula (:func:`roofline_grading.inert.spreadsheet_cell`).

>>> from roofline_grading.autograde.results import GradeResult, NotebookResult, StudentResult
>>> alice = StudentResult("alice", [NotebookResult("ex1", "graded", {"t": GradeResult(1.0, 1.0, False)})])
>>> progress_line(1, 40, alice, flagged=0, failed=0)
'[ 1/40] alice: 1/1  (0.0 s)'
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from roofline_grading.autograde.results import StudentResult
from roofline_grading.inert import plain, spreadsheet_cell

__all__ = ["COLUMNS", "WIDTH", "progress_line", "write_report"]

WIDTH = 160
"""Characters of a student's line in the report and on the console (the name included)."""
COLUMNS = (
    "student", "status", "score", "max_score", "raw_score", "late_submission_penalty", "summary", "details",
)
"""The CSV report's columns: the scores named as ``grades.csv`` names them."""


def progress_line(
    done: int,
    total: int,
    result: StudentResult,
    *,
    flagged: int,
    failed: int,
    retried: int = 0,
    left: float | None = None,
) -> str:
    """What the console shows when one student is done: count, the student's one line, time,
    how many were flagged, failed or retried so far, and (``left``: seconds) how long the rest
    should take.

    >>> from roofline_grading.autograde.results import StudentResult
    >>> progress_line(3, 40, StudentResult("bob", []), flagged=0, failed=1, retried=1, left=150)
    '[ 3/40] bob: 0/0  (0.0 s; 0 flagged, 1 failed, 1 retried so far; about 2 min 30 s left)'
    """
    width = len(str(total))
    counts = [f"{flagged} flagged, {failed} failed"] if flagged or failed else []
    counts += [f"{retried} retried"] if retried else []
    tally = f"; {', '.join(counts)} so far" if counts else ""
    if left is not None:
        minutes, seconds = divmod(round(left), 60)
        tally += f"; about {minutes} min {seconds} s left" if minutes else f"; about {seconds} s left"
    line = f"{plain(result.student, 100)}: {result.summary(WIDTH)}"
    return f"[{done:>{width}}/{total}] {line}  ({result.seconds:.1f} s{tally})"


def write_report(
    text_path: Path, csv_path: Path, results: Sequence[StudentResult], header: Sequence[str]
) -> None:
    """``text_path``: the header, a line per student, then each student's details; ``csv_path``:
    one row per student with :data:`COLUMNS` (``score`` after the late penalty, ``raw_score``
    before it; the details joined by `` | ``)."""
    text_path.parent.mkdir(parents=True, exist_ok=True)
    ordered = sorted(results, key=lambda r: r.student)
    lines = [*(plain(line, 1000) for h in header for line in h.split("\n")), ""]
    lines += [f"{_id(r)}: {r.summary(WIDTH)}" for r in ordered]
    detailed = [r for r in ordered if r.problems_found()]
    if detailed:
        lines += ["", "Details, student by student:"]
        for result in detailed:
            lines += ["", f"{_id(result)} ({result.final_score:g}/{result.max_score:g}, {result.status}):"]
            lines += [f"  - {clause}" for clause in result.problems_found()]
    text_path.write_text("\n".join(lines) + "\n")
    with csv_path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for r in ordered:
            penalty = r.late.penalty if r.late is not None else 0.0
            scores = [f"{r.final_score:g}", f"{r.max_score:g}", f"{r.score:g}", f"{penalty:g}"]
            row = [_id(r), r.status, *scores, r.summary(WIDTH), " | ".join(r.problems_found())]
            writer.writerow([spreadsheet_cell(cell) for cell in row])


def _id(result: StudentResult) -> str:
    """The student's id as the report shows it: one plain line."""
    return plain(result.student, 100)
