"""Write each exercise's *known mistakes* cell from the answer key: feedback before submission.

The check under each answer (:func:`roofline_grading.mistake_check.no_known_mistake`) tells the
student, in the answer key's words, when the answer makes one of the course's known mistakes.
It runs in the student's kernel and at grading time in the sandbox, where neither rooflinekit
nor this package exists, so the cell carries only fingerprints of the mistaken *values* at the
question's fixed cases (the exercise's own figures among them), never a right value or a formula.

A question gets an entry when it returns a number and has fixed cases with one number each;
a mistake is listed when, at some case, its value is far enough from the right one (more than
twice the check's spread on the tolerance's grid) that no right answer can match it. Questions
whose answer is a word (two choices: naming the wrong one would give the right one away) and
figures get none.

``python -m roofline_grading.fingerprints solutions/roofline`` (``make fingerprints``, which
``make exercises`` runs first) rewrites the cell of every notebook there; with ``--check`` it
only says which are stale and exits 1.

>>> entry = table(EXERCISES["ex5_h100_threshold"])["dense_peak"]
>>> entry["scale"], entry["cases"][0] == (1.979e15,), len(entry["mistakes"])
(('rel', 1e-06), True, 1)
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nbformat

from roofline_grading import mistake_check
from roofline_grading.answer_key import EXERCISES, Exercise
from roofline_grading.i18n import LANGUAGES, N_, translator
from roofline_grading.questions import FunctionQuestion, Tolerance

__all__ = ["CELL_ID_SUFFIX", "cell_source", "main", "scale_of", "table", "update"]

CELL_ID_SUFFIX = "known_mistakes"
"""The cell's grade id is ``<exercise prefix>_known_mistakes``, e.g. ``ex1_known_mistakes``."""
SPREAD = 2
"""Grid steps either side of an answer that the check compares (see mistake_check.fingerprints)."""
HEADER = N_(
    "Known mistakes. The check at the end of each test cell, no_known_mistake(name, function), calls "
    "your function at this exercise's figures (and a few other sizes) and tells you, before you submit, "
    "when its results match one of the course's known mistakes. This cell holds only fingerprints of "
    "those wrong results (salted hashes of where they fall on a grid as fine as the tolerance), never "
    "the right answers. Written by `make exercises` from the course's answer key: do not edit."
)
"""The comment that opens the cell."""
SAYS = {
    "mistake": N_("{name} makes a known mistake. {mistake}"),
    "none": N_("{name}: no known mistake found. That does not make it right: the hidden tests decide."),
}
"""What the check says, filled with the function's name (and the misconception's message)."""


def scale_of(tolerance: Tolerance) -> tuple[str, float]:
    """The grid a tolerance calls for: ``("rel", rtol)`` or ``("abs", atol)``.

    >>> scale_of(Tolerance(atol=1.0))
    ('abs', 1.0)
    """
    if tolerance.rtol > 0 and tolerance.atol == 0:
        return ("rel", tolerance.rtol)
    if tolerance.atol > 0 and tolerance.rtol == 0:
        return ("abs", tolerance.atol)
    raise ValueError(f"a tolerance must be relative or absolute, not both or neither: {tolerance}")


def _scalar(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _level(value: float, scale: tuple[str, float]) -> float:
    """Where ``value`` falls on the grid (the check's own arithmetic), for distances in steps."""
    if math.isinf(value) or value == 0:
        return math.copysign(math.inf, value) if value else 0.0
    if scale[0] == "rel":
        return math.copysign(round(math.log(abs(value)) / math.log1p(scale[1])), value)
    return float(round(value / scale[1]))


def _far(mistaken: float, right: float, scale: tuple[str, float]) -> bool:
    """No answer within SPREAD steps of ``right`` can be within SPREAD steps of ``mistaken``."""
    a, b = _level(mistaken, scale), _level(right, scale)
    if math.isinf(a) or math.isinf(b) or (a < 0) != (b < 0):
        return a != b
    return abs(abs(a) - abs(b)) > 2 * SPREAD


def _entry(question: FunctionQuestion) -> dict[str, Any] | None:
    if question.returns != "number":
        return None
    scale = scale_of(question.tolerance)
    cases = [case for case in question.cases if _scalar(question.reference(*case)) is not None]
    if not cases:
        return None
    mistakes = []
    for mistake in question.mistakes:
        values = [_scalar(mistake.answer(*case)) for case in cases]
        if any(v is None for v in values):
            continue
        rights = [float(question.reference(*case)) for case in cases]
        if not any(_far(v, r, scale) for v, r in zip(values, rights, strict=True) if v is not None):
            continue
        prints = [
            next(iter(mistake_check.fingerprints(question.id, i, v, scale, spread=0)))
            for i, v in enumerate(values)
        ]
        mistakes.append((prints, mistake.misconception))
    if not mistakes:
        return None
    return {
        "question": question.id,
        "cases": [tuple(case) for case in cases],
        "scale": scale,
        "mistakes": mistakes,
    }


def table(exercise: Exercise) -> dict[str, dict[str, Any]]:
    """Each checked function's name and its entry: the cases, the grid, the mistakes' fingerprints."""
    entries = {}
    for question in exercise.questions:
        if isinstance(question, FunctionQuestion):
            entry = _entry(question)
            if entry is not None:
                entries[question.name] = entry
    return entries


def cell_source(exercise: Exercise, language: str = "en") -> str:
    """The whole source of the exercise's known-mistakes cell, its words in ``language``."""
    tr = translator(language)
    header = textwrap.fill(
        tr(HEADER), width=98, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False
    )
    code = inspect.getsource(mistake_check).split("# --- copied into the exercises ---\n", 1)[1]
    code = code.replace("KNOWN_MISTAKES = {}\nSAYS = {}\n\n\n", "\n")
    says = "{\n" + "".join(f"    {key!r}: {tr(text)!r},\n" for key, text in SAYS.items()) + "}"
    listing = _listing(table(exercise), language)
    return f"{header}\n{code}\n\nSAYS = {says}\n\nKNOWN_MISTAKES = {listing}\n"


def _listing(entries: dict[str, dict[str, Any]], language: str) -> str:
    """The table as Python a student can read: one line per case list, grid and mistake."""
    lines = ["{"]
    for name, entry in entries.items():
        lines.append(f"    {name!r}: {{")
        lines.append(f"        'question': {entry['question']!r},")
        lines.append(f"        'cases': {entry['cases']!r},")
        lines.append(f"        'scale': {entry['scale']!r},")
        lines.append("        'mistakes': [")
        lines += [f"            ({prints!r}, {m.text(language)!r})," for prints, m in entry["mistakes"]]
        lines.append("        ],")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines)


def _cell_id(notebook: str) -> str:
    return f"{notebook.split('_')[0]}_{CELL_ID_SUFFIX}"


def update(path: Path, *, write: bool = True, language: str = "en") -> bool:
    """Put the known-mistakes cell of the notebook at ``path`` right (after its setup cell, with
    its input collapsed in JupyterLab), in ``language``; True if it was stale."""
    exercise = EXERCISES[path.stem]
    notebook = nbformat.read(path, as_version=4)
    grade_id = _cell_id(path.stem)
    source = cell_source(exercise, language)
    found = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    if found and found[0].source == source:
        return False
    if write:
        if found:
            found[0].source = source
        else:
            cell = nbformat.v4.new_code_cell(source)
            cell.metadata = {
                "jupyter": {"source_hidden": True},
                "nbgrader": {
                    "grade": False,
                    "grade_id": grade_id,
                    "locked": True,
                    "schema_version": 3,
                    "solution": False,
                    "task": False,
                },
            }
            cell.id = grade_id.replace("_", "-")
            notebook.cells.insert(2, cell)
        nbformat.write(notebook, path)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m roofline_grading.fingerprints [--check] DIRECTORY``."""
    parser = argparse.ArgumentParser(prog="python -m roofline_grading.fingerprints", description=__doc__)
    parser.add_argument("directory", type=Path, help="the solution notebooks, e.g. solutions/roofline")
    parser.add_argument("--check", action="store_true", help="only report stale notebooks (exit 1 if any)")
    parser.add_argument(
        "--language", default="en", choices=LANGUAGES, help="the language of the notebooks (default: en)"
    )
    options = parser.parse_args(argv)
    paths = sorted(p for p in options.directory.glob("*.ipynb") if p.stem in EXERCISES)
    if not paths:
        parser.error(f"{options.directory} holds none of the notebooks {', '.join(sorted(EXERCISES))}")
    stale = [p for p in paths if update(p, write=not options.check, language=options.language)]
    for path in stale:
        print(f"{path}: known mistakes {'are stale' if options.check else 'rewritten'}")
    return 1 if options.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
