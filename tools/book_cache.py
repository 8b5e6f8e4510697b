"""Throw away the book's execution cache when the code the chapters import changes.

jupyter-cache keys a notebook's outputs on its code cells only, and Sphinx re-reads a page
only when its source changes. After an edit to ``rooflinekit`` (or to the pinned
environment) the chapters would keep showing numbers from the old code. ``make book`` runs
this first (through tools/build_book.py): it hashes the package and requirements.lock, and
when the hash differs from the last build's (or there is no record of it) it deletes
``_build/.jupyter_cache`` and the saved Sphinx environments (``_build/.doctrees*``) so every
chapter is read and run again.

    python tools/book_cache.py     # prints what it did
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

from rooflinekit.languages import TRANSLATED

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
STAMP = BUILD / ".rooflinekit.sha256"
INPUTS = ("rooflinekit", "requirements.lock", "pyproject.toml", *(
    f"locale/{language}/LC_MESSAGES/{catalog}.po" for language in TRANSLATED
    for catalog in ("computed", "explorer-labels")))
"""What the chapters' outputs depend on beyond their code: the package, the environment, and the
catalogs their figures are also drawn in (rooflinekit.figure_languages), in each language."""
STALE = (BUILD / ".jupyter_cache", BUILD / ".doctrees",
         *(BUILD / f".doctrees-html-{language}" for language in TRANSLATED))


def fingerprint(root: Path = ROOT) -> str:
    """SHA-256 over the paths and contents of everything the chapters' outputs depend on."""
    digest = hashlib.sha256()
    for name in INPUTS:
        base = root / name
        files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [base]
        files = [p for p in files if p.is_file()]  # a catalog a copy of the course lacks counts as absent
        for path in files:
            if "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def refresh() -> list[Path]:
    """Remove the stale caches if the fingerprint changed; returns what was removed."""
    current = fingerprint()
    previous = STAMP.read_text().strip() if STAMP.exists() else None
    if previous == current:
        return []
    removed = [p for p in STALE if p.exists()]
    for path in removed:
        shutil.rmtree(path)
    BUILD.mkdir(exist_ok=True)
    STAMP.write_text(current + "\n")
    if removed:
        names = ", ".join(p.name for p in removed)
        print(f"book_cache: rooflinekit or the environment changed (or no record); removed {names}")
    return removed


def main() -> int:
    refresh()
    return 0


if __name__ == "__main__":
    sys.exit(main())
