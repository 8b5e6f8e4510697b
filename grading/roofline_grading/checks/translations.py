"""The Korean release of one exercise: there, up to date, or the messages it lacks.

The course's own tool says so (``tools/exercise_translations.py build --check``: a stale notebook
by name, a missing translation by its English text), and ``tools/translations.py check`` says which
pages are not translated; the lines about this exercise are kept.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

__all__ = ["gaps"]


def _tool(course: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *arguments], cwd=course, capture_output=True, text=True, check=False, timeout=600
    )


def gaps(notebook: str, course: Path) -> Iterator[str]:
    """A line for each gap of ``notebook``'s Korean release."""
    tool = course / "tools" / "exercise_translations.py"
    if not tool.is_file():
        yield f"the Korean release: no {tool} to build it with"
        return
    built = _tool(course, str(tool), "build", "--check", "--language", "ko", "--course", str(course))
    lines = built.stdout.splitlines()
    for number, line in enumerate(lines):
        if line.startswith(f"{notebook}:") or f"/{notebook}.ipynb" in line:
            yield f"the Korean release: {line}"
            listed = itertools.takewhile(lambda text: text.startswith("  "), lines[number + 1 :])
            yield from (f"the Korean release lacks: {text.strip()}" for text in listed)
    pages = _tool(course, str(course / "tools" / "translations.py"), "check")
    for line in pages.stdout.splitlines():
        if notebook in line:
            yield f"the Korean page: {line.strip()}"
