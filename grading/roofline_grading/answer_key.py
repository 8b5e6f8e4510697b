"""The answer key of the graded exercises: each exercise's key, by its notebook's name, and each
question by its id.

Each exercise is a folder (:mod:`roofline_grading.exercises`), whose ``key.py`` holds its
questions: what is right, within which tolerance, what the known mistakes give, and the ways a
careful student may read each question (:class:`~roofline_grading.questions.Reading`). Every answer
is a function (of the sizes, or of the figures the exercise gives) or a figure, never a bare
number: a number printed in the book or the source earns nothing, because the hidden tests call the
student's function at the exercise's own figures *and* at others drawn from a secret seed. Every
model answer (a folder's ``answers.py``) and every known mistake is computed by ``rooflinekit``
under the stated (or mistaken) assumption, never typed in.

Tolerances, and why each is right (:mod:`roofline_grading.authoring`):

- ``COUNT`` (bytes, operations): relative 1e-9. Whole numbers, exact in float64 at the sizes
  tested; 1e-9 leaves room only for rounding when computed in floats.
- ``MODEL`` (intensities, times, FLOP/s, bandwidths): relative 1e-6. A few multiplications and
  divisions of the given figures in any order; never a different figure.
- ``TOKENS`` (critical batches, crossovers): 1 token either way. A batch is a whole number of
  tokens, so rounding down, up or keeping decimals are all right; every known mistake is further away.
- ``REPLICAS`` (a batch over many replicas): relative 1e-2, so each replica's batch may be rounded
  to a whole token (the batches are 100 tokens or more).
- ``TILE``, ``WIDTH`` (a tile's side, the width D of exercise 6): 1 row or element either way, for
  the same reason as ``TOKENS``.

>>> question("ex5.critical_batch").reference(1.979e15, 3.35e12) > 295
True
>>> [m.misconception.name for m in question("ex1.critical_batch").mistakes]
['int8-two-bytes', 'no-factor-two', 'bf16-peak-for-int8', 'text-bandwidth']
"""

from __future__ import annotations

from roofline_grading.authoring import (
    COUNT,
    MODEL,
    REPLICAS,
    TILE,
    TOKENS,
    WIDTH,
    WORD,
    Exercise,
)
from roofline_grading.exercises import folder_exercises
from roofline_grading.questions import Question

__all__ = [
    "COUNT",
    "EXERCISES",
    "MODEL",
    "REPLICAS",
    "TILE",
    "TOKENS",
    "WIDTH",
    "WORD",
    "Exercise",
    "number",
    "question",
]


def number(notebook: str) -> int:
    """The exercise's number, from its notebook's prefix: ``number("ex10_tiles") == 10``."""
    return int(notebook.split("_")[0].removeprefix("ex"))


def _numbered(exercise: Exercise) -> int:
    return number(exercise.notebook)


EXERCISES: dict[str, Exercise] = {
    e.notebook: e for e in sorted(folder_exercises(), key=_numbered)
}
"""Each graded notebook's file name (without ``.ipynb``) and its answer key."""


def question(qid: str) -> Question:
    """The question with id ``qid``, e.g. ``"ex1.bytes_read"`` (the id a hidden test records)."""
    prefix, _, _name = qid.partition(".")
    for notebook, exercise in EXERCISES.items():
        if notebook.split("_")[0] == prefix:
            for q in exercise.questions:
                if q.id == qid:
                    return q
    raise KeyError(f"no question {qid!r} in the answer key")
