"""``roofline-grading check EXERCISE``: what an exercise's author runs after each change.

One line per problem, nothing else when the exercise is sound but a last line saying what was
checked; the exit status is 1 when there is a problem, 2 for an exercise that is not one. It checks:

- the model answers: the key's answer to each part is right at the public cases and at many
  random draws, and the instructor's notebook (``solutions/``), run in a kernel, passes every
  hidden test (full marks);
- the release: the notebook ``make exercises`` writes is the one committed (for a folder's
  exercise, from its statement), and the released notebook, run as it is, passes no test (zero);
- every known mistake: wrong at the public cases, and given no point at any random draw;
- every declared reading: each that earns the point gets it at every draw, each that does not
  gets none, and the words that rule it out are in the statement in every language;
- the statement's figures: each figure the key says the statement gives (``given.py``'s) is
  quoted in the released statement in every language, in any unit (``989 TFLOP/s``, ``3.35 TB/s``,
  ``80 GB``, ``1,024``) (:mod:`roofline_grading.checks.figures`);
- the translated releases, in each language of ``rooflinekit.languages``: the notebook is there and
  up to date, or the messages it lacks are listed (``tools/exercise_translations.py``);
- the public edition: no file of it (tools/public_edition.py's list) holds a line of the
  exercise's solutions or hidden tests, or names the exercise folders' package.

>>> print(unknown("ex99"))  # doctest: +ELLIPSIS
check: no exercise 'ex99' (the exercises: ex1_int8_matmul, ex2_int8_weights, ...)
>>> resolve("ex9")
'ex9_memory_hierarchy'
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from roofline_grading import fingerprints, statements
from roofline_grading.answer_key import EXERCISES
from roofline_grading.authoring import Exercise
from roofline_grading.checks import figures, notebooks, public, translations
from roofline_grading.i18n import LANGUAGES, translator
from roofline_grading.judge import assess
from roofline_grading.questions import FunctionQuestion, Question, public_cases, separates
from roofline_grading.session import answered, issue_one

__all__ = ["main", "problems", "resolve", "unknown"]

DRAWS = 50
"""Random draws of hidden inputs each answer, mistake and reading is judged at."""


def resolve(name: str) -> str | None:
    """The exercise ``name`` names: its notebook's name, or its prefix (``ex9``)."""
    if name in EXERCISES:
        return name
    found = [n for n in EXERCISES if n.split("_")[0] == name]
    return found[0] if len(found) == 1 else None


def unknown(name: str) -> str:
    """The line for an exercise that is none of the answer key's."""
    return f"check: no exercise {name!r} (the exercises: {', '.join(EXERCISES)})"


def _graded(question: Question, answer: Any, seed: str, language: str = "en") -> bool:
    """Whether grading gives ``answer`` the point at the inputs ``seed`` draws."""
    issued = issue_one(question, seed)
    verdict = assess(question, issued.cases, answered(issued, answer), language, public=len(issued.public))
    return verdict is None


def _functions(exercise: Exercise) -> Iterator[FunctionQuestion]:
    return (q for q in exercise.questions if isinstance(q, FunctionQuestion))


def answers_right(exercise: Exercise, draws: int) -> Iterator[str]:
    """A line for each part whose key's own answer is not given the point (a figure's is checked
    when the instructor's notebook runs, :mod:`roofline_grading.checks.notebooks`)."""
    for question in _functions(exercise):
        wrong = [i for i in range(draws) if not _graded(question, question.reference, f"check-{i}")]
        if wrong:
            yield f"{question.id}: the model answer is not given the point at {len(wrong)} of {draws} draws"


def mistakes_caught(exercise: Exercise, draws: int) -> Iterator[str]:
    """A line for each known mistake right at every public case, or given the point at a draw."""
    for question in _functions(exercise):
        for mistake in question.mistakes:
            name = f"{question.id}: the known mistake {mistake.misconception.name}"
            if not any(separates(question, mistake, case) for case in public_cases(question)):
                yield f"{name} is right at every public case"
            given = sum(_graded(question, mistake.answer, f"check-{i}") for i in range(draws))
            if given:
                yield f"{name} is given the point at {given} of {draws} draws"


def readings_handled(exercise: Exercise, draws: int, course: Path) -> Iterator[str]:
    """A line for each reading graded against what it declares, or whose ruling-out words the
    statement does not hold in some language."""
    for question in _functions(exercise):
        for reading in question.readings:
            name = f"{question.id}: the reading {reading.name}"
            given = sum(_graded(question, reading.answer, f"check-{i}") for i in range(draws))
            if reading.earns and given < draws:
                yield f"{name} earns the point, but is refused it at {draws - given} of {draws} draws"
            if not reading.earns and given:
                yield f"{name} is ruled out, but is given the point at {given} of {draws} draws"
            if reading.ruled_out_by is not None:
                yield from _said(exercise.notebook, name, reading.ruled_out_by, course)


def _said(notebook: str, name: str, words: str, course: Path) -> Iterator[str]:
    for language in LANGUAGES:
        path = notebooks.released(course, notebook, language)
        said = " ".join(translator(language)(words).split())
        if path.is_file() and said not in notebooks.words(path):
            yield f"{name}: the {language} statement does not say {said!r}, which rules it out"


def release_current(exercise: Exercise, course: Path) -> Iterator[str]:
    """A line if the committed instructor's or released notebook is not what make exercises writes."""
    committed = course / "solutions" / "roofline" / f"{exercise.notebook}.ipynb"
    if not committed.is_file():
        yield f"{committed}: missing: run make exercises"
        return
    yield from _statement_current(exercise, committed)
    if not notebooks.released(course, exercise.notebook, "en").is_file():
        yield f"{exercise.notebook}: not released: run make exercises"


def _statement_current(exercise: Exercise, committed: Path) -> Iterator[str]:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="roofline-check-") as scratch:
        (made,) = statements.write(Path(scratch), everything=False, only=exercise.notebook)
        fingerprints.update(made)
        if made.read_bytes() != committed.read_bytes():
            yield f"{committed}: not what make exercises writes from its folder's statement (run it)"


CHECKS: tuple[tuple[str, Callable[[Exercise, int, Path], Iterator[str]]], ...] = (
    ("the release", lambda e, n, c: release_current(e, c)),
    ("the model answers", lambda e, n, c: answers_right(e, n)),
    ("the known mistakes", lambda e, n, c: mistakes_caught(e, n)),
    ("the readings", readings_handled),
    ("the statement's figures", lambda e, n, c: figures.problems(e, c, LANGUAGES)),
    ("the notebooks run", lambda e, n, c: notebooks.run_problems(e, c)),
    ("the translated releases", lambda e, n, c: translations.gaps(e.notebook, c)),
    ("the public edition", lambda e, n, c: public.leaks(e.notebook, c)),
)
"""Each check, in the order an author fixes things: its name and its problems."""


def problems(exercise: Exercise, draws: int, course: Path) -> Iterator[str]:
    """Every problem of ``exercise``, one line each."""
    for _, check in CHECKS:
        yield from check(exercise, draws, course)


def main(argv: Sequence[str] | None = None) -> int:
    """``roofline-grading check EXERCISE [--draws N] [--course DIR]``; its exit status."""
    parser = argparse.ArgumentParser(prog="roofline-grading check", description=__doc__.split("\n\n")[0])
    parser.add_argument("exercise", help="the exercise: its notebook's name or its prefix (ex9)")
    parser.add_argument("--draws", type=int, default=DRAWS, help=f"random draws (default {DRAWS})")
    parser.add_argument("--course", type=Path, default=statements.REPOSITORY, help="the course folder")
    options = parser.parse_args(argv)
    name = resolve(options.exercise)
    if name is None:
        print(unknown(options.exercise), file=sys.stderr)
        return 2
    found = 0
    for line in problems(EXERCISES[name], max(1, options.draws), options.course):
        print(f"{name}: {line}" if not line.startswith(name) else line)
        found += 1
    checked = ", ".join(title for title, _ in CHECKS)
    print(f"{name}: {found} problem(s); checked {checked} ({options.draws} draws)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

