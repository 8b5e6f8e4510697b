"""The instructor's guide's tables of points, tolerances and misconceptions, made by the book's
directive ``{answer-key-table}`` from the answer key, in each edition's language: a Sphinx build
of a page holding the three, in English and in Korean."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from roofline_grading.answer_key import EXERCISES

pytestmark = pytest.mark.slow  # two Sphinx builds (seconds)

ROOT = Path(__file__).resolve().parents[2]
PAGE = """Guide
=====

.. answer-key-table:: points

.. answer-key-table:: tolerances

.. answer-key-table:: misconceptions
"""


def built(tmp_path: Path, language: str) -> str:
    """The page's HTML text, built in ``language``."""
    source = tmp_path / language
    source.mkdir()
    (source / "conf.py").write_text(
        "from roofline_book import guide_tables\n\ndef setup(app):\n    guide_tables.setup(app)\n"
    )
    (source / "index.rst").write_text(PAGE)
    os.symlink(ROOT / "exercises", source / "exercises")  # the releases the points are read from
    out = tmp_path / f"{language}-html"
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "book" / "_ext")}
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "-D", f"language={language}", source, out],
        capture_output=True, text=True, check=False, env=environment, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return (out / "index.html").read_text(encoding="utf-8")


def test_the_tables_list_every_notebook_tolerance_and_misconception_in_each_language(tmp_path: Path) -> None:
    english, korean = built(tmp_path, "en"), built(tmp_path, "ko")
    for page in (english, korean):
        for name, exercise in EXERCISES.items():
            assert f'<span class="pre">{name}</span>' in page
            assert all(f"({m.name})" in page for m in exercise.misconceptions)
    assert "total" in english and "1 token either way" in english
    assert "합계" in korean and "위아래로 1 토큰" in korean and "상대 오차 1e-9" in korean
    assert "whole numbers, exact in float64" not in korean
