"""Every chapter and every exercise solution runs cleanly, as the book build runs them.

Each notebook is executed with nbclient under the book's own per-cell timeout (read from
_config.yml); an error, a cell over the timeout, or anything written to stderr (warnings
included) fails the test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

from tests.support.book_site import ROOT, book_notebooks, cell_timeout, solution_notebooks

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
def test_notebook_runs_cleanly(path: Path) -> None:
    nb = _read(path)
    client = NotebookClient(
        nb,
        timeout=cell_timeout(),
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError) as error:
        pytest.fail(f"{path.relative_to(ROOT)} failed:\n{error}")
    problems = _stderr(nb)
    assert not problems, f"{path.relative_to(ROOT)} wrote to stderr or failed:\n" + "\n".join(problems)
