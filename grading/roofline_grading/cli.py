"""``roofline-grading``: the instructor's round, one command a step (the Makefile's grading targets
call it; README.md names the few that run something else).

    roofline-grading release ASSIGNMENT     the exercise folders' notebooks and their made cells, then
                                            nbgrader's generate_assignment
    roofline-grading roster CSV             the class list into the gradebook
    roofline-grading collect ASSIGNMENT ZIP...   LMS zips into submitted/ (see roofline_grading.collect)
    roofline-grading autograde ASSIGNMENT   grade every submission, sandboxed (see autograde.cli)
    roofline-grading feedback ASSIGNMENT    each student's feedback pages
    roofline-grading grades [--to FILE]     the gradebook exported to CSV, a row per student
    roofline-grading cluster certs|scheduler|worker   the grading cluster (see autograde.cluster)
    roofline-grading check EXERCISE         one exercise checked as its author works (see check)
    roofline-grading course-id              nbgrader_config.py's course id (make's hub targets read it)

``roster`` imports the class list with each student id normalised as ``collect`` files them
(Unicode NFKC, case-folded: :mod:`roofline_grading.students`), and refuses a list that spells one
id two ways. Every step takes ``--course DIR`` (the nbgrader course directory, default ``.``). A mistake in
the command (a missing file, a class list without an ``id`` column, a folder that is not a
course) is one line on the error stream and exit status 2; nbgrader's own steps (generate,
import, feedback, export) run as nbgrader's command line, in the course directory, with this
environment's ``bin`` first on ``PATH`` (nbgrader calls ``alembic`` through it).

>>> parser().parse_args(["grades", "--to", "out/grades.csv"]).to
'out/grades.csv'
>>> print(check_roster(Path("missing.csv")))  # doctest: +ELLIPSIS
roster: missing.csv does not exist (a CSV file whose first line names an id column: ...)
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["check_roster", "main", "normalised_roster", "parser"]

ROSTER_COLUMNS = "id,first_name,last_name,email"


def parser() -> argparse.ArgumentParser:
    """The command line: a subcommand a step of the round."""
    top = argparse.ArgumentParser(
        prog="roofline-grading", description="The instructor's grading round, one step at a time."
    )
    steps = top.add_subparsers(dest="step", required=True, metavar="STEP")
    release = steps.add_parser(
        "release", help="rewrite the known-mistakes cells, then nbgrader generate_assignment"
    )
    release.add_argument("assignment")
    _course(release)
    roster = steps.add_parser("roster", help="import the class list into the gradebook")
    roster.add_argument(
        "csv", type=Path, help=f"a CSV file whose first line names its columns ({ROSTER_COLUMNS})"
    )
    _course(roster)
    for name, words in (
        ("collect", "collect submissions from LMS zips (roofline_grading.collect)"),
        ("autograde", "grade every collected submission (roofline_grading.autograde)"),
        ("cluster", "the grading cluster: its certificates, scheduler, workers (autograde.cluster)"),
        ("check", "check one exercise as its author works (roofline_grading.check)"),
    ):
        passed = steps.add_parser(name, help=words, description=words, add_help=False)
        passed.add_argument("arguments", nargs=argparse.REMAINDER)
    feedback = steps.add_parser(
        "feedback", help="write each student's feedback pages (nbgrader generate_feedback)"
    )
    feedback.add_argument("assignment")
    _course(feedback)
    grades = steps.add_parser("grades", help="export the gradebook to CSV (nbgrader export)")
    grades.add_argument(
        "--to", default="grades.csv", help="the file, relative to the course (default grades.csv)"
    )
    _course(grades)
    _course(steps.add_parser("course-id", help="print nbgrader_config.py's course id"))
    return top


def _course(step: argparse.ArgumentParser) -> None:
    step.add_argument(
        "--course", type=Path, default=Path("."), help="the nbgrader course directory (default .)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run one step; its exit status."""
    args = parser().parse_args(argv)
    steps: dict[str, Callable[[argparse.Namespace], int]] = {
        "release": _release,
        "roster": _roster,
        "collect": _collect,
        "autograde": _autograde,
        "cluster": _cluster,
        "check": _check,
        "feedback": lambda a: _nbgrader(a.course, "generate_feedback", a.assignment, "--force"),
        "grades": _grades,
        "course-id": _course_id,
    }
    return steps[args.step](args)


def _release(args: argparse.Namespace) -> int:
    from roofline_grading import fingerprints, statements

    solutions = args.course / "solutions" / args.assignment
    if not solutions.is_dir():
        return _refuse(f"release: no {solutions} (the instructor's notebooks of {args.assignment})")
    own = solutions.resolve() == statements.REPOSITORY / "solutions" / args.assignment
    statements.write(solutions, everything=own)  # a course elsewhere: only the folders it holds
    written = fingerprints.main([str(solutions)])
    if written:
        return written
    return _nbgrader(args.course, "generate_assignment", args.assignment, "--force")


def check_roster(path: Path) -> str | None:
    """None if ``path`` is a class list nbgrader can import, else why not, in one line."""
    shown = f"{path} does not exist" if not path.is_file() else None
    if shown is None:
        try:
            with path.open(newline="", encoding="utf-8-sig") as handle:
                header = next(csv.reader(handle), [])
        except (OSError, UnicodeDecodeError, csv.Error) as error:
            shown = f"{path} cannot be read as CSV ({error})"
        else:
            if "id" not in [column.strip() for column in header]:
                shown = f"the first line of {path} names no id column ({','.join(header)[:80]})"
    if shown is None:
        return None
    return f"roster: {shown} (a CSV file whose first line names an id column: {ROSTER_COLUMNS})"


def _roster(args: argparse.Namespace) -> int:
    """The class list into the gradebook, each id normalised (:mod:`roofline_grading.students`):
    nbgrader imports a copy of it with the ids as ``make collect`` files them."""
    problem = check_roster(args.csv)
    if problem:
        return _refuse(problem)
    from roofline_grading.autograde.gradebook import CourseError, open_course

    try:
        course = open_course(args.course)
        existing = _gradebook_students(course.db_url) if course.has_gradebook() else []
    except CourseError as error:
        return _refuse(f"roster: {error}")
    rows, problem = normalised_roster(args.csv, existing)
    if problem:
        return _refuse(f"roster: {problem}")
    with tempfile.TemporaryDirectory(prefix="roofline-roster-") as scratch:
        copy = Path(scratch) / args.csv.name
        with copy.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["id"])
            writer.writeheader()
            writer.writerows(rows)
        return _nbgrader(args.course, "db", "student", "import", str(copy))


def normalised_roster(path: Path, existing: Sequence[str] = ()) -> tuple[list[dict[str, str]], str | None]:
    """The class list's rows with each id normalised, or why it cannot be imported: a row without
    an id, two spellings of one id (:func:`~roofline_grading.students.clash`), or an id whose
    spelling differs from a student's already in the gradebook (``existing``).

    >>> import tempfile
    >>> roster = Path(tempfile.mkdtemp()) / "students.csv"
    >>> _ = roster.write_text("id,first_name\\nBob,Bob\\nbob,Robert\\n", encoding="utf-8")
    >>> print(normalised_roster(roster)[1])  # doctest: +ELLIPSIS
    the student ids 'bob' and 'Bob' are one id once normalised (Unicode NFKC, case-folded: 'bob'): ...
    """
    from roofline_grading.students import canonical, clash, spellings

    with path.open(newline="", encoding="utf-8-sig") as handle:
        rows = [{k.strip(): (v or "").strip() for k, v in r.items() if k} for r in csv.DictReader(handle)]
    for number, row in enumerate(rows, start=2):
        if not row.get("id"):
            return [], f"line {number} of {path} has no id"
    _, refused = spellings(row["id"] for row in rows)
    before = {canonical(s): s for s in existing if canonical(s) != s}  # ids from before normalising
    for row in rows:
        if row["id"] in refused:
            return [], clash(refused[row["id"]], row["id"])
        if canonical(row["id"]) in before:
            return [], clash(before[canonical(row["id"])], row["id"])
    return [{**row, "id": canonical(row["id"])} for row in rows], None


def _gradebook_students(db_url: str) -> list[str]:
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook:
        return [str(student.id) for student in gradebook.students]


def _collect(args: argparse.Namespace) -> int:
    from roofline_grading.collect import cli as collect

    return collect.main(list(args.arguments))


def _autograde(args: argparse.Namespace) -> int:
    from roofline_grading.autograde import cli

    return cli.main(list(args.arguments))


def _cluster(args: argparse.Namespace) -> int:
    from roofline_grading.autograde import cluster

    return cluster.main(list(args.arguments))


def _check(args: argparse.Namespace) -> int:
    from roofline_grading import check

    return check.main(list(args.arguments))


def _course_id(args: argparse.Namespace) -> int:
    """The course id nbgrader_config.py sets, on one line: the one place an instructor names it,
    which the hub's groups and exchange folder follow."""
    from roofline_grading.autograde.gradebook import CourseError, open_course

    try:
        print(open_course(args.course).course_id)
    except CourseError as error:
        return _refuse(f"course-id: {error}")
    return 0


def _grades(args: argparse.Namespace) -> int:
    (args.course / args.to).parent.mkdir(parents=True, exist_ok=True)
    return _nbgrader(args.course, "export", "--to", args.to)


def _nbgrader(course: Path, *arguments: str) -> int:
    """nbgrader's own command line, in ``course``; its exit status."""
    if not course.is_dir():
        return _refuse(f"no course directory {course}")
    binaries = Path(sys.executable).parent
    environment = {**os.environ, "PATH": f"{binaries}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        [str(binaries / "nbgrader"), *arguments], cwd=course, env=environment, check=False
    ).returncode


def _refuse(message: str) -> int:
    print(message, file=sys.stderr)
    return 2
