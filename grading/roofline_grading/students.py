"""Student ids, one spelling each: what ``make collect`` and ``make roster`` file a student under.

An LMS names a student's upload after the student's login or sortable name, and an instructor's
class list is typed or exported by hand: the same student can come as ``alice``, ``Alice`` or
``\uff41lice`` (a fullwidth letter, from an input method). nbgrader compares ids as strings, so each
spelling would be a student of its own: a second folder under ``submitted/``, a second gradebook
row, a second feedback folder. The course decides once, here:

- every id is **normalised**, Unicode NFKC (compatibility forms such as fullwidth letters become
  the plain ones) then case-folded (``ALICE`` and ``alice`` are one id, as LMS logins are), then
  NFKC again so that the result is stable: :func:`canonical`;
- of two different spellings that normalise to one id in the same collect, or in the same class
  list, one is kept and the other **refused**, with one line naming both (:func:`clash`): they
  may be two people (one could be impersonating the other), and filing both under one id would
  let one upload replace the other's. The spelling kept is the one already normalised, if one
  is, else the first met (:func:`spellings`).

>>> canonical("\\uff41lice"), canonical("ALICE"), canonical("Stra\\u00dfe")
('alice', 'alice', 'strasse')
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

__all__ = ["canonical", "clash", "spellings"]


def canonical(student_id: str) -> str:
    """The one spelling of ``student_id`` the course files it under: NFKC, case-folded, NFKC.

    >>> canonical("  Bob ") == "  bob "  # spaces are kept: the folder check refuses them
    True
    """
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", student_id).casefold())


def clash(kept: str, refused: str) -> str:
    """The line that refuses ``refused``, another spelling of the id ``kept`` already has.

    >>> print(clash("alice", "ALICE"))  # doctest: +NORMALIZE_WHITESPACE
    the student ids 'alice' and 'ALICE' are one id once normalised (Unicode NFKC, case-folded:
    'alice'): 'ALICE' refused (two spellings may be two people; correct one in the LMS or the class list)
    """
    return (
        f"the student ids {kept!r} and {refused!r} are one id once normalised (Unicode NFKC, "
        f"case-folded: {canonical(kept)!r}): {refused!r} refused (two spellings may be two people; "
        "correct one in the LMS or the class list)"
    )


def spellings(ids: Iterable[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Which spelling of each normalised id is taken, and which are refused, from ``ids`` in the
    order met: (normalised id -> the spelling taken, refused spelling -> the spelling taken). The
    spelling that is already normalised is taken if it comes; else the first met.

    >>> spellings(["ALICE", "bob", "alice", "B\\u00f6b", "bob"])
    ({'alice': 'alice', 'bob': 'bob', 'böb': 'B\u00f6b'}, {'ALICE': 'alice'})
    """
    met: dict[str, list[str]] = {}
    for student_id in ids:
        seen = met.setdefault(canonical(student_id), [])
        if student_id not in seen:
            seen.append(student_id)
    taken = {key: key if key in seen else seen[0] for key, seen in met.items()}
    refused = {s: taken[key] for key, seen in met.items() for s in seen if s != taken[key]}
    return taken, refused
