"""The languages of the course, declared once: every part that speaks more than English reads them here.

The book's editions (English at the site's root, each other language under ``/<code>/``), the
chapters and exercises released in each language, the explorers' labels, the figures drawn in each
edition's language, the grading feedback and ``make lab`` all take their languages from
:data:`LANGUAGES`. A language's words live in its catalogs, ``locale/<code>/`` (and the grading
package's ``grading/roofline_grading/locale/<code>/``); adding a language is a line here and its
catalogs (README, "Adding a language").

>>> CODES[:2], TRANSLATED[:1]
(('en', 'ko'), ('ko',))
>>> language("ko").name
'한국어'
>>> language("xx")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rooflinekit.errors.RooflineInputError: language must be one of en, ko... (got 'xx')
"""

from __future__ import annotations

from dataclasses import dataclass

from rooflinekit.errors import RooflineInputError


@dataclass(frozen=True)
class Language:
    """A language of the course.

    ``code`` names its catalogs' folder (``locale/<code>/``) and its edition's (``/<code>/``);
    ``name`` is its name in itself (the book's language switcher); ``fonts`` are the fonts
    matplotlib may draw its letters with, most wanted first (none for a language whose letters
    every font has).
    """

    code: str
    name: str
    fonts: tuple[str, ...] = ()


ENGLISH = Language("en", "English")
"""The code's own language, the book's primary edition at the site's root."""

LANGUAGES: tuple[Language, ...] = (
    ENGLISH,
    Language("ko", "한국어", fonts=(
        "NanumGothic", "NanumBarunGothic",  # Debian's fonts-nanum
        "Noto Sans CJK KR", "Noto Sans KR", "Malgun Gothic", "Apple SD Gothic Neo", "AppleGothic", "UnDotum",
        "Baekmuk Gulim",
    )),
)
"""Every language of the course, English first."""

CODES: tuple[str, ...] = tuple(each.code for each in LANGUAGES)
TRANSLATED: tuple[str, ...] = CODES[1:]
"""The languages English is translated into."""


def language(code: str) -> Language:
    """The language whose code is ``code``; a one-line error naming the course's languages otherwise."""
    for each in LANGUAGES:
        if each.code == code:
            return each
    raise RooflineInputError("language", "one of " + ", ".join(CODES), code)
