"""One student's several uploads of one notebook: which is the latest, by the LMS's own order.

In one zip or across the zips of one collect, the uploads are ordered by, in turn,

1. the submission time the name gives (the pattern's ``timestamp`` group), when every one has one;
2. the LMS's re-upload number: Canvas names a file uploaded again under the same name
   ``name-1.ipynb``, then ``name-2.ipynb`` (higher is later; no suffix is the first upload);
3. the date the zip gives the entry (a later download of the LMS's zip has later dates);
4. the place: a later zip on the command line, then a later entry in its zip.

:func:`latest_first` puts them in that order and says in a few words what decided.

>>> from datetime import datetime
>>> first = Candidate(1, None, 0, (2026, 3, 1, 9, 0, 0), (0, 1))
>>> again = Candidate(2, None, 2, (2026, 3, 1, 9, 0, 0), (0, 0))
>>> latest_first([first, again])
([Candidate(item=2, ...), Candidate(item=1, ...)], 're-upload -2 is the latest')
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

__all__ = ["Candidate", "latest_first"]

T = TypeVar("T")


@dataclass(frozen=True, repr=False)
class Candidate(Generic[T]):
    """One upload (``item``) with what orders it among the others."""

    item: T
    time: datetime | None
    resubmission: int
    date_time: tuple[int, int, int, int, int, int]
    order: tuple[int, int]

    def __repr__(self) -> str:
        return f"Candidate(item={self.item!r}, ...)"


def latest_first(candidates: list[Candidate[T]]) -> tuple[list[Candidate[T]], str]:
    """``candidates`` from the LMS's latest to its first, and what decided which is the latest."""
    timed = all(c.time is not None for c in candidates)

    def key(c: Candidate[T]) -> tuple[datetime, int, tuple[int, ...], tuple[int, int]]:
        return (
            c.time if timed and c.time is not None else datetime.min,
            c.resubmission,
            c.date_time,
            c.order,
        )

    ordered = sorted(candidates, key=key, reverse=True)
    if len(ordered) < 2:
        return ordered, "the only upload"
    best, next_ = key(ordered[0]), key(ordered[1])
    if best[0] != next_[0]:
        why = f"its time {ordered[0].time:%Y-%m-%d %H:%M:%S} UTC is the latest"
    elif best[1] != next_[1]:
        why = f"re-upload -{ordered[0].resubmission} is the latest"
    elif best[2] != next_[2]:
        why = "its date in the zip is the latest"
    elif best[3][0] != next_[3][0]:
        why = "it comes from the zip named last"
    else:
        why = "it comes last in its zip"
    return ordered, why
