"""Keep the book's translations (locale/<lang>/) complete and current.

The translator's loop, for every language of the course (rooflinekit.languages), or the one
``--language`` names:

    python tools/translations.py update        # English messages -> locale/<lang>/LC_MESSAGES/*.po
    (translate the empty and fuzzy entries of a page's .po, with the terms of the glossary)
    python tools/translations.py done book/intro   # record which English version it translates
    python tools/translations.py check         # what is missing or out of date (make test runs it)

``update`` also brings the catalogs of words that code prints up to date: the exercise
notebooks' checks and docstrings (``locale/<lang>/LC_MESSAGES/exercise-code.po``, see
tools/exercise_translations.py) and the grading feedback
(``grading/roofline_grading/locale/<lang>/LC_MESSAGES/roofline_grading.po``, read from the
grading package's ``tr`` and ``N_`` marks as roofline_book.code_catalogs.FEEDBACK says);
``check`` fails while either has gaps, or the feedback's catalog lacks a text of the code. The words
the book's extension adds to the pages (a notice, the search field, a folded cell's summary:
``locale/<lang>/LC_MESSAGES/book-extension.po``, roofline_book.code_catalogs.BOOK_EXTENSION) are
kept and checked the same way.

``update`` runs Sphinx's gettext builder on the book (the same configuration as
``make book``; notebooks come from the execution cache) into _build/gettext, adds the words and
sentences the code composes (``computed.pot``: every template passed to
``rooflinekit.words.message``, read from the code by Babel, see roofline_book.computed) and
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
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "book" / "_ext"), str(ROOT / "tools"), str(ROOT)]  # ROOT: tests.support

import explorer_labels  # noqa: E402  # tools/explorer_labels.py
from roofline_book import code_catalogs as catalogs  # noqa: E402
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

from rooflinekit.languages import TRANSLATED  # noqa: E402


def book_pages(root: Path) -> list[str]:
    """The book's pages in toc order (read from _toc.yml and the files, as the tests do)."""
    from tests.support import book_site

    return book_site.toc_docnames(root)


def update(language: str) -> int:
    import build_book

    update_code_catalogs(language)  # first: the build reads the feedback's (the guide's tables)
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
    explorer_labels.sync(ROOT)
    return check(ROOT, language)


EXERCISE_CODE = "the exercise notebooks' code (checks, docstrings)"
FEEDBACK = "the grading feedback and known-mistake messages"
UPDATE = "python tools/translations.py update"


def code_catalogs(root: Path, language: str) -> dict[str, Path]:
    """The catalogs of words that code prints, beside the pages': what each holds -> its file."""
    return {
        EXERCISE_CODE: root / "locale" / language / "LC_MESSAGES" / "exercise-code.po",
        FEEDBACK: catalogs.FEEDBACK.path(root, language),
    }


def update_code_catalogs(language: str) -> None:
    """Bring the code's catalogs up to date with Babel (new messages empty, changed ones fuzzy)."""
    import exercise_translations

    exercise = code_catalogs(ROOT, language)[EXERCISE_CODE]
    before = exercise.read_bytes() if exercise.exists() else None
    exercise_translations.extract(language)
    if before is not None and catalogs.undated(exercise.read_bytes()) == catalogs.undated(before):
        exercise.write_bytes(before)  # only the dates changed: keep the file as it was
    catalogs.sync(catalogs.FEEDBACK, ROOT, language)
    catalogs.sync(catalogs.BOOK_EXTENSION, ROOT, language)


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
    """A line for each text of the grading feedback's code that its catalog lacks or does not
    translate, and one if the exercise notebooks' catalog is missing or has gaps (none for a
    copy of the book alone, which has no exercise or grading code to translate), and for each
    text of the book's extension that its catalog lacks or does not translate."""
    extension = catalogs.BOOK_EXTENSION
    pages: list[str] = []
    if (root / "book" / "_ext").is_dir():
        pages = catalogs.problems("book extension", root, extension.path(root, language),
                                  extension.extract(root), UPDATE)
    if not (root / "solutions").is_dir() and not (root / "grading").is_dir():
        return pages
    feedback = catalogs.FEEDBACK
    found = catalogs.problems(FEEDBACK, root, feedback.path(root, language), feedback.extract(root), UPDATE)
    exercise = code_catalogs(root, language)[EXERCISE_CODE]
    gaps = catalog_gaps(exercise) if exercise.exists() else [f"{exercise.name} does not exist"]
    if gaps:
        where = exercise.relative_to(root)
        found.append(f"{where} ({EXERCISE_CODE}): {len(gaps)} entries not translated, first {gaps[0][:120]}")
    return pages + found


def check(root: Path, language: str) -> int:
    pages = book_pages(root)
    found = problems(root, language, pages) + explorer_labels.problems(root, (language,))
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
    parser.add_argument("--language", choices=TRANSLATED,
                        help="one language of the course (default: each; `done` needs one of several)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the book's checkout (default: this one)")
    args = parser.parse_args(argv)
    languages = [args.language] if args.language else list(TRANSLATED)
    if args.command == "update":
        return max(update(language) for language in languages)
    if args.command == "done":
        if not args.pages:
            parser.error("done: name the pages whose translation is complete, e.g. book/intro")
        if len(languages) > 1:
            parser.error(f"done: name the pages' language with --language ({', '.join(TRANSLATED)})")
        return done(args.root, languages[0], args.pages)
    return max(check(args.root, language) for language in languages)


if __name__ == "__main__":
    sys.exit(main())
