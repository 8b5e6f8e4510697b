"""The grading report: one line per submission, as text and as CSV, and progress lines.

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

__all__ = ["progress_line", "write_report"]


def progress_line(done: int, total: int, result: StudentResult, *, flagged: int, failed: int) -> str:
    """What the console shows when one student is done: count, the one-line summary, time,
    and how many were flagged or failed so far."""
    width = len(str(total))
    tally = f"; {flagged} flagged, {failed} failed so far" if flagged or failed else ""
    return f"[{done:>{width}}/{total}] {result.student}: {result.summary()}  ({result.seconds:.1f} s{tally})"


def write_report(
    text_path: Path, csv_path: Path, results: Sequence[StudentResult], header: Sequence[str]
) -> None:
    """``text_path``: the header, then ``student: summary`` per line; ``csv_path``: one row per
    student with ``student, status, score, max_score, summary``."""
    text_path.parent.mkdir(parents=True, exist_ok=True)
    ordered = sorted(results, key=lambda r: r.student)
    lines = [*header, ""] + [f"{r.student}: {r.summary(limit=10)}" for r in ordered]
    text_path.write_text("\n".join(lines) + "\n")
    with csv_path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "status", "score", "max_score", "summary"])
        for r in ordered:
            writer.writerow([r.student, r.status, f"{r.score:g}", f"{r.max_score:g}", r.summary(limit=10)])
