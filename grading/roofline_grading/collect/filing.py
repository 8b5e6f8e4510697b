"""File collected notebooks under ``submitted/<student>/<assignment>/`` without losing earlier ones.

A newly collected notebook replaces only the student's file of the same name; every other file
collected before stays (``nbgrader zip_collect --force`` would empty the student's folder first,
so a late zip holding one notebook would delete the others). Each file is written beside its
target and renamed over it, so a notebook is never left half-written.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp()) / "carol" / "a"
>>> folder.mkdir(parents=True)
>>> _ = (folder / "ex1.ipynb").write_text("earlier")
>>> file_notebook(folder, "ex4.ipynb", b"new"), file_notebook(folder, "ex4.ipynb", b"new")
('collected', 'unchanged')
>>> describe({"ex4.ipynb": "collected"}, kept_files(folder, {"ex4.ipynb"}))
'ex4.ipynb collected; 1 file kept from before'
"""

from __future__ import annotations

from pathlib import Path

from roofline_grading.collect.submission_times import TIMESTAMP

__all__ = ["describe", "file_notebook", "kept_files"]

STATUSES = ("collected", "replaced", "unchanged")
"""What filing a notebook did: it is new, it replaced another file, or the same bytes were there."""


def file_notebook(folder: Path, notebook: str, data: bytes) -> str:
    """Write ``data`` as ``folder/notebook``; say which of :data:`STATUSES` happened."""
    target = folder / notebook
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_file() and not target.is_symlink():
        if target.stat().st_size == len(data) and target.read_bytes() == data:
            return "unchanged"
        status = "replaced"
    else:
        status = "replaced" if target.is_symlink() or target.exists() else "collected"
    partial = target.with_name(f".{target.name}.collecting")
    partial.write_bytes(data)
    partial.replace(target)
    return status


def kept_files(folder: Path, taken: set[str]) -> list[str]:
    """The files in ``folder`` collected before and not replaced now (not ``timestamp.txt``)."""
    if not folder.is_dir():
        return []
    return sorted(
        relative
        for path in folder.rglob("*")
        if (path.is_file() or path.is_symlink())
        and (relative := path.relative_to(folder).as_posix()) not in taken
        and relative != TIMESTAMP
    )


def describe(statuses: dict[str, str], kept: list[str]) -> str:
    """What happened to a student's folder, in a few words.

    >>> describe({"b.ipynb": "replaced", "a.ipynb": "collected", "c.ipynb": "collected"}, [])
    'a.ipynb, c.ipynb collected; b.ipynb replaced'
    """
    clauses = []
    for status in STATUSES:
        names = sorted(name for name, done in statuses.items() if done == status)
        if names:
            clauses.append(f"{', '.join(names)} {status}")
    if kept:
        clauses.append(f"{len(kept)} file{'s' if len(kept) > 1 else ''} kept from before")
    return "; ".join(clauses)
