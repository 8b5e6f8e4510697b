"""The explorers' labels in every language of the course.

The words are written in English in the code, marked as :mod:`rooflinekit.words` says
(``tr("...")`` where they are shown, ``N_("...")`` where they are defined; in the scripts of
``assets/``, ``tr("...")`` and ``N_("...")`` too). Their translations live in the gettext catalog
``locale/<lang>/LC_MESSAGES/explorer-labels.po``, kept with Babel by
``tools/explorer_labels.py``, which also writes them to ``assets/labels.json``: that file ships
with the package, so the explorers need no Babel when they run.

- The live explorers take ``language=`` (:func:`check_language`) and show their words through
  :func:`translator`;
- the kernel-free pages carry :func:`tables` (every language's labels), and their scripts pick
  the page's language (``<html lang>``), or English when it has no translation.

>>> translator("ko")("chip"), translator("en")("chip")
('칩', 'chip')
>>> check_language("xx")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rooflinekit.errors.RooflineInputError: language must be one of en, ko... (got 'xx')
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from html import escape

from rooflinekit.errors import RooflineInputError
from rooflinekit.explorer.page import asset
from rooflinekit.languages import CODES
from rooflinekit.languages import ENGLISH as _ENGLISH
from rooflinekit.languages import language as _language
from rooflinekit.words import Translate, english, translator_from

ENGLISH = _ENGLISH.code
LANGUAGES: tuple[str, ...] = CODES
"""The languages of the course (:mod:`rooflinekit.languages`): English, the code's own, and those
with a catalog."""


def check_language(language: str) -> str:
    """``language`` when the explorers speak it; otherwise a one-line error naming the accepted ones."""
    if language not in LANGUAGES:
        raise RooflineInputError("language", "one of " + ", ".join(LANGUAGES), language)
    return language


@cache
def tables() -> dict[str, dict[str, str]]:
    """Every language's labels, English text to translation (``assets/labels.json``).

    >>> sorted(tables()) == sorted(set(LANGUAGES) - {"en"})
    True
    """
    data: dict[str, dict[str, str]] = json.loads(asset("labels.json"))
    return data


def translator(language: str) -> Translate:
    """The labels in ``language``: a text's translation, or the English text where it has none."""
    return translator_from(tables().get(check_language(language), {}))


@cache
def _font_for(language: str) -> str | None:
    """An installed font matplotlib can draw ``language``'s letters with ("" for a language every
    font has the letters of, such as English), or None."""
    wanted = _language(language).fonts
    if not wanted:
        return ""
    from matplotlib import font_manager

    installed = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in wanted if name in installed), None)


@contextmanager
def plot_words(language: str) -> Iterator[Translate]:
    """Inside it, matplotlib draws ``language``'s letters (a font that has them, as a fallback of
    the usual one), and the translator it gives is the plot's: ``language``'s labels, or English
    on a machine without such a font (matplotlib would otherwise draw empty boxes).
    """
    font = _font_for(check_language(language))
    if font is None:
        yield english
        return
    if not font:  # the usual font has its letters
        yield translator(language)
        return
    from matplotlib import rc_context

    with rc_context({"font.family": ["DejaVu Sans", font]}):
        yield translator(language)


def noscript(template: str, code: str, language: str | None = None) -> str:
    """What a page without JavaScript shows in place of a view: ``template`` (its ``{code}`` the
    call that gives the live view) in every language, the stylesheet showing the page's, or in
    ``language`` alone when the view was asked for one.

    >>> noscript("Run {code}.", "explorer()", "ko")
    '<p class="rk-noscript" lang="ko">Run <code>explorer()</code>.</p>'
    """
    by_page = language is None
    paragraphs = "".join(
        f'<p class="rk-noscript{" rk-by-page" if by_page else ""}" lang="{lang}">'
        + escape(translator(lang)(template)).format(code=f"<code>{escape(code)}</code>") + "</p>"
        for lang in (LANGUAGES if language is None else (check_language(language),))
    )
    return (_BY_PAGE_STYLE if by_page else "") + paragraphs


# Without the script, the paragraph in the page's language shows, else the English one.
_BY_PAGE_STYLE = "<style>.rk-by-page:not([lang=en]){display:none}" + "".join(
    f"html:lang({lang}) .rk-by-page[lang=en]{{display:none}}html:lang({lang}) .rk-by-page[lang={lang}]"
    "{display:block}" for lang in LANGUAGES if lang != ENGLISH) + "</style>"
