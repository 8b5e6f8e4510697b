"""Write each exercise's *known mistakes* cell from the answer key: feedback before submission.

The check under each answer (:func:`roofline_grading.mistake_check.no_known_mistake`) tells the
student, in the answer key's words, when the answer makes one of the course's known mistakes.
It runs in the student's kernel and at grading time in the sandbox, where neither rooflinekit
nor this package exists, so the cell carries only fingerprints of the mistaken *values* at the
question's fixed cases (the exercise's own figures among them), never a right value or a formula.

The same command writes what else of a notebook is made, not typed: its setup cell (the helpers
the test cells call, :mod:`roofline_grading.setup_cell`), its last cell, which runs
the visible checks of every test cell again and lists them all (:class:`~roofline_grading.
mistake_check.every_check`; Run All goes on past a failing check, as every test cell is tagged
``raises-exception``), and the notebook's ``language_info``, complete as the course's kernel
reports it (JupyterLab writes the kernel's into a notebook it opens, which then shows as
modified unless it already holds the same).

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
import json
import math
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nbformat
from ipykernel.ipkernel import IPythonKernel

from roofline_grading import mistake_check, setup_cell
from roofline_grading.answer_key import EXERCISES, Exercise
from roofline_grading.cells import (
    CELL_ID_SUFFIX,
    EVERY_CHECK_SUFFIX,
    HIDDEN_TESTS,
    SETUP_SUFFIX,
    made_cell_id,
)
from roofline_grading.i18n import LANGUAGES, translator
from roofline_grading.questions import FunctionQuestion, Tolerance
from rooflinekit.words import N_

__all__ = [
    "CELL_ID_SUFFIX",
    "EVERY_CHECK_SUFFIX",
    "RAISES",
    "SETUP_SUFFIX",
    "cell_source",
    "every_check_source",
    "language_info",
    "main",
    "scale_of",
    "table",
    "update",
    "visible",
]

RAISES = "raises-exception"
"""The tag of every test cell: Run All goes on past it when it fails (JupyterLab, nbclient)."""
SPREAD = 2
"""Grid steps either side of an answer that the check compares (see mistake_check.fingerprints)."""
HEADER = N_(
    "Known mistakes. The check at the end of each test cell, no_known_mistake(name, function), calls "
    "your function at this exercise's figures (and a few other sizes) and tells you, before you submit, "
    "when its results match one of the course's known mistakes. This cell holds only fingerprints of "
    "those wrong results (salted hashes of where they fall on a grid as fine as the tolerance), never "
    "the right answers. A check that fails shows its message, not a traceback. Written by `make "
    "exercises` from the course's answer key: do not edit."
)
"""The comment that opens the cell."""
EVERY_CHECK_HEADER = N_(
    "Every check at once: this cell runs the checks of each part again, a failing one not stopping "
    "the others, and lists what each says. Written by `make exercises` from the test cells above: "
    "do not edit."
)
"""The comment that opens the last cell."""
SAYS = {
    "mistake": N_("{name} makes a known mistake. {mistake}"),
    "inherited": N_("{name} uses your {source}, which makes a known mistake. {mistake}"),
    "same": N_("{name} makes a known mistake, the one your {source} makes. {mistake}"),
    "several": N_("{name} makes a known mistake; more than one gives its results, so it is one of these:"),
    "none": N_("{name}: no known mistake found. That does not make it right: the hidden tests decide."),
    "pass": N_("{name}: these checks pass. That does not make it right: the hidden tests decide."),
    "where": N_("(line {line} of this cell: {code})"),
    "every": N_("Every check of this notebook, run again now:"),
    "tally": N_("{passed} of {total} parts pass their checks."),
    "decide": N_("A part that passes its checks is not necessarily right: the hidden tests decide."),
    "unanswered": N_("{name} is not answered yet: replace not_answered() in it with your answer."),
    "unanswered_here": N_("not answered yet"),
    "todo": N_("Not answered yet: replace not_answered() with your answer, then run this cell."),
    "raised_unanswered": N_("not answered yet: it, or a function it uses, raises NotImplementedError"),
    "not_run": N_("not run yet ({error}): run the cells above it first (Run All)"),
    "raised": N_("raised {error}"),
}
"""What the checks say, filled with the part's name (and the misconception's message)."""


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
        if (prints, mistake.misconception) not in mistakes:  # the same mistake, computed two ways
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
        lines += [
            f"            ({m.name!r}, {prints!r}, {m.text(language)!r}),"
            for prints, m in entry["mistakes"]
        ]
        lines.append("        ],")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines)


def visible(source: str) -> str:
    """A test cell's source as a student sees it: without its hidden tests."""
    return HIDDEN_TESTS.sub("", source)


def _is_test(cell: Any) -> bool:
    return cell.cell_type == "code" and bool(cell.metadata.get("nbgrader", {}).get("grade"))


def every_check_source(notebook: Any, language: str = "en") -> str:
    """The whole source of the notebook's last cell: each test cell's visible checks (already in
    ``language``), each part in its own ``with check(...)`` block, under a comment in ``language``."""
    header = textwrap.fill(
        translator(language)(EVERY_CHECK_HEADER),
        width=98,
        initial_indent="# ",
        subsequent_indent="# ",
        break_on_hyphens=False,
    )
    parts = []
    for cell in filter(_is_test, notebook.cells):
        part = cell.metadata["nbgrader"]["grade_id"].split("_", 1)[1]
        checks = textwrap.indent(visible(cell.source).strip("\n"), " " * 8)
        parts.append(f'    with check("{part}"):\n{checks}\n')
    return f"{header}\nwith every_check() as check:\n" + "".join(parts)


def language_info(notebook: Any) -> dict[str, Any]:
    """The ``language_info`` the course's kernel reports (ipykernel's), with the Python version the
    notebook already records, if it records one (JupyterLab writes the kernel's own into the
    notebook it opens: a notebook with another one shows as modified as soon as it opens)."""
    info = json.loads(json.dumps(IPythonKernel.language_info))
    recorded = notebook.metadata.get("language_info", {}).get("version")
    return {**info, "version": recorded or info["version"]}


def _locked_cell(source: str, grade_id: str, *, collapsed: bool = True) -> Any:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata = {
        **({"jupyter": {"source_hidden": True}} if collapsed else {}),
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
    return cell


def update(path: Path, *, write: bool = True, language: str = "en") -> bool:
    """Put what is made of the notebook at ``path`` right, in ``language``: its setup cell (the
    English notebook's: a translated one is translated from it), its known-mistakes cell (after
    the setup cell) and its last cell listing every check (both with their input collapsed in
    JupyterLab), the ``raises-exception`` tag of each test cell, and its ``language_info``; True
    if anything was stale."""
    exercise = EXERCISES[path.stem]
    notebook = nbformat.read(path, as_version=4)
    before = nbformat.writes(notebook)
    made = {
        made_cell_id(path.stem, SETUP_SUFFIX): (setup_cell.source(plots=exercise.plots), 1),
        made_cell_id(path.stem): (cell_source(exercise, language), 2),
        made_cell_id(path.stem, EVERY_CHECK_SUFFIX): (every_check_source(notebook, language), None),
    }
    if language != "en":
        del made[made_cell_id(path.stem, SETUP_SUFFIX)]
    for grade_id, (source, position) in made.items():
        _put(notebook, grade_id, source, position)
    for cell in filter(_is_test, notebook.cells):
        tags = cell.metadata.setdefault("tags", [])
        if RAISES not in tags:
            tags.append(RAISES)
    notebook.metadata["language_info"] = language_info(notebook)
    if nbformat.writes(notebook) == before:
        return False
    if write:
        nbformat.write(notebook, path)
    return True


def _put(notebook: Any, grade_id: str, source: str, position: int | None) -> None:
    """The locked cell ``grade_id`` holding ``source``: rewritten where it is, or put at ``position``
    (None: last). Only the setup cell shows its code (a student reads its helpers)."""
    found = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    if found:
        found[0].source = source
        return
    cell = _locked_cell(source, grade_id, collapsed=not grade_id.endswith(SETUP_SUFFIX))
    notebook.cells.insert(len(notebook.cells) if position is None else position, cell)


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
        done = "are stale" if options.check else "rewritten"
        print(f"{path}: its known mistakes, last cell, tags or language_info {done}")
    return 1 if options.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
