"""The library stands apart from the grading machinery: it never loads it, nor imports it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_rooflinekit_never_loads_the_grading_machinery() -> None:
    heavy = ("nbgrader", "roofline_grading", "roofline_recorder", "IPython")
    probe = (
        f"import rooflinekit.exercises, sys; print(sorted(m for m in sys.modules if m.startswith({heavy})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    for path in (ROOT / "rooflinekit").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.split(".")[0] in heavy for n in names), f"{path} imports {names}"
