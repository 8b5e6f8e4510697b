"""The Korean edition: never silently stale, built from the same sources, found by Korean search.

The first tests read files only (locale/ko and the English sources): a page marked translated
must translate the current English page in full, and an English edit without its translation
fails with a message naming the page; so must a message the code composes (rooflinekit.words)
that locale/ko/LC_MESSAGES/computed.po lacks or leaves untranslated. The others read the built
site (_build/html/ko): the words the code composed are Korean there.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chapter_translations  # tools/chapter_translations.py
import explorer_labels  # tools/explorer_labels.py
import pytest
import translations as translations_tool  # tools/translations.py
from babel.messages.pofile import read_po, write_po
from roofline_book import code_catalogs, computed
from roofline_book.editions import EDITIONS, counterpart, site_title
from roofline_book.exercises import release_in
from roofline_book.search_ko import index_terms
from roofline_book.translations import (
    PageStatus,
    catalog_path,
    problems,
    read_manifest,
    source_sha256,
    write_manifest,
)

from rooflinekit.glue import MESSAGE_MIME
from rooflinekit.words import Message, catalog_translations, translator_from
from tests.support.book_site import ROOT, find_exercises, pages_using, toc_docnames

FIRST_CHAPTER = "book/chapters/01-where-the-time-goes"
HANGUL = range(0xAC00, 0xD7A4)


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
    for name in ("book", "exercises", "locale", "rooflinekit"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, tmp_path / name,
                            ignore=shutil.ignore_patterns("*.mo", "_static", "__pycache__"))
    shutil.copy2(ROOT / "_toc.yml", tmp_path / "_toc.yml")
    return tmp_path


def test_every_page_is_in_the_korean_manifest_and_translated_pages_are_current() -> None:
    found = problems(ROOT, "ko", toc_docnames())
    assert not found, "Korean pages to update (see tools/translations.py):\n" + "\n".join(found)


def test_every_page_of_the_book_is_translated() -> None:
    manifest = read_manifest(ROOT, "ko")
    assert [d for d in toc_docnames() if not (d in manifest and manifest[d].translated)] == []


@pytest.mark.slow  # the translation tools on a copy of the catalogs (seconds)
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


@pytest.mark.slow  # the translation tools on a copy of the catalogs (seconds)
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


@pytest.mark.slow  # the translation tools on a copy of the catalogs (seconds)
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


def test_every_message_the_code_composes_is_translated() -> None:
    found = computed.problems(ROOT, "ko")
    assert not found, "Korean messages to translate (see tools/translations.py):\n" + "\n".join(found)


def test_the_messages_are_read_from_the_chapters_and_the_library() -> None:
    templates = {str(m.id) for m in computed.extract(ROOT) if m.id}
    # a chapter's own sentence, a chip's note from the catalog, the GPU report's nested reasons
    wanted = {"beat", "do not beat", "GPU measurement skipped: {reasons}.", "torch is not installed"}
    assert wanted <= templates
    assert any(t.startswith("Vendor figures: {bf16} bf16") for t in templates)


def test_every_word_of_the_hardware_catalog_is_read_into_the_messages_catalog() -> None:
    """rooflinekit.chipformat makes the data files' notes and memory levels' names messages, which
    the catalog page shows in Korean; the catalog tools read them from the files, and one they
    missed would stay English unnoticed."""
    import rooflinekit as rk

    made: list[object] = [a.provenance.note for a in rk.ACHIEVABLE.values()]
    made += [rk.VMEM_OVER_HBM.provenance.note, *(f.provenance.note for f in rk.FIGURES.values())]
    for chip in rk.CHIPS.values():
        made += [*chip.notes, *(where.note for where in chip.provenance.values() if where.note)]
        for level in chip.levels:
            made += [level.name, *([level.note] if level.note else [])]
            made += [where.note for where in level.provenance.values() if where.note]
    assert all(isinstance(words, Message) for words in made)
    templates = {str(m.id) for m in computed.extract(ROOT) if m.id}
    missed = {words.template for words in made if isinstance(words, Message)} - templates
    assert not missed, sorted(missed)


def test_a_word_in_both_code_catalogs_reads_the_same_in_korean() -> None:
    """The explorers' labels and the chapters' messages share a few words ("memory" bound)."""
    labels = catalog_translations(explorer_labels.catalog_path(ROOT, "ko"))
    messages = catalog_translations(computed.catalog_path(ROOT, "ko"))
    shared = labels.keys() & messages.keys()
    assert {"memory", "compute"} <= shared
    assert {word: messages[word] for word in shared} == {word: labels[word] for word in shared}


NEW_FEEDBACK = "a feedback sentence nobody has translated yet"


@pytest.mark.slow  # the translation tools on a copy of the catalogs (seconds)
def test_a_new_feedback_message_is_named_until_translated_then_reads_in_korean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The grading feedback's catalog is kept as the other catalogs of the code are
    (roofline_book.code_catalogs.FEEDBACK): from the marks, checked text by text."""
    root = _copy_book(tmp_path)
    shutil.copytree(ROOT / "grading" / "roofline_grading", root / "grading" / "roofline_grading",
                    ignore=shutil.ignore_patterns("__pycache__"))
    catalog = code_catalogs.FEEDBACK.path(root, "ko")
    before = catalog.read_bytes()
    code_catalogs.sync(code_catalogs.FEEDBACK, root, "ko")
    assert catalog.read_bytes() == before  # up to date with the code: left as it is
    module = root / "grading" / "roofline_grading" / "answer_key.py"
    added = f'\n_NEW = N_("{NEW_FEEDBACK}")\n'
    module.write_text(module.read_text(encoding="utf-8") + added, encoding="utf-8")
    where = "grading/roofline_grading/locale/ko/LC_MESSAGES/roofline_grading.po"
    done = _run(capsys, "check", "--root", str(root))
    assert done.returncode == 1 and f"not in {where}" in done.stdout and NEW_FEEDBACK in done.stdout
    code_catalogs.sync(code_catalogs.FEEDBACK, root, "ko")
    done = _run(capsys, "check", "--root", str(root))
    assert done.returncode == 1 and f"untranslated in {where}: {NEW_FEEDBACK}" in done.stdout
    entries = code_catalogs.read_catalog(catalog)
    entries[NEW_FEEDBACK].string = "아직 아무도 번역하지 않은 문장"
    with catalog.open("wb") as handle:
        write_po(handle, entries, width=0)
    assert _run(capsys, "check", "--root", str(root)).returncode == 0
    assert translator_from(catalog_translations(catalog))(NEW_FEEDBACK) == "아직 아무도 번역하지 않은 문장"


def _edit_computed(root: Path, template: str, translation: str) -> None:
    path = computed.catalog_path(root, "ko")
    messages = code_catalogs.read_catalog(path)
    messages[template].string = translation
    with path.open("wb") as handle:
        write_po(handle, messages, width=0)


@pytest.mark.slow  # the translation tools on a copy of the catalogs (seconds)
def test_an_untranslated_computed_message_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy_book(tmp_path)
    assert _run(capsys, "check", "--root", str(root)).returncode == 0
    _edit_computed(root, "do not beat", "")
    done = _run(capsys, "check", "--root", str(root))
    assert done.returncode == 1
    assert "computed: untranslated in locale/ko/LC_MESSAGES/computed.po: do not beat\n" in done.stdout


@pytest.mark.slow  # the translation tools on a copy of the catalogs (seconds)
def test_a_new_message_in_a_chapters_code_is_named_until_translated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy_book(tmp_path)
    chapter = root / "book" / "chapters" / "11-measure-your-machine.md"
    new = "The copy took {time} on the largest arrays."
    cell = f'glue("largest", message("{new}", time=si(largest.seconds, "s")))'
    chapter.write_text(chapter.read_text(encoding="utf-8") + f"\n```{{code-cell}} ipython3\n{cell}\n```\n",
                       encoding="utf-8")
    done = _run(capsys, "check", "--root", str(root))
    assert done.returncode == 1
    update = "(run `python tools/translations.py update`)"
    assert f"computed: not in locale/ko/LC_MESSAGES/computed.po {update}: {new}" in done.stdout
    # The page's prose is as translated as before (only its code changed): recorded so, the
    # message is still named, on its own.
    assert _run(capsys, "done", "book/chapters/11-measure-your-machine", "--root", str(root)).returncode == 0
    done = _run(capsys, "check", "--root", str(root))
    assert done.returncode == 1
    assert [line.strip() for line in done.stdout.splitlines() if line.startswith("  ")] == [
        f"computed: not in locale/ko/LC_MESSAGES/computed.po {update}: {new}"
    ]


@pytest.mark.slow  # the translation tools on a copy of the catalogs, three times (seconds)
@pytest.mark.parametrize(
    ("translation", "named"),
    [("여기서 triad는 {triad}, 곧 복사의 52%에 이르렀습니다.", "placeholders differ"),
     ("여기서 triad는 {triad}, 곧 복사의 {share}, 약 52%에 이르렀습니다.", "number 52 typed"),
     ("여기서 triad는 {triad:.2}, 곧 복사의 {share}에 이르렀습니다.",
      "a brace that is not a {name} placeholder")],
    ids=["a value typed", "a number added", "a format"],
)
def test_a_translation_that_does_not_fit_its_values_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], translation: str, named: str
) -> None:
    root = _copy_book(tmp_path)
    template = "Here the triad reached {triad}, {share} of the copy."
    _edit_computed(root, template, translation)
    done = _run(capsys, "check", "--root", str(root))
    assert done.returncode == 1
    assert f"computed: {named}" in done.stdout and template in done.stdout


@pytest.mark.slow  # loads kiwipiepy's model (seconds)
def test_korean_words_are_indexed_with_their_particles_taken_off() -> None:
    terms = index_terms("루프라인은 계산과 통신의 하한을, 대역폭으로 나눈다.")
    for word in ("루프라인", "계산", "통신", "하한", "대역폭", "루프라인은"):
        assert word in terms, (word, terms)


# --- the built Korean edition -------------------------------------------------------------

def _search_index(site: Path) -> dict[str, object]:
    text = (site / "searchindex.js").read_text(encoding="utf-8")
    loaded: dict[str, object] = json.loads(text[text.index("(") + 1: text.rindex(")")])
    return loaded


@pytest.mark.book
def test_every_page_has_a_korean_page_in_korean_that_links_back(built_site: Path) -> None:
    for docname in toc_docnames():
        english = (built_site / f"{docname}.html").read_text(encoding="utf-8")
        korean = (built_site / "ko" / f"{docname}.html").read_text(encoding="utf-8")
        assert re.search(r'<html[^>]* lang="ko"', korean), docname
        assert f'href="{counterpart(docname, "en", "ko")}"' in english, docname
        assert f'href="{counterpart(docname, "ko", "en")}"' in korean, docname
        assert EDITIONS["ko"] in english and EDITIONS["en"] in korean


@pytest.mark.book
def test_untranslated_korean_pages_say_so_and_translated_ones_do_not(built_site: Path) -> None:
    manifest = read_manifest(ROOT, "ko")
    for docname in toc_docnames():
        korean = (built_site / "ko" / f"{docname}.html").read_text(encoding="utf-8")
        assert ("rk-not-translated" in korean) != manifest[docname].translated, docname


@pytest.mark.book
def test_korean_search_index_finds_roofline_in_the_chapters_that_use_it(built_site: Path) -> None:
    index = _search_index(built_site / "ko")
    docnames: list[str] = index["docnames"]  # type: ignore[assignment]
    found = set()
    for kind in ("terms", "titleterms"):  # a page whose title has the word is under titleterms
        pages = index[kind].get("루프라인", [])  # type: ignore[attr-defined]
        found |= {docnames[i] for i in ([pages] if isinstance(pages, int) else pages)}
    using = set(pages_using(built_site / "ko", "루프라인"))
    assert using and using <= found, (sorted(using), sorted(found))


def _pasted(site: Path, docname: str) -> list[str]:
    """The glued texts a page shows in its prose ({eval}`glued.<name>`), as a reader sees them
    (Sphinx's smart quotes made straight again)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((site / f"{docname}.html").read_text(encoding="utf-8"), "html.parser")
    spans = soup.select("article span.pasted-text")
    return [" ".join(span.get_text().replace("\u2018", "'").replace("\u2019", "'").split()) for span in spans]


def _glued_messages(built_site: Path) -> dict[tuple[str, str], Message]:
    """Every message a chapter glued in this build, by page and name (myst-nb's glue store)."""
    found = {}
    for docname in toc_docnames():
        store = built_site.parent / "jupyter_execute" / f"{docname}.glue.json"
        if store.is_file():
            for name, output in json.loads(store.read_text(encoding="utf-8")).items():
                if MESSAGE_MIME in output["data"]:
                    found[(docname, name)] = Message.from_data(output["data"][MESSAGE_MIME])
    return found


def _templates(message: Message) -> set[str]:
    inner = [part for value in message.values.values()
             for part in (value if isinstance(value, list) else [value])]
    return {message.template}.union(*(_templates(v) for v in inner if isinstance(v, Message)))


@pytest.mark.book
def test_the_words_the_code_composed_read_in_korean_on_the_korean_pages(built_site: Path) -> None:
    glued = _glued_messages(built_site)
    named = {"fours_verdict", "scale_sentence", "triad_sentence", "threads_sentence", "best_stream", "gpu",
             "sweep_small_sentence", "v6e_note", "h100_note", "ex_bound", "small_adv_bound",
             "small_real_bound"}
    assert named <= {name for _, name in glued}, sorted(glued)
    korean = computed.translator(ROOT, "ko")
    for (docname, name), message in glued.items():
        english, translated = str(message), message.translated(korean)
        assert english != translated, f"{docname}: {name} has no Korean: {english}"
        assert english in _pasted(built_site, docname), (docname, name)
        shown = _pasted(built_site / "ko", docname)
        assert translated in shown and english not in shown, (docname, name, english)


@pytest.mark.book
def test_every_message_glued_is_one_the_check_reads_from_the_code(built_site: Path) -> None:
    """Babel reads templates from the code; one it missed would stay English unnoticed."""
    known = {str(m.id) for m in computed.extract(ROOT) if m.id}
    glued = set().union(*(_templates(m) for m in _glued_messages(built_site).values()))
    assert glued and glued <= known, sorted(glued - known)


@pytest.mark.book
def test_figure_captions_and_table_headings_are_korean(built_site: Path) -> None:
    from bs4 import BeautifulSoup

    checked = 0
    for docname in toc_docnames():
        path = catalog_path(ROOT, "ko", docname)
        if not path.exists() or not docname.startswith("book/"):
            continue
        with path.open("rb") as handle:
            catalog = {str(m.id).replace("`", ""): str(m.string)
                       for m in read_po(handle) if m.id and m.string and not m.fuzzy}
        pages = {
            site: BeautifulSoup((site / f"{docname}.html").read_text(encoding="utf-8"), "html.parser")
            for site in (built_site, built_site / "ko")
        }
        shown = {
            site: [" ".join(cell.get_text(" ").split())
                   for output in soup.select("div.cell_output")
                   for cell in output.select("figcaption, thead th")]
            for site, soup in pages.items()
        }
        english, korean = shown[built_site], shown[built_site / "ko"]
        assert len(english) == len(korean), docname
        for was, now in zip(english, korean, strict=True):
            if was in catalog and catalog[was] != was:
                assert now == " ".join(catalog[was].replace("`", "").split()), (docname, was, now)
                checked += 1
    assert checked > 100, checked



# --- titles and downloads in Korean -------------------------------------------------------
# A Korean page carries the Korean site title and its pages' Korean titles (navigation, search);
# its download button gives what the page reads: the Korean release of an exercise (the same file
# the exercises table links) and the chapter in Korean, as .md and as the executed .ipynb.

ROOT_DOC = "book/intro"


def test_the_site_title_is_translated_in_the_root_pages_catalog() -> None:
    from tests.support.book_site import config

    title = config()["title"]
    assert toc_docnames()[0] == ROOT_DOC
    assert (ROOT / f"{ROOT_DOC}.md").read_text(encoding="utf-8").startswith(f"# {title}\n")
    korean = site_title(ROOT, "ko", title, ROOT_DOC)
    assert korean != title and any(ord(ch) in HANGUL for ch in korean)


def _soup(path: Path) -> Any:
    from bs4 import BeautifulSoup

    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _page_titles(site: Path) -> dict[str, str]:
    """Each page's title as the search index (and so the search results) has it."""
    index = _search_index(site)
    titles = [re.sub(r"<[^>]+>", "", str(t)).strip() for t in index["titles"]]  # type: ignore[attr-defined]
    return dict(zip(index["docnames"], titles, strict=True))  # type: ignore[call-overload]


@pytest.mark.book
def test_every_korean_page_carries_the_korean_site_title(built_site: Path) -> None:
    from tests.support.book_site import config

    english = config()["title"]
    korean = site_title(ROOT, "ko", english, ROOT_DOC)
    for page in [f"{d}.html" for d in toc_docnames()] + ["search.html", "genindex.html"]:
        soup = _soup(built_site / "ko" / page)
        title = soup.title.get_text()
        assert title.endswith(korean) and english not in title, (page, title)
        assert soup.select_one(".logo__title").get_text(strip=True) == korean, page
        assert _soup(built_site / page).select_one(".logo__title").get_text(strip=True) == english


@pytest.mark.book
def test_korean_navigation_and_search_name_the_pages_in_korean(built_site: Path) -> None:
    manifest = read_manifest(ROOT, "ko")
    english, korean = _page_titles(built_site), _page_titles(built_site / "ko")
    translated = [d for d in toc_docnames() if manifest[d].translated]
    assert korean["book/chapters/02-arithmetic-intensity"] == "2. 산술 강도"
    for docname in translated:  # "Arithmetic intensity (산술 강도)" kept the English title
        assert english[docname].lower() not in korean[docname].lower(), (docname, korean[docname])
    titles = {english[d].split(". ", 1)[-1] for d in translated}
    for page in ("book/intro", "book/chapters/02-arithmetic-intensity", "exercises/roofline/ex1_int8_matmul"):
        links = _soup(built_site / "ko" / f"{page}.html").select("nav.bd-docs-nav a.reference.internal")
        shown = [" ".join(a.get_text(" ").split()) for a in links]
        assert len(shown) == len(translated), page
        assert not [s for s in shown if any(t in s for t in titles)], (page, shown)


def _download_button(site: Path, docname: str, kind: str) -> Path:
    """The file a page's download button offers (kind: ``source`` or ``notebook``)."""
    soup = _soup(site / f"{docname}.html")
    (link,) = soup.select(f"a.btn-download-{kind}-button")
    target = (site / docname).parent / link["href"]
    assert target.resolve().is_file(), (docname, link["href"])
    return target.resolve()


@pytest.mark.book
def test_a_korean_exercise_page_downloads_the_korean_notebook_its_exercises_table_links(
    built_site: Path,
) -> None:
    exercises = find_exercises(ROOT)
    assert exercises
    table = _soup(built_site / "ko" / "book" / "exercises.html")
    for ex in exercises:
        korean = (ROOT / release_in(ex.path, "ko")).read_bytes()
        button = _download_button(built_site / "ko", ex.docname, "source")
        assert button.read_bytes() == korean, ex.docname
        links = table.select("a.reference.download")
        (listed,) = [a["href"] for a in links if a["href"].endswith(ex.path.name)]
        assert (built_site / "ko" / "book" / listed).resolve().read_bytes() == korean, ex.docname
        english = _download_button(built_site, ex.docname, "source")
        assert english.read_bytes() == (ROOT / ex.path).read_bytes(), ex.docname


def _cells(notebook: Path) -> list[dict[str, Any]]:
    cells: list[dict[str, Any]] = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        cell.pop("id", None)  # each build's executed copy numbers its cells afresh
        if isinstance(cell["source"], list):
            cell["source"] = "".join(cell["source"])
    return cells


@pytest.mark.book
@pytest.mark.parametrize("chapter", [d for d in toc_docnames() if d.startswith("book/chapters/")])
def test_a_korean_chapters_downloads_are_the_korean_chapter(built_site: Path, chapter: str) -> None:
    source = ROOT / f"{chapter}.md"
    markdown = _download_button(built_site / "ko", chapter, "source")
    assert markdown.read_text(encoding="utf-8") == chapter_translations.translate_chapter(source, "ko")
    assert _download_button(built_site, chapter, "source").read_bytes() == source.read_bytes()

    title = _page_titles(built_site / "ko")[chapter].split(". ", 1)[1]
    korean = _cells(_download_button(built_site / "ko", chapter, "notebook"))
    english = _cells(_download_button(built_site, chapter, "notebook"))
    assert [c["cell_type"] for c in korean] == [c["cell_type"] for c in english]
    assert f"# {title}\n" in korean[0]["source"] or f"# {title}\n" in korean[1]["source"]
    for ko, en in zip(korean, english, strict=True):
        if en["cell_type"] == "code":
            assert ko == en  # the same code, the same outputs
        elif re.search(r"[A-Za-z]{4}", re.sub(r"\$[^$]*\$|\{\w+\}`[^`]*`|\(\S+\)=", "", en["source"])):
            assert any(ord(ch) in HANGUL for ch in ko["source"]), en["source"][:120]
