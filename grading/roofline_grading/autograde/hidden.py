"""The hidden inputs, handed out only after a notebook's last cell: the grader's side.

Before a notebook's kernel starts, :class:`Copies` opens one socket pair for each function
question of the notebook and hands the kernel one end of each as an inherited descriptor: there
is nothing in the sandbox to connect to by a path, and a question has one channel, so it is
answered once. The hidden test of a question leaves a copy of the kernel holding that channel
(:mod:`roofline_recorder.snapshot`), which says which question and cell it answers. Once the
notebook is done (its last cell run, or its kernel lost, or its time used up),
:meth:`Copies.serve` sends every copy that spoke its question's hidden inputs, all at once, and
collects what each returns before one deadline; nothing the kernel runs after that point reaches
the notebook, so the hidden inputs cannot either.

What comes back is read with limits set before anything is parsed: a frame's length (at most
:data:`~roofline_recorder.snapshot.MAX_FRAME`), then the nesting and the number of values of its
JSON (:func:`checked_json`), then the record format (:func:`roofline_recorder.encode.decode`). A
copy that sends anything else, or too much, or too late, answers nothing: that question alone is
wrong at its hidden inputs, and the instructor's report says what the copy sent. So a notebook
holds at most one frame per question in the grader's memory, however many bytes it sends.

>>> copies = Copies(["ex1.ops"])
>>> sorted(copies.descriptors())
['ex1.ops']
>>> copies.handed_over()
>>> copies.serve({}, seconds=0.1)
{}
>>> copies.close()
"""

from __future__ import annotations

import json
import re
import selectors
import socket
import struct
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from roofline_grading.session import Issued, spec
from roofline_recorder.encode import RecordError, decode
from roofline_recorder.snapshot import MAX_FRAME, frame

__all__ = ["HELLO_BYTES", "MAX_DEPTH", "MAX_VALUES", "Answered", "Copies", "checked_json"]

HELLO_BYTES = 4096
"""Bytes a copy's first frame (its question and cell) may take."""
MAX_DEPTH = 40
"""Nesting a frame's JSON may have (a record nests at most 8 levels, each two deep in JSON)."""
MAX_VALUES = 200_000
"""JSON values a frame may hold (arrays travel as one string each; an answer holds a few dozen)."""
_LENGTH = struct.Struct(">I")
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')

Answered = dict[str, list[dict[str, Any]]]
"""Question id -> what its copy returned: ``cell`` (the execution count of the cell that left it)
and ``results`` (one per hidden case, as :func:`roofline_recorder.collect` gives them), or
``timed_out``, ``lost`` or ``bad`` (what it sent instead, in words) with no results."""


class FrameError(ValueError):
    """A copy sent something that is not an answer: the message says what, for the instructor."""


def checked_json(data: bytes, *, depth: int = MAX_DEPTH, values: int = MAX_VALUES) -> Any:
    """``data`` parsed as JSON, once its nesting and its number of values are known to be within
    ``depth`` and ``values`` (counted before parsing, strings aside); :class:`FrameError` if not.

    >>> checked_json(b'{"results": [1, "a, [b"]}')
    {'results': [1, 'a, [b']}
    >>> checked_json(b"[" * 50 + b"]" * 50)
    Traceback (most recent call last):
    ...
    roofline_grading.autograde.hidden.FrameError: JSON nested 50 deep (at most 40)
    """
    skeleton = _STRINGS.sub(b'""', data)
    count = skeleton.count(b",") + skeleton.count(b"[") + skeleton.count(b"{")
    if count > values:
        raise FrameError(f"JSON with more than {values:,} values")
    level = deepest = 0
    for bracket in skeleton.translate(None, delete=bytes(set(range(256)) - set(b"[]{}"))):
        level += 1 if bracket in b"[{" else -1
        deepest = max(deepest, level)
    if deepest > depth:
        raise FrameError(f"JSON nested {deepest} deep (at most {depth})")
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise FrameError(f"not JSON ({type(error).__name__})") from error


@dataclass
class _Copy:
    """One copy that said which question it answers, as the grader serves it."""

    question: str
    connection: socket.socket
    cell: int | None
    outgoing: bytes
    buffer: bytearray = field(default_factory=bytearray)
    entry: dict[str, Any] | None = None

    def receive(self, count: int) -> None:
        """Read what the copy sent; settle its entry once its frame is complete or wrong."""
        chunk = self.connection.recv(min(count, 1 << 20))
        if not chunk:
            self.entry = {"lost": True}
            return
        self.buffer += chunk
        if len(self.buffer) < _LENGTH.size:
            return
        (length,) = _LENGTH.unpack_from(self.buffer)
        if length > MAX_FRAME:
            raise FrameError(f"a frame of {length:,} bytes (at most {MAX_FRAME:,})")
        if len(self.buffer) >= _LENGTH.size + length:
            message = checked_json(bytes(self.buffer[_LENGTH.size : _LENGTH.size + length]))
            self.entry = {"message": message}

    def wanted(self) -> int:
        """Bytes still missing from the frame (its length first)."""
        if len(self.buffer) < _LENGTH.size:
            return _LENGTH.size - len(self.buffer)
        length: int = _LENGTH.unpack_from(self.buffer)[0]
        return _LENGTH.size + length - len(self.buffer)


class Copies:
    """The channels of one notebook's copies (see the module's docstring)."""

    def __init__(self, questions: Iterable[str]) -> None:
        self._pairs = {qid: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) for qid in questions}

    def descriptors(self) -> dict[str, int]:
        """Question id -> the descriptor the kernel is given for it (inherited as it is)."""
        return {qid: theirs.fileno() for qid, (_, theirs) in self._pairs.items() if theirs.fileno() >= 0}

    def handed_over(self) -> None:
        """Close the kernel's ends here, once it has them (only it and its copies hold them then)."""
        for _, theirs in self._pairs.values():
            theirs.close()

    def serve(self, issued: Mapping[str, Issued], seconds: float) -> Answered:
        """Send each copy its question's hidden inputs and collect the answers, within ``seconds``
        in all (see the module's docstring)."""
        answered: Answered = {}
        copies = []
        for qid, (ours, _) in self._pairs.items():
            copy = _hello(qid, ours, issued.get(qid))
            if isinstance(copy, _Copy):
                copies.append(copy)
            elif copy is not None:
                answered[qid] = [copy]
        _exchange(copies, time.monotonic() + seconds)
        for copy in copies:
            entry = copy.entry or {"timed_out": True}
            if "message" in entry:
                entry = _results(entry["message"], len(issued[copy.question].hidden))
            answered[copy.question] = [{"cell": copy.cell, **entry}]
        return answered

    def close(self) -> None:
        """Close every channel (copies not yet served are dropped)."""
        for pair in self._pairs.values():
            for end in pair:
                end.close()


def _hello(qid: str, ours: socket.socket, issued: Issued | None) -> _Copy | dict[str, Any] | None:
    """The copy waiting on ``ours``, from the frame it sent when it was made: None if no copy was
    made (or its question has no hidden inputs), an entry saying what was wrong with the frame."""
    if issued is None or not issued.hidden:
        return None
    try:
        head = ours.recv(_LENGTH.size + HELLO_BYTES, socket.MSG_DONTWAIT | socket.MSG_PEEK)
    except (BlockingIOError, OSError):
        return None
    if not head:
        return None
    try:
        (length,) = _LENGTH.unpack_from(head) if len(head) >= _LENGTH.size else (HELLO_BYTES + 1,)
        if length > HELLO_BYTES or len(head) < _LENGTH.size + length:
            raise FrameError("a first frame that is not its question and cell")
        ours.recv(_LENGTH.size + length)
        hello = checked_json(head[_LENGTH.size : _LENGTH.size + length])
        if not isinstance(hello, dict) or hello.get("question") != qid:
            raise FrameError("a first frame that is not its question and cell")
    except (FrameError, OSError, struct.error) as error:
        return {"cell": None, "bad": str(error)}
    cell = hello.get("cell")
    outgoing = frame({"cases": spec(issued, hidden=True)["cases"]})
    return _Copy(qid, ours, cell if isinstance(cell, int) else None, outgoing)


def _exchange(copies: list[_Copy], deadline: float) -> None:
    """Send each copy its frame and read its answer, all at once, until ``deadline``."""
    with selectors.DefaultSelector() as selector:
        for copy in copies:
            copy.connection.setblocking(False)
            selector.register(copy.connection, selectors.EVENT_WRITE, copy)
        while selector.get_map() and (left := deadline - time.monotonic()) > 0:
            for key, events in selector.select(timeout=left):
                copy = key.data
                try:
                    if events & selectors.EVENT_WRITE:
                        sent = copy.connection.send(copy.outgoing)
                        copy.outgoing = copy.outgoing[sent:]
                        if not copy.outgoing:
                            selector.modify(copy.connection, selectors.EVENT_READ, copy)
                    else:
                        copy.receive(copy.wanted())
                except FrameError as error:
                    copy.entry = {"bad": str(error)}
                except OSError:
                    copy.entry = {"lost": True}
                if copy.entry is not None:
                    selector.unregister(copy.connection)


def _results(message: Any, count: int) -> dict[str, Any]:
    """The copy's results, decoded (one per hidden case), or what was wrong with them."""
    results = message.get("results") if isinstance(message, dict) else None
    if not isinstance(results, list) or len(results) != count:
        return {"bad": "a frame that is not one result per hidden input"}
    try:
        return {"results": [decode(result) for result in results]}
    except (RecordError, RecursionError) as error:
        return {"bad": f"results that are not plain values ({str(error)[:80]})"}
