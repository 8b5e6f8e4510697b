"""What a notebook's processes ask of the system, seen from outside their interpreter.

The grading kernel's audit hook (:mod:`roofline_recorder.audit`) lives in the interpreter that
runs the student's code, so that code can reach it. This watch does not: before the kernel runs
anything, it loads a system-call filter (:mod:`roofline_recorder.seccomp`) that hands the calls
below to its *keeper*, the sandbox's first process, which runs no student code, cannot be
signalled from inside the sandbox, and makes itself unreadable to it. The keeper reads each call's
arguments in the caller's memory, writes what it means for the report to a pipe only it holds
(the grader reads the other end), and lets the call go on. The kernel, the copies that answer the
hidden inputs and every process they start keep the filter; nothing they do can take it away.

What the keeper reports, once the kernel has started (what it does while starting is its own):

- a program started (``execve``), a signal sent to another process, another process's memory or
  file descriptors reached (``ptrace``, ``process_vm_readv``, ``pidfd_getfd``, ``/proc/<n>``);
- a file written outside the kernel's places, or opened in one of the grader's (the
  :class:`~roofline_recorder.places.Places` the audit hook uses too), and a course package opened
  (an import of it, however it is asked for: a stub stands for each on the kernel's path);
- a connection asked for or an address bound (the kernel's own sockets are made before it starts);
- and, refused, what would let code slip past the watch: ``io_uring`` (which opens files without
  a system call to see), a filter of its own (a second supervisor could answer first), and making
  itself unreadable (``PR_SET_DUMPABLE``); and the kernel's keyrings (``add_key``, ``keyctl``,
  ``request_key``), which no namespace separates: the sandbox's user is the grader's to them, so a
  notebook could read the keys of the grader's session (a login's or a service's) and leave one
  there for the next student's kernel to find.

Reads of files outside the kernel's places are left to the audit hook, which can tell the
kernel's own machinery from the notebook's code; the sandbox makes them harmless either way. A
watch that reads arguments from memory reads what they were when the call was made: code that
rewrites a file name from another thread while the call waits can make the report name another
file; it cannot hide that a program was started, a signal sent or a process traced.

>>> watched, me = Watched(Places(writable=("/tmp",)), own={}, report=-1), os.getpid()
>>> describe("kill", seccomp.Call(id=0, pid=me, number=62, args=(1, 15, 0, 0, 0, 0)), watched)
('signal', 'sent signal 15 to process 1')
>>> describe("kill", seccomp.Call(id=0, pid=me, number=62, args=(me, 10, 0, 0, 0, 0)), watched) is None
True
>>> [conditions for name, conditions in RULES if name == "prctl"]
[((0, 4),), ((0, 22),)]
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import select
import signal
import socket
import struct
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NoReturn

from roofline_recorder import seccomp
from roofline_recorder.places import Places, other_process

__all__ = ["RULES", "Keeper", "Watched", "install", "keep"]

PR_SET_DUMPABLE, PR_SET_SECCOMP = 4, 22
KEYRING = ("add_key", "keyctl", "request_key")
RULES: tuple[seccomp.Rule, ...] = (
    *((name, ()) for name in ("execve", "execveat")),
    *((name, ()) for name in ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")),
    *((name, ()) for name in ("pidfd_send_signal", "pidfd_getfd", "ptrace")),
    *((name, ()) for name in ("process_vm_readv", "process_vm_writev")),
    *((name, ()) for name in ("open", "openat", "openat2", "creat", "connect", "bind")),
    *((name, ()) for name in ("io_uring_setup", "seccomp")),
    *((name, ()) for name in KEYRING),
    ("prctl", ((0, PR_SET_DUMPABLE),)),
    ("prctl", ((0, PR_SET_SECCOMP),)),
)
"""The system calls handed to the keeper: name and the argument values that must hold (none: all)."""
REFUSED = frozenset({"io_uring_setup", "seccomp", "prctl", *KEYRING})
REPEATS = 20
"""Times one event (the same words) is reported; more are only counted."""
MAX_EVENTS = 500
"""Events reported per kernel in all; more are counted, not described."""
_WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_AT_FDCWD = -100
_PAGE = 4096


@dataclass
class Watched:
    """What the keeper knows of the kernel's places: the rules it reports by (``places``), the
    course packages' stubs and masked folders (``own``: folder -> what an open there is), and its
    channel to the grader (``report``: a file descriptor)."""

    places: Places
    own: dict[str, str]
    report: int
    started: bool = False
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    tgids: dict[int, int] = field(default_factory=dict)
    memory: dict[int, int] = field(default_factory=dict)

    def tell(self, what: str, detail: str, by: str) -> None:
        """Write one event for the grader (each distinct one at most :data:`REPEATS` times); ``by``:
        ``kernel`` if the kernel's own process made it, else ``other``."""
        key = (what, detail[:300])
        self.counts[key] += 1
        total = sum(self.counts.values())
        if self.counts[key] > REPEATS or total > MAX_EVENTS:
            if total == MAX_EVENTS + 1:
                self._write({"what": "more", "detail": f"more than {MAX_EVENTS} events"})
            return
        self._write({"what": what, "detail": key[1], "by": by})

    def tgid(self, pid: int) -> int:
        """The process thread ``pid`` belongs to (``pid`` itself if it cannot be told)."""
        found = self.tgids.get(pid)
        if found is None:
            found = pid
            with (
                contextlib.suppress(OSError, ValueError, IndexError, StopIteration),
                open(f"/proc/{pid}/status") as handle,
            ):
                found = next(int(line.split()[1]) for line in handle if line.startswith("Tgid:"))
            if len(self.tgids) > 4096:
                self.tgids.clear()
            self.tgids[pid] = found
        return found

    def _write(self, event: dict[str, Any]) -> None:
        event["t"] = time.monotonic_ns()
        with contextlib.suppress(OSError):
            os.write(self.report, (json.dumps(event) + "\n").encode("utf-8", "replace"))


def install() -> int:
    """In the kernel, before anything else and with one thread: load the filter, return its
    listener (for the keeper)."""
    return seccomp.load_filter(RULES)


# --- The keeper -------------------------------------------------------------------------------


class Keeper:
    """The keeper's loop: the kernel's exit, the orphans it collects, and the watched calls."""

    def __init__(
        self, kernel: int, exited: str, control: socket.socket, watched: Watched, tether: int | None = None
    ) -> None:
        self.kernel, self.exited, self.control, self.watched = kernel, exited, control, watched
        self.tether = tether
        self.listener: int | None = None
        self.poll = select.poll()
        self.wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda number, frame: None)
        self.poll.register(self.wake_read, select.POLLIN)
        self.poll.register(control.fileno(), select.POLLIN)
        if tether is not None:
            self.poll.register(tether, select.POLLIN)

    def run(self) -> NoReturn:
        while True:
            with contextlib.suppress(InterruptedError):
                for fd, flags in self.poll.poll(1000):
                    self._ready(fd, flags)
            self._reap()

    def _ready(self, fd: int, flags: int) -> None:
        if fd == self.wake_read:
            with contextlib.suppress(OSError):
                os.read(fd, 512)
        elif fd == self.control.fileno():
            self._control()
        elif fd == self.tether:
            os._exit(0)  # the launcher is gone: the first process ends, and the namespace with it
        elif fd == self.listener:
            if flags & select.POLLIN:
                self._one_call()
            elif flags & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                self.poll.unregister(fd)  # no process keeps the filter any more

    def _control(self) -> None:
        """What the kernel tells its keeper before any student code runs: the listener, or why
        there is none, then that it starts."""
        try:
            message, fds, _, _ = socket.recv_fds(self.control, 512, 1)
        except OSError:
            message, fds = b"", []
        if fds and message == b"listener":
            self.listener = fds[0]
            self.poll.register(self.listener, select.POLLIN)
            self.watched._write({"what": "watching"})
        elif message.startswith(b"unavailable"):
            self.watched._write({"what": "unwatched", "detail": message.decode(errors="replace")[12:300]})
        elif message == b"start":
            self.watched.started = True
        if not message:
            self.poll.unregister(self.control.fileno())
            self.control.close()

    def _one_call(self) -> None:
        """Read one stopped call, report it, and answer it, whatever its arguments hold: a keeper
        that stopped here would stop the kernel with it."""
        assert self.listener is not None
        try:
            call = seccomp.receive(self.listener)
        except OSError:  # the listener itself failed: nothing is watched any more
            self.poll.unregister(self.listener)
            self.watched._write({"what": "unwatched", "detail": "the keeper lost its watch"})
            return
        if call is None:
            return
        name = call.name
        try:
            found = describe(name, call, self.watched)
            if found is not None and self.watched.started and seccomp.still_waiting(self.listener, call):
                self.watched.tell(*found, by="kernel" if self._by_kernel(name, call.pid) else "other")
        except Exception:  # arguments crafted to trip the keeper: the call still goes on, or is refused
            if self.watched.started:
                self.watched.tell("unreadable", f"made a {name} call the keeper could not read", by="other")
        finally:
            seccomp.respond(self.listener, call, errno.EPERM if name in REFUSED else 0)

    def _by_kernel(self, name: str, pid: int) -> bool:
        """Whether the kernel's own process made the call, or a copy of it that starts a program
        (what the kernel's audit hook reports as the kernel's: ``subprocess.Popen``)."""
        tgid = self.watched.tgid(pid)
        if tgid == self.kernel:
            return True
        return name in ("execve", "execveat") and _parent(tgid) == self.kernel

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:  # nothing left: the kernel and every copy are gone
                os._exit(0)
            if pid == 0:
                return
            if pid == self.kernel:
                with contextlib.suppress(OSError), open(self.exited, "w") as handle:
                    handle.write(str(os.waitstatus_to_exitcode(status)))


def keep(
    kernel: int, exited: str, control: socket.socket, watched: Watched, tether: int | None = None
) -> NoReturn:
    """Be the keeper of ``kernel`` (see the module's docstring): never returns; ends, with every
    process it keeps, when the other end of ``tether`` closes (if given)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # unreadable from inside
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    Keeper(kernel, exited, control, watched, tether).run()


# --- What a call means ------------------------------------------------------------------------


def describe(name: str, call: seccomp.Call, watched: Watched) -> tuple[str, str] | None:
    """The report's (kind, words) for ``call``, or None if it is nothing to report."""
    args = call.args
    if name in ("execve", "execveat"):
        dirfd, address, argv = (_AT_FDCWD, args[0], args[1]) if name == "execve" else args[:3]
        path = _path(call, watched, dirfd, address)
        return "process", f"starts the program {path}{_arguments(call, watched, argv)}"
    if name in ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_send_signal"):
        return _signal(name, call, watched)
    if name in ("ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd"):
        return _reach(name, call, watched)
    if name in ("open", "openat", "openat2", "creat"):
        return _open(name, call, watched)
    if name in ("connect", "bind"):
        peer = _address(call, watched, args[1], args[2])
        return None if peer is None else ("network", f"{name}({peer})")
    if name == "io_uring_setup":
        return "refused", "tried to use io_uring, which grading does not allow (refused)"
    if name in KEYRING:
        words = f"tried to use the system's keyrings ({name}), which grading does not allow (refused)"
        return "refused", words
    if name == "prctl" and args[0] == PR_SET_DUMPABLE:
        return "refused", "tried to make itself unreadable to the grader (PR_SET_DUMPABLE, refused)"
    return "refused", "tried to add a system-call filter of its own (refused)"


def _signal(name: str, call: seccomp.Call, watched: Watched) -> tuple[str, str] | None:
    args = [_int(a) for a in call.args]
    own = watched.tgid(call.pid)
    if name == "pidfd_send_signal":
        target, number = _pidfd_target(call.pid, args[0]), args[1]
    elif name in ("tgkill", "rt_tgsigqueueinfo"):
        target, number = args[0], args[2]
    else:
        target, number = args[0], args[1]
    if target is not None and target > 0 and watched.tgid(target) == own:
        return None
    if target is None:
        whom = "another process"
    elif target > 0:
        whom = f"process {target}"
    else:
        whom = "every process it can reach" if target == -1 else "a group of processes"
    return "signal", f"sent signal {number} to {whom}"


def _reach(name: str, call: seccomp.Call, watched: Watched) -> tuple[str, str]:
    args = [_int(a) for a in call.args]
    if name == "ptrace":
        return "process-info", f"traces a process with ptrace (request {args[0]}, process {args[1]})"
    if name == "pidfd_getfd":
        return "process-info", "takes a file descriptor of another process (pidfd_getfd)"
    verb = "reads" if name == "process_vm_readv" else "writes"
    return "process-info", f"{verb} the memory of process {args[0]} ({name})"


def _open(name: str, call: seccomp.Call, watched: Watched) -> tuple[str, str] | None:
    args = call.args
    if name == "openat2":
        how = _memory(call.pid, watched, args[2], 8)
        dirfd, address, flags = args[0], args[1], struct.unpack("=Q", how)[0] if len(how) == 8 else 0
    elif name == "openat":
        dirfd, address, flags = args[0], args[1], args[2]
    else:
        dirfd, address, flags = _AT_FDCWD, args[0], args[1] if name == "open" else os.O_WRONLY
    path = _path(call, watched, dirfd, address)
    own = watched.tgid(call.pid)
    if path.startswith("/proc/self") or path.startswith("/proc/thread-self"):
        return None
    other = other_process(path, own)
    if other is not None and watched.tgid(other) != own:
        return "process-info", f"reads {path}, which belongs to another process"
    for folder, what in watched.own.items():
        if (path + "/").startswith(folder):
            return "import", f"{what} ({_source_of(path[len(folder) :])})"
    write = bool(flags & _WRITES)
    if (write and not watched.places.may_write(path)) or watched.places.protected_path(path):
        return "file", f"{'write' if write else 'read'} {path}"
    return None


def _source_of(relative: str) -> str:
    """The source file a compiled module stands for (``__pycache__/audit.cpython-311.pyc``:
    ``audit.py``), so that loading a module is one event, not two.

    >>> _source_of("__pycache__/audit.cpython-311.pyc"), _source_of("audit.py")
    ('audit.py', 'audit.py')
    """
    folder, _, name = relative.rpartition("/")
    if os.path.basename(folder) == "__pycache__" and name.endswith(".pyc"):
        return os.path.join(os.path.dirname(folder), name.split(".", 1)[0] + ".py")
    return relative


def _path(call: seccomp.Call, watched: Watched, dirfd: int, address: int) -> str:
    """The path a call names, made absolute as the caller's working directory or ``dirfd`` would."""
    text = os.fsdecode(_string(call.pid, watched, address))
    if not text.startswith("/"):
        fd = _int(dirfd)
        base = os.readlink(f"/proc/{call.pid}/cwd" if fd == _AT_FDCWD else f"/proc/{call.pid}/fd/{fd}")
        text = os.path.join(base, text)
    return os.path.normpath(text)


def _arguments(call: seccomp.Call, watched: Watched, address: int) -> str:
    """`` a b c``: the first few arguments a program was started with (its name aside)."""
    words = []
    for index in range(1, 4):
        pointer = _memory(call.pid, watched, address + 8 * index, 8)
        if len(pointer) < 8 or not (target := struct.unpack("=Q", pointer)[0]):
            break
        words.append(os.fsdecode(_string(call.pid, watched, target))[:40])
    return (" " + " ".join(words)) if words else ""


def _address(call: seccomp.Call, watched: Watched, address: int, length: int) -> str | None:
    """A socket address as words: a Unix socket's path, an IP address and port; None for others."""
    raw = _memory(call.pid, watched, address, min(int(length), 128))
    if len(raw) < 2:
        return None
    family = struct.unpack("=H", raw[:2])[0]
    if family == socket.AF_UNIX:
        path = raw[2:]
        return (
            ("@" + path[1:].split(b"\0")[0].decode(errors="replace"))
            if path[:1] == b"\0"
            else (path.split(b"\0")[0].decode(errors="replace"))
        )
    if family == socket.AF_INET and len(raw) >= 8:
        return f"{socket.inet_ntop(socket.AF_INET, raw[4:8])}:{struct.unpack('>H', raw[2:4])[0]}"
    if family == socket.AF_INET6 and len(raw) >= 24:
        return f"[{socket.inet_ntop(socket.AF_INET6, raw[8:24])}]:{struct.unpack('>H', raw[2:4])[0]}"
    return None


def _string(pid: int, watched: Watched, address: int, limit: int = 4096) -> bytes:
    """The NUL-terminated string at ``address`` in thread ``pid``'s memory (at most ``limit`` bytes)."""
    found = b""
    while len(found) < limit:
        chunk = _memory(pid, watched, address + len(found), _PAGE - (address + len(found)) % _PAGE)
        if not chunk:
            break
        end = chunk.find(b"\0")
        if end >= 0:
            return found + chunk[:end]
        found += chunk
    return found[:limit]


def _memory(pid: int, watched: Watched, address: int, count: int) -> bytes:
    """``count`` bytes at ``address`` in thread ``pid``'s memory (fewer where it is not mapped)."""
    for attempt in range(2):
        fd = watched.memory.get(pid)
        if fd is None:
            if len(watched.memory) >= 64:  # many short-lived processes: start the cache again
                for old in watched.memory.values():
                    os.close(old)
                watched.memory.clear()
            fd = watched.memory[pid] = os.open(f"/proc/{pid}/mem", os.O_RDONLY | os.O_CLOEXEC)
        try:
            return os.pread(fd, count, address)
        except OSError as error:
            if error.errno != errno.ESRCH or attempt:  # ESRCH: an old thread's number used again
                return b""
            os.close(watched.memory.pop(pid))
    return b""


def _parent(pid: int) -> int | None:
    with contextlib.suppress(OSError, ValueError, StopIteration), open(f"/proc/{pid}/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("PPid:"))
    return None


def _pidfd_target(pid: int, fd: int) -> int | None:
    with contextlib.suppress(OSError, ValueError), open(f"/proc/{pid}/fdinfo/{fd}") as handle:
        for line in handle:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    return None


def _int(value: int) -> int:
    """A raw 64-bit argument as the signed 32-bit ``int`` or ``pid_t`` the call takes."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value
