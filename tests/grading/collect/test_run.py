"""One collect (roofline_grading.collect.run) on a zip made here: each student's latest upload filed,
the lines an instructor reads, a second spelling of an id refused."""

from __future__ import annotations

import io
import logging
import zipfile
from pathlib import Path

from traitlets.config import Config

from roofline_grading.autograde.gradebook import Course
from roofline_grading.collect.archives import Archive
from roofline_grading.collect.names import Names
from roofline_grading.collect.run import collect

LOG = logging.getLogger("test_run")
NOTEBOOK = "ex1_int8_matmul.ipynb"


def run(tmp_path: Path, *entries: tuple[str, bytes]) -> tuple[list[str], Path]:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as made:
        for name, content in entries:
            made.writestr(name, content)
    course = Course(
        tmp_path, "c", None, tmp_path / "submitted", tmp_path / "autograded", tmp_path / "exercises", None
    )
    config = Config()
    config.ZipCollectApp.collector_plugin = "roofline_grading.collect.lms.Canvas"
    names = Names(config, tmp_path, "a", [NOTEBOOK], LOG)
    report = collect(course, "a", [Archive(Path("lms.zip"), zipfile.ZipFile(data), 0)], names, LOG)
    return report.lines("a", 1), tmp_path / "submitted"


def test_each_student_is_filed_with_the_latest_upload_and_a_line_each(tmp_path: Path) -> None:
    lines, submitted = run(
        tmp_path,
        (f"alice_1_2_{NOTEBOOK}", b"first"),
        (f"alice_1_3_{NOTEBOOK[:-6]}-1.ipynb", b"again"),
        (f"bob_{NOTEBOOK}", b"bob's"),
        ("index.html", b"<p>"),
    )
    assert (submitted / "alice" / "a" / NOTEBOOK).read_bytes() == b"again"
    assert (submitted / "bob" / "a" / NOTEBOOK).read_bytes() == b"bob's"
    assert lines[0] == f"alice: {NOTEBOOK} collected"
    assert (
        lines[1].startswith(f"  {NOTEBOOK}: 2 uploads, took lms.zip:alice_1_3_")
        and "re-upload -1" in lines[1]
    )
    assert "skipped lms.zip:index.html: not a notebook (.ipynb)" in lines
    assert lines[-1] == "collect: 2 students (2 collected) from 1 zip; 1 entry skipped; 1 duplicate resolved"


def test_a_second_spelling_of_an_id_is_refused_and_the_first_filed(tmp_path: Path) -> None:
    lines, submitted = run(tmp_path, (f"alice_{NOTEBOOK}", b"alice"), (f"ALICE_{NOTEBOOK}", b"other"))
    assert (submitted / "alice" / "a" / NOTEBOOK).read_bytes() in (b"alice", b"other")
    assert sum(line.startswith("skipped") for line in lines) == 1
