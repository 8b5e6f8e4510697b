"""The chapter that measures the machine building the book, beyond what tests/book/test_chapters.py checks
of every chapter: each build measures afresh, so not even a single digit may be typed into its prose.
tests/book/test_notebooks.py executes it with the other chapters."""

from __future__ import annotations

import re

from tests.book.test_chapters import prose, read

CHAPTER = "11-measure-your-machine"


def test_prose_has_no_digit_at_all() -> None:
    # test_chapters lets single digits through (factors of formulas, exercise numbers); a figure
    # of this chapter is a measurement, so any digit in its prose would be one typed by hand.
    text = re.sub(r"\b(float|fp)(16|32|64)\b", " ", prose(read(CHAPTER)))
    assert re.findall(r"\d", text) == []


def test_the_figures_shown_come_from_a_measurement() -> None:
    text = read(CHAPTER)
    assert "measure.measure_machine(quick=True" in text
    assert re.search(r"\{eval\}`glued\.\w+`", text), "the chapter shows measured values"


def test_sources_credit_the_stream_benchmark() -> None:
    sources = read(CHAPTER).split("\n## Sources\n", 1)[1]
    assert "McCalpin" in sources and "https://www.cs.virginia.edu/stream/" in sources
