"""Limits on a grading kernel's whole process tree: memory, processes, and an end for all of it.

A per-process limit is not enough: a notebook can start processes, each with its own
allowance. So each notebook's kernel runs in a *group*, and everything it starts stays in it:

- :class:`CgroupV2` or :class:`CgroupV1`: a control group of its own (``memory.max`` and
  ``pids.max``, or v1's ``memory.limit_in_bytes`` and ``pids.max``), where the system lets this
  process create one (root on most machines; a delegated subtree otherwise). The kernel's
  launcher joins it before it starts anything, the system enforces the limits, and the group
  counts what was refused.
- :class:`Watchdog` otherwise: a thread that every 50 ms adds up the memory of the kernel's
  process tree and counts its processes, and kills the whole tree when either is over.

Either way :meth:`Group.close` kills whatever is left when the notebook is done and says what
was hit (:meth:`Group.events`).

>>> Limits().memory_bytes == 4 * 2**30
True
>>> group = open_group("doctest", Limits(), prefer="watchdog")
>>> group.kind, group.procs_files()
('watchdog', [])
>>> group.close()
[]
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = ["CgroupV1", "CgroupV2", "Group", "Limits", "Watchdog", "open_group", "sweep"]


@dataclass(frozen=True)
class Limits:
    """What one notebook's kernel and everything it starts may use together."""

    memory_bytes: int = 4 * 2**30
    processes: int = 128
    """Processes and threads (what a cgroup's ``pids.max`` counts)."""
    file_bytes: int = 64 * 2**20
    """The largest file a kernel may write (its home and /tmp are small in-memory file systems too)."""

    def rlimits(self, *, memory: bool = True) -> dict[str, int]:
        """Per-process limits the launcher applies: file size, open files, no core dumps, and
        with ``memory`` (where no cgroup holds the tree's memory) a process's address space."""
        limits = {"file_size": self.file_bytes, "core": 0, "open_files": 1024}
        if memory:
            limits["address_space"] = self.memory_bytes
        return limits


class Group(Protocol):
    """The process tree of one kernel, with its limits."""

    kind: str

    def procs_files(self) -> list[str]:
        """Files the launcher writes its process id into to join the group."""
        ...

    def watch(self, pid: int) -> None:
        """Start watching the tree under ``pid`` (the launched process)."""
        ...

    def hits(self) -> list[str]:
        """Which limits were hit so far (the group goes on)."""
        ...

    def close(self) -> list[str]:
        """Kill what is left, remove the group, and say which limits were hit."""
        ...


def open_group(name: str, limits: Limits, prefer: str = "auto") -> Group:
    """A group for one kernel: a cgroup where one can be made (``prefer="auto"``), else a watchdog."""
    if prefer == "auto":
        for kind in (CgroupV2, CgroupV1):
            group = kind.create(name, limits)
            if group is not None:
                return group
    return Watchdog(limits)


def sweep(tag: str) -> int:
    """Kill and remove every group whose name starts with ``roofline-<tag>-`` (what a worker that
    died left behind); returns how many there were."""
    mounts, own = _mounts(), _own_cgroups()
    found = 0
    for controller, mount in mounts.items():
        parent = mount / own.get(controller, "/").lstrip("/")
        for directory in parent.glob(f"roofline-{tag}-*"):
            with contextlib.suppress(OSError):
                (directory / "cgroup.kill").write_text("1")
            _kill_all(directory / "cgroup.procs")
            _remove(directory)
            found += 1
    return found


def _own_cgroups() -> dict[str, str]:
    """Controller (``""`` for the unified v2 hierarchy) -> this process's cgroup path."""
    found = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                found[controller] = path
    return found


def _mounts() -> dict[str, Path]:
    """Controller (``""`` for v2) -> where its hierarchy is mounted."""
    found: dict[str, Path] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split(" - ")
            if len(fields) != 2:
                continue
            mount_point = Path(fields[0].split()[4])
            fs_type, _, options = fields[1].split()[:3]
            if fs_type == "cgroup2":
                found.setdefault("", mount_point)
            elif fs_type == "cgroup":
                for option in options.split(","):
                    if option in ("memory", "pids"):
                        found.setdefault(option, mount_point)
    return found


def _pauses(seconds: float = 1.0) -> list[float]:
    """Pauses between looks at what a kill has not ended yet: short at first (a killed process
    is usually gone within a millisecond or two), then 20 ms, about ``seconds`` in all.

    >>> pauses = _pauses()
    >>> pauses[:3], max(pauses), round(sum(pauses), 1)
    ([0.001, 0.002, 0.004], 0.02, 1.0)
    """
    found = [min(0.001 * 2**n, 0.02) for n in range(5)]
    while sum(found) < seconds - 1e-9:
        found.append(min(0.02, seconds - sum(found)))
    return found


def _kill_all(procs: Path) -> None:
    for pause in _pauses():
        try:
            pids = [int(p) for p in procs.read_text().split()]
        except OSError:
            return
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(pause)


def _remove(directory: Path) -> None:
    for pause in _pauses():
        try:
            directory.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(pause)


class CgroupV2:
    """A cgroup v2 of its own, under this process's (which must delegate memory and pids)."""

    kind = "cgroup v2"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def create(cls, name: str, limits: Limits) -> CgroupV2 | None:
        mount, own = _mounts().get(""), _own_cgroups().get("")
        if mount is None or own is None:
            return None
        parent = mount / own.lstrip("/")
        try:
            delegated = set((parent / "cgroup.subtree_control").read_text().split())
            if not {"memory", "pids"} <= delegated:
                return None
            directory = parent / f"roofline-{name}-{uuid.uuid4().hex[:8]}"
            directory.mkdir()
            (directory / "memory.max").write_text(str(limits.memory_bytes))
            with contextlib.suppress(OSError):
                (directory / "memory.swap.max").write_text("0")
            (directory / "pids.max").write_text(str(limits.processes))
        except OSError:
            return None
        return cls(directory)

    def procs_files(self) -> list[str]:
        return [str(self.directory / "cgroup.procs")]

    def watch(self, pid: int) -> None:
        pass

    def hits(self) -> list[str]:
        return _events_v2(self.directory)

    def close(self) -> list[str]:
        events = _events_v2(self.directory)
        with contextlib.suppress(OSError):
            (self.directory / "cgroup.kill").write_text("1")
        _kill_all(self.directory / "cgroup.procs")
        _remove(self.directory)
        return events


class CgroupV1:
    """A memory cgroup and a pids cgroup of its own, in the v1 hierarchies."""

    kind = "cgroup v1"

    def __init__(self, memory: Path, pids: Path) -> None:
        self.memory, self.pids = memory, pids

    @classmethod
    def create(cls, name: str, limits: Limits) -> CgroupV1 | None:
        mounts, own = _mounts(), _own_cgroups()
        if "memory" not in mounts or "pids" not in mounts:
            return None
        suffix = f"roofline-{name}-{uuid.uuid4().hex[:8]}"
        made: list[Path] = []
        try:
            for controller in ("memory", "pids"):
                directory = mounts[controller] / own.get(controller, "/").lstrip("/") / suffix
                directory.mkdir()
                made.append(directory)
            memory, pids = made
            (memory / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
            with contextlib.suppress(OSError):
                (memory / "memory.memsw.limit_in_bytes").write_text(str(limits.memory_bytes))
            (pids / "pids.max").write_text(str(limits.processes))
        except OSError:
            for directory in made:
                _remove(directory)
            return None
        return cls(memory, pids)

    def procs_files(self) -> list[str]:
        return [str(self.memory / "cgroup.procs"), str(self.pids / "cgroup.procs")]

    def watch(self, pid: int) -> None:
        pass

    def hits(self) -> list[str]:
        events = []
        oom = _field(self.memory / "memory.oom_control", "oom_kill")
        if oom:
            events.append(f"memory limit hit: {oom} process{'es' if oom > 1 else ''} stopped")
        elif _number(self.memory / "memory.failcnt"):
            events.append("memory limit reached")
        refused = _field(self.pids / "pids.events", "max")
        if refused:
            events.append(f"process limit hit: {refused} new process{'es' if refused > 1 else ''} refused")
        return events

    def close(self) -> list[str]:
        events = self.hits()
        _kill_all(self.pids / "cgroup.procs")
        _kill_all(self.memory / "cgroup.procs")
        for directory in (self.memory, self.pids):
            _remove(directory)
        return events


def _events_v2(directory: Path) -> list[str]:
    events = []
    oom = _field(directory / "memory.events", "oom_kill")
    if oom:
        events.append(f"memory limit hit: {oom} process{'es' if oom > 1 else ''} stopped")
    refused = _field(directory / "pids.events", "max")
    if refused:
        events.append(f"process limit hit: {refused} new process{'es' if refused > 1 else ''} refused")
    return events


def _field(path: Path, name: str) -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == name:
                return int(value)
    return 0


def _number(path: Path) -> int:
    with contextlib.suppress(OSError, ValueError):
        return int(path.read_text().strip())
    return 0


class Watchdog:
    """Where no cgroup can be made: poll the process tree, and kill all of it when it is over."""

    kind = "watchdog"
    INTERVAL = 0.05

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.root: int | None = None
        self.hit: list[str] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def procs_files(self) -> list[str]:
        return []

    def watch(self, pid: int) -> None:
        self.root = pid
        self._thread = threading.Thread(target=self._run, name="roofline-watchdog", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.INTERVAL):
            tree = self._tree()
            memory = sum(_resident_bytes(pid) for pid in tree)
            tasks = sum(_threads(pid) for pid in tree)
            if tasks > self.limits.processes + 2:  # the launcher's bwrap and its init
                self.hit.append(f"process limit hit: {tasks} processes and threads")
                self._kill(tree)
            elif memory > self.limits.memory_bytes:
                self.hit.append(f"memory limit hit: {memory / 2**30:.1f} GB in {len(tree)} processes")
                self._kill(tree)

    def _tree(self) -> list[int]:
        if self.root is None:
            return []
        found, queue = [], [self.root]
        while queue:
            pid = queue.pop()
            found.append(pid)
            with contextlib.suppress(OSError):
                for task in Path(f"/proc/{pid}/task").iterdir():
                    queue += [int(c) for c in (task / "children").read_text().split()]
        return found

    def _kill(self, tree: list[int]) -> None:
        for pid in reversed(tree):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def hits(self) -> list[str]:
        return list(dict.fromkeys(self.hit))

    def close(self) -> list[str]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._kill(self._tree()[1:] if self.root is not None else [])
        return list(dict.fromkeys(self.hit))


def _threads(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def _resident_bytes(pid: int) -> int:
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return 0
