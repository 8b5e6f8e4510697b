"""The words and sentences the code composes (rooflinekit.words' messages), in each edition's language.

A chapter glues ``message("The copy moved {rate}.", rate=...)`` (rooflinekit.glue keeps the
template and values beside the English text); the English edition shows the English text, and a
translated edition fills the translated template from ``locale/<lang>/LC_MESSAGES/computed.po``
with the same values. One catalog serves every page: a message of the library (a chip's note,
the GPU report) may be glued by several chapters and is translated once.

The catalog's messages are found by reading the code, not by running it
(:data:`roofline_book.code_catalogs.COMPUTED` says where): every string literal passed to
``message(...)`` in the package (rooflinekit/) and in the code cells of the book's MyST pages
(book/), and the notes and memory levels' names of the hardware catalog's data files
(rooflinekit/data/chips/*.toml, rooflinekit/data/catalog.toml), which rooflinekit.chipformat makes
messages. Reading finds every branch, including those the
last build did not take (a chapter on a machine with more threads composes another sentence).
``tools/translations.py update`` writes them to ``computed.pot`` for sphinx-intl, and ``check``
names each message of the code that the catalog lacks or leaves untranslated.

Nothing here needs Sphinx, so the tool and the tests read the same files as the build.

>>> translator(Path("nowhere"), "ko")("{n} chips")
'{n} chips'
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from roofline_book import code_catalogs
from roofline_book.code_catalogs import COMPUTED
from rooflinekit.words import Translate, catalog_translations, english, translator_from

DOMAIN = COMPUTED.domain
UPDATE = "python tools/translations.py update"


def catalog_path(root: Path, language: str) -> Path:
    return COMPUTED.path(root, language)


def extract(root: Path) -> Catalog:
    """Every template of the code, with where it is written and the translators' comments."""
    return COMPUTED.extract(root)


def write_template(root: Path, path: Path) -> Path:
    """Write the templates as a gettext template (``.pot``), as sphinx-intl expects it."""
    with path.open("wb") as handle:
        write_po(handle, extract(root), width=0, include_lineno=False, omit_header=False)
    return path


def translator(root: Path, language: str) -> Translate:
    """A template in ``language``, or the English template where the catalog has no translation
    (the catalog read again only when it changed: rooflinekit.words.catalog_translations)."""
    path = catalog_path(root, language)
    return translator_from(catalog_translations(path)) if path.exists() else english


def problems(root: Path, language: str) -> list[str]:
    """One line per message of the code that ``language``'s catalog lacks or does not translate."""
    return code_catalogs.problems("computed", root, catalog_path(root, language), extract(root), UPDATE)
