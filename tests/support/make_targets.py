"""Run the Makefile's instructor targets on a temporary course, as the grading tests do.

Shared by the tests that drive a whole grading round (`test_grading_round.py`) and the hardened
autograder (`test_autograde_hardening.py`), so both call `make` exactly as an instructor would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support import keyring

ROOT = Path(__file__).resolve().parents[2]


def command(*targets: str, course: Path | None = None, **variables: str) -> list[str]:
    """The ``make`` command line for ``targets`` on ``course`` (see :func:`make`; without a course,
    the Makefile's default, this checkout)."""
    course_setting = {"COURSE": str(course)} if course is not None else {}
    settings = [f"{name}={value}" for name, value in {**course_setting, **variables}.items()]
    return [
        "make",
        "-s",
        "-C",
        str(ROOT),
        "-o",
        ".venv/.installed",
        f"BIN={Path(sys.executable).parent}",
        *settings,
        *targets,
    ]


def make(
    *targets: str,
    course: Path,
    environment: dict[str, str] | None = None,
    keys: dict[str, str] | None = None,
    **variables: str,
) -> subprocess.CompletedProcess[str]:
    """Run ``make targets`` on ``course`` with this interpreter's environment (its nbgrader), plus
    ``environment`` (variables an instructor's shell might hold); with ``keys``, in a session
    keyring of its own holding them (as an instructor's login or a service holds secrets,
    :mod:`tests.support.keyring`).

    ``-o .venv/.installed`` keeps make from reinstalling the environment the tests already run in.
    """
    argv = command(*targets, course=course, **variables)
    done = subprocess.run(
        keyring.wrapped(argv, keys) if keys else argv,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env={**os.environ, **(environment or {})},
    )
    assert done.returncode == 0, f"make {' '.join(targets)} failed:\n{done.stdout}\n{done.stderr}"
    return done
