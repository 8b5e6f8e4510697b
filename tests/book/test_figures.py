"""Every figure on the site says what it shows, in its page's language (roofline_book.figures,
rooflinekit.alt_text): a screen reader reads the figure's words, never a file's hashed name."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from rooflinekit.alt_text import ALT_KEY, alt_in
from rooflinekit.words import catalog_translations, english, translator_from
from tests.support.book_site import ROOT, toc_docnames

HANGUL = re.compile(r"[\uac00-\ud7a3]")
A_FILE = re.compile(r"_images|\.(png|svg|jpe?g)\b|[0-9a-f]{32}")
"""What an alt text that is a file's path looks like: docutils' default, myst-nb's hashed names."""
OPENINGS = {"": re.compile(r"(A chart|\d+ charts)[.:]"), "ko": re.compile(r"플롯( \d+개)?[.:]")}
"""How a figure's words start, in each edition (rooflinekit.alt_text's first sentence)."""


def _figures(page: Path) -> list[tuple[str, str]]:
    """Each ``<img>`` of the page's article: its source and its alt text."""
    article = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").find("article")
    assert article is not None, page
    return [(str(img.get("src", "")), str(img.get("alt", ""))) for img in article.find_all("img")]


def _drawn(docname: str, edition: str) -> list[list[object]]:
    """The alt texts' sentences the executed chapter holds beside its figures, in output order: of
    the figure as drawn in the edition's language (``rooflinekit_translations``) where it was."""
    executed = ROOT / "_build" / "jupyter_execute" / f"{docname}.ipynb"
    if not executed.is_file():
        return []
    notebook = json.loads(executed.read_text(encoding="utf-8"))
    outputs = [output for cell in notebook["cells"] for output in cell.get("outputs", [])]
    described = [output.get("metadata", {}).get("image/png", {}) for output in outputs]
    if edition:
        described = [about.get("rooflinekit_translations", {}).get(edition, about) for about in described]
    return [about[ALT_KEY] for about in described if ALT_KEY in about]


@pytest.mark.parametrize("edition", ["", "ko"])
def test_every_figure_says_what_it_shows_in_its_pages_language(built_site: Path, edition: str) -> None:
    translate = english if not edition else translator_from(
        catalog_translations(ROOT / "locale" / edition / "LC_MESSAGES" / "computed.po"))
    seen = 0
    for docname in toc_docnames():
        figures = _figures(built_site / edition / f"{docname}.html")
        for src, alt in figures:
            assert alt and not A_FILE.search(alt), (docname, src, alt[:100])
            assert OPENINGS[edition].match(alt), (docname, alt[:100])
            assert bool(HANGUL.search(alt)) == (edition == "ko"), (docname, alt[:100])
        # each is the description of the figure the chapter drew, in this edition's words
        expected = [alt_in(sentences, translate) for sentences in _drawn(docname, edition)]
        assert [alt for _, alt in figures] == expected, docname
        seen += len(figures)
    chapters = sorted((ROOT / "book" / "chapters").glob("*.md"))
    shown = sum(path.read_text(encoding="utf-8").count("plt.show()") for path in chapters)
    assert seen == shown, "a figure went missing, or one without words reached the site"


def test_a_chapters_notebook_download_holds_its_outputs(built_site: Path) -> None:
    # myst-nb writes the notebook without its outputs when they come from the execution cache;
    # the build writes them back (roofline_book.editions.write_executed): readers download them.
    for prefix in ("", "ko/"):
        download = built_site / prefix / "_sources" / "book" / "chapters" / "03-roofline-plots.ipynb"
        notebook = json.loads(download.read_text(encoding="utf-8"))
        outputs = [output for cell in notebook["cells"] for output in cell.get("outputs", [])]
        images = [output for output in outputs if "image/png" in output.get("data", {})]
        assert images, f"{download.relative_to(built_site)} has no figure"
