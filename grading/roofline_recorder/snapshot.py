"""The copy of the kernel a hidden test leaves behind, to answer the hidden inputs after the notebook.

A hidden test calls :func:`roofline_recorder.record`, which calls the student's function at the
question's public cases in the kernel itself, then :func:`leave`: the kernel forks, and the copy
keeps the function exactly as it is at that moment (the notebook's state included). The grader
opened one socket for each question before the kernel started and handed the kernel its end as
an inherited descriptor (nothing in the sandbox can be connected to by a path); the copy takes
the question's descriptor, says which question and cell it holds, and waits, and the kernel
closes its own copy of it, so a question is answered once. Only when every cell of the notebook
has run does the grader send the copy the hidden inputs; it calls the function at them, sends
the plain results back and ends. So the hidden inputs never reach a process that runs another
cell: nothing the function prints, stores or writes while it answers them can reach the
notebook, and the kernel itself never holds them.

The copy writes nowhere a cell could read from: its standard streams go to ``/dev/null``, every
file descriptor it inherited is closed but its socket and the audit channel, and IPython's display
is cut off.

Frames on the socket are a 4-byte big-endian length, then that many bytes of JSON:

>>> frame({"question": "ex1.ops"})
b'\\x00\\x00\\x00\\x17{"question": "ex1.ops"}'

This module imports only the standard library: it runs inside the grading kernel.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import socket
import struct
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_FRAME", "frame", "leave", "read_frame"]

MAX_FRAME = 4 * 2**20
"""Bytes one frame may hold: far more than the results of one question at its hidden inputs take
(a few numbers or short arrays; the grader refuses a longer frame before reading it)."""
READY_SECONDS = 30
"""How long the kernel waits for a copy to be in place (it takes milliseconds)."""
_LENGTH = struct.Struct(">I")


def frame(message: Any) -> bytes:
    """``message`` as one frame: its length, then its JSON."""
    data = json.dumps(message).encode("utf-8")
    if len(data) > MAX_FRAME:
        raise ValueError(f"a frame of {len(data)} bytes is more than {MAX_FRAME}")
    return _LENGTH.pack(len(data)) + data


def read_frame(connection: socket.socket) -> Any:
    """The next frame's message from a blocking ``connection``; ``EOFError`` if it closes first."""
    (length,) = _LENGTH.unpack(_read_exactly(connection, _LENGTH.size))
    if length > MAX_FRAME:
        raise ValueError(f"a frame of {length} bytes is more than {MAX_FRAME}")
    return json.loads(_read_exactly(connection, length).decode("utf-8"))


def _read_exactly(connection: socket.socket, count: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < count:
        chunk = connection.recv(min(count - len(chunks), 1 << 20))
        if not chunk:
            raise EOFError("the connection closed")
        chunks += chunk
    return bytes(chunks)


def leave(
    question: str,
    answer: Callable[..., Any],
    channel: int,
    cell: int | None,
    answer_cases: Callable[[Callable[..., Any], list[Any]], list[Any]],
    keep: tuple[int, ...] = (),
) -> bool:
    """Fork a copy of this process that answers the hidden inputs of ``question`` on ``channel``
    (the descriptor the grader opened for this question alone) with ``answer_cases(answer,
    cases)`` (see the module's docstring); this process closes ``channel``. ``keep``: file
    descriptors the copy keeps open (the audit channel). Returns once the copy has said which
    question it holds (so the grader, which serves the copies that have when the notebook ends,
    cannot miss it however loaded the machine is); False if no copy could be made."""
    ready, told = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (ready, told, channel):
            os.close(fd)
        return False
    if pid:
        os.close(told)
        os.close(channel)
        try:
            waiting = select.select([ready], [], [], READY_SECONDS)[0] and os.read(ready, 1) == b"1"
        finally:
            os.close(ready)
        return bool(waiting)
    status = 1
    try:
        os.close(ready)
        _cut_off((*keep, told, channel))
        _answer(question, answer, channel, cell, answer_cases, told)
        status = 0
    finally:
        os._exit(status)


def _cut_off(keep: tuple[int, ...]) -> None:
    """Leave the copy no way to write where the notebook could read it."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    kept = sorted({fd for fd in keep if fd > 2})
    low = 3
    for fd in [*kept, 1 << 20]:
        with contextlib.suppress(OSError):
            os.closerange(low, min(fd, _max_fd()))
        low = fd + 1
    quiet = _Discard()
    sys.stdout = sys.stderr = sys.__stdout__ = sys.__stderr__ = quiet  # type: ignore[misc,assignment]
    sys.displayhook = lambda value: None
    shell = sys.modules.get("IPython")
    get_shell = getattr(shell, "get_ipython", None) if shell is not None else None
    with contextlib.suppress(Exception):
        if get_shell is not None and get_shell() is not None:
            get_shell().display_pub.publish = lambda *args, **kwargs: None


def _max_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (OSError, ValueError):
        return 1024


def _answer(
    question: str,
    answer: Callable[..., Any],
    channel: int,
    cell: int | None,
    answer_cases: Callable[[Callable[..., Any], list[Any]], list[Any]],
    told: int,
) -> None:
    with socket.socket(fileno=channel) as connection:
        connection.sendall(frame({"question": question, "cell": cell}))
        os.write(told, b"1")  # waiting: the kernel may go on
        os.close(told)
        asked = read_frame(connection)
        results = answer_cases(answer, list(asked["cases"]))
        connection.sendall(frame({"results": results}))


class _Discard(io.TextIOBase):
    """A text stream that forgets what it is given."""

    def write(self, text: str) -> int:
        return len(text)
