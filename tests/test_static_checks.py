"""The package type-checks under mypy --strict and passes ruff, as CI enforces."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_mypy_strict() -> None:
    done = run(str(BIN / "mypy"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff() -> None:
    done = run(str(BIN / "ruff"), "check", "rooflinekit", "grading", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr
