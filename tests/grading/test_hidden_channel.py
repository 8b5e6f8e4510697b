"""The hidden tests' channels (roofline_grading.autograde.hidden): one descriptor per question,
opened before the kernel starts, one answer each, and limits set before anything a copy sends is
parsed. The copies here are threads on the kernel's ends of real socket pairs, sending what a
notebook's code could."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from roofline_grading.autograde.hidden import MAX_DEPTH, Copies, FrameError, checked_json
from roofline_grading.session import issue
from roofline_recorder.encode import encode
from roofline_recorder.snapshot import MAX_FRAME, frame, read_frame

NOTEBOOK = "ex5_h100_threshold"
ISSUED = issue(NOTEBOOK, "a seed of the course's" * 2)
PEAK, BANDWIDTH = "ex5.dense_peak", "ex5.hbm_bandwidth"


def raw(data: bytes) -> bytes:
    """``data`` as one frame, whatever it holds."""
    return struct.pack(">I", len(data)) + data


def honest(connection: socket.socket, question: str) -> None:
    """What a copy does: say its question, read the inputs, answer each with a number."""
    connection.sendall(frame({"question": question, "cell": 7}))
    asked = read_frame(connection)
    connection.sendall(frame({"results": [encode({"value": 1.0}) for _ in asked["cases"]]}))


Behaviour = Callable[[socket.socket, str], None]


@pytest.fixture
def copies() -> Iterator[Callable[[dict[str, Behaviour]], Copies]]:
    """Channels for ex5's questions, with a thread as each question's copy."""
    made: list[Copies] = []
    threads: list[threading.Thread] = []

    def start(behaviours: dict[str, Behaviour]) -> Copies:
        channels = Copies(ISSUED)
        made.append(channels)
        spoken = []
        for question, fd in channels.descriptors().items():
            if question in behaviours:
                connection = socket.socket(fileno=os.dup(fd))
                spoke = threading.Event()
                arguments = (behaviours[question], connection, question, spoke)
                thread = threading.Thread(target=_run, args=arguments)
                thread.start()
                threads.append(thread)
                spoken.append(spoke)
        channels.handed_over()
        # serve() takes a copy that has not yet said its question for no copy at all: wait until
        # each has (a pause of a tenth of a second was not always enough on a loaded machine)
        assert all(spoke.wait(60) for spoke in spoken), "a copy's thread did not start"
        return channels

    yield start
    for channels in made:
        channels.close()
    for thread in threads:
        thread.join(timeout=5)


def _run(behaviour: Behaviour, connection: socket.socket, question: str, spoke: threading.Event) -> None:
    with connection, contextlib.suppress(OSError):
        behaviour(_Speaking(connection, spoke), question)  # type: ignore[arg-type]


class _Speaking:
    """A copy's end of its channel that says when the copy has sent its first frame."""

    def __init__(self, connection: socket.socket, spoke: threading.Event) -> None:
        self._connection, self._spoke = connection, spoke

    def sendall(self, data: bytes) -> None:
        try:
            self._connection.sendall(data)
        finally:
            self._spoke.set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


def test_each_copy_gets_its_questions_hidden_inputs_and_its_answer_is_read(copies: Any) -> None:
    channels = copies({PEAK: honest, BANDWIDTH: honest})
    answered = channels.serve(ISSUED, seconds=60)
    assert sorted(answered) == sorted([PEAK, BANDWIDTH])
    (entry,) = answered[PEAK]
    assert entry["cell"] == 7 and entry["results"] == [{"value": 1.0}] * len(ISSUED[PEAK].hidden)


def test_a_question_no_copy_spoke_for_gets_nothing_and_costs_no_wait(copies: Any) -> None:
    channels = copies({PEAK: honest})
    started = time.monotonic()
    answered = channels.serve(ISSUED, seconds=60)
    assert list(answered) == [PEAK] and time.monotonic() - started < 30  # not the deadline's minute


def deep(connection: socket.socket, question: str) -> None:
    connection.sendall(frame({"question": question, "cell": 7}))
    read_frame(connection)
    connection.sendall(raw(b"[" * 30_000 + b"]" * 30_000))


def huge(connection: socket.socket, question: str) -> None:
    connection.sendall(frame({"question": question, "cell": 7}))
    read_frame(connection)
    connection.sendall(struct.pack(">I", 2**32 - 1))
    with pytest.raises(OSError):
        for _ in range(64):  # the grader stops reading: the sends end in an error, not in its memory
            connection.sendall(b" " * (1 << 20))


def many_values(connection: socket.socket, question: str) -> None:
    connection.sendall(frame({"question": question, "cell": 7}))
    read_frame(connection)
    connection.sendall(raw(b"[" + b"{}," * 1_000_000 + b"{}]"))


@pytest.mark.parametrize(
    ("behaviour", "said"),
    [
        (deep, "JSON nested 30000 deep"),
        (huge, "a frame of 4,294,967,295 bytes"),
        (many_values, "more than 200,000 values"),
    ],
    ids=["deep", "huge", "many-values"],
)
def test_a_bad_frame_costs_its_question_alone_and_says_what_it_was(
    copies: Any, behaviour: Behaviour, said: str
) -> None:
    channels = copies({PEAK: behaviour, BANDWIDTH: honest})
    answered = channels.serve(ISSUED, seconds=60)
    (bad,) = answered[PEAK]
    assert said in bad["bad"] and "results" not in bad
    assert answered[BANDWIDTH][0]["results"] == [{"value": 1.0}] * len(ISSUED[BANDWIDTH].hidden)


def test_a_first_frame_that_names_another_question_or_is_not_one_answers_nothing(copies: Any) -> None:
    def other_question(connection: socket.socket, question: str) -> None:
        connection.sendall(frame({"question": BANDWIDTH, "cell": 7}))

    def garbage(connection: socket.socket, question: str) -> None:
        connection.sendall(b"\xff" * 64)

    channels = copies({PEAK: other_question, BANDWIDTH: garbage})
    answered = channels.serve(ISSUED, seconds=2)
    assert answered[PEAK] == [{"cell": None, "bad": "a first frame that is not its question and cell"}]
    assert answered[BANDWIDTH] == answered[PEAK]


def test_a_copy_that_does_not_answer_in_time_or_goes_away_answers_nothing(copies: Any) -> None:
    def silent(connection: socket.socket, question: str) -> None:
        connection.sendall(frame({"question": question, "cell": 7}))
        time.sleep(1.5)

    def gone(connection: socket.socket, question: str) -> None:
        connection.sendall(frame({"question": question, "cell": 7}))

    channels = copies({PEAK: silent, BANDWIDTH: gone})
    answered = channels.serve(ISSUED, seconds=1)
    assert answered[PEAK] == [{"cell": 7, "timed_out": True}]
    assert answered[BANDWIDTH] == [{"cell": 7, "lost": True}]


def test_results_that_are_not_one_plain_value_per_hidden_input_answer_nothing(copies: Any) -> None:
    def short(connection: socket.socket, question: str) -> None:
        connection.sendall(frame({"question": question, "cell": 7}))
        read_frame(connection)
        connection.sendall(frame({"results": [encode(1.0)]}))

    def pickled(connection: socket.socket, question: str) -> None:
        connection.sendall(frame({"question": question, "cell": 7}))
        asked = read_frame(connection)
        connection.sendall(frame({"results": [{"t": "pickle"}] * len(asked["cases"])}))

    channels = copies({PEAK: short, BANDWIDTH: pickled})
    answered = channels.serve(ISSUED, seconds=60)
    assert answered[PEAK][0]["bad"] == "a frame that is not one result per hidden input"
    assert answered[BANDWIDTH][0]["bad"].startswith("results that are not plain values")


def test_json_is_measured_before_it_is_parsed() -> None:
    assert checked_json(json.dumps({"results": [[[1]]] * 10, "s": "[[[[{{{{"}).encode())["s"] == "[[[[{{{{"
    with pytest.raises(FrameError, match="nested 41 deep"):
        checked_json(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(FrameError, match="more than"):
        checked_json(b"[" + b"{}," * (MAX_FRAME // 3 - 1) + b"{}]")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB: never parsed
