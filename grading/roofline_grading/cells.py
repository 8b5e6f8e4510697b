"""The marks nbgrader's cells carry, as the course's notebooks write them: one definition each.

A test cell's hidden tests sit between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``
lines; nbgrader strips them from the released notebook. The grader finds them (what a hidden
test records), and puts the released cell back without them.

>>> source = 'assert ok\\n    ### BEGIN HIDDEN TESTS\\nrecord("ex1.ops", ops)\\n'
>>> source += '### END HIDDEN TESTS\\nprint(1)\\n'
>>> HIDDEN_TESTS.findall(source)
['record("ex1.ops", ops)\\n']
>>> HIDDEN_TESTS.sub("", source)
'assert ok\\nprint(1)\\n'

The cells ``make exercises`` writes into every notebook (its setup, its known mistakes and the
last cell, listing every check) carry grade ids made from the notebook's prefix:

>>> made_cell_id("ex1_int8_matmul"), sorted(made_cell_ids("ex9_memory_hierarchy"))[0]
('ex1_known_mistakes', 'ex9_every_check')
"""

from __future__ import annotations

import re

__all__ = [
    "CELL_ID_SUFFIX",
    "EVERY_CHECK_SUFFIX",
    "HIDDEN_TESTS",
    "SETUP_SUFFIX",
    "made_cell_id",
    "made_cell_ids",
]

HIDDEN_TESTS = re.compile(
    r"^[ \t]*### BEGIN HIDDEN TESTS[^\n]*\n(.*?)^[ \t]*### END HIDDEN TESTS[ \t]*(?:\n|\Z)",
    re.DOTALL | re.MULTILINE,
)
"""A cell's hidden tests, their marks' lines included; the group is what lies between them."""

CELL_ID_SUFFIX = "known_mistakes"
"""The known-mistakes cell's grade id is ``<exercise prefix>_known_mistakes``, e.g. ``ex1_known_mistakes``."""
SETUP_SUFFIX = "setup"
"""The setup cell's grade id is ``<exercise prefix>_setup``, e.g. ``ex1_setup``."""
EVERY_CHECK_SUFFIX = "every_check"
"""The last cell's grade id is ``<exercise prefix>_every_check``, e.g. ``ex1_every_check``."""


def made_cell_id(notebook: str, suffix: str = CELL_ID_SUFFIX) -> str:
    """The grade id of the made cell ``suffix`` of ``notebook`` (a notebook's name, or its stem)."""
    return f"{notebook.split('_')[0]}_{suffix}"


def made_cell_ids(notebook: str) -> frozenset[str]:
    """The grade ids of every cell ``make exercises`` writes into ``notebook``."""
    return frozenset(made_cell_id(notebook, s) for s in (SETUP_SUFFIX, CELL_ID_SUFFIX, EVERY_CHECK_SUFFIX))
