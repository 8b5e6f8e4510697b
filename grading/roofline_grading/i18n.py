"""The words a student reads, in the language of the notebook they submitted.

English is written in the code; every other language comes from a gettext catalog,
``roofline_grading/locale/<language>/LC_MESSAGES/roofline_grading.po``, kept with Babel's
``pybabel extract`` and ``update`` (``python tools/translations.py update`` runs both) and read
here with Babel's own reader, so no compiled ``.mo`` file has to be kept in step. A message is
marked for extraction by :func:`N_` where it is defined, or by a call to a translator named
``tr`` where it is used. A message missing from a catalog, or still fuzzy, reads in English.

>>> tr = translator("ko")
>>> tr("The answer could not be read.")
'답을 읽을 수 없습니다.'
>>> translator("en")("The answer could not be read.")
'The answer could not be read.'
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

__all__ = ["DOMAIN", "LANGUAGES", "LOCALE", "N_", "catalog_file", "language_of", "translator"]

DOMAIN = "roofline_grading"
LOCALE = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "ko")
"""The languages the course's notebooks and feedback come in; English is the source."""


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is defined; it is translated where it is used."""
    return message


def catalog_file(language: str) -> Path:
    """Where the catalog of ``language`` lives."""
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def _messages(language: str) -> dict[str, str]:
    if language == "en":
        return {}
    from babel.messages.pofile import read_po

    path = catalog_file(language)
    if not path.exists():
        raise ValueError(f"no messages in {language!r}: the languages are {', '.join(LANGUAGES)}")
    with path.open("rb") as handle:
        catalog = read_po(handle)
    return {str(m.id): str(m.string) for m in catalog if m.id and m.string and not m.fuzzy}


def translator(language: str) -> Callable[[str], str]:
    """A function giving each English message in ``language`` (English where it has no translation)."""
    messages = _messages(language)
    return lambda message: messages.get(message, message)


def language_of(metadata: object) -> str:
    """The language a notebook's metadata declares (``{"roofline": {"language": "ko"}}``), if the
    course has it; English otherwise.

    >>> language_of({"roofline": {"language": "ko"}}), language_of({}), language_of({"roofline": 3})
    ('ko', 'en', 'en')
    """
    section = metadata.get("roofline") if isinstance(metadata, dict) else None
    language = section.get("language") if isinstance(section, dict) else None
    return language if language in LANGUAGES else "en"
