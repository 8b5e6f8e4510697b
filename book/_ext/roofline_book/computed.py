"""The words and sentences the code composes (rooflinekit.messages), in each edition's language.

A chapter glues ``message("The copy moved {rate}.", rate=...)`` (rooflinekit.glue keeps the
template and values beside the English text); the English edition shows the English text, and a
translated edition fills the translated template from ``locale/<lang>/LC_MESSAGES/computed.po``
with the same values. One catalog serves every page: a message of the library (a chip's note,
the GPU report) may be glued by several chapters and is translated once.

The catalog's messages are found by reading the code, not by running it: every string literal
passed to ``message(...)`` in the package (rooflinekit/) and in the code cells of the book's
MyST pages (book/), with Babel's Python extractor. Reading finds every branch, including those
the last build did not take (a chapter on a machine with more threads composes another sentence).
``tools/translations.py update`` writes them to ``computed.pot`` for sphinx-intl, and ``check``
names each message of the code that the catalog lacks or leaves untranslated.

Nothing here needs Sphinx, so the tool and the tests read the same files as the build.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file, extract_python
from babel.messages.pofile import read_po, write_po

from roofline_book.translations import NUMBER, locale_dir
from rooflinekit.errors import RooflineInputError
from rooflinekit.messages import Translate, placeholders

DOMAIN = "computed"
KEYWORDS = {"message": None}
"""The call whose first argument is a template (rooflinekit.messages.message)."""
COMMENT_TAGS = ["Translators:"]
"""A comment so tagged, on the lines just above a call, reaches the translator."""
SOURCES = ("rooflinekit/**/*.py", "book/**/*.md")
"""Where the templates are written, relative to the book's root."""


def catalog_path(root: Path, language: str) -> Path:
    return locale_dir(root, language) / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract_myst(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any) -> Iterator[Any]:
    """Babel's extraction method for a MyST Markdown notebook: its code cells, read as Python.

    >>> page = b"# A page\\n\\n```{code-cell} ipython3\\nglue('x', message('{n} chips', n=2))\\n```\\n"
    >>> [found[2] for found in extract_myst(io.BytesIO(page), KEYWORDS, [], {})]
    [('{n} chips', None)]
    """
    import jupytext  # type: ignore[import-untyped]  # jupytext has no type hints

    notebook = jupytext.reads(fileobj.read().decode("utf-8"), fmt="md:myst")
    for cell in notebook.cells:
        if cell.cell_type == "code":
            code = io.BytesIO(cell.source.encode("utf-8"))
            yield from extract_python(code, keywords, comment_tags, options)


def source_files(root: Path) -> list[Path]:
    """The files read for templates, outside directories whose name starts with ``_`` or ``.``."""
    found = {path for pattern in SOURCES for path in root.glob(pattern)}
    return sorted(p for p in found if not any(part[0] in "_." for part in p.relative_to(root).parts[:-1]))


def extract(root: Path) -> Catalog:
    """Every template of the code, with where it is written and the translators' comments."""
    catalog = Catalog(domain=DOMAIN, project="roofline course", fuzzy=False)
    for path in source_files(root):
        method = extract_myst if path.suffix == ".md" else "python"
        for _, msgid, comments, _ in extract_from_file(
            method, str(path), keywords=KEYWORDS, comment_tags=COMMENT_TAGS, strip_comment_tags=True
        ):
            flags = ["python-brace-format"] if placeholders(msgid) else []
            # a template written twice is one message, with both places (Babel merges them)
            catalog.add(msgid, locations=[(path.relative_to(root).as_posix(), None)], flags=flags,
                        auto_comments=comments)
    return catalog


def write_template(root: Path, path: Path) -> Path:
    """Write the templates as a gettext template (``.pot``), as sphinx-intl expects it."""
    with path.open("wb") as handle:
        write_po(handle, extract(root), width=0, include_lineno=False, omit_header=False)
    return path


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle)


def _usable(message: Any) -> bool:
    return bool(message.id and message.string and not message.fuzzy)


def translations(path: Path) -> dict[str, str]:
    """A catalog's translated templates (fuzzy and empty entries left out: the English is kept)."""
    return {str(m.id): str(m.string) for m in read_catalog(path) if _usable(m)}


_CACHE: dict[Path, tuple[int, dict[str, str]]] = {}


def translator(root: Path, language: str) -> Translate:
    """The template's translation in ``language``, or None (read once per change of the catalog)."""
    path = catalog_path(root, language)
    if not path.exists():
        return lambda template: None
    stamp = path.stat().st_mtime_ns
    if path not in _CACHE or _CACHE[path][0] != stamp:
        _CACHE[path] = (stamp, translations(path))
    return _CACHE[path][1].get


def _gap(message: Any) -> str | None:
    english, translated = str(message.id), str(message.string)
    if message.fuzzy:
        return "fuzzy"
    if not translated:
        return "untranslated"
    try:
        if sorted(placeholders(translated)) != sorted(placeholders(english)):
            return "placeholders differ from the English ones in the translation of"
    except RooflineInputError:
        return "a placeholder that is not {name} in the translation of"
    typed = sorted(set(NUMBER.findall(translated)) - set(NUMBER.findall(english)))
    if typed:
        return f"number {', '.join(typed)} typed into the translation of"
    return None


def problems(root: Path, language: str) -> list[str]:
    """One line per message of the code that ``language``'s catalog lacks or does not translate."""
    path = catalog_path(root, language)
    where = path.relative_to(root).as_posix()
    if not path.exists():
        return [f"computed: {where} is missing; run `python tools/translations.py update`"]
    catalog = read_catalog(path)
    found = []
    for wanted in extract(root):
        if not wanted.id:
            continue
        entry = catalog.get(wanted.id)
        if entry is None:
            found.append(f"computed: not in {where} (run `python tools/translations.py update`): {wanted.id}")
        elif (gap := _gap(entry)) is not None:
            found.append(f"computed: {gap} in {where}: {wanted.id}")
    return found
