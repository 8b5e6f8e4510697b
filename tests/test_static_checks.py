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


LONGEST_FUNCTION = 60


def test_functions_stay_short_enough_to_read() -> None:
    """No function of the library, docstring included, runs past about 60 lines."""
    import ast

    long = []
    for path in sorted((ROOT / "rooflinekit").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LONGEST_FUNCTION:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    assert not long, long
