"""Where a grading kernel may read and write, and which of the grader's places it must not touch.

The kernel's two watches share these rules: its audit hook, inside the interpreter
(:mod:`roofline_recorder.audit`), and its keeper, which sees the kernel's system calls from outside
(:mod:`roofline_recorder.watch`). The grader's own places (the course, its run folder, its home) are
known here only by salted hashes (:func:`hashed`), so a kernel that reads its session learns no path.

This module imports only the standard library: it runs inside the grading kernel's sandbox.

>>> places = Places(readable=("/usr",), writable=("/tmp",), protected=frozenset({hashed("s", "/course")}),
...                 salt="s")
>>> places.outside("/course/gradebook.db", write=False), places.outside("/usr/lib/x.py", write=False)
('read /course/gradebook.db', None)
>>> places.outside("/usr/lib/x.py", write=True), places.protected_path("/course/gradebook.db")
('write /usr/lib/x.py', True)
>>> other_process("/proc/12/environ", own=3), other_process("/proc/self/status", own=3)
(12, None)
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

__all__ = ["Places", "directory", "hashed", "other_process"]


@dataclass(frozen=True)
class Places:
    """Where the kernel may read (``readable``) and write (``writable``), what is mounted from the
    grader's machine as it is (``exposed``: reading there is never reading the grader's files), and
    the grader's own places, as salted hashes (``protected``)."""

    readable: tuple[str, ...] = ()
    writable: tuple[str, ...] = ()
    protected: frozenset[str] = frozenset()
    salt: str = ""
    exposed: tuple[str, ...] = ()
    _readable: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _writable: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _exposed: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_readable", tuple(directory(p) for p in (*self.readable, *self.writable)))
        object.__setattr__(self, "_writable", tuple(directory(p) for p in self.writable))
        object.__setattr__(self, "_exposed", tuple(directory(p) for p in self.exposed))

    def may_write(self, path: str) -> bool:
        return (os.path.abspath(path) + "/").startswith(self._writable)

    def may_read(self, path: str) -> bool:
        return (os.path.abspath(path) + "/").startswith(self._readable)

    def protected_path(self, path: str) -> bool:
        """Whether ``path`` lies in one of the grader's own places (and not in what is exposed)."""
        full = os.path.abspath(path)
        if not self.protected or (full + "/").startswith(self._exposed):
            return False
        while True:
            if hashed(self.salt, full) in self.protected:
                return True
            parent = os.path.dirname(full)
            if parent == full:
                return False
            full = parent

    def outside(self, path: str, *, write: bool) -> str | None:
        """What opening ``path`` tries, in words, if it reaches outside the kernel's places; None
        if it stays inside them. ``/tmp`` is the kernel's own, but a course kept in the grader's
        ``/tmp`` has paths there too: those are the protected ones."""
        full = os.path.abspath(path)
        if write and not self.may_write(full):
            return f"write {full}"
        if not write and not self.may_read(full) and not own_proc(full):
            return f"read {full}"
        if self.may_write(full) and self.protected_path(full):
            return f"{'write' if write else 'read'} {full}"
        return None


def hashed(salt: str, path: str) -> str:
    """How the grader names one of its directories to the kernel: a salted hash, not the path.

    >>> hashed("s", "/course") == hashed("s", "/course") != hashed("t", "/course")
    True
    """
    return hashlib.sha256(f"{salt}\0{os.path.normpath(path)}".encode()).hexdigest()


def directory(path: str) -> str:
    """``path``, absolute, with one slash at its end (so that a prefix test matches whole names)."""
    path = os.path.abspath(path)
    return path if path.endswith("/") else path + "/"


def own_proc(path: str) -> bool:
    """Whether ``path`` is the calling process's own ``/proc`` entry."""
    own = ("/proc/self", "/proc/thread-self")
    return path in own or path.startswith(tuple(f"{p}/" for p in own))


def other_process(path: str, own: int) -> int | None:
    """The process number of ``path`` if it lies under ``/proc/<n>`` of a process other than ``own``."""
    parts = os.path.abspath(path).split("/")
    if len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit() and int(parts[2]) != own:
        return int(parts[2])
    return None
