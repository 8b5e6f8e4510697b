"""``make collect``: file an LMS's zips of submissions under ``submitted/``, whatever one upload does.

    python -m roofline_grading.collect ASSIGNMENT --course DIR [--verbose] ZIP...

Every entry of every zip is read safely (:mod:`~roofline_grading.collect.archives`: nothing is
extracted, no link followed, sizes bounded), named by the course's LMS plugin
(:mod:`~roofline_grading.collect.names`: the class ``c.ZipCollectApp.collector_plugin`` names,
one of :mod:`~roofline_grading.collect.lms` or the course's own), and filed as
``submitted/<student>/<assignment>/<notebook>.ipynb``
(:mod:`~roofline_grading.collect.filing`: a notebook replaces only the student's file of the
same name). Several uploads of one notebook by one student are resolved by the LMS's own order
(:mod:`~roofline_grading.collect.duplicates`), and the submission times and late markers the
zips carry become nbgrader's ``timestamp.txt``
(:mod:`~roofline_grading.collect.submission_times`), so that late penalties apply.

An entry it cannot take is skipped and named, with why; every other student is still collected.
It prints one line per student, one per duplicate resolved, one per skipped entry and a summary
(``--verbose`` adds every step, nbgrader-style, on stderr). Student ids are filed normalised
(Unicode NFKC, case-folded: ``ALICE`` and ``\uff41lice`` are ``alice``); a second spelling of one id
in the zips is refused, each of its entries skipped with a line naming both spellings
(:mod:`roofline_grading.students`). Exit status: 0 when it collected what
it could, 1 when a student's folder could not be written, 2 for a usage error (no zip, a zip that
cannot be read, not a course, a plugin or pattern that cannot be used), which it explains in one line.

>>> main(["roofline", "--course", "/nonexistent", "x.zip"])
2
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from roofline_grading.autograde.gradebook import Course, CourseError, load_config, open_course
from roofline_grading.collect.archives import ArchiveError, open_archives
from roofline_grading.collect.names import Names, PatternError
from roofline_grading.collect.run import collect, released_notebooks

__all__ = ["main", "parser"]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m roofline_grading.collect",
        description="File an LMS's zips of submissions under submitted/<student>/<assignment>/.",
    )
    p.add_argument("assignment", help="the assignment, e.g. roofline")
    p.add_argument("zips", nargs="+", type=Path, metavar="ZIP", help="the LMS's zips of submissions")
    p.add_argument(
        "--course", type=Path, default=Path("."), help="the nbgrader course directory (default: .)"
    )
    p.add_argument("--verbose", action="store_true", help="say what happens to every entry (on stderr)")
    return p


def _logger(verbose: bool) -> logging.Logger:
    """nbgrader-style detail on stderr with ``--verbose``; nothing otherwise (nbgrader's warnings
    included: the report names every entry skipped)."""
    log = logging.getLogger("roofline_grading.collect")
    log.propagate = False
    log.handlers.clear()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[collect | %(levelname)s] %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG if verbose else logging.CRITICAL + 1)
    return log


def _course(root: Path, assignment: str) -> tuple[Course, Any, list[str]]:
    """The course in ``root``, its configuration and the assignment's released notebooks, or a
    :class:`CourseError` saying what is missing."""
    if not (root / "nbgrader_config.py").is_file():
        raise CourseError(f"{root} is not a course directory: it has no nbgrader_config.py")
    try:
        config = load_config(root)
    except Exception as error:  # whatever the file raises: the instructor's file, not a bug here
        raise CourseError(
            f"{root / 'nbgrader_config.py'} cannot be read: {type(error).__name__}: {error}"
        ) from None
    course = open_course(root)
    released = released_notebooks(course, assignment)
    if not released:
        raise CourseError(
            f"no released notebooks in {course.release / assignment}: generate the assignment first "
            f"(make exercises)"
        )
    return course, config, released


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    log = _logger(args.verbose)
    try:
        course, config, released = _course(args.course, args.assignment)
        names = Names(config, course.root, args.assignment, released, log)
        archives = open_archives(args.zips)
    except (CourseError, PatternError, ArchiveError) as error:
        print(f"collect: {error}", file=sys.stderr)
        return 2
    try:
        report = collect(course, args.assignment, archives, names, log)
    finally:
        for archive in archives:
            archive.close()
    print("\n".join(report.lines(args.assignment, len(archives))), flush=True)
    if report.failed:
        print(f"collect: {report.failed}; the students above were collected", file=sys.stderr)
        return 1
    return 0

