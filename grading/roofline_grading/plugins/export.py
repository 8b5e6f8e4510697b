"""``make grades``: nbgrader's CSV export, its rows sorted by student id, safe to open.

nbgrader's :class:`~nbgrader.plugins.export.CsvExportPlugin` writes a row per student and
assignment in the order of the gradebook's student list (by last and first name, so students
the autograder added without a name come in no particular order), and writes each value as it
is, unquoted: a name with a comma shifts the row's columns, and a name or e-mail address starting
with ``=`` is a formula to a spreadsheet. :class:`SortedCsvExport` writes the same columns and
values with the rows in the order of the student ids, through Python's ``csv`` module (quoted
where a value needs it), every text cell made a text for a spreadsheet
(:func:`roofline_grading.inert.spreadsheet_cell`, OWASP's advice against CSV injection). An LMS
import and an instructor's spreadsheet read the file alike. ``nbgrader_config.py`` sets it as
``c.ExportApp.plugin_class``.
"""

from __future__ import annotations

import csv
from typing import Any

from nbgrader.api import MissingEntry
from nbgrader.plugins.export import CsvExportPlugin

from roofline_grading.inert import spreadsheet_cell

__all__ = ["COLUMNS", "SortedCsvExport"]

COLUMNS = (
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
)
"""nbgrader's columns, in nbgrader's order."""


class SortedCsvExport(CsvExportPlugin):  # type: ignore[misc]
    """nbgrader's CSV export, each assignment's rows in the order of the student ids, written as
    safe CSV (see the module's docstring)."""

    def export(self, gradebook: Any) -> None:
        wanted_students = {str(s) for s in self.student}
        wanted_assignments = {str(a) for a in self.assignment}
        self.log.info("Exporting grades to %s", self.to or "grades.csv")
        with open(self.to or "grades.csv", "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            for assignment in gradebook.assignments:
                if wanted_assignments and assignment.name not in wanted_assignments:
                    continue
                for student in sorted(gradebook.students, key=lambda s: str(s.id)):
                    if wanted_students and student.id not in wanted_students:
                        continue
                    writer.writerow(_row(gradebook, assignment, student))


def _row(gradebook: Any, assignment: Any, student: Any) -> list[str]:
    """One student's row for one assignment: nbgrader's values (0 for no submission), as text."""
    values: dict[str, Any] = {
        "assignment": assignment.name,
        "duedate": assignment.duedate,
        "student_id": student.id,
        "last_name": student.last_name,
        "first_name": student.first_name,
        "email": student.email,
        "max_score": assignment.max_score,
    }
    try:
        submission = gradebook.find_submission(assignment.name, student.id)
    except MissingEntry:
        values |= {"timestamp": "", "raw_score": 0.0, "late_submission_penalty": 0.0, "score": 0.0}
    else:
        penalty = submission.late_submission_penalty
        values |= {
            "timestamp": submission.timestamp,
            "raw_score": submission.score,
            "late_submission_penalty": penalty,
            "score": max(0.0, submission.score - penalty),
        }
    return [spreadsheet_cell("" if values[c] is None else str(values[c])) for c in COLUMNS]
