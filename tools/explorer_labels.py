"""Keep the explorers' labels translated: the catalog from the code, the shipped file from the catalog.

The explorers' words are written in English in rooflinekit's code (``tr("...")`` where they are
shown, ``N_("...")`` where they are defined: rooflinekit.words) and in the scripts of
rooflinekit/explorer/assets (the same two marks: roofline_book.code_catalogs.EXPLORER_LABELS).
Their translations live in one gettext catalog a language,
``locale/<lang>/LC_MESSAGES/explorer-labels.po``; rooflinekit reads them, at run time and
without Babel, from ``rooflinekit/explorer/assets/labels.json``, which this tool writes.

    python tools/explorer_labels.py update   # code -> catalog (new: empty, changed: fuzzy) -> labels.json
    (translate the empty and fuzzy entries, with the terms of locale/<lang>/GLOSSARY.md)
    python tools/explorer_labels.py update   # again: labels.json gets the new translations
    python tools/explorer_labels.py check    # exits 1 naming each label to translate, or a stale labels.json

``tools/translations.py update`` and ``check`` do the same for the explorers along with the
book's pages. Babel reads the code (its Python and JavaScript extractors), so every branch's
labels are found, not only those some run happened to show.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "book" / "_ext")]

from roofline_book import code_catalogs  # noqa: E402
from roofline_book.code_catalogs import EXPLORER_LABELS  # noqa: E402

from rooflinekit.languages import TRANSLATED  # noqa: E402
from rooflinekit.words import catalog_translations  # noqa: E402

LABELS = Path("rooflinekit/explorer/assets/labels.json")
"""The translations as rooflinekit ships them: ``{language: {English: translation}}``."""
LANGUAGES = TRANSLATED
"""The languages with a catalog (rooflinekit.languages; English is the code's own)."""


def catalog_path(root: Path, language: str) -> Path:
    return EXPLORER_LABELS.path(root, language)


def extract(root: Path) -> Catalog:
    """Every label of the code, with where it is written and its translators' comments."""
    return EXPLORER_LABELS.extract(root)


def shipped_labels(root: Path, labels: Catalog | None = None) -> dict[str, dict[str, str]]:
    """What labels.json must hold: each language's translations of the labels the code has
    (``labels``, read from the code when not given)."""
    wanted = {str(m.id) for m in (labels if labels is not None else extract(root)) if m.id}
    shipped = {}
    for language in LANGUAGES:
        path = catalog_path(root, language)
        done = catalog_translations(path) if path.exists() else {}
        shipped[language] = {text: done[text] for text in sorted(done) if text in wanted}
    return shipped


def write_labels(root: Path, labels: Catalog | None = None) -> Path:
    path = root / LABELS
    text = json.dumps(shipped_labels(root, labels), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged: no rebuild of the book
        path.write_text(text, encoding="utf-8")
    return path


def update(root: Path) -> int:
    """:func:`sync`, then :func:`check`."""
    print(f"wrote {sync(root).relative_to(root)}")
    return check(root)


def sync(root: Path) -> Path:
    """Bring every language's catalog up to the code's labels (Babel's merge: new labels empty,
    changed ones fuzzy with the old translation), then write labels.json from them."""
    template = extract(root)
    for language in LANGUAGES:
        code_catalogs.sync(EXPLORER_LABELS, root, language, template)
    return write_labels(root, template)


def problems(root: Path, languages: tuple[str, ...] = LANGUAGES) -> list[str]:
    """One line per label of the code that the catalog of one of ``languages`` lacks or does not
    translate, and one if labels.json is not what the catalogs say (nothing for a copy of the book
    without the code)."""
    if not (root / "rooflinekit").is_dir():
        return []
    found = []
    labels = extract(root)
    for language in languages:
        found += code_catalogs.problems("explorer labels", root, catalog_path(root, language), labels,
                                        "python tools/explorer_labels.py update")
    shipped_path = root / LABELS
    shipped: Any = json.loads(shipped_path.read_text(encoding="utf-8")) if shipped_path.exists() else None
    if shipped != shipped_labels(root, labels):
        found.append(f"explorer labels: {LABELS} is not what the catalogs say; run "
                     "`python tools/explorer_labels.py update`")
    return found


def check(root: Path) -> int:
    found = problems(root)
    if found:
        print(f"{len(found)} explorer labels to update:")
        print("\n".join(f"  {line}" for line in found))
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update", "check"])
    parser.add_argument("--root", type=Path, default=ROOT, help="the course's checkout (default: this one)")
    args = parser.parse_args(argv)
    return update(args.root) if args.command == "update" else check(args.root)


if __name__ == "__main__":
    sys.exit(main())
