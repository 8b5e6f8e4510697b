"""Keep the book's translations (locale/<lang>/) complete and current.

The translator's loop, for Korean (the default language):

    python tools/translations.py update        # English messages -> locale/ko/LC_MESSAGES/*.po
    (translate the empty and fuzzy entries of a page's .po, with the terms of the glossary)
    python tools/translations.py done book/intro   # record which English version it translates
    python tools/translations.py check         # what is missing or out of date (make test runs it)

``update`` also brings the catalogs of words that code prints up to date: the exercise
notebooks' checks and docstrings (``locale/<lang>/LC_MESSAGES/exercise-code.po``, see
tools/exercise_translations.py) and the grading feedback
(``grading/roofline_grading/locale/<lang>/LC_MESSAGES/roofline_grading.po``, extracted with
``pybabel``); ``check`` fails while either has gaps.

``update`` runs Sphinx's gettext builder on the book (the same configuration as
``make book``; notebooks come from the execution cache) into _build/gettext, adds the words and
sentences the code composes (``computed.pot``: every template passed to
``rooflinekit.messages.message``, read from the code by Babel, see roofline_book.computed) and
then runs ``sphinx-intl update``: new English sentences arrive as empty entries, changed ones as
fuzzy entries with the old translation, to be checked. Cell outputs are never messages (numbers
come from the code), except figure captions and table headings without a number.
``done PAGE...`` marks pages translated in locale/<lang>/pages.yml, with the SHA-256 of their
English source, and refuses a page whose catalog still has gaps. ``check``
exits 1, naming each page to update, when a page marked translated has an English source that
changed since, or gaps; pages marked untranslated are shown in English with a notice. It also
names every message of the code that ``locale/<lang>/LC_MESSAGES/computed.po`` lacks or leaves
untranslated (the code's words serve every page, so they are checked whatever the manifest says).

The explorers' labels are translated in a catalog of their own, kept from the code
(tools/explorer_labels.py): ``update`` brings it up to date too, and ``check`` also names every
label that is not translated, and a shipped labels file that is not the catalog's.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "book" / "_ext"), str(ROOT / "tools"), str(ROOT)]  # ROOT: tests.support

import explorer_labels  # noqa: E402  # tools/explorer_labels.py
from roofline_book import computed  # noqa: E402
from roofline_book.translations import (  # noqa: E402
    PageStatus,
    catalog_gaps,
    catalog_path,
    problems,
    read_manifest,
    source_sha256,
    write_manifest,
)


def book_pages(root: Path) -> list[str]:
    """The book's pages in toc order (read from _toc.yml and the files, as the tests do)."""
    from tests.support import book_site

    return book_site.toc_docnames(root)


def update(language: str) -> int:
    import build_book

    gettext = build_book.BUILD / "gettext"
    status = build_book.build_edition(language, builder="gettext", outdir=gettext)
    if status != 0:
        return status
    computed.write_template(ROOT, gettext / f"{computed.DOMAIN}.pot")
    intl = Path(sys.executable).with_name("sphinx-intl")
    subprocess.run(
        [str(intl), "update", "-p", str(gettext), "-l", language, "-d", str(ROOT / "locale"), "-w", "0"],
        check=True,
    )
    pages = read_manifest(ROOT, language)
    order = book_pages(ROOT)
    for docname in order:
        pages.setdefault(docname, PageStatus(docname, None))
    write_manifest(ROOT, language, pages, order)
    with tempfile.TemporaryDirectory() as scratch:  # not _build/gettext, where sphinx-intl reads every .pot
        update_code_catalogs(language, Path(scratch))
    explorer_labels.sync(ROOT)
    return check(ROOT, language)


def code_catalogs(root: Path, language: str) -> dict[str, Path]:
    """The catalogs of words that code prints, beside the pages': what each holds -> its file."""
    messages = root / "locale" / language / "LC_MESSAGES"
    grading = root / "grading" / "roofline_grading" / "locale" / language / "LC_MESSAGES"
    return {
        "the exercise notebooks' code (checks, docstrings)": messages / "exercise-code.po",
        "the grading feedback and known-mistake messages": grading / "roofline_grading.po",
    }

def update_code_catalogs(language: str, scratch: Path) -> None:
    """Bring the code's catalogs up to date with Babel (new messages empty, changed ones fuzzy)."""
    import exercise_translations

    catalogs = list(code_catalogs(ROOT, language).values())
    before = {path: path.read_bytes() for path in catalogs if path.exists()}
    exercise_translations.extract(language)
    pybabel = str(Path(sys.executable).with_name("pybabel"))
    template = scratch / "roofline_grading.pot"
    package = ROOT / "grading" / "roofline_grading"
    keywords = ["--no-default-keywords", "-k", "N_", "-k", "tr", "-w", "0"]
    extract = [pybabel, "-q", "extract", *keywords, "-o", str(template), str(package.relative_to(ROOT))]
    subprocess.run(extract, check=True, cwd=ROOT)  # locations relative to the checkout
    catalog = code_catalogs(ROOT, language)["the grading feedback and known-mistake messages"]
    command = ["update", "--ignore-obsolete"] if catalog.exists() else ["init"]
    where = ["-i", str(template), "-d", str(package / "locale"), "-D", "roofline_grading", "-l", language]
    subprocess.run([pybabel, "-q", *command, *where, "-w", "0"], check=True)
    for path, old in before.items():  # only the dates changed: keep the file as it was
        if _without_dates(path.read_bytes()) == _without_dates(old):
            path.write_bytes(old)


def _without_dates(catalog: bytes) -> bytes:
    return re.sub(rb'^"(POT-Creation|PO-Revision)-Date: .*$', b"", catalog, flags=re.MULTILINE)

def done(root: Path, language: str, docnames: list[str]) -> int:
    pages = read_manifest(root, language)
    for docname in docnames:
        catalog = catalog_path(root, language, docname)
        if not catalog.exists():
            print(f"{docname}: {catalog} does not exist; run `python tools/translations.py update` first")
            return 1
        gaps = catalog_gaps(catalog)
        if gaps:
            print(f"{docname}: {len(gaps)} entries still to translate, first {gaps[0][:120]}")
            return 1
        pages[docname] = PageStatus(docname, source_sha256(root, docname))
    write_manifest(root, language, pages, book_pages(root))
    return 0


def code_catalog_problems(root: Path, language: str) -> list[str]:
    """A line for each of :func:`code_catalogs` that is missing or has gaps (none for a copy of
    the book alone, which has no exercise or grading code to translate)."""
    if not (root / "solutions").is_dir() and not (root / "grading").is_dir():
        return []
    found = []
    for what, catalog in code_catalogs(root, language).items():
        gaps = catalog_gaps(catalog) if catalog.exists() else [f"{catalog.name} does not exist"]
        if gaps:
            where = catalog.relative_to(root)
            found.append(f"{where} ({what}): {len(gaps)} entries not translated, first {gaps[0][:120]}")
    return found


def check(root: Path, language: str) -> int:
    pages = book_pages(root)
    found = problems(root, language, pages) + explorer_labels.problems(root)
    found += computed.problems(root, language) + code_catalog_problems(root, language)
    manifest = read_manifest(root, language)
    translated = [d for d in pages if d in manifest and manifest[d].translated]
    print(f"{language}: {len(translated)} of {len(pages)} pages translated")
    if found:
        print(f"{len(found)} {language} pages, labels and messages to update:")
        print("\n".join(f"  {line}" for line in found))
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update", "done", "check"])
    parser.add_argument("pages", nargs="*", help="pages for `done`, e.g. book/intro")
    parser.add_argument("--language", default="ko")
    parser.add_argument("--root", type=Path, default=ROOT, help="the book's checkout (default: this one)")
    args = parser.parse_args(argv)
    if args.command == "update":
        return update(args.language)
    if args.command == "done":
        if not args.pages:
            parser.error("done: name the pages whose translation is complete, e.g. book/intro")
        return done(args.root, args.language, args.pages)
    return check(args.root, args.language)


if __name__ == "__main__":
    sys.exit(main())
