"""Errors raised for bad input, each naming the argument and what is accepted.

>>> from rooflinekit.errors import RooflineInputError
>>> err = RooflineInputError("B", "a positive integer", 0)
>>> str(err)
'B must be a positive integer (got 0)'
"""

from __future__ import annotations

from typing import Any


class RooflineInputError(ValueError):
    """A value a user passed is not accepted.

    ``argument`` names what was wrong, ``accepted`` says what would be accepted and
    ``got`` is the offending value, so a command line can print one clear line.
    """

    def __init__(self, argument: str, accepted: str, got: Any) -> None:
        self.argument = argument
        self.accepted = accepted
        self.got = got
        super().__init__(f"{argument} must be {accepted} (got {_describe(got)})")


class UnknownNameError(RooflineInputError, KeyError):
    """A chip or dtype name that is not in the catalog.

    It is also a ``KeyError`` so ``except KeyError`` around a lookup keeps working.
    """

    def __init__(self, argument: str, known: list[str], got: Any) -> None:
        super().__init__(argument, "one of " + ", ".join(known), got)
        self.known = known

    def __str__(self) -> str:  # KeyError would otherwise quote the whole message
        return ValueError.__str__(self)


class Shown(str):
    """Words an error shows as they are, not quoted, in place of a value: ``(got nothing)``."""

    def __repr__(self) -> str:
        return str(self)


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
