"""The Korean release of one exercise: there, up to date, or the messages it lacks.

The course's own tool says so (``tools/exercise_translations.py build --check``: a stale notebook
by name, a missing translation by its English text), and ``tools/translations.py check`` says which
pages are not translated; the lines about this exercise are kept.
"""

from __future__ import annotations

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
    if not (course / "exercises" / "ko" / "roofline" / f"{notebook}.ipynb").is_file():
        yield "the Korean release: not released (translate its page, then make exercises)"
    built = _tool(course, str(tool), "build", "--check", "--language", "ko", "--course", str(course))
    lines = built.stdout.splitlines()
    missing = [line for line in lines if not line.startswith("ex") and not line.startswith("Translate")]
    for line in lines:
        if line.startswith(f"{notebook}:") or line.startswith(f"ko/roofline/{notebook}"):
            yield f"the Korean release: {line}"
    if built.returncode and missing and any(notebook in line for line in lines):
        yield from (f"the Korean release lacks: {line.strip()}" for line in missing if line.strip())
    pages = _tool(course, str(course / "tools" / "translations.py"), "check")
    for line in pages.stdout.splitlines():
        if notebook in line:
            yield f"the Korean page: {line.strip()}"
