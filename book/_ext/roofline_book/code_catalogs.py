"""Gettext catalogs of the words code shows, read from the code itself with Babel's extractors.

Two catalogs are kept this way: the explorers' labels (tools/explorer_labels.py) and the words
and sentences the chapters compose (:mod:`roofline_book.computed`). Both find their English
texts by reading the code, so every branch's words are found, not only those some run showed,
and both name the same gaps: a text missing from the catalog, fuzzy (its English changed),
untranslated, a translation whose placeholders are not the English ones, or one with a number
its English has not.

>>> from babel.messages.catalog import Message
>>> [gap(Message("{n} chips", s)) for s in ("칩 {n}개", "", "칩 8개", "칩 {n}개, 8개")]
[None, 'untranslated', 'placeholders differ from the English ones', 'number 8 typed into the translation']
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

from roofline_book.translations import typed_numbers
from rooflinekit.errors import RooflineInputError
from rooflinekit.words import placeholders

COMMENT_TAGS = ["Translators:"]
"""A comment so tagged, on the lines just above a text, reaches the translator."""


def extract(root: Path, sources: Mapping[str, Any], keywords: Mapping[str, Any], domain: str) -> Catalog:
    """Every text of the files ``sources`` names (a glob under ``root`` -> Babel's extraction
    method), with where it is written and its translators' comments. Directories whose name
    starts with ``_`` or ``.`` are left out."""
    catalog = Catalog(domain=domain, project="roofline course", fuzzy=False)
    for pattern, method in sources.items():
        for path in sorted(root.glob(pattern)):
            if any(part[0] in "_." for part in path.relative_to(root).parts[:-1]):
                continue
            found = extract_from_file(method, str(path), keywords=keywords, comment_tags=COMMENT_TAGS,
                                      strip_comment_tags=True)
            for _, text, comments, _ in found:
                flags = ["python-brace-format"] if _names(text) else []
                # a text written twice is one message, with both places (Babel merges them)
                catalog.add(text, locations=[(path.relative_to(root).as_posix(), None)], flags=flags,
                            auto_comments=comments)
    return catalog


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle)


def translations(path: Path) -> dict[str, str]:
    """A catalog's usable translations (fuzzy and empty entries left out: the English is kept)."""
    return {str(m.id): str(m.string) for m in read_catalog(path) if m.id and m.string and not m.fuzzy}


def _names(text: str) -> list[str]:
    try:
        return sorted(placeholders(text))
    except RooflineInputError:
        return []


def gap(message: Message) -> str | None:
    """What keeps one entry from being a usable translation, or None."""
    english, translated = str(message.id), str(message.string)
    if message.fuzzy:
        return "fuzzy (its English changed)"
    if not translated:
        return "untranslated"
    try:
        if sorted(placeholders(translated)) != sorted(placeholders(english)):
            return "placeholders differ from the English ones"
    except RooflineInputError:
        return "a brace that is not a {name} placeholder"
    typed = typed_numbers(english, translated)
    if typed:
        return f"number {', '.join(typed)} typed into the translation"
    return None


def problems(what: str, root: Path, path: Path, wanted: Catalog, update: str) -> list[str]:
    """One line per text of ``wanted`` that the catalog at ``path`` lacks or does not translate,
    each starting with ``what`` and ending with the English; ``update`` is the command that
    brings the catalog up to the code."""
    where = path.relative_to(root).as_posix()
    if not path.exists():
        return [f"{what}: {where} is missing; run `{update}`"]
    catalog = read_catalog(path)
    found = []
    for text in wanted:
        if not text.id:
            continue
        entry = catalog.get(text.id)
        if entry is None:
            found.append(f"{what}: not in {where} (run `{update}`): {text.id}")
        elif (why := gap(entry)) is not None:
            found.append(f"{what}: {why} in {where}: {text.id}")
    return found
