"""``make book``, one test process at a time.

pytest-xdist's workers share the checkout's _build: the first to ask builds the site (the
execution cache makes it quick when nothing changed), and the others wait on a file lock, then
find nothing to do. The same command a reader runs, so the tests see what they get.
"""

from __future__ import annotations

import fcntl
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "_build" / ".make-book.lock"


@contextmanager
def one_build_at_a_time() -> Iterator[None]:
    """Hold the book's lock (a file lock: every test process of the checkout agrees on it)."""
    LOCK.parent.mkdir(exist_ok=True)
    with LOCK.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def make_book() -> subprocess.CompletedProcess[str]:
    """``make book`` in the checkout, under the lock; its status and output."""
    with one_build_at_a_time():
        return subprocess.run(
            ["make", "--no-print-directory", "book"],
            cwd=ROOT, capture_output=True, text=True, check=False, timeout=3600,
        )
