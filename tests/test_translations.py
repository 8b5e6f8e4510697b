"""The Korean edition: never silently stale, built from the same sources, found by Korean search.

The first tests read files only (locale/ko and the English sources): a page marked translated
must translate the current English page in full, and an English edit without its translation
fails with a message naming the page. The others read the built site (_build/html/ko).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
import translations as translations_tool  # tools/translations.py
from babel.messages.pofile import read_po, write_po
from book_site import ROOT, pages_using, toc_docnames
from roofline_book.editions import EDITIONS, counterpart
from roofline_book.search_ko import index_terms
from roofline_book.translations import (
    PageStatus,
    catalog_path,
    problems,
    read_manifest,
    source_sha256,
    write_manifest,
)

FIRST_CHAPTER = "book/chapters/01-where-the-time-goes"


@dataclass
class Checked:
    returncode: int
    stdout: str


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> Checked:
    """``python tools/translations.py ARGV`` (its main, in this process): status and output."""
    capsys.readouterr()
    status = translations_tool.main(list(argv))
    return Checked(status, capsys.readouterr().out)


def _copy_book(tmp_path: Path) -> Path:
    """What the check reads, copied: the table of contents, the sources and the translations."""
    for name in ("book", "exercises", "locale"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("*.mo", "_static"))
    shutil.copy2(ROOT / "_toc.yml", tmp_path / "_toc.yml")
    return tmp_path


def test_every_page_is_in_the_korean_manifest_and_translated_pages_are_current() -> None:
    found = problems(ROOT, "ko", toc_docnames())
    assert not found, "Korean pages to update (see tools/translations.py):\n" + "\n".join(found)


def test_every_page_of_the_book_is_translated() -> None:
    manifest = read_manifest(ROOT, "ko")
    assert [d for d in toc_docnames() if not (d in manifest and manifest[d].translated)] == []


def test_an_english_edit_without_its_translation_names_the_korean_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy_book(tmp_path)
    assert _run(capsys, "check", "--root", str(root)).returncode == 0
    chapter = root / f"{FIRST_CHAPTER}.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\nAn added sentence.\n", encoding="utf-8")
    done = _run(capsys, "check", "--root", str(root))
    assert done.returncode == 1
    assert f"{FIRST_CHAPTER}: its English source {FIRST_CHAPTER}.md changed" in done.stdout
    named = [d for d in toc_docnames() if re.search(rf"^\s+{re.escape(d)}:", done.stdout, re.MULTILINE)]
    assert named == [FIRST_CHAPTER], done.stdout


def test_an_edit_to_an_untranslated_page_is_fine_and_a_fuzzy_entry_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy_book(tmp_path)
    manifest = read_manifest(root, "ko")
    untranslated = "book/catalog"  # as a page is until its translator marks it done
    manifest[untranslated] = PageStatus(untranslated, None)
    write_manifest(root, "ko", manifest, toc_docnames())
    page = root / f"{untranslated}.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nMore English.\n", encoding="utf-8")
    assert _run(capsys, "check", "--root", str(root)).returncode == 0
    catalog = catalog_path(root, "ko", "book/intro")
    with catalog.open("rb") as handle:
        messages = read_po(handle)
    next(m for m in messages if m.id).flags.add("fuzzy")  # as sphinx-intl marks a changed sentence
    with catalog.open("wb") as handle:
        write_po(handle, messages)
    done = _run(capsys, "check", "--root", str(root))
    assert done.returncode == 1 and "book/intro: 1 entries of" in done.stdout and "fuzzy:" in done.stdout


def test_a_page_left_out_of_the_manifest_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy_book(tmp_path)
    manifest = root / "locale" / "ko" / "pages.yml"
    manifest.write_text(
        "".join(line for line in manifest.read_text(encoding="utf-8").splitlines(keepends=True)
                if not line.startswith("book/catalog:")),
        encoding="utf-8",
    )
    done = _run(capsys, "check", "--root", str(root))
    assert done.returncode == 1 and "book/catalog: not in locale/ko/pages.yml" in done.stdout


def test_done_refuses_a_page_with_untranslated_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy_book(tmp_path)
    catalog = catalog_path(root, "ko", "book/intro")
    catalog.write_text(catalog.read_text(encoding="utf-8") + '\nmsgid "A new English sentence."\nmsgstr ""\n',
                       encoding="utf-8")
    done = _run(capsys, "done", "book/intro", "--root", str(root))
    assert done.returncode == 1 and "untranslated: A new English sentence." in done.stdout
    assert read_manifest(root, "ko")["book/intro"].source_sha256 == source_sha256(ROOT, "book/intro")


def test_a_number_typed_into_a_translation_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy_book(tmp_path)
    catalog = catalog_path(root, "ko", FIRST_CHAPTER)
    with catalog.open("rb") as handle:
        messages = read_po(handle)
    glued = next(m for m in messages if "{eval}`glued.v5e_ratio`" in str(m.id))
    glued.string = str(glued.string).replace("{eval}`glued.v5e_ratio`", "240")
    with catalog.open("wb") as handle:
        write_po(handle, messages)
    done = _run(capsys, "check", "--root", str(root))
    assert done.returncode == 1
    assert f"{FIRST_CHAPTER}: 1 entries of" in done.stdout and "number 240 typed" in done.stdout


def test_korean_words_are_indexed_with_their_particles_taken_off() -> None:
    terms = index_terms("루프라인은 계산과 통신의 하한을, 대역폭으로 나눈다.")
    for word in ("루프라인", "계산", "통신", "하한", "대역폭", "루프라인은"):
        assert word in terms, (word, terms)


# --- the built Korean edition -------------------------------------------------------------

def _search_index(site: Path) -> dict[str, object]:
    text = (site / "searchindex.js").read_text(encoding="utf-8")
    loaded: dict[str, object] = json.loads(text[text.index("(") + 1: text.rindex(")")])
    return loaded


@pytest.mark.slow
def test_every_page_has_a_korean_page_in_korean_that_links_back(built_site: Path) -> None:
    for docname in toc_docnames():
        english = (built_site / f"{docname}.html").read_text(encoding="utf-8")
        korean = (built_site / "ko" / f"{docname}.html").read_text(encoding="utf-8")
        assert re.search(r'<html[^>]* lang="ko"', korean), docname
        assert f'href="{counterpart(docname, "en", "ko")}"' in english, docname
        assert f'href="{counterpart(docname, "ko", "en")}"' in korean, docname
        assert EDITIONS["ko"] in english and EDITIONS["en"] in korean


@pytest.mark.slow
def test_untranslated_korean_pages_say_so_and_translated_ones_do_not(built_site: Path) -> None:
    manifest = read_manifest(ROOT, "ko")
    for docname in toc_docnames():
        korean = (built_site / "ko" / f"{docname}.html").read_text(encoding="utf-8")
        assert ("rk-not-translated" in korean) != manifest[docname].translated, docname


@pytest.mark.slow
def test_korean_search_index_finds_roofline_in_the_chapters_that_use_it(built_site: Path) -> None:
    index = _search_index(built_site / "ko")
    docnames: list[str] = index["docnames"]  # type: ignore[assignment]
    found = set()
    for kind in ("terms", "titleterms"):  # a page whose title has the word is under titleterms
        pages = index[kind].get("루프라인", [])  # type: ignore[attr-defined]
        found |= {docnames[i] for i in ([pages] if isinstance(pages, int) else pages)}
    using = set(pages_using(built_site / "ko", "루프라인"))
    assert using and using <= found, (sorted(using), sorted(found))
