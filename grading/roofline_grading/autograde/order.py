"""The order students are handed to the workers: the largest submissions first.

A student costs a worker one sandboxed kernel per notebook submitted (most of a notebook's
cost: the kernel starting and importing numpy and matplotlib) and a little more for answers
that run than for cells left as released. Handed out in name order, a class whose long
submissions sort last (``model*`` after ``blank*``) leaves one worker grading a long student
while the others have nothing left; handed out largest first, what is left at the end is the
shortest work, and the workers finish together. The estimate reads only the sizes of the
files (no notebook is parsed): the notebooks submitted, then their bytes; equal estimates keep
the order they were given in, so a run's order depends on the submissions alone.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> for student, notebooks in {"ann": {"ex1": 10}, "bob": {"ex1": 10, "ex2": 5}, "cy": {"ex1": 90}}.items():
...     (root / student).mkdir()
...     for name, size in notebooks.items():
...         _ = (root / student / f"{name}.ipynb").write_text("x" * size)
>>> longest_first(["ann", "bob", "cy"], lambda s: root / s, ["ex1", "ex2"])
['bob', 'cy', 'ann']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["longest_first"]


def longest_first(
    students: Sequence[str], folder_of: Callable[[str], Path], notebooks: Sequence[str]
) -> list[str]:
    """``students``, the largest submission first (see the module's docstring); ``folder_of``:
    a student's submitted folder; ``notebooks``: the names of the notebooks graded."""
    return sorted(students, key=lambda student: _estimate(folder_of(student), notebooks), reverse=True)


def _estimate(folder: Path, notebooks: Sequence[str]) -> tuple[int, int]:
    """How much grading a submission costs, as it can be told from its files' sizes: how many of
    the notebooks are there, and their bytes (a link or a special file counts as absent)."""
    count = size = 0
    for name in notebooks:
        path = folder / f"{name}.ipynb"
        if path.is_file() and not path.is_symlink():
            count += 1
            size += path.stat().st_size
    return count, size
