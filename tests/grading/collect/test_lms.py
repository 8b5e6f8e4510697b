"""The LMS plugins (roofline_grading.collect.lms): each LMS's names read as that LMS writes them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from traitlets.config import Config

from roofline_grading.collect.lms import CANVAS, Canvas, Moodle, PlainNames
from roofline_grading.collect.names import plugin_class

ROOT = Path(__file__).resolve().parents[3]
BASE = "/c/downloaded/roofline/extracted/lms"


def course_config() -> Config:
    loaded = Config()
    code = (ROOT / "nbgrader_config.py").read_text()
    exec(compile(code, "nbgrader_config.py", "exec"), {"get_config": lambda: loaded})
    return loaded


def test_the_course_reads_canvas_through_nbgraders_own_seam() -> None:
    assert plugin_class(course_config()) is Canvas


@pytest.mark.parametrize(
    ("path", "student", "notebook", "late", "again"),
    [
        ("subs/alice_ex1_int8_matmul.ipynb", "alice", "ex1_int8_matmul", False, 0),
        (
            "subs/smithjane_late_123456_7890123_ex3_roofline_plot-1.ipynb",
            "smithjane",
            "ex3_roofline_plot",
            True,
            1,
        ),
        ("j.doe-3_ex5_h100_threshold.ipynb", "j.doe-3", "ex5_h100_threshold", False, 0),
        ("bob_42_ex2_int8_weights.ipynb", "bob", "ex2_int8_weights", False, 0),
        ("smithjane_LATE_123_456_ex4_batched_matmul-2.ipynb", "smithjane", "ex4_batched_matmul", True, 2),
        ("김민준_123_456_ex2_int8_weights.ipynb", "김민준", "ex2_int8_weights", False, 0),
    ],
)
def test_canvas_names_give_student_notebook_late_marker_and_reupload(
    path: str, student: str, notebook: str, late: bool, again: int
) -> None:
    found = Canvas().collect(f"{BASE}/{path}")
    assert found is not None
    assert (found["student_id"], found["file_id"], found["late"], found["resubmission"]) == (
        student,
        notebook,
        late,
        again,
    )


@pytest.mark.parametrize(
    "path",
    [
        "__MACOSX/._alice_ex1_int8_matmul.ipynb",
        "alice_ex1_int8_matmul.ipynb.txt",
        "ex1_int8_matmul.ipynb",
        "alice_notes.ipynb",
    ],
)
def test_canvas_reads_nothing_from_what_is_not_a_submission(path: str) -> None:
    assert Canvas().collect(f"{BASE}/{path}") is None


def test_a_pattern_of_the_courses_own_replaces_canvass_and_may_give_the_late_group() -> None:
    config = Config()
    config.FileNameCollectorPlugin.named_regexp = (
        r"^.*/(?P<student_id>[^/_]+)_(?P<late>late_)?attempt_(?P<timestamp>[0-9\-]+)_"
        r"(?P<file_id>ex[0-9]+_[a-z0-9_]+)\.ipynb$"
    )
    found = Canvas(config=config).collect(
        f"{BASE}/ivan_late_attempt_2026-03-03-08-00-00_ex1_int8_matmul.ipynb"
    )
    assert found is not None and found["late"] is True and found["timestamp"] == "2026-03-03-08-00-00"


@pytest.mark.parametrize(
    "path",
    [
        "Jane Smith_1234567_assignsubmission_file_/ex1_int8_matmul.ipynb",  # Moodle 3.1+: a folder each
        "Jane Smith_1234567_assignsubmission_file/sub/ex1_int8_matmul.ipynb",  # a subfolder kept
        "Jane Smith_1234567_assignsubmission_file_ex1_int8_matmul.ipynb",  # "in folders" off
    ],
)
def test_moodle_reads_the_full_name_from_its_folders_and_its_flat_names(path: str) -> None:
    found = Moodle().collect(f"{BASE}/{path}")
    assert found is not None and (found["student_id"], found["file_id"]) == ("Jane Smith", "ex1_int8_matmul")
    assert not found.get("late") and not found.get("resubmission")


def test_moodle_under_blind_marking_names_the_student_by_participant_number() -> None:
    config = Config()
    config.Moodle.student = "participant"
    found = Moodle(config=config).collect(
        f"{BASE}/Participant_1234567_assignsubmission_file_/ex1_int8_matmul.ipynb"
    )
    assert found is not None and found["student_id"] == "1234567"


def test_moodle_skips_the_online_text_beside_the_files() -> None:
    assert Moodle().collect(f"{BASE}/Jane Smith_1234567_onlinetext_/onlinetext.html") is None


def test_plain_names_take_no_lms_marker() -> None:
    assert PlainNames().collect(f"{BASE}/alice_ex1_int8_matmul.ipynb") == {
        "student_id": "alice",
        "file_id": "ex1_int8_matmul",
    }
    assert PlainNames().collect(f"{BASE}/alice_late_12_ex1_int8_matmul.ipynb") is None


def test_the_guide_shows_each_plugin_and_how_to_choose_one() -> None:
    guide = (ROOT / "book" / "instructor-guide.md").read_text()
    for plugin in (Canvas, Moodle, PlainNames):
        assert f'c.ZipCollectApp.collector_plugin = "roofline_grading.collect.lms.{plugin.__name__}"' in guide
    assert re.search(r"class \w+\(FileNameCollectorPlugin\)", guide), "the guide's example of a new LMS"
    assert CANVAS in guide, "the guide quotes Canvas's pattern exactly"
