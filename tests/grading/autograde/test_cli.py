"""``python -m roofline_grading.autograde`` (roofline_grading.autograde.cli) says what is wrong
in one line, and refuses to grade without the sandbox unless told, saying what that risks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def run_cli(*args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path} if path is not None else None
    return subprocess.run(
        [sys.executable, "-m", "roofline_grading.autograde", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


@pytest.mark.grading
def test_the_command_line_says_what_is_missing(tmp_path: Path) -> None:
    done = run_cli("roofline", "--course", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip().startswith("autograde: no gradebook at")
    assert "make exercises" in done.stderr and "Traceback" not in done.stderr
    done = run_cli("roofline", "--jobs", "two")
    assert done.returncode == 2 and "should be a whole number, not 'two'" in done.stderr
    done = run_cli("roofline", "--memory-gb", "0")
    assert done.returncode == 2 and "should be from 0.25 to 1024, not 0" in done.stderr
    done = run_cli("roofline", "--processes", "8")  # the kernel alone needs about 15
    assert done.returncode == 2 and "should be from 32 to 100000, not 8" in done.stderr
    done = run_cli("roofline", "--timeout", "0")
    assert done.returncode == 2 and "should be from 1 to" in done.stderr


@pytest.mark.grading
def test_without_bubblewrap_grading_is_refused_unless_told_and_says_what_that_risks(tmp_path: Path) -> None:
    done = run_cli("roofline", "--course", str(tmp_path), path=str(Path(sys.executable).parent))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "bubblewrap (bwrap) is not installed" in done.stderr
    assert "--sandbox off" in done.stderr and "can read and change your files" in done.stderr
    done = run_cli(
        "roofline", "--course", str(tmp_path), "--sandbox", "off", path=str(Path(sys.executable).parent)
    )
    assert done.returncode == 2 and "no gradebook at" in done.stderr  # past the sandbox check
