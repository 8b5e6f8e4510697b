"""The words a student reads, in the language of the notebook they submitted.

The feedback's words are marked and looked up as every word of the course is
(:mod:`rooflinekit.words`): written in English in the code, marked with ``N_`` where they are
defined or passed through a ``tr`` where they are used. What is the grading package's own is
here: its catalog, ``roofline_grading/locale/<language>/LC_MESSAGES/roofline_grading.po``
(``python tools/translations.py update`` brings it up to the code), the languages the feedback
comes in, and the language a notebook declares. A message missing from a catalog, or still fuzzy,
reads in English.

>>> tr = translator("ko")
>>> tr("The answer could not be read.")
'답을 읽을 수 없습니다.'
>>> translator("en")("The answer could not be read.")
'The answer could not be read.'
>>> translator("fr")
Traceback (most recent call last):
...
ValueError: no messages in 'fr': the languages are en, ko
"""

from __future__ import annotations

from pathlib import Path

from rooflinekit.languages import CODES, ENGLISH
from rooflinekit.words import Translate, catalog_translations, english, translator_from

__all__ = ["DOMAIN", "LANGUAGES", "LOCALE", "catalog_file", "language_of", "translator"]

DOMAIN = "roofline_grading"
LOCALE = Path(__file__).resolve().parent / "locale"
LANGUAGES = CODES
"""The languages the course's notebooks and feedback come in (rooflinekit.languages); English,
the first, is the source."""


def catalog_file(language: str) -> Path:
    """Where the catalog of ``language`` lives.

    >>> catalog_file("ko").relative_to(LOCALE).as_posix()
    'ko/LC_MESSAGES/roofline_grading.po'
    """
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def translator(language: str) -> Translate:
    """A function giving each English message in ``language`` (English where it has no translation)."""
    if language == ENGLISH.code:
        return english
    path = catalog_file(language)
    if not path.exists():
        raise ValueError(f"no messages in {language!r}: the languages are {', '.join(LANGUAGES)}")
    return translator_from(catalog_translations(path))


def language_of(metadata: object) -> str:
    """The language a notebook's metadata declares (``{"roofline": {"language": "ko"}}``), if the
    course has it; English otherwise.

    >>> language_of({"roofline": {"language": "ko"}}), language_of({}), language_of({"roofline": 3})
    ('ko', 'en', 'en')
    """
    section = metadata.get("roofline") if isinstance(metadata, dict) else None
    language = section.get("language") if isinstance(section, dict) else None
    return language if language in LANGUAGES else ENGLISH.code
