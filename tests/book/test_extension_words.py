"""The words the book's extension adds to a page come from its catalog, in the edition's language.

A page not yet translated carries a notice, the search field a placeholder, a folded code cell
its "Show code cell source" and the language switcher a name: none of them is in a page's
catalog, so the extension looks them up in ``locale/<lang>/LC_MESSAGES/book-extension.po``
(roofline_book.code_catalogs.BOOK_EXTENSION).
A small site is built here with Sphinx and the extension's editions and accessibility parts, in
English and in Korean, with the course's Korean catalog.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from roofline_book.code_catalogs import BOOK_EXTENSION

from rooflinekit.languages import CODES, ENGLISH

pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[2]
CONF = """\
extensions = ["myst_nb", "sphinx_book_theme"]
html_theme = "sphinx_book_theme"
nb_execution_mode = "off"


def setup(app):
    from roofline_book import accessibility, editions

    editions.setup(app)
    accessibility.setup(app)
"""
PAGE = """\
---
jupytext: {text_representation: {format_name: myst}}
kernelspec: {name: python3, display_name: Python 3}
---
# A page

```{code-cell} ipython3
:tags: [hide-input]
1 + 1
```
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("site")
    (source / "conf.py").write_text(CONF, encoding="utf-8")
    (source / "index.md").write_text(PAGE, encoding="utf-8")
    catalog = BOOK_EXTENSION.path(source, "ko")
    catalog.parent.mkdir(parents=True)
    shutil.copy(BOOK_EXTENSION.path(ROOT, "ko"), catalog)
    for language in (ENGLISH.code, "ko"):
        subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-D", f"language={language}",
                        str(source), str(source / "_build" / language)], check=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT / "book" / "_ext")})
    return source / "_build"


def test_a_korean_page_not_yet_translated_says_so_in_korean(site: Path) -> None:
    korean = (site / "ko" / "index.html").read_text(encoding="utf-8")
    tr = BOOK_EXTENSION.translator(ROOT, "ko")
    assert tr("Not translated") != "Not translated"  # the catalog translates it
    assert tr("Not translated") in korean and "Not translated" not in korean
    assert tr("Search this book...") in korean
    assert tr("Show code cell source") in korean and "Show code cell source" not in korean


def test_the_english_page_has_no_notice_and_myst_nbs_own_words(site: Path) -> None:
    english = (site / "en" / "index.html").read_text(encoding="utf-8")
    assert "rk-not-translated" not in english
    assert "Show code cell source" in english


@pytest.mark.parametrize("language", [ENGLISH.code, "ko"])
def test_the_language_switcher_is_named_in_every_editions_language(site: Path, language: str) -> None:
    page = (site / language / "index.html").read_text(encoding="utf-8")
    words = [BOOK_EXTENSION.translator(ROOT, code)("Language") for code in CODES]
    assert f'<nav class="rk-editions" aria-label="{" / ".join(dict.fromkeys(words))}">' in page
