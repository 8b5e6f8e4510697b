"""The graded exercises that live in a folder of their own, registered one line each in :data:`FOLDERS`.

A folder (PrairieLearn's question folder, for this course) holds everything that is its exercise:

- ``statement.ipynb``: the statement with its model answers, which ``make exercises`` releases (the
  setup, known-mistakes and every-check cells are written by ``make exercises``, never typed);
- ``given.py``: the figures, shapes and chips the statement gives (no answer);
- ``answers.py``: the model answers, one function per graded part, named like the part;
- ``key.py``: ``exercise()``, the answer key: each part's question (answer, tolerance, public and
  random cases, known mistakes, readings) and the misconceptions the exercise exists to catch.

To write an exercise, copy a folder to a new name (``exN_topic``), change it, add its name to
:data:`FOLDERS` and check it: ``roofline-grading check exN_topic`` (book/instructor-guide.md,
"Write your own exercise").

>>> "ex9_memory_hierarchy" in FOLDERS, (folder("ex9_memory_hierarchy") / "statement.ipynb").is_file()
(True, True)
>>> [e.notebook for e in folder_exercises()] == list(FOLDERS)
True
"""

from __future__ import annotations

import functools
import importlib
from pathlib import Path

from roofline_grading.authoring import Exercise

__all__ = ["FOLDERS", "STATEMENT", "folder", "folder_exercises"]

FOLDERS: tuple[str, ...] = (
    "ex1_int8_matmul",
    "ex2_int8_weights",
    "ex3_roofline_plot",
    "ex4_batched_matmul",
    "ex5_h100_threshold",
    "ex6_ring_threshold",
    "ex7_serving_decisions",
    "ex8_measured_kernel",
    "ex9_memory_hierarchy",
    "ex10_speculative",
)
"""The exercise folders, in the order of the assignment: a new exercise is one more line."""
STATEMENT = "statement.ipynb"
"""The name of each folder's statement (the instructor's notebook, with its model answers)."""


def folder(name: str) -> Path:
    """The folder of exercise ``name`` (one of :data:`FOLDERS`)."""
    return Path(__file__).resolve().parent / name


@functools.cache
def folder_exercises() -> tuple[Exercise, ...]:
    """Each folder's answer key (its ``key.exercise()``), in the order of :data:`FOLDERS`."""
    keys = (importlib.import_module(f"{__name__}.{name}.key") for name in FOLDERS)
    exercises = tuple(module.exercise() for module in keys)
    for name, exercise in zip(FOLDERS, exercises, strict=True):
        if exercise.notebook != name:
            raise ValueError(f"the key in {name}/ is for {exercise.notebook!r}: name it {name!r}")
    return exercises
