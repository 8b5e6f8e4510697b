"""``make book``, one test process at a time.

pytest-xdist's workers share the checkout's _build: the first to ask builds the site (the
execution cache makes it quick when nothing changed), and the others wait on a file lock, then
find nothing to do. The same command a reader runs, so the tests see what they get.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.locks import exclusive

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "_build" / ".make-book.lock"
"""The book's lock: every test process of the checkout agrees on it."""


def make_book() -> subprocess.CompletedProcess[str]:
    """``make book`` in the checkout, under the lock; its status and output."""
    with exclusive(LOCK):
        return subprocess.run(
            ["make", "--no-print-directory", "book"],
            cwd=ROOT, capture_output=True, text=True, check=False, timeout=3600,
        )
