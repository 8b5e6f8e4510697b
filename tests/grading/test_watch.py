"""The grading kernel's two watches and how the report puts them together: the keeper, which sees a
process's system calls from outside its interpreter (roofline_recorder.watch, over a real seccomp
filter), and the audit hook inside it, merged by roofline_grading.autograde.events."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from roofline_grading.autograde.events import HIDDEN_PHASE, UNSEEN, EventChannel, Timeline, attempts
from roofline_recorder import seccomp, watch
from roofline_recorder.places import Places, hashed


def call(name: str, *args: int) -> seccomp.Call:
    """A call of this process's, as the keeper receives it."""
    number = seccomp.number(name)
    assert number is not None
    return seccomp.Call(id=0, pid=os.getpid(), number=number, args=(*args, 0, 0, 0, 0, 0, 0)[:6])


def address(text: bytes) -> tuple[ctypes.Array[ctypes.c_char], int]:
    """A C string in this process's memory, and its address (kept alive by the first item)."""
    buffer = ctypes.create_string_buffer(text)
    return buffer, ctypes.addressof(buffer)


@pytest.fixture
def watched(tmp_path: Path) -> watch.Watched:
    places = Places(
        readable=("/usr",),
        writable=(str(tmp_path),),
        protected=frozenset({hashed("salt", "/course")}),
        salt="salt",
    )
    own = {"/grading/rooflinekit/": "imports rooflinekit (not available when grading)"}
    return watch.Watched(places, own, report=-1)


def test_the_keeper_names_what_reaches_beyond_the_kernel_and_nothing_it_does_to_itself(
    watched: watch.Watched, tmp_path: Path
) -> None:
    me = os.getpid()
    at_fdcwd = (1 << 64) - 100
    kept = []

    def opened(path: bytes, flags: int = os.O_RDONLY) -> tuple[str, str] | None:
        buffer, where = address(path)
        kept.append(buffer)
        return watch.describe("openat", call("openat", at_fdcwd, where, flags), watched)

    assert opened(b"/proc/1/environ") == (
        "process-info",
        "reads /proc/1/environ, which belongs to another process",
    )
    assert opened(f"/proc/{me}/status".encode()) is None and opened(b"/proc/self/maps") is None
    assert opened(b"/course/gradebook.db") == ("file", "read /course/gradebook.db")
    assert opened(b"/usr/lib/x.py", os.O_WRONLY) == ("file", "write /usr/lib/x.py")
    assert opened(str(tmp_path / "notes.txt").encode(), os.O_WRONLY | os.O_CREAT) is None
    assert opened(b"/usr/lib/python3/os.py") is None  # reads outside its places: the audit hook's to tell
    assert opened(b"/grading/rooflinekit/__pycache__/__init__.cpython-311.pyc") == (
        "import",
        "imports rooflinekit (not available when grading) (__init__.py)",
    )
    assert watch.describe("kill", call("kill", 1, 15), watched) == ("signal", "sent signal 15 to process 1")
    assert watch.describe("kill", call("kill", (1 << 64) - 1, 9), watched) == (
        "signal",
        "sent signal 9 to every process it can reach",
    )
    assert watch.describe("tgkill", call("tgkill", me, me, 10), watched) is None
    assert watch.describe("ptrace", call("ptrace", 16, 1), watched) == (
        "process-info",
        "traces a process with ptrace (request 16, process 1)",
    )
    assert watch.describe("io_uring_setup", call("io_uring_setup", 8, 0), watched)[0] == "refused"
    assert watch.describe("keyctl", call("keyctl", 0, -3), watched) == (
        "refused",
        "tried to use the system's keyrings (keyctl), which grading does not allow (refused)",
    )


def test_a_network_address_is_named(watched: watch.Watched) -> None:
    inet = b"\x02\x00\x00\x50" + bytes([10, 1, 2, 3]) + b"\x00" * 8
    buffer, where = address(inet)
    assert watch.describe("connect", call("connect", 3, where, len(inet)), watched) == (
        "network",
        "connect(10.1.2.3:80)",
    )
    unix = b"\x01\x00/run/elsewhere.sock\x00"
    other, there = address(unix)
    assert watch.describe("bind", call("bind", 3, there, len(unix)), watched) == (
        "network",
        "bind(/run/elsewhere.sock)",
    )
    assert buffer and other


WATCHED_PROGRAM = """
import ctypes, errno, json, os, signal, socket, subprocess, sys
from roofline_recorder import watch
from roofline_recorder.places import Places

report_read, report_write = os.pipe()
keeper_end, kernel_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
supervisor = os.fork()
if supervisor:  # the test's side: wait, then print what the keeper reported
    os.close(report_write)
    os.waitpid(supervisor, 0)
    sys.stdout.write(os.read(report_read, 1 << 20).decode())
    sys.exit(0)
kernel = os.fork()
if kernel == 0:
    keeper_end.close()
    listener = watch.install()
    socket.send_fds(kernel_end, [b"listener"], [listener])
    os.close(listener)
    kernel_end.send(b"start")
    try:
        open("/proc/1/status").read()
    except OSError:
        pass
    os.kill(os.getppid(), 0)
    subprocess.run(["true"])
    libc = ctypes.CDLL(None, use_errno=True)
    refused = libc.syscall(425, 8, None) == -1 and ctypes.get_errno() == errno.EPERM  # io_uring_setup
    dumpable = libc.prctl(4, 0, 0, 0, 0) == -1 and ctypes.get_errno() == errno.EPERM
    print(json.dumps({"refused": refused, "dumpable": dumpable}), flush=True)
    os._exit(0)
kernel_end.close()
os.close(report_read)
places = Places(readable=("/",), writable=("/tmp",))
watch.keep(kernel, os.devnull, keeper_end, watch.Watched(places, {}, report_write))
"""


@pytest.mark.slow
@pytest.mark.skipif(
    seccomp.available() is not None, reason=f"no system-call watch here: {seccomp.available()}"
)
def test_a_watched_process_is_seen_from_outside_whatever_its_own_interpreter_does(tmp_path: Path) -> None:
    """A process under the watch's filter, its keeper another process: the attempts are reported
    with who made them and when, io_uring and making itself unreadable are refused, and the
    keeper ends when nothing it keeps is left."""
    recorder = Path(watch.__file__).parent.parent
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(WATCHED_PROGRAM)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(recorder)},
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert {"refused": True, "dumpable": True} in lines
    events = [e for e in lines if "what" in e]
    assert events[0]["what"] == "watching"
    said = {(e["what"], e["detail"], e["by"]) for e in events[1:]}
    assert ("process-info", "reads /proc/1/status, which belongs to another process", "kernel") in said
    assert any(what == "signal" and by == "kernel" for what, _, by in said)
    assert any(what == "process" and detail.endswith("/true") and by == "kernel" for what, detail, by in said)
    assert ("refused", "tried to use io_uring, which grading does not allow (refused)", "kernel") in said
    assert all(isinstance(e["t"], int) for e in events)


# --- The report from both watches ------------------------------------------------------------

CELLS = [
    {
        "cell_type": "code",
        "execution_count": 1,
        "metadata": {"nbgrader": {"grade_id": "ex5_peak_answer", "solution": True}},
    },
    {
        "cell_type": "code",
        "execution_count": 2,
        "metadata": {"nbgrader": {"grade_id": "ex5_peak_test", "grade": True}},
    },
]


def test_what_the_keeper_saw_is_placed_in_the_cell_that_ran_and_what_came_after_the_notebook_is_apart() -> (
    None
):
    timeline = Timeline([(100, 0), (200, 1)], served=300)
    inside = [
        {"what": "signal", "detail": "sent signal 15 to process 1", "cell": 1, "line": 3},
        {
            "what": "process-info",
            "detail": "reads /proc/1/environ, which belongs to another process",
            "cell": 2,
            "line": 1,
            "late": True,
        },
    ]
    outside = [
        {"what": "watching", "t": 50},
        {"what": "signal", "detail": "sent signal 15 to process 1", "by": "kernel", "t": 150},
        {
            "what": "process-info",
            "detail": "reads /proc/1/environ, which belongs to another process",
            "by": "other",
            "t": 350,
        },
    ]
    found = attempts(inside, outside, CELLS, timeline)
    assert found.notebook == [
        "answer cell 'ex5_peak_answer', line 3: sent signal 15 to process 1",
        "answer cell 'ex5_peak_answer', seen from outside the kernel: sent signal 15 to process 1",
    ]
    read = "reads /proc/1/environ, which belongs to another process"
    assert found.hidden == [
        f"{HIDDEN_PHASE}: {read}",
        f"{HIDDEN_PHASE}, seen from outside the kernel: {read}",
    ]


def test_a_monitor_that_missed_what_the_keeper_saw_the_kernel_do_is_said_to_have_been_got_past() -> None:
    outside = [
        {"what": "signal", "detail": "sent signal 9 to process 1", "by": "kernel", "t": 150},
        {"what": "process", "detail": "starts the program /usr/bin/sh", "by": "other", "t": 160},
    ]
    found = attempts([], outside, CELLS, Timeline([(100, 0)]))
    assert found.notebook[-1].startswith(UNSEEN) and "(signal)" in found.notebook[-1]
    reported = [{"what": "signal", "detail": "sent signal 9 to process 1", "cell": 1, "line": 2}]
    assert not any(
        c.startswith(UNSEEN) for c in attempts(reported, outside, CELLS, Timeline([(100, 0)])).notebook
    )


def test_what_a_kernel_writes_after_the_mark_is_marked_late(tmp_path: Path) -> None:
    channel, writer = EventChannel.pipe()
    event: dict[str, Any] = {"what": "file", "detail": "read /course", "cell": 1, "line": 1}
    os.write(writer, (json.dumps(event) + "\n").encode())
    channel.mark()
    os.write(writer, (json.dumps(event) + "\n").encode())
    os.close(writer)
    first, second = channel.close()
    assert "late" not in first and second["late"] is True
