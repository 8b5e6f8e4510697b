"""``make grades`` (roofline_grading.plugins.export): nbgrader's columns, the rows in the order of
the student ids, and no cell a spreadsheet runs as a formula."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import pytest
from nbgrader.api import MissingEntry

from roofline_grading.plugins.export import COLUMNS, SortedCsvExport


class Gradebook:
    """What the export reads of nbgrader's gradebook, for the unit tier (the real one runs alembic in
    a subprocess, seconds: the grading-tier test below uses it)."""

    assignments: ClassVar = [SimpleNamespace(name="roofline", duedate=None, max_score=70.0)]
    students: ClassVar = [
        SimpleNamespace(id="zed", first_name="=SUM(A1)", last_name="Smith, Jr.", email="@evil"),
        SimpleNamespace(id="amy", first_name="Amy", last_name="Lee", email="amy@example.org"),
    ]

    def find_submission(self, assignment: str, student: str) -> None:
        raise MissingEntry()


def test_rows_come_in_student_id_order_quoted_and_with_no_formula(tmp_path: Path) -> None:
    SortedCsvExport(to=str(tmp_path / "grades.csv")).export(Gradebook())
    rows = list(csv.DictReader(io.StringIO((tmp_path / "grades.csv").read_text())))
    assert list(rows[0]) == list(COLUMNS) and [r["student_id"] for r in rows] == ["amy", "zed"]
    assert rows[1]["last_name"] == "Smith, Jr." and rows[1]["first_name"] == "'=SUM(A1)"
    assert rows[1]["score"] == "0.0" and rows[1]["max_score"] == "70.0"


@pytest.mark.grading  # a real nbgrader gradebook (its migrations run alembic: seconds, not a unit's time)
def test_the_grades_export_keeps_its_columns_and_runs_no_formula(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import sys

    from nbgrader.api import Gradebook

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # alembic

    from roofline_grading.plugins.export import COLUMNS, SortedCsvExport

    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        gradebook.add_assignment("roofline")
        gradebook.add_student(
            "zed", first_name='=HYPERLINK("http://x")', last_name="Smith, Jr.", email="@evil"
        )
        gradebook.add_student("amy", first_name="Amy", last_name="Lee", email="amy@example.org")
        SortedCsvExport(to=str(tmp_path / "grades.csv")).export(gradebook)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "grades.csv").read_text())))
    assert list(rows[0]) == list(COLUMNS)
    assert [r["student_id"] for r in rows] == ["amy", "zed"]
    zed = rows[1]
    assert zed["last_name"] == "Smith, Jr." and zed["first_name"] == '\'=HYPERLINK("http://x")'
    assert zed["email"] == "'@evil" and zed["score"] == "0.0" and zed["timestamp"] == ""
