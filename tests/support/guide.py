"""The instructor's guide (book/instructor-guide.md) as the tests that follow it literally read it:
a section by its heading, and the commands a section has the instructor type.

>>> console_commands("The whole round at once")[0].startswith("make grading-round")
True
"""

from __future__ import annotations

import re

from tests.support.make_targets import ROOT

GUIDE = ROOT / "book" / "instructor-guide.md"


def section(title: str) -> str:
    """The guide's section ``title`` (a heading's text), up to the next heading of its level or above."""
    text = GUIDE.read_text()
    heading = re.search(rf"^(#+) {re.escape(title)}$", text, flags=re.MULTILINE)
    assert heading is not None, f"the guide has no section {title!r}"
    rest = text[heading.end() :]
    end = re.search(rf"^#{{1,{len(heading[1])}}} ", rest, flags=re.MULTILINE)
    return rest[: end.start() if end else len(rest)]


def console_commands(title: str) -> list[str]:
    """The commands the guide's section ``title`` has the instructor type (its ``$`` lines), in order."""
    blocks = re.findall(r"^```console\n(.*?)^```", section(title), flags=re.MULTILINE | re.DOTALL)
    return [line[2:] for block in blocks for line in block.splitlines() if line.startswith("$ ")]
