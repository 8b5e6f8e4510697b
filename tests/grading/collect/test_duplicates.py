"""Several uploads of one notebook (roofline_grading.collect.duplicates): the LMS's latest is taken,
by the first of its time, its re-upload number, its date in the zip and its order that tells them
apart; the line says which decided."""

from __future__ import annotations

from datetime import datetime

import pytest

from roofline_grading.collect.duplicates import Candidate, latest_first

DATE = (2026, 3, 1, 12, 0, 0)


def upload(
    name: str, time: datetime | None = None, again: int = 0, date=DATE, order=(0, 0)
) -> Candidate[str]:
    return Candidate(name, time, again, date, order)


@pytest.mark.parametrize(
    ("uploads", "taken", "why"),
    [
        (
            [upload("late", datetime(2026, 3, 2), again=0), upload("early", datetime(2026, 3, 1), again=5)],
            "late",
            "its time 2026-03-02 00:00:00 UTC is the latest",
        ),
        ([upload("first"), upload("again", again=1)], "again", "re-upload -1 is the latest"),
        (
            [upload("new", date=(2026, 3, 2, 0, 0, 0)), upload("old")],
            "new",
            "its date in the zip is the latest",
        ),
        ([upload("b", order=(1, 0)), upload("a", order=(0, 9))], "b", "it comes from the zip named last"),
        ([upload("a", order=(0, 1)), upload("b", order=(0, 2))], "b", "it comes last in its zip"),
        ([upload("one")], "one", "the only upload"),
    ],
)
def test_the_lms_latest_upload_is_taken_and_the_reason_named(
    uploads: list[Candidate[str]], taken: str, why: str
) -> None:
    ordered, said = latest_first(uploads)
    assert (ordered[0].item, said) == (taken, why)


def test_times_decide_only_when_every_upload_has_one() -> None:
    ordered, said = latest_first([upload("timed", datetime(2026, 3, 9)), upload("untimed", again=1)])
    assert (ordered[0].item, said) == ("untimed", "re-upload -1 is the latest")
