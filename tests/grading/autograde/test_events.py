"""The event channel a grading kernel writes to (roofline_grading.autograde.events)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from roofline_grading.autograde.events import EventChannel


def test_an_event_channel_reads_what_the_kernel_writes_and_keeps_at_most_its_share(tmp_path: Path) -> None:
    channel = EventChannel.fifo(tmp_path / "events")
    writer = os.open(tmp_path / "events", os.O_WRONLY)
    line = json.dumps({"what": "file", "detail": "read /course/gradebook.db", "cell": 3, "line": 1})
    os.write(writer, (line + "\n").encode() + b"not json\n" + b"x" * 2_000_000)
    os.close(writer)
    events = channel.close()
    assert events[0]["detail"] == "read /course/gradebook.db"
    assert events[-1]["what"] == "more"
