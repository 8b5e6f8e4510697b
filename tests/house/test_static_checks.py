"""The repository's house rules that are not imports: functions that read on one screen.

ruff, mypy --strict and import-linter run in `make lint` (`.ci/run` runs it before `make test`),
not here: the contracts' own tests are tests/house/test_layers.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_every_function_of_the_repository_reads_on_one_screen() -> None:
    """No function of the library, the grading package, the book's extension, the tools or the
    benchmarks runs past 60 lines (`make lint` checks it with tools/function_length.py)."""
    import function_length  # tools/function_length.py

    assert function_length.too_long(*(ROOT / part for part in function_length.CODE)) == []


def test_the_length_check_names_a_function_too_long(tmp_path: Path) -> None:
    (tmp_path / "module.py").write_text("def fine():\n    pass\n\n\ndef sprawling():\n" + "    x = 1\n" * 61)
    done = run(sys.executable, str(ROOT / "tools" / "function_length.py"), str(tmp_path))
    assert done.returncode == 1
    said = f"{tmp_path / 'module.py'}:5 sprawling (62 lines): over 60 lines; split it by job"
    assert done.stderr.strip() == said
