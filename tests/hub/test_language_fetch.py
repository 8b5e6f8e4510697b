"""The hub's fetch in the student's language (hub/language_fetch.py), with nbgrader's own exchange
on a folder: a student whose Lab is Korean fetches the Korean notebooks, and the English one of an
exercise not released in Korean; an English Lab fetches the English release as nbgrader does."""

from __future__ import annotations

import sys
from pathlib import Path

from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from tests.support.make_targets import ROOT

sys.path.insert(0, str(ROOT / "hub"))

from language_fetch import LanguageFetch, translated_outbound


def fetched(tmp_path: Path, language: str) -> dict[str, str]:
    """What a student whose Lab is in ``language`` fetches: each file's name and text."""
    course = tmp_path / "exchange" / "roofline"
    for folder, texts in (
        (course / "outbound" / "roofline", {"ex1.ipynb": "en 1", "ex2.ipynb": "en 2"}),
        (Path(translated_outbound(str(course), "ko", "roofline")), {"ex1.ipynb": "ko 1"}),
    ):
        folder.mkdir(parents=True)
        for name, text in texts.items():
            (folder / name).write_text(text)
    config = Config()
    config.CourseDirectory.course_id = "roofline"
    config.CourseDirectory.assignment_id = "roofline"
    config.Exchange.root = str(tmp_path / "exchange")
    config.Exchange.assignment_dir = str(tmp_path / "home")
    config.Exchange.cache = str(tmp_path / "cache")
    config.LanguageFetch.language = language
    LanguageFetch(
        coursedir=CourseDirectory(config=config), authenticator=Authenticator(config=config), config=config
    ).start()
    home = tmp_path / "home" / "roofline"
    return {p.name: p.read_text() for p in sorted(home.iterdir())}


def test_a_korean_lab_fetches_the_korean_notebooks_and_english_where_none(tmp_path: Path) -> None:
    assert fetched(tmp_path, "ko") == {"ex1.ipynb": "ko 1", "ex2.ipynb": "en 2"}


def test_an_english_lab_fetches_the_english_release(tmp_path: Path) -> None:
    assert fetched(tmp_path, "en") == {"ex1.ipynb": "en 1", "ex2.ipynb": "en 2"}
