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
"""

from __future__ import annotations

import re

__all__ = ["HIDDEN_TESTS"]

HIDDEN_TESTS = re.compile(
    r"^[ \t]*### BEGIN HIDDEN TESTS[^\n]*\n(.*?)^[ \t]*### END HIDDEN TESTS[ \t]*(?:\n|\Z)",
    re.DOTALL | re.MULTILINE,
)
"""A cell's hidden tests, their marks' lines included; the group is what lies between them."""
