"""Every function of the repository's code reads on one screen: at most 60 lines, docstring included.

The rule the README's house sections state, checked by `make lint` over every package: the
library, the grading package, the book's Sphinx extension, the tools and the benchmarks (tests
aside: a test reads as a story, however long).

    python tools/function_length.py [PATH ...]      # default: the repository's code

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "short.py").write_text("def f():\\n    return 1\\n")
>>> too_long(folder)
[]
>>> _ = (folder / "long.py").write_text("def g():\\n" + "    x = 1\\n" * 70)
>>> [str(t).split("/")[-1] for t in too_long(folder)]
['long.py:1 g (71 lines)']
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

LONGEST = 60
"""Lines a function may take, its signature and docstring included."""
ROOT = Path(__file__).resolve().parents[1]
CODE = ("rooflinekit", "grading", "book/_ext", "tools", "benchmarks", "hub")
"""Where the repository's code is (its tests aside)."""


@dataclass(frozen=True)
class TooLong:
    """A function over the limit: where it starts, its name and its length."""

    path: Path
    line: int
    name: str
    lines: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.name} ({self.lines} lines)"


def too_long(*roots: Path, longest: int = LONGEST) -> list[TooLong]:
    """Every function under ``roots`` (files or folders) longer than ``longest`` lines."""
    found = []
    for root in roots:
        paths = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for path in paths:
            if "__pycache__" in path.parts or "node_modules" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length > longest:
                        found.append(TooLong(path, node.lineno, node.name, length))
    return found


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [ROOT / part for part in CODE]
    found = too_long(*roots)
    for item in found:
        print(f"{item}: over {LONGEST} lines; split it by job", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
