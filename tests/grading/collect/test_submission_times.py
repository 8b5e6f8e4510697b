"""When each student submitted (roofline_grading.collect.submission_times): the time the LMS's names
give, a late marker applied against the gradebook's due date, and nbgrader's timestamp.txt."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from roofline_grading.collect.submission_times import TIMESTAMP, decide, read_stamp, write_stamp

DUE = datetime(2026, 3, 1, 12)


def test_the_latest_time_of_a_students_uploads_is_their_time() -> None:
    decision = decide([(datetime(2026, 3, 1, 9), False), (datetime(2026, 3, 1, 10), False)], DUE)
    assert decision.time == datetime(2026, 3, 1, 10) and decision.said == "submitted 2026-03-01 10:00:00 UTC"


def test_a_late_marker_with_its_own_later_time_keeps_it() -> None:
    decision = decide([(datetime(2026, 3, 3, 8), True)], DUE)
    assert decision.time == datetime(2026, 3, 3, 8) and decision.late == "timed"


def test_a_late_marker_with_a_time_before_the_due_date_is_stamped_just_after_it() -> None:
    decision = decide([(datetime(2026, 2, 28), True)], DUE)
    assert decision.time == datetime(2026, 3, 1, 12, 0, 1) and decision.late == "after-due"
    assert "its own time is not after it" in decision.said


def test_without_a_due_date_a_late_marker_is_not_applied_and_says_so() -> None:
    decision = decide([(None, True)], None)
    assert decision.time is None and decision.late == "no-due"


def test_an_upload_with_neither_time_nor_marker_is_on_time() -> None:
    assert decide([(None, False)], DUE).time is None


def test_the_stamp_is_written_as_nbgrader_reads_it_and_removed_with_no_time(tmp_path: Path) -> None:
    write_stamp(tmp_path, datetime(2026, 3, 2, 9))
    assert (tmp_path / TIMESTAMP).read_text().strip() == "2026-03-02 09:00:00.000000 UTC"
    assert read_stamp(tmp_path) == datetime(2026, 3, 2, 9)
    write_stamp(tmp_path, None)
    assert not (tmp_path / TIMESTAMP).exists() and read_stamp(tmp_path) is None
