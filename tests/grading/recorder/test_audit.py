"""The monitor inside a grading kernel (roofline_recorder.audit): what cell code tries is
reported, and nothing the kernel does itself."""

from __future__ import annotations

import os
from typing import Any

from roofline_recorder.audit import Monitor


def test_the_audit_hook_reports_what_cell_code_tries_and_nothing_the_kernel_does_itself() -> None:
    events: list[dict[str, Any]] = []
    monitor = Monitor(events.append, readable=("/usr",), writable=("/tmp",), own_pid=os.getpid(), library=())
    monitor.active = True
    for event, args in (
        ("open", ("/course/gradebook.db", "r", 0)),
        ("open", ("/usr/lib/x.py", "r", 0)),
        ("open", ("/tmp/notes.txt", "w", 0)),
        ("open", ("/usr/lib/x.py", None, os.O_WRONLY)),
        ("open", ("/proc/1/environ", "rb", 0)),
        ("os.kill", (os.getpid(), 2)),
        ("os.kill", (1, 15)),
        ("subprocess.Popen", ("sleep", ["sleep", "9"], None, None)),
        ("socket.connect", (None, ("10.0.0.1", 80))),
        ("import", ("roofline_grading.exercises.ex1_int8_matmul.answers", None, None, None, None)),
        ("import", ("numpy", None, None, None, None)),
    ):
        monitor.hook(event, args)
    assert [e["detail"] for e in events] == [
        "read /course/gradebook.db",
        "write /usr/lib/x.py",
        "reads /proc/1/environ, which belongs to another process",
        "sent signal 15 to process 1",
        "subprocess.Popen(sleep)",
        "socket.connect(('10.0.0.1', 80))",
        "imports roofline_grading.exercises.ex1_int8_matmul.answers (not available when grading)",
    ]
    machinery = Monitor(events.append, readable=(), writable=(), own_pid=1, library=("/",))
    machinery.active = True
    machinery.hook("open", ("/course/gradebook.db", "r", 0))  # only library frames: the kernel's own
    assert len(events) == 7
