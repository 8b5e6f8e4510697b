"""The public edition holds none of an exercise's answers.

The files are the ones ``tools/public_edition.py`` writes (its list of public paths, as git tracks
them here, built in memory by the tool, which refuses any file naming the answer key, the model
answers or the exercise folders' package); none may hold a line of the exercise's solution
regions or hidden tests (a line long enough to be the exercise's own).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import nbformat

from roofline_grading.cells import HIDDEN_TESTS

__all__ = ["leaks", "secret_lines"]

SOLUTION = re.compile(
    r"^[ \t]*### BEGIN SOLUTION[^\n]*\n(.*?)^[ \t]*### END SOLUTION", re.DOTALL | re.MULTILINE
)
SHORTEST = 30
"""Characters a line needs to count as the exercise's own (shorter ones, ``return a / b``, are anyone's)."""


def secret_lines(solution: Path) -> set[str]:
    """The lines of the instructor's notebook that no student sees, one space between words."""
    found: set[str] = set()
    for cell in nbformat.read(solution, as_version=4).cells:
        for region in (*SOLUTION.findall(cell.source), *HIDDEN_TESTS.findall(cell.source)):
            for line in region.splitlines():
                code = " ".join(line.split("#", 1)[0].split())
                if len(code) >= SHORTEST:
                    found.add(code)
    return found


def _edition_tool(course: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("public_edition", course / "tools" / "public_edition.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _public_texts(course: Path) -> tuple[dict[str, str], list[str]]:
    """The public edition's texts as the tool builds them in memory, or why it refuses to."""
    tool = _edition_tool(course)
    try:
        files = tool.build(course).files
    except tool.EditionError as error:
        return {}, [line.strip() for line in str(error).splitlines()[1:] if line.startswith("  ")]
    return {name: data.decode("utf-8", errors="ignore") for name, data in files.items()}, []


def leaks(notebook: str, course: Path) -> Iterator[str]:
    """A line for each public file that holds a line of ``notebook``'s answers."""
    solution = course / "solutions" / "roofline" / f"{notebook}.ipynb"
    if not (course / "tools" / "public_edition.py").is_file() or not solution.is_file():
        return
    secrets = secret_lines(solution)
    texts, refused = _public_texts(course)
    yield from (f"the public edition would hold: {line}" for line in refused)
    for name, text in sorted(texts.items()):
        flat = " ".join(text.split())
        for line in sorted(secrets):
            if line in flat:
                yield f"the public edition: {name} holds a line of its answers: {line[:80]}"
                break
