"""One student graded in a worker (roofline_grading.autograde.worker), for what needs no kernel:
a notebook not submitted, one that is not a notebook, files beside them, the submission time."""

from __future__ import annotations

from pathlib import Path

from roofline_grading.autograde.settings import Settings
from roofline_grading.autograde.worker import TIMESTAMP, grade_student
from tests.support.nbgrader_cells import NAME, STRUCTURE


def settings(tmp_path: Path) -> Settings:
    (tmp_path / "scratch").mkdir()
    return Settings(
        None,
        tmp_path / "submitted",
        "a",
        {NAME: STRUCTURE.to_json()},
        tmp_path / "scratch",
        b"k",
        timeout=30,
        notebook_budget=300,
    )


def folder(tmp_path: Path, student: str) -> Path:
    made = tmp_path / "submitted" / student / "a"
    made.mkdir(parents=True)
    return made


def test_a_notebook_not_submitted_scores_zero_without_asking_a_human(tmp_path: Path) -> None:
    folder(tmp_path, "alice")
    result = grade_student(settings(tmp_path), "alice")
    (notebook,) = result.notebooks
    assert notebook.status == "missing" and notebook.grades["check"].auto_score == 0.0
    assert not notebook.grades["check"].needs_manual_grade
    assert result.summary().startswith("0/2")


def test_a_file_that_is_not_a_notebook_scores_zero_for_a_human_to_look_at_and_says_why(
    tmp_path: Path,
) -> None:
    (folder(tmp_path, "bob") / f"{NAME}.ipynb").write_text("{not json")
    (notebook,) = grade_student(settings(tmp_path), "bob").notebooks
    assert notebook.status == "unreadable" and notebook.grades["check"].needs_manual_grade
    assert notebook.problems[0].startswith("not a notebook: invalid JSON")


def test_files_beside_the_notebooks_and_a_time_that_is_not_one_are_ignored_and_named(tmp_path: Path) -> None:
    submitted = folder(tmp_path, "carol")
    (submitted / "notes.txt").write_text("hello")
    (submitted / TIMESTAMP).write_text("soon")
    result = grade_student(settings(tmp_path), "carol")
    assert result.problems == [
        "ignored notes.txt (only the notebooks are graded)",
        "ignored timestamp.txt: 'soon' is not a time",
    ]
    assert result.timestamp is None


def test_the_submission_time_is_read_as_nbgrader_reads_it(tmp_path: Path) -> None:
    (folder(tmp_path, "dave") / TIMESTAMP).write_text("2026-03-02 09:00:00.000000 UTC")
    result = grade_student(settings(tmp_path), "dave")
    assert result.timestamp is not None and result.timestamp.isoformat() == "2026-03-02T09:00:00"
