"""``make book``, one test process at a time.

pytest-xdist's workers share the checkout's _build: the first to ask builds the site (the
execution cache makes it quick when nothing changed), and the others wait on a file lock, then
find nothing to do. The same command a reader runs, so the tests see what they get.
"""

from __future__ import annotations

import subprocess
import threading
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


_EARLY: list[threading.Thread] = []


def build_in_background() -> None:
    """Start :func:`make_book` in a thread of this process, now: a run that needs the site builds it
    beside its first tests, rather than when its first test that needs it asks, while the other
    workers' tests that need it wait idle. Those tests' :func:`make_book` waits on the lock, then
    finds the site built; a failed build fails them with its own output. Once per process."""
    if not _EARLY:
        _EARLY.append(threading.Thread(target=make_book, name="make book", daemon=True))
        _EARLY[0].start()


def wait_for_background_build() -> None:
    """Return once the build :func:`build_in_background` started, if any, has ended (a test run never
    leaves `make book` running behind it)."""
    for thread in _EARLY:
        thread.join()
