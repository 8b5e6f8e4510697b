"""What a command answers: the data ``--json`` prints and the text printed for people.

>>> Output({"bound": "memory"}, "bound  memory").text
'bound  memory'
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Output(NamedTuple):
    """What a command answers: ``data`` for ``--json``, ``text`` for people."""

    data: dict[str, Any]
    text: str
