"""The words and sentences the code composes (rooflinekit.words), in each edition's language.

A chapter glues ``message("The copy moved {rate}.", rate=...)`` (rooflinekit.glue keeps the
template and values beside the English text); the English edition shows the English text, and a
translated edition fills the translated template from ``locale/<lang>/LC_MESSAGES/computed.po``
with the same values. One catalog serves every page: a message of the library (a chip's note,
the GPU report) may be glued by several chapters and is translated once.

The catalog's messages are found by reading the code, not by running it: every string literal
passed to ``message(...)`` in the package (rooflinekit/) and in the code cells of the book's
MyST pages (book/), with Babel's Python extractor, and the notes of the hardware catalog's chip
files (rooflinekit/data/chips/*.toml), which rooflinekit.chipformat makes messages. Reading finds
every branch, including those the last build did not take (a chapter on a machine with more
threads composes another sentence).
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
from babel.messages.extract import extract_python
from babel.messages.pofile import write_po

from roofline_book import code_catalogs
from roofline_book.translations import locale_dir
from rooflinekit.words import Translate

DOMAIN = "computed"
KEYWORDS = {"message": None}
"""The call whose first argument is a template (rooflinekit.words.message)."""
UPDATE = "python tools/translations.py update"


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


def extract_chip_notes(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any) -> Iterator[Any]:
    """Babel's extraction method for a chip file: its ``notes``, each a message's template.

    >>> chip = b'id = "x1"\\nnotes = [\\n    "Vendor HBM bandwidth is {hbm}.",\\n]\\n'
    >>> list(extract_chip_notes(io.BytesIO(chip), KEYWORDS, [], {}))
    [(3, 'message', 'Vendor HBM bandwidth is {hbm}.', [])]
    """
    import tomllib

    text = fileobj.read().decode("utf-8")
    lines = text.splitlines()
    for note in tomllib.loads(text).get("notes", []):
        line = next((i for i, written in enumerate(lines, 1) if note[:40] in written), 0)
        yield line, "message", note, []


SOURCES = {"rooflinekit/**/*.py": "python", "book/**/*.md": extract_myst,
           "rooflinekit/data/chips/*.toml": extract_chip_notes}
"""Where the templates are written, relative to the book's root."""


def extract(root: Path) -> Catalog:
    """Every template of the code, with where it is written and the translators' comments."""
    return code_catalogs.extract(root, SOURCES, KEYWORDS, DOMAIN)


def write_template(root: Path, path: Path) -> Path:
    """Write the templates as a gettext template (``.pot``), as sphinx-intl expects it."""
    with path.open("wb") as handle:
        write_po(handle, extract(root), width=0, include_lineno=False, omit_header=False)
    return path


_CACHE: dict[Path, tuple[int, dict[str, str]]] = {}


def translator(root: Path, language: str) -> Translate:
    """A template in ``language``, or the English template where the catalog has no translation
    (the catalog read again only when it changed)."""
    path = catalog_path(root, language)
    if not path.exists():
        return lambda template: template
    stamp = path.stat().st_mtime_ns
    if path not in _CACHE or _CACHE[path][0] != stamp:
        _CACHE[path] = (stamp, code_catalogs.translations(path))
    done = _CACHE[path][1]
    return lambda template: done.get(template, template)


def problems(root: Path, language: str) -> list[str]:
    """One line per message of the code that ``language``'s catalog lacks or does not translate."""
    return code_catalogs.problems("computed", root, catalog_path(root, language), extract(root), UPDATE)
