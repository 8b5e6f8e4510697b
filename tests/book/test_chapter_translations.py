"""The chapters in Korean as JupyterLab opens them: the English chapters' code, the catalogs' prose.

``make lab`` writes them with tools/chapter_translations.py; these tests write them into a
scratch folder, check that only the prose differs, and run one as a notebook.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import chapter_translations as tool  # tools/chapter_translations.py
import jupytext
import pytest
from babel.messages.pofile import read_po, write_po
from exercise_translations import MissingTranslations

from tests.support.book_site import ROOT, cell_timeout
from tests.support.kernels import execute

# its module-scoped fixtures, built once: one worker
pytestmark = pytest.mark.xdist_group("chapter-translations")

CHAPTERS = sorted((ROOT / "book" / "chapters").glob("*.md"))
HANGUL = range(0xAC00, 0xD7A4)


@pytest.fixture(scope="module")
def korean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ko-chapters")
    assert len(tool.write_all("ko", out)) == len(CHAPTERS)
    return out


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_a_korean_chapter_has_the_english_code_and_korean_prose(korean: Path, chapter: Path) -> None:
    english = jupytext.read(chapter)
    translated = jupytext.read(korean / chapter.name)
    assert translated.metadata.get("kernelspec") == english.metadata.get("kernelspec")
    assert [c.cell_type for c in translated.cells] == [c.cell_type for c in english.cells]
    for en, ko in zip(english.cells, translated.cells, strict=True):
        if en.cell_type == "code":
            assert ko.source == en.source
        elif any(ch.isalpha() for ch in en.source.replace("$", "")):
            # labels and math stay as they are; every sentence is Korean
            assert any(ord(ch) in HANGUL for ch in ko.source), en.source[:120]
    labels = [line for c in english.cells if c.cell_type == "markdown" for line in c.source.splitlines()
              if line.startswith("(") and line.endswith(")=")]
    text = (korean / chapter.name).read_text(encoding="utf-8")
    assert all(label in text for label in labels)


@pytest.mark.book
def test_a_korean_chapter_runs_as_a_notebook(korean: Path) -> None:
    """The first chapter, opened as JupyterLab opens it (jupytext), runs top to bottom."""
    notebook = jupytext.read(korean / CHAPTERS[0].name)
    execute(notebook, cwd=ROOT, timeout=cell_timeout())
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []


def test_a_sentence_without_translation_is_named(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "locale", tmp_path / "locale", ignore=shutil.ignore_patterns("*.mo"))
    catalog_file = tmp_path / "locale" / "ko" / "LC_MESSAGES" / "book" / "chapters" / f"{CHAPTERS[0].stem}.po"
    with catalog_file.open("rb") as handle:
        catalog = read_po(handle)
    message = next(m for m in catalog if m.id and len(str(m.id)) > 40)
    message.string = ""
    with catalog_file.open("wb") as handle:
        write_po(handle, catalog, width=0)
    with pytest.raises(MissingTranslations, match=re.escape(str(message.id)[:40])):
        tool.translate_chapter(CHAPTERS[0], "ko", root=tmp_path)
