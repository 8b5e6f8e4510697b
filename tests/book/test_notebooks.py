"""Every chapter and every exercise solution runs cleanly, as the book build runs them.

The book's pages are executed once a run, by the book build (``make book``, the built_site
fixture), under the book's own per-cell timeout (_config.yml), where an error or anything
written to stderr fails the build. These tests read back what it executed
(_build/jupyter_execute): every page's notebook is there, newer than its source, with its
source's code cells, and no error or stderr output. The exercise solutions, which the book does not build,
are executed here with nbclient under the same timeout; an error, a cell over the timeout, or
anything written to stderr (warnings included) fails the test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient.exceptions import CellExecutionError, CellTimeoutError

from tests.support.book_site import ROOT, book_notebooks, cell_timeout, solution_notebooks
from tests.support.kernels import execute

NOTEBOOKS = book_notebooks() + solution_notebooks()


@pytest.fixture(scope="module", autouse=True)
def _matplotlib_font_cache() -> None:
    """matplotlib's one-off "building the font cache" notice would land on stderr."""
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], check=True)


def _read(path: Path) -> nbformat.NotebookNode:
    if path.suffix == ".md":
        return jupytext.read(path)
    return nbformat.read(path, as_version=4)


def _stderr(nb: nbformat.NotebookNode) -> list[str]:
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                found.append(f"cell {index}: {output.get('text', '')}")
            if output.get("output_type") == "error":
                found.append(f"cell {index}: {output.get('ename')}: {output.get('evalue')}")
    return found


def test_there_are_chapters_to_run() -> None:
    assert len([p for p in NOTEBOOKS if "chapters" in p.parts]) >= 10


@pytest.mark.book
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[str(p.relative_to(ROOT)) for p in NOTEBOOKS])
def test_notebook_runs_cleanly(path: Path, request: pytest.FixtureRequest) -> None:
    if path.is_relative_to(ROOT / "book"):
        nb = _executed_by_the_book_build(path, request.getfixturevalue("built_site"))
    else:
        nb = _executed_here(path)
    problems = _stderr(nb)
    assert not problems, f"{path.relative_to(ROOT)} wrote to stderr or failed:\n" + "\n".join(problems)


def _executed_by_the_book_build(path: Path, site: Path) -> nbformat.NotebookNode:
    """The page as the book build executed it: the notebook myst-nb wrote to _build/jupyter_execute."""
    executed = (site.parent / "jupyter_execute" / path.relative_to(ROOT)).with_suffix(".ipynb")
    assert executed.is_file(), f"make book did not execute {path.relative_to(ROOT)} (is it in _toc.yml?)"
    assert executed.stat().st_mtime >= path.stat().st_mtime, f"{executed} is older than its source"
    nb = nbformat.read(executed, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    source = [cell for cell in _read(path).cells if cell.cell_type == "code"]
    assert [cell.source for cell in code] == [cell.source for cell in source], f"{executed}: not its source"
    return nb


def _executed_here(path: Path) -> nbformat.NotebookNode:
    try:
        return execute(_read(path), cwd=path.parent, timeout=cell_timeout())
    except (CellExecutionError, CellTimeoutError) as error:
        pytest.fail(f"{path.relative_to(ROOT)} failed:\n{error}")
