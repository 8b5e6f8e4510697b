"""`make collect` on LMS zips built here: every innocent student collected, whatever the others do.

Each test runs the real command as the Makefile runs it (``make collect ZIP=...`` on a temporary
course). The zips hold what LMSes and careless or hostile uploads put in them: Canvas's names
with late markers and re-upload suffixes, a symbolic link, a link used as a folder, a path that
leaves the zip, an absolute path, a device, a corrupt member, files that are not notebooks, a
student's notebook in two zips. The last test follows a Canvas ``late_`` upload through collect,
autograde and grades to its penalty.
"""

from __future__ import annotations

import csv
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from roofline_grading.collect.archives import MAX_ENTRY_BYTES
from roofline_grading.collect.submission_times import TIMESTAMP
from tests.support.make_targets import command, make
from tests.support.slips import ASSIGNMENT, ROOT, answered

pytestmark = pytest.mark.grading  # make collect on a course, with nbgrader

NOTEBOOK = "ex1_int8_matmul"
DUE = "2026-03-01 12:00:00 UTC"
NBGRADER = str(Path(sys.executable).parent / "nbgrader")


def released_course(root: Path, config: str = "") -> Path:
    """A course that released one notebook (no gradebook yet), ``config`` added to its nbgrader_config.py."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text() + config)
    (root / "exercises" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", root / "exercises" / ASSIGNMENT)
    return root


def set_due_date(course: Path, due: str = DUE) -> None:
    """The due date, as an instructor sets it (nbgrader runs alembic through PATH)."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    subprocess.run(
        [NBGRADER, "db", "assignment", "add", ASSIGNMENT, f"--duedate={due}"],
        cwd=course,
        check=True,
        capture_output=True,
        env={**os.environ, "PATH": path},
    )


def entry(name: str, date: tuple[int, int, int, int, int, int] = (2026, 3, 1, 9, 0, 0)) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date)
    info.external_attr = (stat.S_IFREG | 0o644) << 16
    info.create_system = 3
    return info


def special(name: str, mode: int, data: str = "") -> tuple[zipfile.ZipInfo, str]:
    """An entry a Unix zip marks as a link or a device."""
    info = entry(name)
    info.external_attr = (mode | 0o777) << 16
    return info, data


def corrupt(path: Path, name: str) -> None:
    """Damage the stored bytes of the member ``name`` (its CRC no longer matches)."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    data = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + 2 : start + 6] = b"XXXX"
    path.write_bytes(bytes(data))


def notebook(name: str) -> str:
    return f"{name}_{NOTEBOOK}.ipynb"


SKIPPED = {
    "subs/link": "a symbolic link",
    "subs/link/eve_ex1_int8_matmul.ipynb": "which the zip also holds as a symbolic link",
    "../mallory_ex1_int8_matmul.ipynb": "leaves the zip",
    "/abs/zed_ex1_int8_matmul.ipynb": "an absolute path",
    "subs/dev": "not a regular file",
    "subs/bob_ex1_int8_matmul.ipynb": "cannot be read",
    "subs/notes.txt": "not a notebook",
    "subs/alice_ex9_unknown.ipynb": "is not a notebook of roofline",
    "__MACOSX/subs/._alice_ex1_int8_matmul.ipynb": "macOS metadata",
}
"""The bad entries of the first zip, each with words its line must hold."""


def lms_zips(folder: Path) -> tuple[Path, Path]:
    """Two Canvas-style downloads: the class with its broken entries, and a later one."""
    first, later = folder / "lms.zip", folder / "later.zip"
    with zipfile.ZipFile(first, "w") as archive:
        archive.writestr(entry(f"subs/{notebook('alice')}"), '{"from": "alice"}')
        # Canvas's re-uploads: -2 is the latest, though it comes first and its date is earlier.
        archive.writestr(entry(f"subs/carol_111_222_{NOTEBOOK}-2.ipynb"), '{"from": "carol -2"}')
        archive.writestr(entry(f"subs/carol_111_222_{NOTEBOOK}.ipynb"), '{"from": "carol"}')
        archive.writestr(entry(f"subs/carol_111_222_{NOTEBOOK}-1.ipynb", (2026, 3, 5, 0, 0, 0)), "{}")
        archive.writestr(entry(f"subs/dave_late_1004_2004_{NOTEBOOK}.ipynb"), '{"from": "dave"}')
        archive.writestr(entry(f"subs\\{notebook('frank')}"), '{"from": "frank"}')  # made on Windows
        archive.writestr(entry(notebook("erin"), (2026, 3, 2, 9, 0, 0)), '{"from": "erin, later date"}')
        archive.writestr(entry(notebook("gus")), '{"from": "gus, first zip"}')
        archive.writestr(*special("subs/link", stat.S_IFLNK, "/etc"))
        archive.writestr(entry("subs/link/eve_ex1_int8_matmul.ipynb"), '{"from": "eve"}')
        archive.writestr(entry("../mallory_ex1_int8_matmul.ipynb"), '{"from": "mallory"}')
        archive.writestr(entry("/abs/zed_ex1_int8_matmul.ipynb"), '{"from": "zed"}')
        archive.writestr(*special("subs/dev", stat.S_IFCHR))
        archive.writestr(
            entry("subs/bob_ex1_int8_matmul.ipynb"), '{"from": "bob", "pad": "' + "x" * 64 + '"}'
        )
        archive.writestr(entry("subs/notes.txt"), "notes")
        archive.writestr(entry("subs/alice_ex9_unknown.ipynb"), "{}")
        archive.writestr(entry("__MACOSX/subs/._alice_ex1_int8_matmul.ipynb"), "resource fork")
        archive.writestr(zipfile.ZipInfo("subs/"), "")
    corrupt(first, "subs/bob_ex1_int8_matmul.ipynb")
    with zipfile.ZipFile(later, "w") as archive:
        archive.writestr(entry(notebook("erin"), (2026, 3, 1, 9, 0, 0)), '{"from": "erin, earlier date"}')
        archive.writestr(entry(notebook("gus")), '{"from": "gus, later zip"}')
    return first, later


def submitted(course: Path, student: str) -> str:
    return (course / "submitted" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text()


def test_a_broken_zip_loses_only_its_bad_entries(tmp_path: Path) -> None:
    course = released_course(tmp_path / "course")
    set_due_date(course)
    first, later = lms_zips(tmp_path)
    done = make("collect", course=course, ZIP=f"{first} {later}")
    lines = done.stdout.splitlines()

    students = sorted(p.name for p in (course / "submitted").iterdir())
    assert students == ["alice", "carol", "dave", "erin", "frank", "gus"]
    for name, why in SKIPPED.items():
        (line,) = [line for line in lines if line.startswith(f"skipped lms.zip:{name}: ")]
        assert why in line, line
    # the LMS's latest of each duplicate: the highest re-upload, then the later date, then the later zip
    assert submitted(course, "carol") == '{"from": "carol -2"}'
    assert submitted(course, "erin") == '{"from": "erin, later date"}'
    assert submitted(course, "gus") == '{"from": "gus, later zip"}'
    assert f"took lms.zip:subs/carol_111_222_{NOTEBOOK}-2.ipynb (re-upload -2 is the latest)" in done.stdout
    assert "its date in the zip is the latest" in done.stdout
    assert "it comes from the zip named last" in done.stdout
    # dave is late by Canvas's marker, and the zip gives no time: 1 s after the due date
    dave = course / "submitted" / "dave" / ASSIGNMENT / TIMESTAMP
    assert dave.read_text().strip() == "2026-03-01 12:00:01.000000 UTC"
    assert "dave: ex1_int8_matmul.ipynb collected; late (LMS marker): 2026-03-01 12:00:01 UTC" in done.stdout
    assert not any(
        (course / "submitted" / s / ASSIGNMENT / TIMESTAMP).exists() for s in students if s != "dave"
    )
    # nothing was written outside the students' folders, and no link was created
    assert not (tmp_path / "mallory_ex1_int8_matmul.ipynb").exists()
    assert not list((tmp_path / "course").rglob("*mallory*")) and not list(tmp_path.rglob("zed*"))
    assert not [p for p in course.rglob("*") if p.is_symlink()]
    # quiet: a line per student and duplicate resolved, a line per skipped entry, and the summary
    assert len(lines) == 6 + 3 + len(SKIPPED) + 1 and done.stderr == ""
    assert lines[-1].startswith(
        "collect: 6 students (6 collected) from 2 zips; 9 entries skipped; 3 duplicates"
    )
    assert "1 marked late with no time of their own, stamped 1 s after the due date" in lines[-1]


def test_collecting_again_replaces_and_keeps_and_says_so(tmp_path: Path) -> None:
    course = released_course(tmp_path / "course")
    (course / "exercises" / ASSIGNMENT / "ex2_int8_weights.ipynb").write_text("{}")
    first, again = tmp_path / "first.zip", tmp_path / "again.zip"
    with zipfile.ZipFile(first, "w") as archive:
        archive.writestr(notebook("alice"), "1")
        archive.writestr("alice_ex2_int8_weights.ipynb", "2")
    with zipfile.ZipFile(again, "w") as archive:
        archive.writestr(notebook("alice"), "1 again")
    make("collect", course=course, ZIP=str(first))
    done = make("collect", course=course, ZIP=str(again))
    assert done.stdout.startswith("alice: ex1_int8_matmul.ipynb replaced; 1 file kept from before\n")
    assert submitted(course, "alice") == "1 again"
    assert (course / "submitted" / "alice" / ASSIGNMENT / "ex2_int8_weights.ipynb").read_text() == "2"
    done = make("collect", course=course, ZIP=str(again))
    assert done.stdout.startswith("alice: ex1_int8_matmul.ipynb unchanged; 1 file kept from before\n")


TIMED = (
    r"^.*/(?P<student_id>[^/_]+)_(?P<late>late_)?attempt_(?P<timestamp>[0-9\-]+)_"
    r"(?P<file_id>ex[0-9]+_[a-z0-9_]+?)(?:-[0-9]+)?\.ipynb$"
)
"""A pattern with a ``timestamp`` group (nbgrader's documented example, with a late marker)."""


def test_times_in_the_names_become_timestamps_and_late_markers_keep_a_later_one(tmp_path: Path) -> None:
    course = released_course(tmp_path / "course", f"\nc.FileNameCollectorPlugin.named_regexp = r'{TIMED}'\n")
    set_due_date(course)
    archive_path = tmp_path / "timed.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr(f"hana_attempt_2026-03-01-11-00-00_{NOTEBOOK}.ipynb", "the later one")
        archive.writestr(f"hana_attempt_2026-02-27-10-00-00_{NOTEBOOK}-1.ipynb", "an earlier re-upload")
        archive.writestr(f"ivan_late_attempt_2026-03-03-08-00-00_{NOTEBOOK}.ipynb", "late, with its time")
        archive.writestr(
            f"june_late_attempt_2026-02-28-08-00-00_{NOTEBOOK}.ipynb", "marked late, time before"
        )
        archive.writestr(f"lee_attempt_2026-13-45-99-99-99_{NOTEBOOK}.ipynb", "not a time")
    done = make("collect", course=course, ZIP=str(archive_path))

    def stamp(student: str) -> str | None:
        path = course / "submitted" / student / ASSIGNMENT / TIMESTAMP
        return path.read_text().strip() if path.exists() else None

    assert submitted(course, "hana") == "the later one"
    assert "(its time 2026-03-01 11:00:00 UTC is the latest)" in done.stdout
    assert stamp("hana") == "2026-03-01 11:00:00.000000 UTC"
    assert stamp("ivan") == "2026-03-03 08:00:00.000000 UTC"
    assert (
        "ivan: ex1_int8_matmul.ipynb collected; late (LMS marker), submitted 2026-03-03 08:00:00 UTC"
        in done.stdout
    )
    assert stamp("june") == "2026-03-01 12:00:01.000000 UTC"
    assert "its own time is not after it" in done.stdout
    assert stamp("lee") is None and "is not a time: ignored" in done.stdout


MOODLE = 'c.ZipCollectApp.collector_plugin = "roofline_grading.collect.lms.Moodle"'
"""The line the instructor's guide gives for Moodle."""


def test_the_guides_moodle_line_reads_moodles_folders(tmp_path: Path) -> None:
    assert MOODLE in (ROOT / "book" / "instructor-guide.md").read_text()
    course = released_course(tmp_path / "course", f"\n{MOODLE}\n")
    archive_path = tmp_path / "moodle.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr(f"Jane Smith_1234567_assignsubmission_file/{NOTEBOOK}.ipynb", "jane")
        archive.writestr(f"Min-jun Kim_7654321_assignsubmission_file_/{NOTEBOOK}-1.ipynb", "min-jun")
        archive.writestr("Jane Smith_1234567_onlinetext_/onlinetext.html", "<p>hi</p>")
    done = make("collect", course=course, ZIP=str(archive_path))
    assert submitted(course, "jane smith") == "jane" and submitted(course, "min-jun kim") == "min-jun"
    assert "skipped moodle.zip:Jane Smith_1234567_onlinetext_/onlinetext.html: not a notebook" in done.stdout


FULLWIDTH_ALICE = "\uff41lice"  # the first letter fullwidth, as an input method may type it


def test_one_student_id_spelled_two_ways_is_filed_once_and_the_other_spelling_refused(
    tmp_path: Path,
) -> None:
    """Ids are filed normalised (Unicode NFKC, case-folded): a spelling met alone is filed as its
    normalised id; a second spelling of an id the zips already hold is refused, each of its
    entries in one line naming both spellings, and never replaces the first's notebook."""
    course = released_course(tmp_path / "course")
    archive_path = tmp_path / "lms.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr(notebook(FULLWIDTH_ALICE), '{"from": "fullwidth alice"}')
        archive.writestr(notebook("alice"), '{"from": "alice"}')
        archive.writestr(notebook("ALICE"), '{"from": "ALICE"}')
        archive.writestr(notebook("\uff22\uff2f\uff22"), '{"from": "fullwidth BOB"}')
    done = make("collect", course=course, ZIP=str(archive_path))
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["alice", "bob"]
    assert submitted(course, "alice") == '{"from": "alice"}'
    assert submitted(course, "bob") == '{"from": "fullwidth BOB"}'
    for spelling in (FULLWIDTH_ALICE, "ALICE"):
        (line,) = [line for line in done.stdout.splitlines() if f"{notebook(spelling)}:" in line]
        said = f"the student ids 'alice' and {spelling!r} are one id once normalised"
        assert line.startswith(f"skipped lms.zip:{notebook(spelling)}: {said}"), line
        assert f"case-folded: 'alice'): {spelling!r} refused" in line
    assert "2 students (2 collected)" in done.stdout and "2 entries skipped" in done.stdout


def test_the_class_list_is_imported_with_normalised_ids_or_refused_with_two_spellings(
    tmp_path: Path,
) -> None:
    course = released_course(tmp_path / "course")
    roster = tmp_path / "students.csv"
    roster.write_text(f"id,first_name,email\nALICE,Alice,a@example.org\n{FULLWIDTH_ALICE},Eve,e@example.org\n")
    done = subprocess.run(
        command("roster", course=course, ROSTER=str(roster)), capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = [line for line in done.stderr.splitlines() if not line.startswith("make")]
    assert line.startswith(f"roster: the student ids 'ALICE' and {FULLWIDTH_ALICE!r} are one id"), line
    assert f"{FULLWIDTH_ALICE!r} refused" in line
    assert not (course / "gradebook.db").exists()

    roster.write_text("id,first_name,email\nALICE,Alice,a@example.org\n\uff22ob,Bob,b@example.org\n")
    make("roster", course=course, ROSTER=str(roster))
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        imported = sorted((s.id, s.first_name) for s in gradebook.students)
    assert imported == [("alice", "Alice"), ("bob", "Bob")]


def test_verbose_says_what_happens_to_every_entry(tmp_path: Path) -> None:
    course = released_course(tmp_path / "course")
    archive_path = tmp_path / "lms.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr(notebook("alice"), "{}")
        archive.writestr("index.html", "<html>")
    done = make("collect", course=course, ZIP=str(archive_path), VERBOSE="1")
    assert "[collect | INFO] Parsing file: lms.zip:alice_ex1_int8_matmul.ipynb" in done.stderr
    assert "[collect | WARNING] Skipped lms.zip:index.html: not a notebook" in done.stderr
    assert "Copying to: " in done.stderr
    assert done.stdout.splitlines()[0] == "alice: ex1_int8_matmul.ipynb collected"


def failed_collect(course: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command("collect", course=course, **variables), capture_output=True, text=True, check=False
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done


def test_usage_errors_say_what_is_wrong_and_collect_nothing(tmp_path: Path) -> None:
    course = released_course(tmp_path / "course")
    good = tmp_path / "good.zip"
    with zipfile.ZipFile(good, "w") as archive:
        archive.writestr(notebook("alice"), "{}")
    (tmp_path / "text.zip").write_text("not a zip")
    assert "collect: name the downloaded submissions" in failed_collect(course, ZIP="").stderr
    missing = failed_collect(course, ZIP=f"{good} {tmp_path / 'missing.zip'}").stderr
    assert f"collect: {tmp_path / 'missing.zip'}: no such file" in missing
    assert "not a zip file that can be read" in failed_collect(course, ZIP=str(tmp_path / "text.zip")).stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "is not a course directory" in failed_collect(empty, ZIP=str(good)).stderr
    (empty / "nbgrader_config.py").write_text("c = get_config(\n")
    assert "nbgrader_config.py cannot be read: SyntaxError" in failed_collect(empty, ZIP=str(good)).stderr
    assert not (course / "submitted").exists()


def test_an_entry_larger_than_a_notebook_may_be_is_not_read(tmp_path: Path) -> None:
    course = released_course(tmp_path / "course")
    archive_path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive_path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open(notebook("bomb"), "w") as member:
            for _ in range(MAX_ENTRY_BYTES // 2**20 + 1):
                member.write(b"\0" * 2**20)
        archive.writestr(notebook("alice"), "{}")
    assert archive_path.stat().st_size < 2**20
    done = make("collect", course=course, ZIP=str(archive_path))
    assert f"skipped bomb.zip:{notebook('bomb')}: larger than {MAX_ENTRY_BYTES // 2**20} MiB" in done.stdout
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["alice"]


@pytest.mark.grading
def test_a_canvas_late_marker_gets_the_penalty_through_collect_autograde_and_grades(tmp_path: Path) -> None:
    """With a due date and ``penalty_method = "zero"``, Canvas's ``late_`` student scores 0 in the
    export and the on-time one keeps every point (one notebook, two students)."""
    course = tmp_path / "course"
    (course / "solutions" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", course / "solutions" / ASSIGNMENT)
    config = (ROOT / "nbgrader_config.py").read_text() + '\nc.LateSubmissionPlugin.penalty_method = "zero"\n'
    (course / "nbgrader_config.py").write_text(config)
    make("exercises", course=course)
    set_due_date(course)
    archive_path = tmp_path / "canvas.zip"
    model = nbformat.writes(answered(NOTEBOOK))
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr(f"submissions/smithalice_1001_2001_{NOTEBOOK}.ipynb", model)
        archive.writestr(f"submissions/dave_late_1004_2004_{NOTEBOOK}.ipynb", model)
    make("collect", course=course, ZIP=str(archive_path))
    make("autograde", "grades", course=course, GRADES="grades.csv")
    with (course / "grades.csv").open(newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    full = float(rows["smithalice"]["max_score"])
    assert (
        float(rows["smithalice"]["score"]) == full
        and float(rows["smithalice"]["late_submission_penalty"]) == 0
    )
    assert rows["dave"]["timestamp"].startswith("2026-03-01 12:00:01")
    assert float(rows["dave"]["raw_score"]) == full
    assert float(rows["dave"]["late_submission_penalty"]) == full and float(rows["dave"]["score"]) == 0


def test_nbgraders_own_zip_collect_reads_the_lms_plugin_the_course_names(tmp_path: Path) -> None:
    """The LMS plugins are nbgrader's kind: ``nbgrader zip_collect`` takes the course's Canvas class
    through the same line, ``c.ZipCollectApp.collector_plugin``, and files the same student."""
    course = released_course(tmp_path / "course")
    archive = course / "downloaded" / ASSIGNMENT / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "canvas.zip", "w") as made:
        made.writestr(f"smithjane_late_123456_7890123_{NOTEBOOK}-1.ipynb", "jane's")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(
        [NBGRADER, "zip_collect", ASSIGNMENT], cwd=course, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PATH": path}, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Using file collector: Canvas" in done.stderr
    assert submitted(course, "smithjane") == "jane's"
