"""The grading report (autograde/report.py): what the text report says of a student, the CSV says too.

An instructor reads ``roofline-report.txt`` at a glance and sorts ``roofline-report.csv`` in a
spreadsheet; the guide says they hold the same. A late student's line is marked ``late`` with
the points the late penalty took, and the details give the times and the score before it; a
student graded again after a worker was lost says why, in the details of both files.
"""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

from roofline_grading.autograde.report import COLUMNS, progress_line, write_report
from roofline_grading.autograde.results import GradeResult, Lateness, NotebookResult, StudentResult

DUE = datetime(2026, 3, 1, 23, 59)
RETRY = "the worker it was sent to was lost (1 time); graded again on tls://10.0.0.3:40127"


def graded(points: float, of: float = 7.0) -> NotebookResult:
    return NotebookResult("ex4_batched_matmul", "graded", {"ex4_bytes": GradeResult(points, of, False)})


def class_of_three() -> list[StudentResult]:
    late = StudentResult("dave", [graded(7.0)], late=Lateness(datetime(2026, 3, 2, 9), DUE, 7.0))
    forgiven = StudentResult("erin", [graded(3.0)], late=Lateness(datetime(2026, 3, 1, 23, 59, 1), DUE, 0.0))
    retried = StudentResult("alice", [graded(7.0)], retries=[RETRY])
    return [late, forgiven, retried]


def written(tmp_path: Path) -> tuple[list[str], dict[str, dict[str, str]]]:
    write_report(tmp_path / "r.txt", tmp_path / "r.csv", class_of_three(), ["Grading 3 submissions"])
    with (tmp_path / "r.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == COLUMNS
        rows = {row["student"]: row for row in reader}
    return (tmp_path / "r.txt").read_text().splitlines(), rows


def details_in_text(lines: list[str], student: str) -> list[str]:
    """The clauses the text report lists under ``student``'s heading."""
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{student} ("))
    clauses = []
    for line in lines[start + 1 :]:
        if not line.startswith("  - "):
            break
        clauses.append(line[4:])
    return clauses


def test_a_late_students_line_is_marked_with_the_penalty_and_the_details_give_the_times(
    tmp_path: Path,
) -> None:
    lines, rows = written(tmp_path)
    (line,) = [line for line in lines if line.startswith("dave: ")]
    assert line.startswith("dave: 0/7 late (-7): submitted 2026-03-02 09:00:00 UTC, 9 h 1 min after the due")
    dave = rows["dave"]
    assert (dave["score"], dave["raw_score"], dave["late_submission_penalty"], dave["max_score"]) == (
        "0", "7", "7", "7",
    )  # fmt: skip
    assert dave["summary"].startswith("0/7 late (-7): ")
    assert "late penalty 7 points (7/7 before it)" in dave["details"]
    erin = rows["erin"]  # late, and the course's penalty took nothing
    assert erin["summary"].startswith("3/7 late: submitted 2026-03-01 23:59:01 UTC, 1 s after the due date")
    assert (erin["score"], erin["late_submission_penalty"]) == ("3", "0")
    assert rows["alice"]["raw_score"] == rows["alice"]["score"] == "7"
    assert rows["alice"]["late_submission_penalty"] == "0" and "late" not in rows["alice"]["summary"]


def test_the_csv_holds_every_clause_the_text_report_gives_a_student_retries_included(tmp_path: Path) -> None:
    lines, rows = written(tmp_path)
    for student, row in rows.items():
        assert row["details"].split(" | ") == details_in_text(lines, student), student
        assert f"{student}: {row['summary']}" in lines, student
    assert rows["alice"]["details"] == f"graded again: {RETRY}"
    assert rows["alice"]["status"] == "ok"  # a lost worker is not the student's doing


def test_the_console_line_carries_the_late_marker() -> None:
    dave = class_of_three()[0]
    assert progress_line(1, 3, dave, flagged=0, failed=0).startswith("[1/3] dave: 0/7 late (-7): submitted ")
