"""What does ``make feedback`` cost a class, reading the grades as nbgrader does and as the course does?

``make feedback`` runs ``nbgrader generate_feedback``, whose first step copies each graded cell's
score and each answer's comment from the gradebook into the notebook. nbgrader's ``GetGrades``
asks the gradebook once (or twice) a cell; the course's
:class:`roofline_grading.plugins.grades.GradesAtOnce` reads a notebook's grades and comments in
two queries. This builds a course of every exercise notebook and a mixed class (the autograde
benchmark's: right, wrong, blank and broken), grades it once with the driver, then writes every
student's pages with ``nbgrader generate_feedback --force`` in two copies of the graded course that
differ in one setting, ``GenerateFeedback.preprocessors``:

- ``nbgrader``: nbgrader's own steps (``GetGrades``);
- ``course``: the course's (``GradesAtOnce``), as ``nbgrader_config.py`` has them.

Rounds alternate which copy goes first. It prints the median time of each, a page's share, their
ratio, and whether the two wrote the same pages, byte for byte.

    python benchmarks/bench_feedback_grades.py [--students 12] [--rounds 3]
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_autograde import ASSIGNMENT, BIN, ROOT, build_course, build_mixed_class, run, time_driver

NBGRADERS = """
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
"""
"""The setting that gives a copy of the course nbgrader's own way of reading the grades back."""


def graded_course(directory: Path, students: int) -> Path:
    """A course of every exercise notebook, a mixed class of ``students``, graded by the driver."""
    notebooks = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
    course = build_course(directory, notebooks)
    build_mixed_class(course, students)
    time_driver(jobs=2, kernels="auto")(course)
    return course


def feedback(course: Path) -> float:
    """Seconds ``nbgrader generate_feedback`` takes to write every page of ``course`` again."""
    started = time.perf_counter()
    run([str(BIN / "nbgrader"), "generate_feedback", ASSIGNMENT, "--force"], cwd=course)
    return time.perf_counter() - started


def same_pages(first: Path, second: Path) -> bool:
    """Whether the two folders hold the same files with the same bytes."""
    pages = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    if pages != sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file()):
        return False
    _, mismatch, errors = filecmp.cmpfiles(first, second, [str(p) for p in pages], shallow=False)
    return not mismatch and not errors


def main() -> None:
    """Grade a class once, write its pages both ways, print the medians (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=12, help="students in the class (default 12)")
    parser.add_argument("--rounds", type=int, default=3, help="times each copy writes the pages (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-feedback-") as scratch:
        graded = graded_course(Path(scratch) / "graded", args.students)
        sides = {name: Path(scratch) / name for name in ("nbgrader", "course")}
        for side in sides.values():
            shutil.copytree(graded, side)
        with (sides["nbgrader"] / "nbgrader_config.py").open("a") as config:
            config.write(NBGRADERS)
        seconds: dict[str, list[float]] = {name: [] for name in sides}
        for round_ in range(args.rounds):
            order = list(sides.items())
            for name, side in order if round_ % 2 else order[::-1]:
                seconds[name].append(feedback(side))
        pages = sum(1 for _ in (sides["course"] / "feedback").rglob("*.html"))
        same = same_pages(sides["nbgrader"] / "feedback", sides["course"] / "feedback")
    if not pages:
        raise SystemExit("nbgrader generate_feedback wrote no page: nothing to compare")
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    print(f"make feedback on {args.students} students, {pages} pages; medians of {args.rounds} rounds")
    print(f"{'':10} {'seconds':>8} {'ms a page':>10}")
    for name, median in medians.items():
        print(f"{name:10} {median:8.1f} {median / pages * 1e3:10.0f}")
    print(f"ratio course / nbgrader: {medians['course'] / medians['nbgrader']:.2f}")
    print(f"the same pages, byte for byte: {'yes' if same else 'NO'}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
