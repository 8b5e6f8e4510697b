"""The instructor's guide's tables, made from the answer key and the release: never typed.

Three tables (book/instructor-guide.md shows them with the book's directive ``{answer-key-table}``,
book/_ext/roofline_book/guide_tables.py), each a header and rows of cells in the page's language:

- ``points``: each released notebook, its title (its first heading) and its points, and the total;
- ``tolerances``: each tolerance the key uses, the parts that use it, and why it is right;
- ``misconceptions``: each known mistake by exercise, in the words its feedback gives, its name,
  and the parts whose feedback names it.

A cell is its text and whether it is code (a notebook's or a part's name, shown as such).

>>> header, rows = table("tolerances", Path("."), "en")
>>> header
('tolerance', 'parts', 'why')
>>> rows[0][0], rows[0][2]
(('relative 1e-9', False), ('whole numbers, exact in float64; room only for float rounding', False))
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from roofline_grading.answer_key import EXERCISES, number
from roofline_grading.authoring import UNITS
from roofline_grading.i18n import translator
from roofline_grading.questions import FunctionQuestion, Misconception, Question, Tolerance
from rooflinekit.fmt import num
from rooflinekit.words import N_

__all__ = ["KINDS", "Cell", "sources", "table"]

Cell = tuple[str, bool]
Table = tuple[tuple[str, ...], list[tuple[Cell, ...]]]
HEADERS = {
    "points": (N_("notebook"), N_("exercise"), N_("points")),
    "tolerances": (N_("tolerance"), N_("parts"), N_("why")),
    "misconceptions": (N_("exercise"), N_("what the feedback says (its name in the key)"), N_("parts")),
}
TOTAL = N_("total")
_HEADING = re.compile(r"^#\s+(?:[^:]*:\s*)?(.+?)\s*$", re.MULTILINE)


def _release(root: Path, language: str) -> Path:
    return root / "exercises" / ("" if language == "en" else language) / "roofline"


def _points(root: Path, language: str) -> list[tuple[Cell, ...]]:
    rows: list[tuple[Cell, ...]] = []
    total = 0.0
    for name in EXERCISES:
        path = _release(root, language) / f"{name}.ipynb"
        if not path.is_file():
            path = _release(root, "en") / f"{name}.ipynb"
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        heading = _HEADING.search("".join(cells[0]["source"]))
        points = sum(float(c["metadata"].get("nbgrader", {}).get("points", 0) or 0) for c in cells)
        total += points
        rows.append(((name, True), (heading.group(1) if heading else name, False), (f"{points:g}", False)))
    rows.append((("", False), (translator(language)(TOTAL), False), (f"{total:g}", False)))
    return rows


def _tolerance_words(tolerance: Tolerance, language: str) -> str:
    tr = translator(language)
    if tolerance.rtol:
        value = f"{tolerance.rtol:.0%}" if tolerance.rtol >= 1e-2 else num(tolerance.rtol)
        return tr(N_("relative {value}")).format(value=value)
    if tolerance.atol:
        value, unit = f"{tolerance.atol:g}", tr(UNITS[tolerance])
        return tr(N_("{value} {unit} either way")).format(value=value, unit=unit)
    return tr(N_("the word"))


def _parts(questions: list[Question]) -> str:
    return ", ".join(q.id for q in questions)


def _tolerances(root: Path, language: str) -> list[tuple[Cell, ...]]:
    used: dict[Tolerance, list[Question]] = {}
    for exercise in EXERCISES.values():
        for question in exercise.questions:
            used.setdefault(question.tolerance, []).append(question)
    tr = translator(language)
    return [((_tolerance_words(t, language), False), (_parts(qs), True), (tr(t.why), False))
            for t, qs in used.items()]


def _naming(question: Question) -> list[Misconception]:
    """The misconceptions the feedback on ``question`` may name: its mistakes' and its readings'."""
    named = [m.misconception for m in getattr(question, "mistakes", ())]
    if isinstance(question, FunctionQuestion):
        named += [r.misconception for r in question.readings if r.misconception is not None]
    for curve in getattr(question, "curves", ()):
        named += [m.misconception for m in curve.mistakes]
    return named


def _misconceptions(root: Path, language: str) -> list[tuple[Cell, ...]]:
    rows: list[tuple[Cell, ...]] = []
    for exercise in EXERCISES.values():
        parts: dict[Misconception, list[Question]] = {}
        for question in exercise.questions:
            for misconception in dict.fromkeys(_naming(question)):
                parts.setdefault(misconception, []).append(question)
        for misconception, questions in parts.items():
            said = f"{misconception.text(language)} ({misconception.name})"
            rows.append(((str(number(exercise.notebook)), False), (said, False), (_parts(questions), True)))
    return rows


KINDS: dict[str, Callable[[Path, str], list[tuple[Cell, ...]]]] = {
    "points": _points,
    "tolerances": _tolerances,
    "misconceptions": _misconceptions,
}
"""Each table, by the name the directive takes."""


def sources(root: Path) -> list[Path]:
    """The files the tables are made from: the grading package's modules and exercise folders, and
    the released notebooks (a build that uses a table is redone when one changes)."""
    package = Path(__file__).resolve().parent
    code = {*package.glob("*.py"), *package.glob("exercises/**/*.py")}
    return sorted(code | set(root.glob("exercises/**/*.ipynb")))


def table(kind: str, root: Path, language: str) -> Table:
    """The table ``kind`` (one of :data:`KINDS`) of the course in ``root``, in ``language``."""
    tr = translator(language)
    return tuple(tr(h) for h in HEADERS[kind]), KINDS[kind](root, language)
