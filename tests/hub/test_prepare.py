"""make hub's preparation (hub/prepare.py) makes nbgrader's course groups, and puts the instructor
in theirs, while another account command holds the system's group file for a moment (a useradd
of another test or of the machine's administrator): it waits for the lock as ``account`` does."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.support.hub import ROOT, groups_removed

sys.path.insert(0, str(ROOT / "hub"))

import prepare
from roofline_hub import Settings, members

LOCK = Path("/etc/group.lock")
"""shadow's lock of /etc/group: a file naming a live process (groupadd: "cannot lock /etc/group")."""


@pytest.mark.slow
def test_the_course_groups_are_made_once_the_group_files_lock_is_released(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("make hub runs as root: the course groups are system groups")
    settings = Settings(tmp_path, tmp_path, ROOT, tmp_path / "exchange", tmp_path, f"lock{os.getpid()}")
    holder = subprocess.Popen(["sleep", "30"])
    try:
        with groups_removed(settings.groups()):
            descriptor = os.open(LOCK, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.write(descriptor, str(holder.pid).encode())
            os.close(descriptor)
            threading.Timer(1.5, LOCK.unlink).start()
            prepare.course_groups(settings, "nobody")
            instructors, students = settings.groups()
            assert members(instructors) == ["nobody"] and members(students) == []
            assert not LOCK.exists()  # it waited for the lock, which it never took from its holder
    finally:
        holder.kill()
        holder.wait()
