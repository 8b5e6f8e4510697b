"""What a notebook tried while it was graded: the kernel's event channel, read outside it.

The sandboxed kernel's audit hook (:mod:`roofline_recorder.audit`) writes one JSON line per
event into a named pipe; :class:`EventChannel` reads it from a thread of the grader while the
notebook runs, keeping at most ``MAX_BYTES`` of it. :func:`clauses` turns the events into the
report's words, with the cell each came from.

>>> clauses([{"what": "file", "detail": "read /course/gradebook.db", "cell": 3, "line": 2}],
...         {3: "answer cell 'ex5_peak_answer'"})
["answer cell 'ex5_peak_answer', line 2: read /course/gradebook.db"]
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["EventChannel", "clauses", "describe_cells"]

MAX_BYTES = 1 << 20
"""Bytes of events read per notebook; the rest is drained and dropped."""


class EventChannel:
    """A named pipe the kernel writes events to, read by a thread of the grader."""

    def __init__(self, path: Path) -> None:
        self.path = path
        os.mkfifo(path, 0o600)
        self._fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self._buffer = bytearray()
        self._dropped = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="roofline-events", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self._fd], [], [], 0.1)
            if ready:
                self._read()

    def _read(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self._fd, 65536):
                room = MAX_BYTES - len(self._buffer)
                self._buffer += chunk[:room]
                self._dropped += max(0, len(chunk) - room)

    def close(self) -> list[dict[str, Any]]:
        """Stop reading and return the events (each a dict with ``what``, ``detail``, ``cell``
        and ``line``); lines that are not such events are skipped."""
        self._stop.set()
        self._thread.join(timeout=2)
        with contextlib.suppress(OSError):
            self._read()
        os.close(self._fd)
        events = []
        for line in bytes(self._buffer).decode("utf-8", "replace").splitlines():
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                if isinstance(event, dict) and isinstance(event.get("what"), str):
                    events.append(event)
        if self._dropped:
            events.append({"what": "more", "detail": "more events than the report keeps", "cell": None})
        return events


def describe_cells(cells: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """Execution count -> how the report names the cell that ran with it (``answer cell
    'ex1_bytes'``, ``cell 7``)."""
    names = {}
    for index, cell in enumerate(cells):
        cell_id = cell.get("execution_count")
        if not isinstance(cell_id, int):
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        grade_id = meta.get("grade_id") if isinstance(meta, Mapping) else None
        if grade_id and meta.get("solution"):
            names[cell_id] = f"answer cell {grade_id!r}"
        elif grade_id and meta.get("grade"):
            names[cell_id] = f"test cell {grade_id!r}"
        elif grade_id:
            names[cell_id] = f"cell {grade_id!r}"
        else:
            names[cell_id] = f"cell {index + 1}"
    return names


def clauses(events: Sequence[Mapping[str, Any]], cells: Mapping[int, str]) -> list[str]:
    """The report's words for ``events``, each with the cell and line it came from."""
    found = []
    for event in events:
        cell = event.get("cell")
        where = cells.get(cell, "a cell") if isinstance(cell, int) else "the kernel"
        line = event.get("line")
        if isinstance(line, int):
            where += f", line {line}"
        found.append(f"{where}: {str(event.get('detail', ''))[:300]}")
    return list(dict.fromkeys(found))
