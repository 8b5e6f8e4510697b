"""A file lock that every test process of a run agrees on (pytest-xdist's workers are processes):
the first to take it does a shared piece of work, the others wait, then find it done."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def exclusive(lock: Path) -> Iterator[None]:
    """Hold the lock on the file ``lock`` (created, with its folder, if missing) for the block,
    waiting while another process holds it.

    >>> import tempfile
    >>> with exclusive(Path(tempfile.mkdtemp()) / "work" / "done.lock"):
    ...     print("mine alone")
    mine alone
    """
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
