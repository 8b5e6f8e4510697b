"""``make book``, one test process at a time.

pytest-xdist's workers share the checkout's _build, and take turns under a file lock. A run with
a test that needs the site starts the build as its tests start, in its first worker
(:func:`build_in_background`, from tests/conftest.py), beside the first tests; a test that needs
the site waits on the lock for that build, then finds nothing to do (the execution cache makes a
build quick when nothing changed). The same command a reader runs, so the tests see what they get.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.locks import exclusive

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "_build" / ".make-book.lock"
"""The book's lock: every test process of the checkout agrees on it."""
COMMAND = ["make", "--no-print-directory", "book"]
TIMEOUT = 3600


@dataclass
class _Background:
    """The build this process started as its tests started: its thread, its process while it
    runs, and how it ended."""

    thread: threading.Thread | None = None
    process: subprocess.Popen[str] | None = None
    done: subprocess.CompletedProcess[str] | None = None
    stopped: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


_BACKGROUND = _Background()


def make_book() -> subprocess.CompletedProcess[str]:
    """``make book`` in the checkout, under the lock; its status and output. In the process whose
    background build failed, that build's status and output (it is not run twice)."""
    with exclusive(LOCK):
        failed = _BACKGROUND.done
        if failed is not None and failed.returncode != 0:
            return failed
        return subprocess.run(COMMAND, cwd=ROOT, capture_output=True, text=True, check=False, timeout=TIMEOUT)


def _build() -> None:
    with exclusive(LOCK):
        with _BACKGROUND.lock:
            if _BACKGROUND.stopped:  # the run ended while another process held the lock
                return
            _BACKGROUND.process = subprocess.Popen(
                COMMAND, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                start_new_session=True,  # its own process group: stop_background_build ends all of it
            )
        try:
            out, err = _BACKGROUND.process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(_BACKGROUND.process.pid, signal.SIGTERM)
            out, err = _BACKGROUND.process.communicate()
        _BACKGROUND.done = subprocess.CompletedProcess(COMMAND, _BACKGROUND.process.returncode, out, err)


def build_in_background() -> None:
    """Start ``make book`` in a thread of this process, now: a run that needs the site builds it
    beside its first tests, rather than when its first test that needs it asks, while the other
    workers' tests that need it wait idle. Those tests' :func:`make_book` waits on the lock, then
    finds the site built; a failed build fails them with its own output. Once per process."""
    if _BACKGROUND.thread is None:
        _BACKGROUND.thread = threading.Thread(target=_build, name="make book", daemon=True)
        _BACKGROUND.thread.start()


def stop_background_build() -> None:
    """End the background build's ``make`` and everything it started, if it is still running."""
    with _BACKGROUND.lock:
        _BACKGROUND.stopped = True
        process = _BACKGROUND.process
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)


def finish_background_build(*, wait: bool) -> None:
    """Wait for the background build, if any (``wait``), or stop it (a run that ends early does
    not sit out a whole build); either way no run leaves ``make book`` running behind it."""
    if _BACKGROUND.thread is None:
        return
    if not wait:
        stop_background_build()
    _BACKGROUND.thread.join()
