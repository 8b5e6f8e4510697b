"""What the book consists of, read from _config.yml, _toc.yml and the files (no build needed).

The book's tests use it to list the pages to open and the notebooks to execute, so a new
chapter or exercise is tested without editing a test.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

import yaml
from roofline_book.exercises import find_exercises  # book/_ext: pyproject.toml's pytest pythonpath

ROOT = Path(__file__).resolve().parents[2]

SOLUTION_MARKERS = (
    "BEGIN SOLUTION",
    "END SOLUTION",
    "BEGIN HIDDEN TESTS",
    "END HIDDEN TESTS",
)
"""nbgrader's delimiters of instructor-only code: none may appear on the site."""


def config() -> dict[str, Any]:
    """_config.yml as a dict."""
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "_config.yml").read_text())
    return loaded


def cell_timeout() -> int:
    """The per-cell execution timeout the book is built with (seconds)."""
    return int(config()["execute"]["timeout"])


def _entries(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if "file" in node or "glob" in node:
            found.append(node)
        for value in node.values():
            found.extend(_entries(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_entries(item))
    return found


def toc_docnames(root: Path = ROOT) -> list[str]:
    """Every document of the book, in toc order, with globs expanded against the files."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    names = [toc["root"]]
    candidates = [ex.docname for ex in find_exercises(root)]
    for entry in _entries(toc.get("parts", toc.get("chapters", []))):
        if "file" in entry:
            names.append(str(Path(entry["file"]).with_suffix("")))
        else:
            names.extend(sorted(d for d in candidates if fnmatch.fnmatch(d, entry["glob"])))
    return names


def pages_using(site: Path, term: str) -> list[str]:
    """The pages of a built edition (``site``: _build/html or _build/html/ko) whose article has ``term``."""

    def article(docname: str) -> str:
        page = (site / f"{docname}.html").read_text(encoding="utf-8")
        return page.split("<article", 1)[-1].split("</article>")[0]

    return [docname for docname in toc_docnames() if term in article(docname)]


def source_of(docname: str) -> Path:
    """The source file of a document (.md or .ipynb)."""
    for suffix in (".md", ".ipynb"):
        path = ROOT / f"{docname}{suffix}"
        if path.exists():
            return path
    raise FileNotFoundError(docname)


def is_text_notebook(path: Path) -> bool:
    """A MyST Markdown file with a jupytext/kernelspec header: executed as a notebook."""
    if path.suffix != ".md":
        return False
    head = path.read_text(encoding="utf-8").split("\n---", 1)[0]
    return path.read_text(encoding="utf-8").startswith("---") and "kernelspec:" in head


def book_notebooks() -> list[Path]:
    """Every MyST notebook under book/ (chapters and the book's own pages)."""
    return sorted(p for p in (ROOT / "book").rglob("*.md") if is_text_notebook(p))


def solution_notebooks() -> list[Path]:
    """Every instructor notebook under solutions/ (none before the exercises land)."""
    base = ROOT / "solutions"
    return sorted(p for p in base.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
