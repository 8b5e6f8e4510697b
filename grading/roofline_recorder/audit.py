"""Tell the grader what the notebook's code tried to do, from inside the kernel.

:func:`install` adds a PEP 578 audit hook to the grading kernel before any student code
runs. Code cannot remove an audit hook once it is added, so from then on every file the
code opens outside the places a kernel may use, every signal it sends to another process,
every process it starts, every network address it asks for, every C library it loads and
every attempt to import the course's own packages is written, as one JSON line with the
cell and line it came from, to an event channel (a pipe the grader reads outside the
sandbox). The hook never stops anything (the sandbox does that); it only reports.

Only the standard library is used: this module runs inside the grading kernel.

Events are reported only when the notebook's code caused them: the call stack holds a frame of
a cell, or of code that is not part of the installation (``library``). What the kernel's own
machinery does (ipykernel reading ``/proc``, matplotlib reading its fonts) is not reported.

>>> events = []
>>> monitor = Monitor(events.append, readable=("/usr",), writable=("/tmp",), own_pid=1, library=())
>>> monitor.active = True
>>> monitor.hook("open", ("/work/course/gradebook.db", "rb", 0))
>>> monitor.hook("open", ("/usr/lib/python3/x.py", "r", 0))
>>> [(e["what"], e["detail"]) for e in events]
[('file', 'read /work/course/gradebook.db')]
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["HIDDEN_PACKAGES", "Monitor", "install"]

HIDDEN_PACKAGES = frozenset({"rooflinekit", "roofline_grading"})
"""The course's packages, which a grading kernel does not have."""
MAX_EVENTS = 200
"""Distinct events reported per notebook; more are counted, not described."""

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_PROCESS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.posix_spawn",
        "os.exec",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "pty.spawn",
    }
)
_NETWORK = frozenset(
    {
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.sendmsg",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyaddr",
    }
)
_FILE_CHANGES = frozenset(
    {
        "os.remove",
        "os.rename",
        "os.rmdir",
        "os.mkdir",
        "os.symlink",
        "os.link",
        "os.truncate",
        "os.chmod",
        "os.chown",
    }
)


class Monitor:
    """The audit hook's state: where files may be read and written, which cell is running,
    and the events reported so far (each distinct event once)."""

    def __init__(
        self,
        report: Callable[[dict[str, Any]], None],
        *,
        readable: tuple[str, ...],
        writable: tuple[str, ...],
        own_pid: int,
        library: tuple[str, ...],
        protected: frozenset[str] = frozenset(),
        salt: str = "",
    ) -> None:
        self.report = report
        self.protected, self.salt = protected, salt
        self.library = tuple(_directory(p) for p in library)
        self.readable = tuple(_directory(p) for p in (*readable, *writable))
        self.writable = tuple(_directory(p) for p in writable)
        self.own_pid = own_pid
        self.active = False
        self.cell: int | None = None
        self.filenames: dict[str, int] = {}
        self.seen: set[tuple[Any, ...]] = set()
        self.dropped = 0
        self._busy = threading.local()

    def attach(self, shell: Any) -> None:
        """Follow the IPython shell's cells: from the first one on, events are reported with
        the execution count of the cell they come from (the grader knows which cell that is)."""
        self.filenames = getattr(shell.compile, "_filename_map", {})

        def pre_run_cell(info: Any) -> None:
            self.active = True
            self.cell = shell.execution_count

        shell.events.register("pre_run_cell", pre_run_cell)

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        """The audit hook: never raises, never blocks the operation."""
        if not self.active or getattr(self._busy, "on", False):
            return
        self._busy.on = True
        try:
            found = self._classify(event, args)
            if found is not None:
                self._send(*found)
        except BaseException:  # a hook that raised would break the student's operation
            pass
        finally:
            self._busy.on = False

    def _classify(self, event: str, args: tuple[Any, ...]) -> tuple[str, str] | None:
        if event == "open":
            return self._file(
                args[0], _writes(args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else 0)
            )
        if event in ("os.listdir", "os.scandir"):
            return self._file(args[0] if args else ".", False)
        if event in _FILE_CHANGES:
            return self._file(args[0], True)
        if event in ("os.kill", "os.killpg", "signal.pthread_kill"):
            target, signal_number = args[0], args[1]
            if (event == "os.kill" and target == self.own_pid) or event == "signal.pthread_kill":
                return None
            if event == "os.killpg" and target in (0, os.getpgid(self.own_pid)):
                return None
            return "signal", f"sent signal {signal_number} to process {target}"
        if event in _PROCESS:
            return "process", f"{event}({_short(args[0]) if args else ''})"
        if event in _NETWORK:
            address = (
                args[1]
                if event.startswith("socket.")
                and len(args) > 1
                and event not in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr")
                else args[0]
            )
            return "network", f"{event}({_short(address)})"
        if event == "ctypes.dlopen":
            return "ctypes", f"loads the C library {_short(args[0])} with ctypes"
        if event == "resource.setrlimit":
            return "limits", f"changes its resource limit {args[0]}"
        if event == "sys.addaudithook":
            return "audit", "adds an audit hook"
        if event == "import" and str(args[0]).split(".")[0] in HIDDEN_PACKAGES:
            return "import", f"imports {args[0]} (not available when grading)"
        return None

    def _file(self, path: Any, write: bool) -> tuple[str, str] | None:
        if isinstance(path, int):
            return None
        name = os.fsdecode(os.fspath(path))
        full = os.path.abspath(name)
        proc = _other_process(full, self.own_pid)
        if proc:
            return "process-info", f"reads {full}, which belongs to another process"
        under = full + "/"
        if write and not under.startswith(self.writable):
            return "file", f"write {full}"
        if not write and not under.startswith(self.readable) and not _own_proc(full):
            return "file", f"read {full}"
        # /tmp is the kernel's own, but a course kept in the grader's /tmp has paths there too: the
        # grader's places are known here only by salted hashes, so the kernel learns no path.
        if self.protected and under.startswith(self.writable) and self._inside_protected(full):
            return "file", f"{'write' if write else 'read'} {full}"
        return None

    def _inside_protected(self, path: str) -> bool:
        while True:
            if hashed(self.salt, path) in self.protected:
                return True
            parent = os.path.dirname(path)
            if parent == path:
                return False
            path = parent

    def _send(self, what: str, detail: str) -> None:
        cell, line, ours = self._where()
        if not ours:
            return
        key = (what, detail, cell, line)
        if key in self.seen:
            return
        if len(self.seen) >= MAX_EVENTS:
            self.dropped += 1
            if self.dropped == 1:
                self.report(
                    {"what": "more", "detail": f"more than {MAX_EVENTS} events", "cell": cell, "line": line}
                )
            return
        self.seen.add(key)
        self.report({"what": what, "detail": detail[:300], "cell": cell, "line": line})

    def _where(self) -> tuple[int | None, int | None, bool]:
        """The cell (execution count) and line of the innermost notebook frame behind the event,
        and whether any code outside the installation is behind it at all."""
        frame: Any = sys._getframe(2)
        ours = False
        while frame is not None:
            filename = frame.f_code.co_filename
            count = self.filenames.get(filename)
            if count is not None:
                return count, frame.f_lineno, True
            # "<frozen importlib._bootstrap>", "<string>" (dataclasses, namedtuple): neither
            ours = ours or not (filename.startswith("<") or (filename + "/").startswith(self.library))
            frame = frame.f_back
        return self.cell, None, ours


def hashed(salt: str, path: str) -> str:
    """How the grader names one of its directories to the kernel: a salted hash, not the path.

    >>> hashed("s", "/course") == hashed("s", "/course") != hashed("t", "/course")
    True
    """
    return hashlib.sha256(f"{salt}\0{os.path.normpath(path)}".encode()).hexdigest()


def install(
    channel: int,
    *,
    readable: tuple[str, ...],
    writable: tuple[str, ...],
    library: tuple[str, ...],
    protected: frozenset[str] = frozenset(),
    salt: str = "",
) -> Monitor:
    """Add the audit hook, writing events as JSON lines to the file descriptor ``channel``."""

    def report(event: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):
            os.write(channel, (json.dumps(event) + "\n").encode("utf-8", "replace"))

    monitor = Monitor(
        report,
        readable=readable,
        writable=writable,
        own_pid=os.getpid(),
        library=library,
        protected=protected,
        salt=salt,
    )
    sys.addaudithook(monitor.hook)
    return monitor


def _writes(mode: Any, flags: Any) -> bool:
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _directory(path: str) -> str:
    path = os.path.abspath(path)
    return path if path.endswith("/") else path + "/"


def _own_proc(path: str) -> bool:
    return path.startswith(("/proc/self/", "/proc/thread-self/")) or path in (
        "/proc/self",
        "/proc/thread-self",
    )


def _other_process(path: str, own_pid: int) -> bool:
    parts = path.split("/")
    return len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit() and int(parts[2]) != own_pid


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
