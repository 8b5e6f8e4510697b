"""What Linux's /proc says about a group of processes: who they are, the TCP ports they listen
on, and the grading scratch folders they hold (:mod:`roofline_grading.autograde.scratch`: a
folder is held by whoever holds the ``flock`` on its owner file).

>>> os.getpid() in session(os.getsid(0))
True
>>> import socket
>>> with socket.create_server(("127.0.0.1", 0)) as server:
...     server.getsockname() in listening({os.getpid()})
True
>>> os.getppid() in ancestors(os.getpid())
True
"""

from __future__ import annotations

import ipaddress
import os
import sys
import time
from pathlib import Path

from roofline_grading.autograde import scratch

__all__ = [
    "ancestors", "descendants", "held_folders", "listening", "remove_orphaned", "semaphore_file", "session",
    "shared_memory", "stray_kernels",
]


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (state, ppid, pgrp, session, ...)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _all() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def session(sid: int) -> set[int]:
    """The processes of session ``sid`` (a process started with ``start_new_session``: its pid)."""
    found = set()
    for pid in _all():
        fields = _stat_fields(pid)
        if fields is not None and int(fields[3]) == sid:
            found.add(pid)
    return found


def ancestors(pid: int) -> list[int]:
    """The processes above ``pid``, its parent first, up to the system's first process (the chain
    stops early at one that ended meanwhile)."""
    chain: list[int] = []
    while pid > 1 and (fields := _stat_fields(pid)) is not None:
        pid = int(fields[1])
        chain.append(pid)
    return chain


SETTLE_SECONDS = 10.0
"""How long :func:`stray_kernels` gives a kernel it found without a parent to end: one stopped a
moment ago (another test's run stopping it) has lost its sandbox's first process and is
reparented while it ends, which takes milliseconds. So a kernel that ends within this time after
it is found is not reported; one left behind by its run is still there."""


def stray_kernels(run: int, settle: float = SETTLE_SECONDS) -> list[str]:
    """This checkout's grading kernels that outlived what started them: none of their ancestors
    is ``run`` (pytest's first process), and they are still there, the same processes,
    ``settle`` seconds later. Each as its id and command line, with its state and its parent's.

    Every process descends from the system's first one, so none is stray from it:

    >>> stray_kernels(1, settle=0)
    []
    """
    found = _orphaned_kernels(run)
    deadline = time.monotonic() + settle
    while found and time.monotonic() < deadline:
        time.sleep(0.1)
        found = {key: line for key, line in _orphaned_kernels(run).items() if key in found}
    return [f"{line} [{_described(pid)}]" for (pid, _), line in sorted(found.items())]


def _orphaned_kernels(run: int) -> dict[tuple[int, str], str]:
    """This checkout's kernels none of whose ancestors is ``run``, by process id and start time
    (a process id reused meanwhile is another process), each as ``PID COMMAND LINE``."""
    ours = str(Path(sys.executable).parent)  # this checkout's kernels (other checkouts may be grading too)
    found = {}
    for pid in _all():
        command = _command_line(pid)
        if "roofline_recorder.kernel" not in command or ours not in command:
            continue
        fields = _stat_fields(pid)
        if fields is not None and run not in ancestors(pid):
            found[(pid, fields[19])] = f"{pid} {command}"  # the 22nd field of /proc/PID/stat: its start
    return found


def _command_line(pid: int) -> str:
    """A process's command line, its words separated by spaces ("" if it has ended)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _described(pid: int) -> str:
    """A process's state and its parent (id and command), for a failure message."""
    fields = _stat_fields(pid) or ["?", "0"]
    return f"state {fields[0]}, parent {fields[1]} {_command_line(int(fields[1]))[:80] or '?'}"


def descendants(pid: int) -> set[int]:
    """``pid`` and every process under it."""
    parents = {p: int(f[1]) for p in _all() if (f := _stat_fields(p)) is not None}
    found, grew = {pid}, True
    while grew:
        more = {p for p, parent in parents.items() if parent in found} - found
        found |= more
        grew = bool(more)
    return found


SHARED = Path("/dev/shm")
"""Where POSIX semaphores and shared memory live, a file each (``sem.NAME`` for a semaphore)."""


def semaphore_file(name: str) -> Path:
    """The file of the POSIX semaphore ``name`` (as multiprocessing names one: ``/mp-...``)."""
    return SHARED / f"sem.{name.removeprefix('/')}"


def shared_memory(pids: set[int]) -> set[int]:
    """The inodes of the files directly in /dev/shm that processes ``pids`` have mapped: their
    POSIX semaphores and shared memory (multiprocessing's queues and locks are such semaphores).
    By inode, as glibc makes a semaphore under a temporary name, maps it, links it to its real name
    and removes the temporary one: its creator's map names the removed file.

    >>> import multiprocessing
    >>> lock = multiprocessing.get_context("spawn").Lock()
    >>> semaphore_file(lock._semlock.name).stat().st_ino in shared_memory({os.getpid()})
    True
    """
    found = set()
    for pid in pids:
        try:
            text = os.fsdecode(Path(f"/proc/{pid}/maps").read_bytes())
        except OSError:
            continue
        for line in text.splitlines():
            fields = line.split(maxsplit=5)  # address, mode, offset, device, inode, path
            if len(fields) == 6 and Path(fields[5].removesuffix(" (deleted)")).parent == SHARED:
                found.add(int(fields[4]))
    return found


def remove_orphaned(inodes: set[int], gone: set[int], wait: float = 10.0) -> list[Path]:
    """Remove the files directly in /dev/shm whose inode is one of ``inodes`` (from
    :func:`shared_memory`) and that no process maps once the processes ``gone`` have ended: what
    processes killed with SIGKILL leave there, as the resource tracker that would have removed it
    was killed with them. Returns what it removed (nothing while one of ``gone`` still runs)."""
    deadline = time.monotonic() + wait
    while any(_running(pid) for pid in gone):
        if time.monotonic() > deadline:
            return []  # still running: what they map is theirs
        time.sleep(0.05)
    orphaned = inodes - shared_memory(set(_all()))
    removed = []
    with os.scandir(SHARED) as entries:
        for entry in entries:
            if entry.is_file(follow_symlinks=False) and entry.inode() in orphaned:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended (a zombie has ended: it maps nothing)."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] != "Z"


def _sockets(pids: set[int]) -> set[str]:
    """The inodes of the sockets ``pids`` have open."""
    inodes = set()
    for pid in pids:
        try:
            names = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for name in names:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{name}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[len("socket:[") : -1])
    return inodes


def _address(text: str) -> tuple[str, int]:
    """/proc/net/tcp's ``0200007F:1F90`` (the kernel's byte order, 32 bits at a time) as
    ('127.0.0.2', 8080)."""
    host, port = text.split(":")
    words = [bytes.fromhex(host[i : i + 8])[::-1] for i in range(0, len(host), 8)]
    return str(ipaddress.ip_address(b"".join(words))), int(port, 16)


def listening(pids: set[int]) -> set[tuple[str, int]]:
    """The TCP addresses (IPv4 and IPv6) on which ``pids`` listen."""
    inodes = _sockets(pids)
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                found.add(_address(fields[1]))
    return found


def held_folders(pids: set[int]) -> set[Path]:
    """The grading scratch folders whose owner file one of ``pids`` holds a lock on."""
    locked = set()
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[4].isdigit() and int(fields[4]) in pids:
            major, minor, inode = fields[5].split(":")
            locked.add((int(major, 16), int(minor, 16), int(inode)))
    found = set()
    for root in scratch.roots():
        for owner in Path(root).glob(f"*{scratch.OWNER}"):
            try:
                info = owner.stat()
            except OSError:
                continue
            if (os.major(info.st_dev), os.minor(info.st_dev), info.st_ino) in locked:
                found.add(owner.with_name(owner.name.removesuffix(scratch.OWNER)))
    return found
