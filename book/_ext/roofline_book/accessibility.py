"""What the book's pages need to pass axe-core's WCAG 2.1 A and AA rules (tests/book/test_browser.py).

An audit of every page of both editions found three controls the theme and its extensions draw
whose accessible name is not what they show; each is fixed where it is made:

- the search field (pydata-sphinx-theme) showed "Search Ctrl+K" but was named "Search", and the
  colour mode button, named "Color mode", held icons titled "Light", "Dark"... (Font Awesome
  turns a title into text): both are the theme's components, overridden in ``templates/`` by
  copies without the mismatch (WCAG 2.5.3, label in name);
- the sidebar's toggle of a page with sub-pages (the graded exercises) is a ``<summary>`` holding
  only a chevron (pydata-sphinx-theme's toctree), so it had no name at all (WCAG 4.1.2): it is
  named after the page whose sub-pages it shows (:func:`name_toggles`), in the edition's language;
- a hidden cell's "Show code cell source" (myst-nb) was named "Toggle hidden content" by an
  aria-label: the summary is drawn without it, so its name is the text it shows
  (:func:`visit_hidden_cell`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup
from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
from sphinx.application import Sphinx

from roofline_book.code_catalogs import BOOK_EXTENSION
from rooflinekit.languages import TRANSLATED
from rooflinekit.words import N_


def name_toggles(soup: BeautifulSoup) -> BeautifulSoup:
    """``soup`` (the sidebar's navigation) with each toggle that shows only an icon named after
    its page.

    >>> nav = '<li><a href="x">Exercises</a><details><summary><i></i></summary></details></li>'
    >>> print(name_toggles(BeautifulSoup(nav, "html.parser")))
    <li><a href="x">Exercises</a><details><summary aria-label="Exercises"><i></i></summary></details></li>
    """
    for summary in soup.select("li > details > summary"):
        if summary.get_text(strip=True) or summary.get("aria-label"):
            continue  # a part's caption, which names it
        assert summary.parent is not None and summary.parent.parent is not None
        page = summary.parent.parent.find("a", recursive=False)
        if page is not None:
            summary["aria-label"] = page.get_text(" ", strip=True)
    return soup


def _named_toggles(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Wraps the theme's ``generate_toctree_html`` (set in the same event) with :func:`name_toggles`."""
    theirs: Callable[..., Any] | None = context.get("generate_toctree_html")
    if theirs is None:
        return

    @functools.cache
    def generate_toctree_html(kind: str, *args: Any, **kwargs: Any) -> Any:
        html = theirs(kind, *args, **kwargs)  # a BeautifulSoup, whatever its docstring says
        if kind == "sidebar" and isinstance(html, BeautifulSoup):
            name_toggles(html)
        return html

    context["generate_toctree_html"] = generate_toctree_html


PROMPTS = (
    N_("Show code cell source"), N_("Hide code cell source"),
    N_("Show code cell outputs"), N_("Hide code cell outputs"),
    N_("Show code cell content"), N_("Hide code cell content"),
)
"""myst-nb's words on a folded cell (``nb_code_prompt_show``/``_hide``), which myst-nb fills in
English, out of the pages' catalogs' reach: translated from the extension's (BOOK_EXTENSION), as
editions.py's notices are."""


def prompt(text: str, language: str | None, root: Path = Path()) -> str:
    """A folded cell's words in ``language`` (the English where there is no translation), from the
    catalog of the book in ``root``.

    >>> root = Path(__file__).resolve().parents[3]  # the course's checkout
    >>> prompt("Show code cell source", "ko", root), prompt("Show code cell source", None, root)
    ('코드 셀 소스 보기', 'Show code cell source')
    """
    if text not in PROMPTS or language not in TRANSLATED:
        return text
    return BOOK_EXTENSION.translator(root, language)(text)


def visit_hidden_cell(self: Any, node: HideCodeCellNode) -> None:
    """myst-nb's ``<details>`` of a hidden cell (``visit_HideCellInput``), its summary named by
    what it shows ("Show code cell source") rather than by an English aria-label, in the page's
    language (:func:`prompt`)."""
    classes = " ".join(node["classes"])
    language = self.builder.config.language
    root = Path(self.builder.srcdir)
    show, hide = (escape(prompt(node[key], language, root)) for key in ("prompt_show", "prompt_hide"))
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append("<summary>\n")
    self.body.append(f'<p class="collapsed admonition-title">{show}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{hide}</p>\n')
    self.body.append("</summary>\n")


def setup(app: Sphinx) -> None:
    app.connect("html-page-context", _named_toggles, priority=900)  # after pydata-sphinx-theme's
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput))
