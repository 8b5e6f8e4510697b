"""The hidden inputs, handed out only after a notebook's last cell: the grader's side.

Each hidden test leaves a copy of the kernel waiting (:mod:`roofline_recorder.snapshot`), which
connects to a :class:`Listener` on a Unix socket in the kernel's runtime folder and says which
question and cell it answers. Once the notebook is done (its last cell run, or its kernel lost,
or its time used up), :meth:`Listener.serve` sends every waiting copy its question's hidden
inputs, all at once, and collects what each returns before one deadline; nothing the kernel runs
after that point reaches the notebook, so the hidden inputs cannot either.

What comes back is plain data, read with :func:`roofline_recorder.encode.decode`, which refuses
anything else; a copy that says nothing, says too much or too late is simply not an answer.

>>> import tempfile
>>> listener = Listener(Path(tempfile.mkdtemp()) / "hidden.sock")
>>> listener.serve({}, seconds=0.1)
{}
>>> listener.close()
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import socket
import struct
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roofline_grading.questions import FunctionQuestion
from roofline_grading.session import Issued, spec
from roofline_recorder.encode import RecordError, decode
from roofline_recorder.snapshot import MAX_FRAME, frame

__all__ = ["MAX_COPIES", "Answered", "Listener"]

MAX_COPIES = 256
"""Copies served per notebook (a hidden test leaves one; more only if the code made its own)."""
_LENGTH = struct.Struct(">I")

Answered = dict[str, list[dict[str, Any]]]
"""Question id -> what each copy of it returned: ``cell`` (the execution count of the cell that
left it) and ``results`` (one per hidden case, as :func:`roofline_recorder.collect` gives them),
or ``timed_out`` / ``lost`` with no results."""


@dataclass
class _Copy:
    """One waiting copy, as the listener sees it."""

    connection: socket.socket
    buffer: bytearray = field(default_factory=bytearray)
    question: str | None = None
    cell: int | None = None
    results: list[Any] | None = None
    done: bool = False

    def frames(self) -> list[Any]:
        """Complete frames received so far (removed from the buffer); ValueError if one is too big."""
        found = []
        while len(self.buffer) >= _LENGTH.size:
            (length,) = _LENGTH.unpack_from(self.buffer)
            if length > MAX_FRAME:
                raise ValueError("frame too large")
            if len(self.buffer) < _LENGTH.size + length:
                break
            data = bytes(self.buffer[_LENGTH.size : _LENGTH.size + length])
            del self.buffer[: _LENGTH.size + length]
            found.append(json.loads(data.decode("utf-8")))
        return found


class Listener:
    """The socket the copies of one notebook's kernel connect to (see the module's docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.bind(str(path))
        os.chmod(path, 0o666)  # the kernel runs as another user inside the sandbox
        self._socket.listen(MAX_COPIES)
        self._socket.setblocking(False)

    def serve(self, issued: Mapping[str, Issued], seconds: float) -> Answered:
        """Send each waiting copy its question's hidden inputs and collect the answers, within
        ``seconds`` in all (see the module's docstring)."""
        copies = self._accept()
        deadline = time.monotonic() + seconds
        with selectors.DefaultSelector() as selector:
            for copy in copies:
                selector.register(copy.connection, selectors.EVENT_READ, copy)
            while any(not c.done for c in copies) and (left := deadline - time.monotonic()) > 0:
                for key, _ in selector.select(timeout=left):
                    copy = key.data
                    if not self._receive(copy, issued):
                        copy.done = True
                        selector.unregister(copy.connection)
        answered: Answered = {}
        for copy in copies:
            copy.connection.close()
            if copy.question is None:
                continue
            entry: dict[str, Any] = {"cell": copy.cell}
            if copy.results is not None:
                entry["results"] = copy.results
            else:
                entry["timed_out" if not copy.done else "lost"] = True
            answered.setdefault(copy.question, []).append(entry)
        return answered

    def close(self) -> None:
        """Stop listening (copies not yet served are dropped)."""
        self._socket.close()
        with contextlib.suppress(OSError):
            self.path.unlink()

    def _accept(self) -> list[_Copy]:
        copies: list[_Copy] = []
        while len(copies) < MAX_COPIES:
            try:
                connection, _ = self._socket.accept()
            except (BlockingIOError, InterruptedError):
                break
            connection.setblocking(False)
            copies.append(_Copy(connection))
        return copies

    def _receive(self, copy: _Copy, issued: Mapping[str, Issued]) -> bool:
        """Read what ``copy`` sent; answer its first frame with the inputs, keep its second as the
        results. False once it is finished with (answered, closed, or not speaking the protocol)."""
        try:
            chunk = copy.connection.recv(1 << 20)
            if not chunk:
                return False
            copy.buffer += chunk
            if len(copy.buffer) > MAX_FRAME + _LENGTH.size:
                return False
            for message in copy.frames():
                if copy.question is None:
                    if not self._ask(copy, message, issued):
                        return False
                else:
                    copy.results = _results(message, len(issued[copy.question].hidden))
                    return False
        except (OSError, ValueError, RecordError):
            return False
        return True

    @staticmethod
    def _ask(copy: _Copy, hello: Any, issued: Mapping[str, Issued]) -> bool:
        """Send the copy its question's hidden inputs, if it names a function question."""
        question = hello.get("question") if isinstance(hello, dict) else None
        known = issued.get(question) if isinstance(question, str) else None
        if known is None or not isinstance(known.question, FunctionQuestion) or not known.hidden:
            return False
        cell = hello.get("cell")
        copy.question, copy.cell = question, cell if isinstance(cell, int) else None
        copy.connection.setblocking(True)
        copy.connection.settimeout(5)
        copy.connection.sendall(frame({"cases": spec(known, hidden=True)["cases"]}))
        copy.connection.setblocking(False)
        return True


def _results(message: Any, count: int) -> list[Any]:
    """The copy's results, decoded: one per hidden case, or ValueError."""
    results = message.get("results") if isinstance(message, dict) else None
    if not isinstance(results, list) or len(results) != count:
        raise ValueError("not one result per hidden case")
    return [decode(result) for result in results]
