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
a cell, or of code that is not part of the installation (``library``), or the event happens in
a thread the notebook's code started. What the kernel's own machinery does (ipykernel reading
``/proc``, matplotlib reading its fonts) is not reported, nor what the recorder itself does for
the hidden tests (``trusted``: its frames between the event and the cell).

Some routes leave no audit event, so the monitor watches them itself: an import of a course
package by any route (``importlib.import_module`` raises no ``import`` event; a finder at the
front of ``sys.meta_path`` sees every import), threads (``threading`` and ``_thread`` starts
are wrapped to remember the cell that started each), and its own channel (a channel that is no
longer the pipe it was is reopened by its path and the change reported). :meth:`Monitor.seal`,
called by the grader after the last cell, says whether all of that is still in place, so that
a report that could not see everything says so.

>>> events = []
>>> monitor = Monitor(events.append, readable=("/usr",), writable=("/tmp",), own_pid=1, library=())
>>> monitor.active = True
>>> monitor.hook("open", ("/work/course/gradebook.db", "rb", 0))
>>> monitor.hook("open", ("/usr/lib/python3/x.py", "r", 0))
>>> [(e["what"], e["detail"]) for e in events]
[('file', 'read /work/course/gradebook.db')]
"""

from __future__ import annotations

import _thread
import contextlib
import json
import os
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

from roofline_recorder.places import Places, directory, hashed, other_process

__all__ = ["HIDDEN_PACKAGES", "Monitor", "hashed", "install"]

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
        trusted: tuple[str, ...] = (),
        exposed: tuple[str, ...] = (),
    ) -> None:
        self.report = report
        self.places = Places(
            readable=readable, writable=writable, protected=protected, salt=salt, exposed=exposed
        )
        self.trusted = frozenset(os.path.abspath(p) for p in trusted)
        self.library = tuple(directory(p) for p in library)
        self.own_pid = own_pid
        self.active = False
        self.cell: int | None = None
        self.filenames: dict[str, int] = {}
        self.seen: set[tuple[Any, ...]] = set()
        self.dropped = 0
        self._busy: set[int] = set()
        """The threads running the hook now (it reports nothing it causes itself)."""
        self.thread_origins: weakref.WeakKeyDictionary[threading.Thread, tuple[int | None, int | None]] = (
            weakref.WeakKeyDictionary()
        )
        self.raw_origins: dict[int, tuple[int | None, int | None]] = {}
        self.installed_report: Callable[[dict[str, Any]], None] = report
        self.installed: tuple[Any, ...] | None = None

    def attach(self, shell: Any) -> None:
        """Follow the IPython shell's cells: from the first one on, events are reported with
        the execution count of the cell they come from (the grader knows which cell that is)."""
        self.filenames = getattr(shell.compile, "_filename_map", {})
        self.installed = self.settings()

        def pre_run_cell(info: Any) -> None:
            self.active = True
            self.cell = shell.execution_count

        shell.events.register("pre_run_cell", pre_run_cell)

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        """The audit hook: never raises, never blocks the operation."""
        thread = _thread.get_ident()
        if not self.active or thread in self._busy:
            return
        self._busy.add(thread)
        try:
            found = self._classify(event, args)
            if found is not None:
                self._send(*found)
        except BaseException:  # a hook that raised would break the student's operation
            pass
        finally:
            self._busy.discard(thread)

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
        if event == "import":
            return _imported(str(args[0]))
        return None

    def _file(self, path: Any, write: bool) -> tuple[str, str] | None:
        if isinstance(path, int):
            return None
        full = os.path.abspath(os.fsdecode(os.fspath(path)))
        if other_process(full, self.own_pid) is not None:
            return "process-info", f"reads {full}, which belongs to another process"
        found = self.places.outside(full, write=write)
        return None if found is None else ("file", found)

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
        and whether the notebook's code is behind it at all (a frame of a cell or of code outside
        the installation, with no frame of the recorder's own in between, or a thread the
        notebook's code started)."""
        frame: Any = sys._getframe(2)
        ours = False
        while frame is not None:
            filename = frame.f_code.co_filename
            count = self.filenames.get(filename)
            if count is not None:
                return count, frame.f_lineno, True
            if not ours and filename in self.trusted:
                return self.cell, None, False  # the recorder at work for a hidden test
            # "<frozen importlib._bootstrap>", "<string>" (dataclasses, namedtuple): neither
            ours = ours or not (filename.startswith("<") or (filename + "/").startswith(self.library))
            frame = frame.f_back
        if not ours:
            origin = self._thread_origin()
            if origin is not None:
                return origin[0], origin[1], True
        return self.cell, None, ours

    def _thread_origin(self) -> tuple[int | None, int | None] | None:
        """Where the running thread was started, if the notebook's code started it."""
        ident = threading.get_ident()
        if ident in self.raw_origins:
            return self.raw_origins[ident]
        current = threading._active.get(ident)  # type: ignore[attr-defined]  # no dummy thread made
        return self.thread_origins.get(current) if current is not None else None

    def started_from(self) -> tuple[int | None, int | None] | None:
        """The cell and line of the notebook's code starting a thread now, if it is behind it."""
        cell, line, ours = self._where()
        return (cell, line) if ours else None

    def watch_threads(self) -> None:
        """Remember, for each thread the notebook's code starts, where it started it."""
        monitor = self
        start, start_new_thread = threading.Thread.start, _thread.start_new_thread

        def thread_start(thread: threading.Thread) -> None:
            origin = monitor.started_from()
            if origin is not None:
                monitor.thread_origins[thread] = origin
            start(thread)

        def raw_start(function: Any, args: Any, kwargs: Any = None) -> int:
            origin = monitor.started_from()
            if origin is None:
                return start_new_thread(function, args, kwargs or {})

            def tagged(*a: Any, **k: Any) -> Any:
                monitor.raw_origins[threading.get_ident()] = origin
                return function(*a, **k)

            return start_new_thread(tagged, args, kwargs or {})

        threading.Thread.start = thread_start  # type: ignore[method-assign,assignment]
        _thread.start_new_thread = raw_start
        self.watched = (thread_start, raw_start)

    def watch_imports(self) -> None:
        """Put a finder first on ``sys.meta_path`` that reports every import of a course package,
        however it is asked for, and finds nothing itself."""
        self.finder = _CoursePackages(self)
        sys.meta_path.insert(0, self.finder)

    def settings(self) -> tuple[Any, ...]:
        """What decides what the monitor reports: compared at the seal with what it was installed with."""
        return (self.report, self.places, self.library, self.trusted, self.own_pid, id(self.filenames))

    def seal(self, nonce: str) -> None:
        """Report that the notebook is done, with ``nonce`` (given by the grader) and whether the
        monitor could see everything until now: which of its parts were removed or changed, if any."""
        missing = []
        if not sys.meta_path or sys.meta_path[0] is not getattr(self, "finder", None):
            missing.append("the import watch was removed")
        watched = getattr(self, "watched", (None, None))
        if threading.Thread.start is not watched[0] or _thread.start_new_thread is not watched[1]:
            missing.append("the thread watch was removed")
        if self.settings() != getattr(self, "installed", None):
            missing.append("the monitor's settings were changed")
        if type(self) is not _MONITOR or type(getattr(self, "finder", None)) is not _FINDER:
            missing.append("the monitor's class was changed")
        replaced = sorted(
            name
            for kind, methods in ((_MONITOR, _MONITOR_METHODS), (_FINDER, _FINDER_METHODS))
            for name, method in methods.items()
            if vars(kind).get(name) is not method or name in vars(self)
        )
        if replaced:
            missing.append(f"the monitor's {', '.join(replaced)} was replaced")
        if type(self._busy) is not set or self._busy - {_thread.get_ident()}:
            missing.append("the monitor's guard was set")
        if not self.active:
            missing.append("the monitor was switched off")
        self.report({"what": "sealed", "nonce": nonce, "missing": missing, "cell": None, "line": None})


class _CoursePackages:
    """The import watch (:meth:`Monitor.watch_imports`)."""

    def __init__(self, monitor: Monitor) -> None:
        self.monitor = monitor

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if self.monitor.active and _imported(name) is not None:
            self.monitor.hook("import", (name, None, None, None, None))


_MONITOR, _FINDER = Monitor, _CoursePackages
_MONITOR_METHODS = {name: value for name, value in vars(Monitor).items() if callable(value)}
_FINDER_METHODS = {name: value for name, value in vars(_CoursePackages).items() if callable(value)}
"""The monitor's code as loaded: the seal finds out whether any of it was replaced since."""


def install(
    channel: int,
    *,
    readable: tuple[str, ...],
    writable: tuple[str, ...],
    library: tuple[str, ...],
    protected: frozenset[str] = frozenset(),
    salt: str = "",
    trusted: tuple[str, ...] = (),
    exposed: tuple[str, ...] = (),
    path: str | None = None,
) -> Monitor:
    """Add the audit hook, writing events as JSON lines to the file descriptor ``channel`` (the
    named pipe at ``path``, reopened by that path if the descriptor is changed), and the watches
    of imports and threads."""
    write = _channel_writer(channel, path)
    monitor = Monitor(
        write,
        readable=readable,
        writable=writable,
        own_pid=os.getpid(),
        library=library,
        protected=protected,
        salt=salt,
        trusted=trusted,
        exposed=exposed,
    )
    sys.addaudithook(monitor.hook)
    monitor.watch_imports()
    monitor.watch_threads()
    monitor.installed = monitor.settings()
    return monitor


def _imported(name: str) -> tuple[str, str] | None:
    """What importing ``name`` is, if the report names it: a course package, or the recorder's own
    code (no hidden test imports more of it than the package and its copies and records).

    >>> _imported("rooflinekit.bounds")
    ('import', 'imports rooflinekit.bounds (not available when grading)')
    >>> _imported("roofline_recorder.audit"), _imported("numpy")
    (('import', "imports roofline_recorder.audit, the grader's own code"), None)
    """
    if name.split(".")[0] in HIDDEN_PACKAGES:
        return "import", f"imports {name} (not available when grading)"
    if name.startswith("roofline_recorder.") and name.split(".")[1] not in ("snapshot", "encode"):
        return "import", f"imports {name}, the grader's own code"
    return None


def _channel_writer(channel: int, path: str | None) -> Callable[[dict[str, Any]], None]:
    """Write events to ``channel``; if the descriptor no longer is the pipe it was (code made it
    point elsewhere), write to the pipe at ``path`` instead, saying so first."""
    identity = _identity(channel)
    state = {"fd": channel, "told": False}

    def write(event: dict[str, Any]) -> None:
        fd = state["fd"]
        if identity is not None and _identity(fd) != identity and path:
            with contextlib.suppress(OSError):
                reopened = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
                if _identity(reopened) == identity:
                    state["fd"] = fd = reopened
                else:
                    os.close(reopened)
            if not state["told"]:
                state["told"] = True
                note = {"what": "channel", "detail": "changed where the grading report's events go"}
                with contextlib.suppress(OSError):
                    os.write(
                        fd, (json.dumps({**note, "cell": event.get("cell"), "line": None}) + "\n").encode()
                    )
        with contextlib.suppress(OSError):
            os.write(fd, (json.dumps(event) + "\n").encode("utf-8", "replace"))

    return write


def _identity(fd: int) -> tuple[int, int] | None:
    try:
        info = os.fstat(fd)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _writes(mode: Any, flags: Any) -> bool:
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
