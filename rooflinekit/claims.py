"""Verdicts and comparisons the book's prose states, derived from the numbers it shows.

A sentence such as "the H200's ridge is lower than the H100's" or "the throughput stops growing"
is a claim about numbers a chapter computes. Written as plain prose it silently goes wrong the
day a figure of the catalog or a cost model changes. A chapter states it in one of two ways:

- :func:`claim`: the sentence stays as written, and the chapter checks it. A claim that no
  longer holds raises :class:`ClaimError`, which names the sentence and the numbers, so the cell,
  and with it ``make book``, fails with a message that says what to rewrite;
- :func:`verdict`: the word the sentence uses is chosen by the numbers (glue it, a message of
  :mod:`rooflinekit.words` for the Korean edition), so the sentence is right either way.

>>> h100, h200 = 295.2, 206.2
>>> claim("the H200's ridge is lower than the H100's", h200 < h100, h200=h200, h100=h100)
>>> claim("the H200's is higher", h200 > h100, h200=h200, h100=h100)
Traceback (most recent call last):
...
rooflinekit.claims.ClaimError: the claim "the H200's is higher" does not hold for h200 = 206.2, h100 = 295.2
>>> verdict(h200 < h100, "lower", "higher")
'lower'

:func:`compare` names how two measured numbers compare, within a tolerance (for sentences whose
words follow a measurement: "more", "about the same", "less"):

>>> compare(10.2, 10.0, same_within=0.05), compare(12.0, 10.0, same_within=0.05)
('same', 'more')
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Literal, TypeVar

from rooflinekit.errors import RooflineInputError

__all__ = ["ClaimError", "claim", "compare", "verdict"]

Word = TypeVar("Word")

Number = float | int | str
"""What a claim names beside its sentence: the numbers it is about (or a short text, a chip's name)."""


class ClaimError(AssertionError):
    """A sentence of the book that the numbers it is about no longer bear out.

    ``statement`` is the sentence, ``numbers`` the values it was checked against, by name.
    """

    def __init__(self, statement: str, numbers: dict[str, Number]) -> None:
        self.statement = statement
        self.numbers = numbers
        shown = ", ".join(f"{name} = {_shown(value)}" for name, value in self.numbers.items())
        super().__init__(f'the claim "{statement}" does not hold' + (f" for {shown}" if shown else ""))


def _shown(value: Number) -> str:
    if isinstance(value, bool) or not isinstance(value, Real):
        return str(value)
    if isinstance(value, Integral):
        return str(int(value))
    return f"{float(value):.6g}"


def _truth(holds: object, argument: str) -> bool:
    """``holds`` as a bool: a comparison's result (Python's or numpy's), never a number or a list."""
    if type(holds).__name__ not in ("bool", "bool_"):  # numpy's bool is no subclass of bool
        raise RooflineInputError(argument, "the result of a comparison, True or False", holds)
    return bool(holds)


def claim(statement: str, holds: object, /, **values: Number) -> None:
    """Check the sentence ``statement``: raise :class:`ClaimError` naming it and ``values`` (the
    numbers it is about, by name) unless ``holds``, a comparison of those numbers, is true.

    >>> claim("a dot product is memory-bound on a v5e", 0.5 < 240.2, intensity=0.5, ridge=240.2)
    >>> claim("the ratio is a number", 0.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: holds must be the result of a comparison, True or False (got 0.5)
    """
    if not isinstance(statement, str) or not statement.strip():
        raise RooflineInputError("statement", "the sentence the chapter states, as text", statement)
    undefined = any(isinstance(v, Real) and math.isnan(float(v)) for v in values.values())
    if not _truth(holds, "holds") or undefined:  # a NaN bears out nothing
        raise ClaimError(statement, dict(values))


def verdict(holds: object, if_true: Word, if_false: Word) -> Word:
    """The word a sentence uses, chosen by the numbers: ``if_true`` when ``holds``, else ``if_false``.

    Pass messages (:func:`rooflinekit.words.message`) so that the Korean edition composes the
    word in Korean.

    >>> verdict(2 * 4 > 8, "beat", "do not beat")
    'do not beat'
    """
    return if_true if _truth(holds, "holds") else if_false


def compare(a: float, b: float, *, same_within: float = 0.0) -> Literal["more", "same", "less"]:
    """``"more"``, ``"same"`` or ``"less"``: ``a`` against ``b``, the same within ``same_within``
    (a share of ``b``, e.g. 0.05 for five percent).

    >>> compare(1.0, 2.0), compare(2.0, 2.0)
    ('less', 'same')
    """
    if not (isinstance(same_within, (int, float)) and 0 <= same_within < 1):
        raise RooflineInputError("same_within", "a share between 0 and 1", same_within)
    ratio = a / b
    if abs(ratio - 1) <= same_within:
        return "same"
    return "more" if ratio > 1 else "less"
