"""Screenshots of the browser pages a failed test left open, in _build/screenshots/failed/.

tests/conftest.py's ``pytest_runtest_makereport`` hook notes on each test whether its body failed;
a fixture that opens pages calls :func:`if_failed` before it closes them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAILED_SHOTS = ROOT / "_build" / "screenshots" / "failed"
CALL_FAILED = pytest.StashKey[bool]()
"""Set on a test's node by the report hook: did the test's body fail?"""


def if_failed(node: pytest.Item, pages: Iterable[Any]) -> list[Path]:
    """A full-page screenshot of each open page when ``node``'s test failed, named after it."""
    if not node.stash.get(CALL_FAILED, False):
        return []
    FAILED_SHOTS.mkdir(parents=True, exist_ok=True)
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in node.nodeid.split("::", 1)[-1])
    written = []
    for number, page in enumerate(pages):
        if not page.is_closed():
            written.append(FAILED_SHOTS / f"{name}-{number}.png")
            page.screenshot(path=str(written[-1]), full_page=True)
    return written
