"""The translated releases of one exercise: in each language of ``rooflinekit.languages``, there,
up to date, or the messages it lacks.

The course's own tool says so (``tools/exercise_translations.py build --check --language L``: a
stale notebook by name, a notebook not released by the messages it lacks), and
``tools/translations.py check`` says which pages are not translated; the lines about this
exercise are kept, each naming its language.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from rooflinekit.languages import TRANSLATED

__all__ = ["gaps"]


def _tool(course: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *arguments], cwd=course, capture_output=True, text=True, check=False, timeout=600
    )


def _release_gaps(notebook: str, course: Path, tool: Path, code: str) -> Iterator[str]:
    """A line for each gap of ``notebook``'s release in the language ``code``."""
    name = f"the {code} release"
    built = _tool(course, str(tool), "build", "--check", "--language", code, "--course", str(course))
    lines = built.stdout.splitlines()
    for number, line in enumerate(lines):
        if line.startswith(f"{notebook}:") or f"/{notebook}.ipynb" in line:
            yield f"{name}: {line}"
            listed = itertools.takewhile(lambda text: text.startswith("  "), lines[number + 1 :])
            yield from (f"{name} lacks: {text.strip()}" for text in listed)


def gaps(notebook: str, course: Path, languages: Sequence[str] = TRANSLATED) -> Iterator[str]:
    """A line for each gap of ``notebook``'s release in each of ``languages`` (every translated one)."""
    tool = course / "tools" / "exercise_translations.py"
    if not tool.is_file():
        yield f"the translated releases: no {tool} to build them with"
        return
    for code in languages:
        yield from _release_gaps(notebook, course, tool, code)
    pages = _tool(course, str(course / "tools" / "translations.py"), "check")
    for line in pages.stdout.splitlines():
        if notebook in line:
            yield f"the translated page: {line.strip()}"
