"""The 60-line rule's tool (tools/function_length.py) catches a function too long.

ruff, mypy --strict, import-linter and the 60-line rule itself run on the repository in
`make lint` (`.ci/run` runs it before `make test`), not here; the contracts' own tests are
tests/house/test_layers.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_the_length_check_names_a_function_too_long(tmp_path: Path) -> None:
    (tmp_path / "module.py").write_text("def fine():\n    pass\n\n\ndef sprawling():\n" + "    x = 1\n" * 61)
    done = run(sys.executable, str(ROOT / "tools" / "function_length.py"), str(tmp_path))
    assert done.returncode == 1
    said = f"{tmp_path / 'module.py'}:5 sprawling (62 lines): over 60 lines; split it by job"
    assert done.stderr.strip() == said
