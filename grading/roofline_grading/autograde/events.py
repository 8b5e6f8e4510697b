"""What a notebook tried while it was graded: the kernel's two event channels, read outside it.

Two watches report on a grading kernel (:mod:`roofline_recorder.kernel`):

- its *keeper* sees the system calls of the kernel and of every process it starts from outside
  their interpreter (:mod:`roofline_recorder.watch`) and writes them, each with the time it was
  made, to a pipe only the keeper holds; nothing the notebook's code does can silence it;
- the kernel's *audit hook* (:mod:`roofline_recorder.audit`) sees, inside the interpreter, the
  cell and line behind each attempt and what leaves no system call (an import of a course
  package that is not there), and writes it to a named pipe. Code in the kernel can reach it.

:class:`EventChannel` reads either one from a thread of the grader, keeping at most ``MAX_BYTES``.
:func:`attempts` turns both into the report's words, each with the cell it came from, the keeper's
placed in the notebook by the time it happened (:class:`Timeline`). What happened once the hidden
inputs were handed out is said apart (:attr:`Attempts.hidden`): it is the instructor's to read and
never decides anything a student is told. Where the keeper saw the kernel's own process do what
the audit hook should have reported and it did not, the report says that it could not see
everything from inside.

>>> clauses([{"what": "file", "detail": "read /course/gradebook.db", "cell": 3, "line": 2}],
...         {3: "answer cell 'ex5_peak_answer'"})
["answer cell 'ex5_peak_answer', line 2: read /course/gradebook.db"]
"""

from __future__ import annotations

import bisect
import contextlib
import json
import os
import select
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Attempts", "EventChannel", "Timeline", "attempts", "clauses", "describe_cells"]

MAX_BYTES = 1 << 20
"""Bytes of events read per notebook and channel; the rest is drained and dropped."""
CROSS_CHECKED = frozenset({"process", "signal", "process-info", "network"})
"""Kinds of attempt both watches see in the kernel's own process: if the keeper saw one the audit
hook did not report, the hook missed it."""
UNSEEN = "the grading report could not see everything this notebook's code did: "
HIDDEN_PHASE = "while answering the inputs chosen at grading time"


ENDED_SECONDS = 0.1
"""How often a channel whose writers have all gone looks for a new one."""


class EventChannel:
    """A pipe the kernel (or its keeper) writes events to, read by a thread of the grader."""

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self._fd = fd
        self._buffer = bytearray()
        self._dropped = 0
        self._boundary: int | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake, self._woken = os.pipe2(os.O_CLOEXEC)  # closing the write end wakes the thread
        self._thread = threading.Thread(target=self._run, name="roofline-events", daemon=True)
        self._thread.start()

    @classmethod
    def fifo(cls, path: Path) -> EventChannel:
        """A channel read from a named pipe made at ``path`` (the kernel opens it by its path)."""
        os.mkfifo(path, 0o600)
        return cls(os.open(path, os.O_RDONLY | os.O_NONBLOCK))

    @classmethod
    def pipe(cls) -> tuple[EventChannel, int]:
        """A channel read from a new pipe, and the pipe's write end (to hand to the keeper)."""
        read, write = os.pipe2(os.O_CLOEXEC)
        return cls(read), write

    def _run(self) -> None:
        """Read as events come, until :meth:`close` wakes it; once every writer has gone, the pipe
        stays readable (at its end), so it looks again only every :data:`ENDED_SECONDS` (a
        writer may still open the named pipe again), rather than spin."""
        while not self._stop.is_set():
            ready, _, _ = select.select([self._fd, self._wake], [], [])
            if self._fd in ready and self._read():
                self._stop.wait(ENDED_SECONDS)

    def _read(self) -> bool:
        """Read what is there; whether the pipe is at its end (no writer left)."""
        with self._lock, contextlib.suppress(BlockingIOError, OSError):
            while chunk := os.read(self._fd, 65536):
                room = MAX_BYTES - len(self._buffer)
                self._buffer += chunk[:room]
                self._dropped += max(0, len(chunk) - room)
            return True
        return False

    def mark(self) -> None:
        """Remember that what was written until now came before the hidden inputs were handed out:
        the events read later are marked ``late``."""
        self._read()
        with self._lock:
            self._boundary = len(self._buffer)

    def close(self) -> list[dict[str, Any]]:
        """Stop reading and return the events (each a dict with ``what``, ``detail`` and where it
        came from: ``cell`` and ``line``, or ``t``); lines that are not such events are skipped."""
        self._stop.set()
        os.close(self._woken)
        self._thread.join(timeout=2)
        self._read()
        os.close(self._fd)
        os.close(self._wake)
        events, offset = [], 0
        for line in bytes(self._buffer).split(b"\n"):
            late = self._boundary is not None and offset >= self._boundary
            offset += len(line) + 1
            with contextlib.suppress(ValueError):
                event = json.loads(line.decode("utf-8", "replace"))
                if isinstance(event, dict) and isinstance(event.get("what"), str):
                    events.append({**event, "late": True} if late else event)
        if self._dropped:
            events.append({"what": "more", "detail": "more events than the report keeps", "cell": None})
        return events


@dataclass
class Timeline:
    """When each cell started to run and when the hidden inputs were handed out (monotonic
    nanoseconds, as the keeper stamps its events), to place what the keeper saw.

    >>> timeline = Timeline([(100, 0), (200, 2)], served=300)
    >>> timeline.place(150), timeline.place(250), timeline.place(50), timeline.place(300)
    (0, 2, None, 'hidden')
    """

    cells: list[tuple[int, int]] = field(default_factory=list)
    served: int | None = None

    def place(self, t: int) -> int | str | None:
        """The index of the cell running at ``t``, None before the first, 'hidden' once the hidden
        inputs were handed out."""
        if self.served is not None and t >= self.served:
            return "hidden"
        at = bisect.bisect_right([start for start, _ in self.cells], t) - 1
        return self.cells[at][1] if at >= 0 else None


@dataclass(frozen=True)
class Attempts:
    """What a notebook tried, in the report's words: while its cells ran (``notebook``: this alone
    may be told to the student), and once the hidden inputs were handed out (``hidden``)."""

    notebook: list[str]
    hidden: list[str]

    @property
    def all(self) -> list[str]:
        return [*self.notebook, *self.hidden]


def attempts(
    inside: Sequence[Mapping[str, Any]],
    outside: Sequence[Mapping[str, Any]],
    cells: Sequence[Mapping[str, Any]],
    timeline: Timeline,
) -> Attempts:
    """The report's clauses from the audit hook's events (``inside``) and the keeper's
    (``outside``) for the notebook's ``cells`` (see the module's docstring)."""
    by_count, by_index = describe_cells(cells), _describe_indices(cells)
    early = [e for e in inside if not e.get("late") and e.get("what") != "sealed"]
    late = [e for e in inside if e.get("late") and e.get("what") != "sealed"]
    notebook, hidden = clauses(early, by_count), [f"{HIDDEN_PHASE}: {_detail(e)}" for e in late]
    reported = [e for e in outside if e.get("what") not in ("watching", "unwatched")]
    for event in reported:
        where = timeline.place(int(event.get("t", 0)))
        if where == "hidden":
            hidden.append(f"{HIDDEN_PHASE}, seen from outside the kernel: {_detail(event)}")
        else:
            named = by_index.get(where, "a cell") if isinstance(where, int) else "the kernel"
            notebook.append(f"{named}, seen from outside the kernel: {_detail(event)}")
    missed = _missed(early, [e for e in reported if timeline.place(int(e.get("t", 0))) != "hidden"])
    if missed:
        notebook.append(
            UNSEEN + f"the kernel's own monitor did not report what its keeper saw ({', '.join(missed)}): "
            "the code got past it (through ctypes, or by changing it)"
        )
    return Attempts(list(dict.fromkeys(notebook)), list(dict.fromkeys(hidden)))


def _missed(inside: Sequence[Mapping[str, Any]], outside: Sequence[Mapping[str, Any]]) -> list[str]:
    """The kinds of attempt the keeper saw the kernel's own process make and the audit hook did
    not report at all (nothing to say if the hook reported more than it keeps)."""
    if any(e.get("what") == "more" for e in inside):
        return []
    seen_inside = {e.get("what") for e in inside}
    kinds = {str(e.get("what")) for e in outside if e.get("by") == "kernel"} & CROSS_CHECKED
    return sorted(kinds - seen_inside)


def _detail(event: Mapping[str, Any]) -> str:
    return str(event.get("detail", ""))[:300]


def describe_cells(cells: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """Execution count -> how the report names the cell that ran with it (``answer cell
    'ex1_bytes'``, ``cell 7``)."""
    names = {}
    for index, cell in enumerate(cells):
        cell_id = cell.get("execution_count")
        if isinstance(cell_id, int):
            names[cell_id] = _name(index, cell)
    return names


def _describe_indices(cells: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    return {index: _name(index, cell) for index, cell in enumerate(cells)}


def _name(index: int, cell: Mapping[str, Any]) -> str:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    grade_id = meta.get("grade_id") if isinstance(meta, Mapping) else None
    if grade_id and meta.get("solution"):
        return f"answer cell {grade_id!r}"
    if grade_id and meta.get("grade"):
        return f"test cell {grade_id!r}"
    if grade_id:
        return f"cell {grade_id!r}"
    return f"cell {index + 1}"


def clauses(events: Sequence[Mapping[str, Any]], cells: Mapping[int, str]) -> list[str]:
    """The report's words for the audit hook's ``events``, each with the cell and line it came from."""
    found = []
    for event in events:
        cell = event.get("cell")
        where = cells.get(cell, "a cell") if isinstance(cell, int) else "the kernel"
        line = event.get("line")
        if isinstance(line, int):
            where += f", line {line}"
        found.append(f"{where}: {_detail(event)}")
    return list(dict.fromkeys(found))
