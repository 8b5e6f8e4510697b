"""make hub-collect times a hub submission by the exchange when its own time claims to be earlier."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from roofline_grading.collect.exchange_times import check
from roofline_grading.collect.submission_times import read_stamp, stamp


def submission(course: Path, exchange: Path, student: str, claimed: datetime) -> Path:
    """A submission nbgrader collected into ``submitted/``, and its folder in the exchange's inbound/."""
    inbound = exchange / "roofline" / "inbound" / f"{student}+roofline+{stamp(claimed)}+Qx3"
    collected = course / "submitted" / student / "roofline"
    for folder in (inbound, collected):
        folder.mkdir(parents=True)
        (folder / "ex1_int8_matmul.ipynb").write_text("{}")
        (folder / "timestamp.txt").write_text(stamp(claimed))
    return collected


def test_a_time_written_earlier_than_the_exchange_received_it_is_replaced(tmp_path: Path) -> None:
    course, exchange = tmp_path / "course", tmp_path / "exchange"
    now = datetime.now(UTC).replace(tzinfo=None)
    forged = submission(course, exchange, "bo", now - timedelta(days=2))
    honest = submission(course, exchange, "ann", now)
    said = check(course, exchange, "roofline", "roofline")
    assert len(said) == 1 and said[0].startswith(
        f"bo: the submission says {stamp(now - timedelta(days=2))}, "
    )
    corrected = read_stamp(forged)
    assert corrected is not None and abs(corrected - now) < timedelta(seconds=30)
    assert read_stamp(honest) == datetime.fromisoformat(stamp(now)[:26])


def test_a_collected_time_no_exchange_submission_holds_is_named_and_left(tmp_path: Path) -> None:
    course, exchange = tmp_path / "course", tmp_path / "exchange"
    claimed = datetime(2026, 3, 1, 12)
    collected = submission(course, exchange, "chul", claimed)
    (collected / "timestamp.txt").write_text(stamp(claimed + timedelta(hours=1)))
    (said,) = check(course, exchange, "roofline", "roofline")
    assert said.startswith("chul: no submission in ") and said.endswith("left as it is")
    assert read_stamp(collected) == claimed + timedelta(hours=1)
