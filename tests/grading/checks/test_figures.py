"""``roofline-grading check``'s look at the figures a statement quotes: on a copy of an exercise's
released statements (English and Korean) with one figure written wrong, it says so in one line per
disagreement, in the language where it is; the course's own statements give none."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from roofline_grading import check
from roofline_grading.answer_key import EXERCISES
from roofline_grading.checks import figures
from roofline_grading.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[3]
EX5 = EXERCISES["ex5_h100_threshold"]


def released(course: Path, language: str) -> Path:
    folder = course / "exercises" / ("" if language == "en" else language) / "roofline"
    return folder / f"{EX5.notebook}.ipynb"


def course_with(tmp_path: Path, language: str, right: str, wrong: str) -> Path:
    """A course holding exercise 5's released statements, ``right`` written ``wrong`` once in the
    first Markdown cell that quotes it, in ``language``."""
    for each in LANGUAGES:
        target = released(tmp_path, each)
        target.parent.mkdir(parents=True)
        shutil.copy(released(ROOT, each), target)
    path = released(tmp_path, language)
    notebook = nbformat.read(path, as_version=4)
    cell = next(c for c in notebook.cells if c.cell_type == "markdown" and right in c.source)
    cell.source = cell.source.replace(right, wrong, 1)
    nbformat.write(notebook, path)
    return tmp_path


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_statement_quoting_a_wrong_figure_is_one_line_in_its_language(
    tmp_path: Path, language: str
) -> None:
    course = course_with(tmp_path, language, "3.35 TB/s", "3.53 TB/s")
    assert list(figures.problems(EX5, course, LANGUAGES)) == [
        f"the {language} statement quotes 3.53 TB/s, which given.py does not give (nearest: 3.35e12)"
    ]


def test_a_figure_the_statement_no_longer_quotes_is_named_with_the_nearest_quote(tmp_path: Path) -> None:
    course = tmp_path
    for language in LANGUAGES:
        target = released(course, language)
        target.parent.mkdir(parents=True)
        notebook = nbformat.read(released(ROOT, language), as_version=4)
        for cell in notebook.cells:
            cell.source = cell.source.replace("1,979", "1,997").replace("1979e12", "1997e12")
        nbformat.write(notebook, target)
    lines = list(figures.problems(EX5, course, LANGUAGES))
    assert lines == [
        line
        for language in LANGUAGES
        for line in (
            f"the {language} statement quotes 1.979e15 (given.py) nowhere; the nearest figure it quotes"
            " is 1997e12",
            f"the {language} statement quotes 1997e12, which given.py does not give (nearest: 1.979e15)",
        )
    ]


def test_units_are_read_with_their_prefixes() -> None:
    said = {q.text: q.values[-1] for q in figures.quotes("989 TFLOP/s, 3.35 TB/s, 80 GB, 228 KiB and 1,024")}
    want = {"989 TFLOP/s": 989e12, "3.35 TB/s": 3.35e12, "80 GB": 80e9, "228 KiB": 228 * 1024, "1,024": 1024}
    assert said == want


def test_every_exercise_quotes_its_figures_in_every_language() -> None:
    for exercise in EXERCISES.values():
        assert list(figures.problems(exercise, ROOT, LANGUAGES)) == [], exercise.notebook


def test_check_runs_the_figures_look() -> None:
    assert "the statement's figures" in [title for title, _ in check.CHECKS]
