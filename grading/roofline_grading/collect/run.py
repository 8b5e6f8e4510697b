"""One collect: every upload of the zips filed under ``submitted/``, and the lines that say so.

Each entry is named by the course's LMS plugin (:mod:`~roofline_grading.collect.names`), a
student's several uploads of one notebook resolved (:mod:`~roofline_grading.collect.duplicates`),
the latest filed (:mod:`~roofline_grading.collect.filing`) with its time
(:mod:`~roofline_grading.collect.submission_times`). :mod:`~roofline_grading.collect.cli` is the
command around it.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from roofline_grading.autograde.gradebook import Course
from roofline_grading.collect.archives import Archive, Budget, Entry, EntryError
from roofline_grading.collect.duplicates import Candidate, latest_first
from roofline_grading.collect.filing import describe, file_notebook, kept_files
from roofline_grading.collect.names import Names, Upload
from roofline_grading.collect.submission_times import (
    LATE_BY,
    TIMESTAMP,
    decide,
    due_date,
    read_stamp,
    stamp,
    write_stamp,
)
from roofline_grading.students import clash, spellings

__all__ = ["Report", "collect", "released_notebooks"]

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
                said += (
                    " (each entry skipped, above: c.ZipCollectApp.collector_plugin names the LMS whose"
                    " files it reads)"
                )
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
