"""The figures an exercise's statement quotes, against those its ``given.py`` gives, in every language.

Two looks at the released statement's Markdown, in each of the course's languages:

- each figure the key says the statement gives (``Exercise.given``) is quoted somewhere;
- each figure the statement quotes with a unit of rate or size (``989 TFLOP/s``, ``3.35 TB/s``,
  ``80 GB``, ``128 MiB``) or in scientific notation (``8.1e11``) is one ``given.py`` holds (its
  numbers, its chips' figures included) or one a known mistake names (the text's bandwidth that
  exercise 1 warns of). A unit spelt out (``1 TB``, ``1e12`` bytes) is no figure.

A quote is read with its unit's prefix (``989 TFLOP/s`` is 9.89e14, ``80 GB`` 8e10, ``128 MiB``
2**27, ``1,024`` 1024) and agrees with a figure to the digits it shows (``1.342e8`` quotes
134217728). Each disagreement is one line, naming the nearest figure on the other side.

>>> [(q.text, f"{q.values[-1]:g}") for q in quotes("3.35 TB/s, 989 TFLOP/s, 1,024 tokens, 80 GB")]
[('3.35 TB/s', '3.35e+12'), ('989 TFLOP/s', '9.89e+14'), ('1,024', '1024'), ('80 GB', '8e+10')]
>>> [q.agrees(1.34217728e8) for q in quotes("about 1.342e8 bytes, not 1.35e8")]
[True, False]
>>> for line in mismatches((3.35e12, 8), {3.35e12, 8.0}, "8 GPUs read 3.53 TB/s, 1 TB/s is 1e12 B/s.", "en"):
...     print(line)
the en statement quotes 3.35e12 (given.py) nowhere; the nearest figure it quotes is 3.53 TB/s
the en statement quotes 3.53 TB/s, which given.py does not give (nearest: 3.35e12)
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import numpy as np

from roofline_grading.authoring import Exercise
from roofline_grading.questions import FunctionQuestion

__all__ = ["Quote", "known_figures", "mismatches", "problems", "quotes"]

PREFIXES: dict[str, float] = {
    "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
    "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40,
}
"""What a unit's prefix multiplies by (decimal, and binary with an ``i``)."""
QUOTE = re.compile(
    r"(?<![\w.,])(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.(?P<decimals>\d+))?(?:[eE](?P<exponent>[+-]?\d+))?)"
    r"(?:\s?(?P<prefix>[kKMGTP]i?)(?=B|b|FLOP|OP|bit))?(?P<unit>B/s|b/s|B\b|FLOP/s|FLOPS|OP/s|bytes?\b)?"
)
"""A number as a statement writes it, with the prefix and unit that may follow it."""
RATES = ("B/s", "b/s", "FLOP/s", "FLOPS", "OP/s")


@dataclass(frozen=True)
class Quote:
    """A number a statement quotes: its text, the values it may stand for (as written, and
    multiplied by its unit's prefix), and whether it is a figure of rate or size."""

    text: str
    values: tuple[float, ...]
    half_digit: float
    """Half the last digit the quote shows, as a share of the number written."""
    figure: bool = False

    def agrees(self, figure: float) -> bool:
        """Whether the quote states ``figure`` to the digits it shows."""
        return any(figure == v or math.isclose(figure, v, rel_tol=self.half_digit) for v in self.values)


def _quote(match: re.Match[str]) -> Quote:
    written = float(match["number"].replace(",", ""))
    exponent = int(match["exponent"] or 0)
    half_digit = 0.5 * 10.0 ** (exponent - len(match["decimals"] or "")) / written if written else 0.0
    scale = PREFIXES.get(match["prefix"] or "", 1.0)
    values = (written,) if scale == 1.0 else (written, written * scale)
    mantissa = written / 10.0**exponent
    figure = (match["unit"] in RATES or match["prefix"] is not None or exponent > 0) and mantissa != 1
    return Quote(match.group(0).strip(), values, half_digit * (1 + 1e-9), figure)


def quotes(text: str) -> list[Quote]:
    """Every number ``text`` quotes, with its unit's prefix applied."""
    return [_quote(m) for m in QUOTE.finditer(text)]


def _ratio(a: float, b: float) -> float:
    return abs(math.log(a / b)) if a > 0 and b > 0 else math.inf


def _written(figure: float) -> str:
    return format(figure, ".10g").replace("e+", "e")


def _nearest_quote(figure: float, quoted: Sequence[Quote]) -> str:
    near = min(quoted, key=lambda q: min(_ratio(v, figure) for v in q.values), default=None)
    if near is None or min(_ratio(v, figure) for v in near.values) > math.log(2):
        return ""
    return f"; the nearest figure it quotes is {near.text}"


def mismatches(given: Sequence[float], known: Iterable[float], text: str, language: str) -> Iterator[str]:
    """A line for each figure of ``given`` that ``text`` (a statement in ``language``) quotes
    nowhere, and for each figure it quotes that is none of ``known``."""
    quoted, known = quotes(text), sorted(set(known))
    said = f"the {language} statement quotes"
    for figure in dict.fromkeys(float(g) for g in given):
        if not any(q.agrees(figure) for q in quoted):
            yield f"{said} {_written(figure)} (given.py) nowhere{_nearest_quote(figure, quoted)}"
    for quote in dict.fromkeys(q for q in quoted if q.figure):
        if not any(quote.agrees(k) for k in known):
            near = min(known, key=lambda k: _ratio(quote.values[-1], k), default=None)
            hint = f" (nearest: {_written(near)})" if near is not None else ""
            yield f"{said} {quote.text}, which given.py does not give{hint}"


def _numbers(value: Any, depth: int = 0) -> Iterator[float]:
    """Every number in ``value``: in its tuples, mappings, arrays and dataclasses' fields (a chip's)."""
    if depth > 4 or isinstance(value, (bool, str, type)):
        return
    if isinstance(value, (int, float, np.number)):
        yield float(value)
    elif isinstance(value, np.ndarray) and value.size <= 4096:
        yield from (float(v) for v in value.ravel())
    elif isinstance(value, Mapping):
        yield from (n for v in value.values() for n in _numbers(v, depth + 1))
    elif isinstance(value, (tuple, list)):
        yield from (n for v in value for n in _numbers(v, depth + 1))
    elif dataclasses.is_dataclass(value):
        yield from (n for f in dataclasses.fields(value) for n in _numbers(getattr(value, f.name), depth + 1))


def known_figures(exercise: Exercise) -> set[float]:
    """The figures a statement may quote: its key's given figures, every number of its folder's
    ``given.py``, and the figures its known mistakes' messages name."""
    given = importlib.import_module(f"roofline_grading.exercises.{exercise.notebook}.given")
    known = set(_numbers(exercise.given)) | set(_numbers([v for k, v in vars(given).items() if k.isupper()]))
    for question in exercise.questions:
        for mistake in question.mistakes if isinstance(question, FunctionQuestion) else ():
            known |= {v for _, text in mistake.misconception.values for q in quotes(text) for v in q.values}
    return known


def _markdown(path: Path) -> str:
    cells = nbformat.read(path, as_version=4).cells
    return "\n".join(c.source for c in cells if c.cell_type == "markdown")


def problems(exercise: Exercise, course: Path, languages: Sequence[str]) -> Iterator[str]:
    """A line for each disagreement between ``exercise``'s released statement, in each of
    ``languages``, and its figures (a statement not released is the release check's line)."""
    known = known_figures(exercise)
    for language in languages:
        folder = course / "exercises" / ("" if language == "en" else language) / "roofline"
        path = folder / f"{exercise.notebook}.ipynb"
        if path.is_file():
            yield from mismatches(exercise.given, known, _markdown(path), language)
