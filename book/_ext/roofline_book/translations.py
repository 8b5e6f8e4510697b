"""Which pages of the book are translated, from which version of their English source.

A language's translations live in ``locale/<lang>/LC_MESSAGES/<docname>.po`` (Sphinx's
gettext catalogs, kept up to date with sphinx-intl: tools/translations.py) and its manifest
``locale/<lang>/pages.yml`` says, for every page of the book, whether it is translated and,
if so, the SHA-256 of the English source the translation was last brought up to date with::

    book/intro: {translated: 3b1c...}        # translated from this version of book/intro.md
    book/catalog: untranslated               # shown in English, with a notice

:func:`problems` lists what keeps a language from being complete and current: a page of the
book missing from the manifest, a translated page whose English source changed since, or
whose catalog is missing, has fuzzy entries (the English sentence changed) or untranslated
ones. Nothing here needs Sphinx: the tests and the tool read the same files.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from babel.messages.pofile import read_po

UNTRANSLATED = "untranslated"
# A number standing alone: digits not part of a name such as bf16, H100 or v5e (nor the end of
# one: the 00 of "H100과").
NUMBER = re.compile(r"(?<![A-Za-z_\d])\d+(?:[.,]\d+)*(?![A-Za-z_])")


@dataclass(frozen=True)
class PageStatus:
    """One page of the manifest: its docname and the English version it translates (if any)."""

    docname: str
    source_sha256: str | None

    @property
    def translated(self) -> bool:
        return self.source_sha256 is not None


def locale_dir(root: Path, language: str) -> Path:
    return root / "locale" / language


def manifest_path(root: Path, language: str) -> Path:
    return locale_dir(root, language) / "pages.yml"


def catalog_path(root: Path, language: str, docname: str) -> Path:
    return locale_dir(root, language) / "LC_MESSAGES" / f"{docname}.po"


def source_path(root: Path, docname: str) -> Path:
    for suffix in (".md", ".ipynb"):
        path = root / f"{docname}{suffix}"
        if path.exists():
            return path
    raise FileNotFoundError(f"no source for page {docname} (.md or .ipynb)")


def source_sha256(root: Path, docname: str) -> str:
    """SHA-256 of a page's English source file."""
    return hashlib.sha256(source_path(root, docname).read_bytes()).hexdigest()


def read_manifest(root: Path, language: str) -> dict[str, PageStatus]:
    """The manifest of ``language`` (empty if it has none).

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp()); (root / "locale" / "ko").mkdir(parents=True)
    >>> _ = manifest_path(root, "ko").write_text("a: untranslated\\nb: {translated: 'ff'}\\n")
    >>> [(p.docname, p.translated) for p in read_manifest(root, "ko").values()]
    [('a', False), ('b', True)]
    """
    path = manifest_path(root, language)
    if not path.exists():
        return {}
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    pages: dict[str, PageStatus] = {}
    for docname, entry in raw.items():
        if entry == UNTRANSLATED:
            pages[docname] = PageStatus(docname, None)
        elif isinstance(entry, dict) and isinstance(entry.get("translated"), str):
            pages[docname] = PageStatus(docname, entry["translated"])
        else:
            raise ValueError(
                f"{path}: page {docname}: {entry!r} is not accepted; "
                f"write `{UNTRANSLATED}` or `{{translated: <sha256 of the English source>}}`"
            )
    return pages


def write_manifest(root: Path, language: str, pages: dict[str, PageStatus], order: list[str]) -> None:
    """Write the manifest, pages in ``order`` (the book's), then any others."""
    names = [d for d in order if d in pages] + sorted(set(pages) - set(order))
    lines = [
        "# Pages of the book in this language (tools/translations.py keeps it; see its docstring).",
        "# translated: the SHA-256 of the English source the translation is up to date with.",
    ]
    for name in names:
        page = pages[name]
        entry = f"{{translated: {page.source_sha256}}}" if page.translated else UNTRANSLATED
        lines.append(f"{name}: {entry}")
    manifest_path(root, language).write_text("\n".join(lines) + "\n", encoding="utf-8")


def typed_numbers(english: str, translation: str) -> list[str]:
    """Numbers a translation has that its English sentence has not (numbers come from the code).

    >>> typed_numbers("about {eval}`glued.ratio` FLOPs per byte", "바이트당 약 {eval}`glued.ratio` FLOPs")
    []
    >>> typed_numbers("one FLOP for every two bytes in bf16", "bf16에서 2바이트마다 FLOP 1개")
    ['1', '2']
    >>> typed_numbers("H100s and B200s", "H100과 B200")
    []
    """
    return sorted(set(NUMBER.findall(translation)) - set(NUMBER.findall(english)))


def catalog_gaps(path: Path) -> list[str]:
    """What keeps a catalog from being a complete translation: fuzzy entries, empty ones, and
    translations with a number their English sentence does not have (each with its English)."""
    with path.open("rb") as handle:
        catalog = read_po(handle)
    gaps = []
    for message in catalog:
        if not message.id:
            continue
        if message.fuzzy:
            gaps.append(f"fuzzy: {message.id}")
        elif not message.string:
            gaps.append(f"untranslated: {message.id}")
        elif typed := typed_numbers(str(message.id), str(message.string)):
            gaps.append(f"number {', '.join(typed)} typed into the translation of: {message.id}")
    return gaps


def _short(text: str, width: int = 70) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def problems(root: Path, language: str, docnames: list[str]) -> list[str]:
    """One line per page of ``docnames`` that keeps ``language`` from being complete and current.

    Pages the manifest calls untranslated are fine (the site says so on them); pages it calls
    translated must translate the current English source, in full.
    """
    pages = read_manifest(root, language)
    found = []
    for docname in docnames:
        page = pages.get(docname)
        where = f"locale/{language}/pages.yml"
        if page is None:
            found.append(f"{docname}: not in {where} (mark it `{UNTRANSLATED}` or translate it)")
            continue
        if not page.translated:
            continue
        catalog = catalog_path(root, language, docname)
        if not catalog.exists():
            found.append(f"{docname}: marked translated but {catalog.relative_to(root)} is missing")
            continue
        if page.source_sha256 != source_sha256(root, docname):
            found.append(
                f"{docname}: its English source {source_path(root, docname).relative_to(root)} changed "
                f"since the {language} translation was brought up to date; run "
                f"`python tools/translations.py update`, translate what it marks in "
                f"{catalog.relative_to(root)}, then `python tools/translations.py done {docname}`"
            )
            continue
        gaps = catalog_gaps(catalog)
        if gaps:
            found.append(
                f"{docname}: {len(gaps)} entries of {catalog.relative_to(root)} are not translated, "
                f"first {_short(gaps[0])}"
            )
    return found
