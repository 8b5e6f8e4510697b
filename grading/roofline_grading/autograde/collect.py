"""``make collect``: file an LMS's zips of submissions under ``submitted/``, whatever one upload does.

    python -m roofline_grading.autograde.collect ASSIGNMENT --course DIR [--verbose] ZIP...

Every entry of every zip is read safely (:mod:`~roofline_grading.autograde.archives`: nothing is
extracted, no link followed, sizes bounded), named by the course's pattern
(:mod:`~roofline_grading.autograde.lms_names`: nbgrader's ``FileNameCollectorPlugin`` with the
course's ``named_regexp``), and filed as ``submitted/<student>/<assignment>/<notebook>.ipynb``
(:mod:`~roofline_grading.autograde.filing`: a notebook replaces only the student's file of the
same name). Several uploads of one notebook by one student are resolved by the LMS's own order
(:mod:`~roofline_grading.autograde.duplicates`), and the submission times and late markers the
zips carry become nbgrader's ``timestamp.txt``
(:mod:`~roofline_grading.autograde.submission_times`), so that late penalties apply.

An entry it cannot take is skipped and named, with why; every other student is still collected.
It prints one line per student, one per duplicate resolved, one per skipped entry and a summary
(``--verbose`` adds every step, nbgrader-style, on stderr). Student ids are filed normalised
(Unicode NFKC, case-folded: ``ALICE`` and ``\uff41lice`` are ``alice``); a second spelling of one id
in the zips is refused, each of its entries skipped with a line naming both spellings
(:mod:`roofline_grading.students`). Exit status: 0 when it collected what
it could, 1 when a student's folder could not be written, 2 for a usage error (no zip, a zip that
cannot be read, not a course, a pattern that cannot be used), which it explains in one line.

>>> main(["roofline", "--course", "/nonexistent", "x.zip"])
2
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from roofline_grading.autograde.archives import (
    Archive,
    ArchiveError,
    Budget,
    Entry,
    EntryError,
    open_archives,
)
from roofline_grading.autograde.duplicates import Candidate, latest_first
from roofline_grading.autograde.filing import describe, file_notebook, kept_files
from roofline_grading.autograde.gradebook import Course, CourseError, load_config, open_course
from roofline_grading.autograde.lms_names import Names, PatternError, Upload
from roofline_grading.autograde.submission_times import (
    LATE_BY,
    TIMESTAMP,
    decide,
    due_date,
    read_stamp,
    stamp,
    write_stamp,
)
from roofline_grading.students import clash, spellings

__all__ = ["Report", "collect", "main", "parser"]

Taken = tuple[Archive, Entry, Upload]


@dataclass
class Report:
    """What one collect did, as the lines it prints."""

    students: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    due: datetime | None = None
    failed: str | None = None
    """Why a student's folder could not be written (the run stopped there)."""

    def skip(self, entry: Entry, why: str, log: logging.Logger) -> None:
        """Name ``entry``, which cannot be taken, and why."""
        log.warning("Skipped %s: %s", entry.label, why)
        self.skipped.append(f"skipped {entry.label}: {why}")

    def lines(self, assignment: str, zips: int) -> list[str]:
        return [*self.students, *self.skipped, self.summary(assignment, zips)]

    def summary(self, assignment: str, zips: int) -> str:
        c = self.counts
        source = f"{zips} zip{'s' if zips > 1 else ''}"
        if not c["students"]:
            said = f"collect: nothing collected from {source}"
            if self.skipped:
                said += " (each entry skipped, above: c.FileNameCollectorPlugin.named_regexp names the files)"
        else:
            done = ", ".join(f"{c[s]} {s}" for s in ("collected", "replaced", "unchanged") if c[s])
            said = (
                f"collect: {c['students']} student{'s' if c['students'] > 1 else ''} ({done}) from {source}"
            )
        said += f"; {len(self.skipped)} entr{'ies' if len(self.skipped) != 1 else 'y'} skipped"
        if c["duplicates"]:
            said += f"; {c['duplicates']} duplicate{'s' if c['duplicates'] > 1 else ''} resolved"
        if c["after-due"] and self.due is not None:
            said += (
                f"; {c['after-due']} marked late with no time of their own, stamped "
                f"{LATE_BY.seconds} s after the due date {self.due:%Y-%m-%d %H:%M:%S} UTC"
            )
        if c["no-due"]:
            said += (
                f"; {c['no-due']} late marker{'s' if c['no-due'] > 1 else ''} NOT applied: the gradebook has "
                f"no due date for {assignment}: set it (in the course directory, nbgrader db assignment add "
                f"{assignment} --duedate='2026-03-01 23:59:00 UTC') and collect again"
            )
        return said


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m roofline_grading.autograde.collect",
        description="File an LMS's zips of submissions under submitted/<student>/<assignment>/.",
    )
    p.add_argument("assignment", help="the assignment, e.g. roofline")
    p.add_argument("zips", nargs="+", type=Path, metavar="ZIP", help="the LMS's zips of submissions")
    p.add_argument(
        "--course", type=Path, default=Path("."), help="the nbgrader course directory (default: .)"
    )
    p.add_argument("--verbose", action="store_true", help="say what happens to every entry (on stderr)")
    return p


def released_notebooks(course: Course, assignment: str) -> list[str]:
    """The assignment's released notebooks, as paths relative to its release folder."""
    folder = course.release / assignment
    found = (p.relative_to(folder) for p in folder.rglob("*.ipynb")) if folder.is_dir() else iter(())
    return sorted(p.as_posix() for p in found if not any(part.startswith(".") for part in p.parts))


def collect(
    course: Course, assignment: str, archives: list[Archive], names: Names, log: logging.Logger
) -> Report:
    """Collect every upload of ``archives`` into ``course``; see the module's docstring."""
    report = Report()
    uploads: dict[str, dict[str, list[Candidate[Taken]]]] = defaultdict(lambda: defaultdict(list))
    named: list[Taken] = []
    for archive in archives:
        for entry in archive.entries():
            if entry.kind == "folder":
                continue
            log.info("Parsing file: %s", entry.label)
            found = entry.problem or names.read(archive.name, entry.path)
            if isinstance(found, str):
                report.skip(entry, found, log)
                continue
            named.append((archive, entry, found))
    _, refused = spellings(upload.spelling for _, _, upload in named)
    for archive, entry, found in named:
        if found.spelling in refused:
            report.skip(entry, clash(refused[found.spelling], found.spelling), log)
            continue
        candidate = Candidate(
            (archive, entry, found), found.time, found.resubmission, entry.date_time, entry.order
        )
        uploads[found.student][found.notebook].append(candidate)
    if any(c.item[2].late for notebooks in uploads.values() for cs in notebooks.values() for c in cs):
        report.due = due_date(course, assignment)
        log.info("Due date of %s: %s", assignment, report.due or "none in the gradebook")
    budget = Budget()
    for student, notebooks in sorted(uploads.items()):
        try:
            report.students += _collect_student(course, assignment, student, notebooks, report, budget, log)
        except OSError as error:
            report.failed = f"cannot write {course.submitted_dir(student, assignment)}: {error}"
            break
    return report


def _latest_readable(
    candidates: list[Candidate[Taken]], report: Report, budget: Budget, log: logging.Logger
) -> tuple[Upload, bytes, str | None] | None:
    """The LMS's latest upload that can be read, its bytes, and the line telling the choice (None
    for a single upload); the unreadable ones are skipped and named."""
    ordered, why = latest_first(candidates)
    unreadable: list[str] = []
    for candidate in ordered:
        archive, entry, upload = candidate.item
        try:
            data = archive.read(entry, budget).read()
        except EntryError as error:
            report.skip(entry, str(error), log)
            unreadable.append(entry.label)
            continue
        log.info("Copying from: %s", entry.label)
        if len(ordered) == 1:
            return upload, data, None
        others = [
            c.item[1].label for c in ordered if c is not candidate and c.item[1].label not in unreadable
        ]
        line = f"  {upload.notebook}: {len(ordered)} uploads, took {entry.label} ({why}"
        line += f"; the later {', '.join(unreadable)} cannot be read)" if unreadable else ")"
        line += f" over {', '.join(others)}" if others else ""
        report.counts["duplicates"] += 1
        return upload, data, line
    return None


def _collect_student(
    course: Course,
    assignment: str,
    student: str,
    notebooks: dict[str, list[Candidate[Taken]]],
    report: Report,
    budget: Budget,
    log: logging.Logger,
) -> list[str]:
    """File one student's notebooks and timestamp; their line, and a line per duplicate resolved
    (nothing when none of their uploads can be read)."""
    folder = course.submitted_dir(student, assignment)
    before = read_stamp(folder)
    statuses: dict[str, str] = {}
    uploads: list[Upload] = []
    resolved: list[str] = []
    for notebook, candidates in sorted(notebooks.items()):
        latest = _latest_readable(candidates, report, budget, log)
        if latest is None:
            continue
        upload, data, line = latest
        log.info("  Copying to: %s", folder / notebook)
        statuses[notebook] = file_notebook(folder, notebook, data)
        report.counts[statuses[notebook]] += 1
        uploads.append(upload)
        resolved += [line] if line else []
    if not statuses:
        return []
    kept = kept_files(folder, set(statuses))
    decision = decide([(u.time, u.late) for u in uploads], report.due)
    clauses = [describe(statuses, kept)]
    clauses += [decision.said] if decision.said else []
    time = decision.time
    if kept and before is not None and (time is None or before > time):
        time = before  # the notebooks kept from before came in then
        clauses.append(f"timestamp {before:%Y-%m-%d %H:%M:%S} UTC kept from before")
    if time != before or (time is None and (folder / TIMESTAMP).exists()):
        log.info("Creating timestamp: %s (%s)", folder / TIMESTAMP, stamp(time) if time else "removed")
        write_stamp(folder, time)
    report.counts["students"] += 1
    if decision.late:
        report.counts[decision.late] += 1
    clauses += [f"{u.notebook}: {u.note}" for u in uploads if u.note]
    return [f"{student}: {'; '.join(clauses)}", *resolved]


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


if __name__ == "__main__":
    raise SystemExit(main())
