"""Gettext catalogs of the words code shows, read from the code itself with Babel's extractors.

The code marks its words as :mod:`rooflinekit.words` says (``tr``, ``N_``, ``message``); this
module is where the catalog tools are told how to find them, once for every catalog
(:data:`CATALOGS`): which files, which marks, and where each language's translations live.

- :data:`EXPLORER_LABELS`: ``tr`` and ``N_`` in rooflinekit and in the explorers' scripts, shipped
  as ``labels.json`` (tools/explorer_labels.py);
- :data:`FEEDBACK`: ``tr`` and ``N_`` in the grading package, read by it at run time
  (tools/translations.py brings it up to date);
- :data:`COMPUTED`: ``message`` templates in rooflinekit and in the chapters' code, and the notes
  and level names of the hardware catalog's data files, which the book's translated editions fill
  (:mod:`roofline_book.computed`);
- :data:`BOOK_EXTENSION`: ``tr`` and ``N_`` in this extension, the words it adds to the site's pages
  (a notice, the search field, a folded cell's summary), read when the site is built.

Reading the code finds every branch's words, not only those some run showed. Every catalog names
the same gaps: a text missing from the catalog, fuzzy (its English changed), untranslated, a
translation whose placeholders are not the English ones, or one with a number its English has not.

>>> from babel.messages.catalog import Message
>>> [gap(Message("{n} chips", s)) for s in ("칩 {n}개", "", "칩 8개", "칩 {n}개, 8개")]
[None, 'untranslated', 'placeholders differ from the English ones', 'number 8 typed into the translation']
>>> [(catalog.domain, sorted(catalog.marks)) for catalog in CATALOGS]
[('explorer-labels', ['N_', 'tr']), ('roofline_grading', ['N_', 'tr']), ('computed', ['message']), \
('book-extension', ['N_', 'tr'])]
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_file, extract_python
from babel.messages.pofile import read_po, write_po

from roofline_book.translations import typed_numbers
from rooflinekit.errors import RooflineInputError
from rooflinekit.words import Translate, catalog_translations, english, placeholders, translator_from

COMMENT_TAGS = ["Translators:"]
"""A comment so tagged, on the lines just above a text, reaches the translator."""

SHOWN_MARKS = {"tr": None, "N_": None}
"""The marks of a text translated in the process that shows it (rooflinekit.words' ``tr`` and
``N_``), as Babel's keywords: the text is the call's first argument."""
TEMPLATE_MARKS = {"message": None}
"""The mark of a template that travels with its values and is translated later
(rooflinekit.words' ``message``)."""


def extract_myst(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any) -> Iterator[Any]:
    """Babel's extraction method for a MyST Markdown notebook: its code cells, read as Python.

    >>> page = b"# A page\\n\\n```{code-cell} ipython3\\nglue('x', message('{n} chips', n=2))\\n```\\n"
    >>> [found[2] for found in extract_myst(io.BytesIO(page), TEMPLATE_MARKS, [], {})]
    [('{n} chips', None)]
    """
    import jupytext

    notebook = jupytext.reads(fileobj.read().decode("utf-8"), fmt="md:myst")
    for cell in notebook.cells:
        if cell.cell_type == "code":
            code = io.BytesIO(cell.source.encode("utf-8"))
            yield from extract_python(code, keywords, comment_tags, options)


def extract_chip_words(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any) -> Iterator[Any]:
    """Babel's extraction method for a hardware catalog's data file (a chip file, catalog.toml):
    the words rooflinekit.chipformat makes messages' templates, namely the chip's ``notes``, every
    figure's ``note`` and every memory level's ``name``.

    >>> chip = (b'id = "x1"\\nnotes = [\\n    "Vendor HBM bandwidth is {hbm}.",\\n]\\n'
    ...         b'[hbm_bytes]\\nvalue = 16\\nnote = "Rounded."\\n[levels.l2]\\nname = "L2 cache"\\n')
    >>> [found[:3] for found in extract_chip_words(io.BytesIO(chip), TEMPLATE_MARKS, [], {})]
    [(3, 'message', 'Vendor HBM bandwidth is {hbm}.'), (7, 'message', 'Rounded.'), (9, 'message', 'L2 cache')]
    """
    import tomllib

    text = fileobj.read().decode("utf-8")
    lines = text.splitlines()
    for words in _chip_words(tomllib.loads(text)):
        line = next((i for i, written in enumerate(lines, 1) if words[:40] in written), 0)
        yield line, "message", words, []


def _chip_words(data: Mapping[str, Any], path: tuple[str, ...] = ()) -> Iterator[str]:
    """The texts of a catalog data file that are messages, in the file's order."""
    for key, value in data.items():
        if isinstance(value, Mapping) and key != "sources":
            yield from _chip_words(value, (*path, key))
        elif key == "notes" and not path and isinstance(value, list):
            yield from (note for note in value if isinstance(note, str))
        elif isinstance(value, str) and (key == "note" or (key == "name" and path[:1] == ("levels",))):
            yield value


@dataclass(frozen=True)
class CodeCatalog:
    """One catalog of words written in code: where they are written (a glob under the course's
    root -> Babel's extraction method), with which marks, and the folder under the root that
    holds each language's ``<language>/LC_MESSAGES/<domain>.po``."""

    domain: str
    sources: Mapping[str, Any]
    marks: Mapping[str, Any]
    locale: str = "locale"

    def path(self, root: Path, language: str) -> Path:
        """Where ``language``'s translations live.

        >>> FEEDBACK.path(Path("course"), "ko").as_posix()
        'course/grading/roofline_grading/locale/ko/LC_MESSAGES/roofline_grading.po'
        """
        return root / self.locale / language / "LC_MESSAGES" / f"{self.domain}.po"

    def translator(self, root: Path, language: str) -> Translate:
        """A text in ``language``, or the English text where the catalog has none (the catalog read
        again only when it changed: rooflinekit.words.catalog_translations).

        >>> BOOK_EXTENSION.translator(Path("nowhere"), "ko")("Not translated")
        'Not translated'
        """
        path = self.path(root, language)
        return translator_from(catalog_translations(path)) if path.exists() else english

    def extract(self, root: Path) -> Catalog:
        """Every text of the code, with where it is written (:func:`sync` writes the file alone: a
        catalog does not change when a line moves) and its translators' comments. Directories
        below a pattern's own folder whose name starts with ``_`` or ``.`` are left out."""
        catalog = Catalog(domain=self.domain, project="roofline course", fuzzy=False)
        for pattern, method in self.sources.items():
            folder = root.joinpath(*pattern.split("*", 1)[0].split("/")[:-1])
            for path in sorted(root.glob(pattern)):
                if any(part[0] in "_." for part in path.relative_to(folder).parts[:-1]):
                    continue
                found = extract_from_file(method, str(path), keywords=self.marks, comment_tags=COMMENT_TAGS,
                                          strip_comment_tags=True)
                for line, text, comments, _ in found:
                    singular = text if isinstance(text, str) else text[0]  # (ngettext's: singular, plural)
                    flags = ["python-brace-format"] if _names(singular) else []
                    # a text written twice is one message, with both places (Babel merges them)
                    catalog.add(text, locations=[(path.relative_to(root).as_posix(), line)], flags=flags,
                                auto_comments=comments)
        return catalog


EXPLORER_LABELS = CodeCatalog(
    "explorer-labels", {"rooflinekit/**/*.py": "python", "rooflinekit/explorer/assets/*.js": "javascript"},
    SHOWN_MARKS,
)
FEEDBACK = CodeCatalog(
    "roofline_grading", {"grading/roofline_grading/**/*.py": "python"}, SHOWN_MARKS,
    "grading/roofline_grading/locale",
)
COMPUTED = CodeCatalog(
    "computed",
    {"rooflinekit/**/*.py": "python", "book/**/*.md": extract_myst,
     "rooflinekit/data/chips/*.toml": extract_chip_words,
     "rooflinekit/data/catalog.toml": extract_chip_words},
    TEMPLATE_MARKS,
)
BOOK_EXTENSION = CodeCatalog("book-extension", {"book/_ext/roofline_book/*.py": "python"}, SHOWN_MARKS)
CATALOGS = (EXPLORER_LABELS, FEEDBACK, COMPUTED, BOOK_EXTENSION)
"""Every catalog of words written in code (the book's pages have catalogs of their own, kept by
Sphinx's gettext builder)."""


def sync(catalog: CodeCatalog, root: Path, language: str, template: Catalog | None = None) -> Path:
    """Bring ``language``'s catalog up to the code's texts (``template``, extracted when not
    given) with Babel's merge: new texts empty, changed ones fuzzy with the old translation, gone
    ones dropped. The file is written only when more than its dates changed."""
    path = catalog.path(root, language)
    if path.exists():
        merged = read_catalog(path)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        merged = Catalog(locale=language, domain=catalog.domain, project="roofline course")
    merged.update(template if template is not None else catalog.extract(root))
    merged.fuzzy = False  # the header: Babel marks a new catalog's fuzzy
    written = io.BytesIO()
    write_po(written, merged, width=0, include_lineno=False, ignore_obsolete=True)
    if not path.exists() or undated(path.read_bytes()) != undated(written.getvalue()):
        path.write_bytes(written.getvalue())
    return path


def undated(po: bytes) -> bytes:
    """A catalog without the dates of its header (which change at every extraction)."""
    return re.sub(rb'^"(POT-Creation|PO-Revision)-Date: .*$', b"", po, flags=re.MULTILINE)


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle)


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
