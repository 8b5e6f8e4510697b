"""Warm grading kernels: one template per grading worker, forked for each notebook.

``python -P -m roofline_recorder.warm SOCKET`` runs inside a sandbox set up as a cold kernel's
(:mod:`roofline_grading.sandbox.bwrap`), imports what every kernel imports (IPython's kernel,
numpy, matplotlib), listens on ``SOCKET`` and does nothing else: no kernel, no zmq context, no
audit hook, no system-call filter, never a line of a student's code. For each notebook, the
grader's launcher (:mod:`roofline_grading.sandbox.fork`) asks it for a kernel; the template forks,
and the child makes itself a sandbox of its own before anything of the notebook runs:

1. it connects to the launcher, which learns its process id (``SO_PEERCRED``), puts it in the
   notebook's process-tree limits and hands it its settings and descriptors (the log, the
   keeper's channel, the hidden-input copies' channels);
2. it applies the per-process limits and unshares user, mount, PID, IPC, network and UTS
   namespaces; fresh in-memory ``/tmp``, ``/dev/shm`` and home hide the template's and every
   other notebook's files, and its runtime folder is mounted back where the grader expects it;
3. it forks again to be the first process of its PID namespace, mounts that namespace's own
   ``/proc`` (the system settings under it read-only, as bubblewrap leaves them), forbids
   further user namespaces, drops every capability, reseeds ``random`` and numpy's generator,
   and goes on exactly as a cold kernel after its imports (:func:`roofline_recorder.kernel.run`):
   it splits into the keeper and the kernel.

When the launcher goes (the grader stopped the kernel), the keeper ends, and with it every
process of the notebook. Nothing the notebook does reaches the template: it is another process,
in namespaces the notebook cannot enter.

>>> FLAGS["user"] | FLAGS["pid"] == CLONE_NEWUSER | CLONE_NEWPID
True
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import random
import resource
import signal
import socket
import sys
from pathlib import Path
from typing import Any

__all__ = ["FLAGS", "serve"]

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
FLAGS = {
    "user": CLONE_NEWUSER,
    "mount": CLONE_NEWNS,
    "pid": CLONE_NEWPID,
    "ipc": CLONE_NEWIPC,
    "network": CLONE_NEWNET,
    "uts": CLONE_NEWUTS,
}
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 0x4000, 1 << 18
HOME = "/home/student"
COVERED = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus")
"""What bubblewrap makes read-only in a sandbox's ``/proc``; so does a warm kernel."""
DEVICES = ("null", "zero", "full", "random", "urandom", "tty", "pts")
"""The devices (and the pseudo-terminals' file system) in a sandbox's ``/dev``, as bubblewrap
mounts them; a warm kernel mounts the template's again in a ``/dev`` of its own."""
DEVICE_LINKS = {
    "fd": "/proc/self/fd",
    "stdin": "/proc/self/fd/0",
    "stdout": "/proc/self/fd/1",
    "stderr": "/proc/self/fd/2",
    "ptmx": "pts/ptmx",
    "core": "/proc/kcore",
}
"""The links bubblewrap makes in a sandbox's ``/dev``."""
_LIMITS = {
    "address_space": resource.RLIMIT_AS,
    "file_size": resource.RLIMIT_FSIZE,
    "open_files": resource.RLIMIT_NOFILE,
    "core": resource.RLIMIT_CORE,
}
_libc = ctypes.CDLL(None, use_errno=True)


def serve(path: str) -> None:
    """Be the template: import, listen on ``path``, fork a kernel for each launcher that asks."""
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")  # as ipykernel sets
    from roofline_recorder import kernel

    kernel.preload(figures=True)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # forked kernels are collected as they end
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path + ".new")
    listener.listen(8)
    os.rename(path + ".new", path)  # the grader waits for this name: the template is ready
    while True:
        connection, _ = listener.accept()
        with connection:
            request = json.loads(connection.recv(4096) or b"{}")
            if os.fork() == 0:
                listener.close()
                connection.close()
                _child(str(request["fork"]))


def _child(launcher_path: str) -> None:
    """The forked child (see the module's docstring); never returns."""
    code = 1
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the template's own choice; a kernel's programs inherit it
    try:
        launcher = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        launcher.connect(launcher_path)
        message, fds, _, _ = socket.recv_fds(launcher, 1 << 20, 64)
        settings = json.loads(message)
        _descriptors(settings, fds, launcher)
        for name, value in settings.get("rlimits", {}).items():
            resource.setrlimit(_LIMITS[name], (value, value))
        os.setsid()
        _isolate(settings)
        if os.fork() != 0:
            os._exit(0)  # the grandchild is the first process of the new PID namespace
        _first_process(settings)
        from roofline_recorder import kernel

        sys.argv = [kernel.__file__, settings["session"], *settings["arguments"]]  # a cold kernel's
        kernel.run(settings["session"], settings["arguments"], tether=settings["tether"])
        code = 0
    except SystemExit as leaving:  # as a cold kernel's interpreter ends
        code = leaving.code if isinstance(leaving.code, int) else int(leaving.code is not None)
    except BaseException as error:  # the launcher's log says why this kernel did not start
        with contextlib.suppress(OSError):
            os.write(2, f"warm kernel: {type(error).__name__}: {error}\n".encode())
    os._exit(code)


def _descriptors(settings: dict[str, Any], fds: list[int], launcher: socket.socket) -> None:
    """Put the launcher's descriptors at the numbers they had there (the session names them),
    its log on standard output and error, ``/dev/null`` on input, and close every other."""
    numbers = [int(n) for n in settings["numbers"]]
    above = max([*numbers, *fds, launcher.fileno()]) + 1
    moved = [_dup_above(fd, above) for fd in fds]
    tether = _dup_above(launcher.fileno(), above)
    launcher.detach()
    keep = {0, 1, 2, *numbers}
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for number, fd in zip(numbers, moved, strict=True):
        os.dup2(fd, number)
    os.dup2(moved[numbers.index(1)], 2)
    settings["tether"] = os.dup2(tether, max([*keep, 3]) + 1, inheritable=False)
    keep.add(settings["tether"])
    for entry in os.listdir("/proc/self/fd"):
        fd = int(entry)
        if fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)


def _dup_above(fd: int, above: int) -> int:
    """A copy of ``fd`` at a number no lower than ``above``."""
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, above)


def _check(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    encoded = [None if s is None else s.encode() for s in (source, target, kind, data)]
    _check(_libc.mount(encoded[0], encoded[1], encoded[2], flags, encoded[3]), f"mount {target}")


_KEPT_FLAGS = MS_NOSUID | MS_NODEV | MS_NOEXEC | 1024 | 2048 | 4096
"""The flags a remount must keep (the kernel refuses to drop them in a user namespace): nosuid,
nodev, noexec, noatime, nodiratime, relatime (``statvfs`` reports them with the same bits)."""


def _read_only(path: str) -> None:
    """Make the bind mount at ``path`` read-only, its other flags kept."""
    kept = os.statvfs(path).f_flag & _KEPT_FLAGS
    _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)


def _own_ids(uid: int, gid: int) -> None:
    """In a user namespace just made: the same user and group ids as outside it, and no others."""
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")


def _read_only_mounts_under(root: str, table: str = "/proc/self/mountinfo") -> list[str]:
    """The outermost read-only mount points below ``root``: the template's Python environment,
    where it lies under ``/tmp`` (its masks are mounted within it). Not the writable runtime
    folder, whose siblings are other notebooks' sockets.

    >>> _read_only_mounts_under("/tmp", "/nonexistent")
    []
    """
    try:
        lines = Path(table).read_bytes().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split()
        point = os.fsdecode(_unescape(fields[4]))
        if point.startswith(root.rstrip("/") + "/") and "ro" in fields[5].decode().split(","):
            found.append(point)
    return [point for point in dict.fromkeys(found) if not any(point.startswith(f"{o}/") for o in found)]


def _unescape(field: bytes) -> bytes:
    r"""A path as ``mountinfo`` writes it, with space, tab, newline and backslash as octal escapes.

    >>> _unescape(rb"/tmp/my\040course")
    b'/tmp/my course'
    """
    parts = field.split(b"\\")
    out = parts[0]
    for part in parts[1:]:
        out += bytes([int(part[:3], 8)]) + part[3:]
    return out


def _isolate(settings: dict[str, Any]) -> None:
    """New namespaces and fresh in-memory places, as bubblewrap makes them (mode 0755); the runtime
    folder, matplotlib's font cache (what a cold kernel's sandbox mounts there), the devices and a
    Python environment that lies under ``/tmp`` put back. ``/dev`` is fresh too: the template's is
    writable by the sandbox's user, and every kernel forked from it would find there what the one
    before left."""
    uid, gid = os.geteuid(), os.getegid()
    flags = 0
    for name in FLAGS.values():
        flags |= name
    _check(_libc.unshare(flags), "unshare")
    _own_ids(uid, gid)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    read_only = _read_only_mounts_under("/tmp")  # a Python environment under /tmp (its masks within)
    kept = [*read_only, str(settings["runtime"])]
    kept += [f"/dev/{name}" for name in DEVICES if os.path.exists(f"/dev/{name}")]
    fonts = Path(HOME, ".matplotlib")
    kept += [str(found) for found in sorted(fonts.iterdir())] if fonts.is_dir() else []
    # Held open, what the fresh places below hide is still there to be mounted back from.
    handles = {path: os.open(path, os.O_PATH) for path in kept}
    fresh = MS_NOSUID | MS_NODEV
    _mount("tmpfs", "/tmp", "tmpfs", fresh, f"size={int(settings['tmp_bytes'])},mode=755")
    _mount("tmpfs", HOME, "tmpfs", fresh, f"size={int(settings['home_bytes'])},mode=755")
    _mount("tmpfs", "/dev", "tmpfs", fresh, "mode=755")
    for link, target in DEVICE_LINKS.items():
        os.symlink(target, f"/dev/{link}")
    os.mkdir("/dev/shm")
    _mount("tmpfs", "/dev/shm", "tmpfs", fresh, "mode=755")
    for path, handle in handles.items():
        held = f"/proc/self/fd/{handle}"
        if os.path.isdir(held):
            os.makedirs(path, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            Path(path).touch()
        _mount(held, path, None, MS_BIND | MS_REC)  # with what is mounted within (the kernel's masks)
        os.close(handle)
        if path in read_only or path.startswith(f"{HOME}/"):
            _read_only(path)
    session = f"{settings['runtime']}/session.json"
    _mount(session, str(settings["session"]), None, MS_BIND)
    _read_only(str(settings["session"]))
    os.chdir(HOME)


def _first_process(settings: dict[str, Any]) -> None:
    """As the first process of the new PID namespace: its own ``/proc``, no more user namespaces,
    no capabilities, fresh random generators."""
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    Path("/proc/sys/user/max_user_namespaces").write_text("1")
    for path in COVERED:
        if os.path.exists(path):
            _mount(path, path, None, MS_BIND | MS_REC)
            _read_only(path)
    uid, gid = os.geteuid(), os.getegid()
    _check(_libc.unshare(CLONE_NEWUSER), "unshare user")  # the only one the limit above lets it make
    _own_ids(uid, gid)
    _drop_capabilities()
    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in ("effective", "permitted", "inheritable")]


def _drop_capabilities() -> None:
    """No capability left, in any set (as bubblewrap leaves a sandboxed process)."""
    _PR_CAPBSET_DROP = 24
    for number in range(64):
        _libc.prctl(_PR_CAPBSET_DROP, number, 0, 0, 0)
    header, data = _CapHeader(0x20080522, 0), (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")


if __name__ == "__main__":
    serve(sys.argv[1])
