"""``make grades``: nbgrader's CSV export, its rows sorted by student id.

nbgrader's :class:`~nbgrader.plugins.export.CsvExportPlugin` writes a row per student and
assignment in the order of the gradebook's student list (by last and first name, so students
the autograder added without a name come in no particular order). :class:`SortedCsvExport`
hands it the same gradebook with its students sorted by id: the same columns and values, in
an order an instructor and an LMS import can rely on. ``nbgrader_config.py`` sets it as
``c.ExportApp.plugin_class``.
"""

from __future__ import annotations

from typing import Any

from nbgrader.plugins.export import CsvExportPlugin


class SortedCsvExport(CsvExportPlugin):  # type: ignore[misc]
    """nbgrader's CSV export, with each assignment's rows in the order of the student ids."""

    def export(self, gradebook: Any) -> None:
        super().export(_StudentsById(gradebook))


class _StudentsById:
    """``gradebook`` with its ``students`` sorted by id (all else passed through)."""

    def __init__(self, gradebook: Any) -> None:
        self._gradebook = gradebook

    @property
    def students(self) -> list[Any]:
        return sorted(self._gradebook.students, key=lambda student: str(student.id))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._gradebook, name)
