"""The Korean edition in Korean beyond its prose (issue 33): the hardware catalog's tables, their
kinds and notes among them, and every figure of every chapter, its axes, legends, notes and
annotations drawn in Korean from the same code as the English one.

The catalog is read from the built pages of both editions; a figure's Korean words from the
chapter as the build executed it (each figure output carries its Korean drawing, that drawing's
texts and its alt text: rooflinekit.figure_languages), and the Korean page must show that drawing,
described in Korean from its own words.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from build_book import figure_languages  # tools/build_book.py

import rooflinekit as rk
from rooflinekit.alt_text import ALT_KEY, alt_in
from rooflinekit.chips import KIND_NAMES
from rooflinekit.figure_languages import languages
from rooflinekit.fmt import num, si
from rooflinekit.measure.machine import describe_machine
from rooflinekit.words import Message
from tests.support.book_site import ROOT

CATALOG = "book/catalog"
CHAPTERS = sorted(f"book/chapters/{path.stem}" for path in (ROOT / "book" / "chapters").glob("*.md"))
LEAST_KOREAN = 0.6
"""The share of Hangul among the letters of the Korean catalog's words (see :func:`letters`)."""


class _Words(HTMLParser):
    """The text of a page's article, leaving out code (``pre``, ``code``) and the titles of the
    pages the catalog cites (links out of the site), which stay as their authors wrote them."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.images: list[str] = []
        self.alts: dict[str, str] = {}
        """A cell's figure's alt text, by its file's name (myst-nb's: the SHA-256 of its PNG)."""
        self._depth = {"article": 0, "left out": 0}
        self._links: list[bool] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = dict(attrs)
        self._depth["article"] += tag == "article"
        self._depth["left out"] += tag in ("pre", "code", "script", "style")
        if tag == "a":
            self._links.append("external" in (given.get("class") or "").split())
        if tag == "img" and self._depth["article"]:
            self.images.append(given.get("src") or "")
            self.alts[Path(given.get("src") or "").stem] = given.get("alt") or ""

    def handle_endtag(self, tag: str) -> None:
        self._depth["article"] -= tag == "article"
        self._depth["left out"] -= tag in ("pre", "code", "script", "style")
        if tag == "a" and self._links:
            self._links.pop()

    def handle_data(self, data: str) -> None:
        if self._depth["article"] and not self._depth["left out"] and not any(self._links):
            self.parts.append(data)


def read_page(site: Path, docname: str) -> _Words:
    parsed = _Words()
    parsed.feed((site / f"{docname}.html").read_text(encoding="utf-8"))
    return parsed


def plain(text: str) -> str:
    """``text`` with Sphinx's typography undone (curly quotes, dashes) and its spaces collapsed."""
    typography = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "--", "\u2014": "---"}
    text = text.translate(str.maketrans(typography))
    return " ".join(text.split())


def letters(text: str) -> tuple[int, int]:
    """``(Hangul letters, letters)`` of the words of ``text``: numbers (``1.97e14``) and names of
    code (``hbm_bandwidth``, ``dense_flops.bf16``) left out; names of chips, units and vendors
    counted, as English letters.

    >>> letters("dense_flops.bf16 1.97e14 데이터시트 NVIDIA")
    (5, 11)
    """
    words = re.sub(r"\b\d[\w.,]*|\w+(?:[._]\w+)+", " ", text)
    return sum("\uac00" <= c <= "\ud7a3" for c in words), sum(c.isalpha() for c in words)


def test_the_korean_catalog_is_korean_but_for_names_numbers_code_and_the_sources_titles(
        built_site: Path) -> None:
    korean, total = letters(" ".join(read_page(built_site / "ko", CATALOG).parts))
    assert total > 3000 and korean / total >= LEAST_KOREAN, f"{korean} of {total} letters are Hangul"
    assert letters(" ".join(read_page(built_site, CATALOG).parts))[0] == 0


def catalog_words() -> list[Message]:
    """What the catalog page shows in words from the hardware catalog's data: every chip's notes,
    every figure's note and kind, every memory level's name, note and kind."""
    shown: list[Message] = []
    for chip in rk.CHIPS.values():
        shown += chip.notes
        for where in chip.provenance.values():
            shown += [KIND_NAMES[where.source.kind], *([where.note] if where.note else [])]
        for level in chip.levels:
            shown.append(level.name)
            for figure, where in level.provenance.items():
                shown += [KIND_NAMES[level.kinds[figure]], *([where.note] if where.note else [])]
    shown += [a.provenance.note for a in rk.ACHIEVABLE.values()]
    assert all(isinstance(words, Message) for words in shown)
    return shown


def test_the_catalogs_tables_show_its_notes_and_kinds_in_each_editions_language(built_site: Path) -> None:
    english = plain(" ".join(read_page(built_site, CATALOG).parts))
    korean = plain(" ".join(read_page(built_site / "ko", CATALOG).parts))
    tr = languages(figure_languages())["ko"]
    missing = []
    for words in catalog_words():
        translated = words.translated(tr)
        assert translated != str(words) or not english_words(str(words), []), f"no Korean for {words!r}"
        if plain(str(words)) not in english or plain(translated) not in korean:
            missing.append(str(words))
    assert not missing, missing


@pytest.mark.parametrize("edition", ["", "ko/"])
def test_the_catalog_states_how_it_reads_capacities_with_the_librarys_numbers(built_site: Path,
                                                                              edition: str) -> None:
    """Decimal gigabytes of HBM, binary megabytes of a cache, and the memory an H100 reports."""
    text = plain(" ".join(read_page(built_site / edition.rstrip("/"), CATALOG).parts))
    h100 = rk.chip("h100-sxm")
    l2 = next(level for level in h100.levels if level.id == "l2")
    reported = rk.FIGURES["h100_reported_memory"].value
    for shown in (si(h100.hbm_bytes, "B"), num(h100.hbm_bytes), f"{num(l2.capacity / 2**20)} MiB",
                  f"{round(l2.capacity):,}", f"{round(reported / 2**20):,} MiB", f"{round(reported):,}"):
        assert shown in text, f"{edition}{CATALOG}: {shown}"


# --- figures ------------------------------------------------------------------------------

NOT_WORDS = {"kB", "ms", "np", "numpy"}
"""Words of two letters or more, one of them a capital at most, that are not English: units, code."""


def names() -> list[str]:
    """Names a figure shows as they are: the chips', the models' and this machine's processor's, longest
    first."""
    found = {describe_machine().cpu, *rk.TRANSFORMERS}
    for chip in rk.CHIPS.values():
        found |= {chip.name, chip.name.removeprefix("NVIDIA "), chip.id}
    return sorted(found, key=len, reverse=True)


def english_words(text: str, shown_as_they_are: list[str]) -> list[str]:
    """The English words of a figure's text: what is left once names, code (``np.add(b, c)``,
    ``T_math``), mathematics, numbers, units, acronyms (two capitals or more: HBM, FLOPs, NVLink) and
    symbols of one letter are taken out.

    >>> english_words("T_lower (seconds), np.add(b, c, out=a) on TPU v5e", ["TPU v5e"])
    ['seconds', 'on']
    >>> english_words("토큰 배치 B, 바이트당 FLOPs, L1d 캐시 49.2 kB, $\\\\mathdefault{10^{3}}$", [])
    []
    """
    for name in shown_as_they_are:
        text = text.replace(name, " ")
    text = re.sub(r"\$[^$]*\$|\w+(?:[._]\w+)+(?:\([^)]*\))?|\w+=\w+", " ", text)
    tokens = re.findall(r"[A-Za-z][A-Za-z0-9]*", text)
    return [t for t in tokens if t.isalpha() and len(t) > 1 and sum(c.isupper() for c in t) < 2
            and t not in NOT_WORDS]


def test_the_english_word_finder_finds_the_english_a_figure_used_to_show() -> None:
    shown = names()
    english = ["Batch (sequences)", "crossover B = 255", "L2 cache, 2.1 MB", "int8 weights reaches the peak",
               "ridge 240 FLOPs/B", "b + 3*c (two temporaries) (DRAM)", "this machine (CPU, 2 CPUs)"]
    assert all(english_words(text, shown) for text in english)
    korean = ["NVIDIA H100 SXM (bf16), 피크 성능의 80%", "x[8,11648] @ w[11648,11648] (DRAM)",
              "T_math, B = 128", "I = B (B << D, F)", "c = a + b\n원소 1e6개", "TPU v6e (Trillium): 575"]
    assert not any(english_words(text, shown) for text in korean)


def executed(site: Path, docname: str) -> dict[str, object]:
    """The page as the build executed it, outputs included: the latest of jupyter-cache's records."""
    from jupyter_cache import get_cache

    cache = get_cache(str(site.parent / ".jupyter_cache"))
    records = [r for r in cache.list_cache_records() if str(r.uri).endswith(f"{docname}.md")]
    latest = max(records, key=lambda r: r.created)
    data: dict[str, object] = json.loads(json.dumps(cache.get_cache_bundle(latest.pk).nb))
    return data


@pytest.mark.parametrize("docname", CHAPTERS)
def test_every_figure_of_a_korean_chapter_is_drawn_in_korean_and_shown_there(built_site: Path,
                                                                             docname: str) -> None:
    outputs = [output for cell in executed(built_site, docname)["cells"]  # type: ignore[attr-defined]
               for output in cell.get("outputs", []) if "image/png" in output.get("data", {})]
    assert outputs, f"{docname} draws no figure"
    shown = names()
    for number, output in enumerate(outputs, 1):
        drawn = output["metadata"].get("image/png", {}).get("rooflinekit_translations", {}).get("ko")
        assert drawn is not None, f"{docname}: figure {number} has no Korean drawing"
        english = {text: found for text in drawn["texts"] if (found := english_words(text, shown))}
        assert not english, f"{docname}: figure {number} still shows English: {english}"
        assert any(letters(text)[0] for text in drawn["texts"]), f"{docname}: figure {number} has no Korean"
    english_page, korean_page = read_page(built_site, docname), read_page(built_site / "ko", docname)
    assert len(english_page.images) == len(korean_page.images) >= len(outputs)
    assert not set(english_page.images) & set(korean_page.images), f"{docname}: an English figure in Korean"


def _named_by_sha(png: str) -> str:
    return hashlib.sha256(base64.b64decode(png)).hexdigest()


@pytest.mark.parametrize("docname", CHAPTERS)
def test_a_korean_figures_alt_text_is_read_from_the_korean_drawing_and_the_english_one_stays(
        built_site: Path, docname: str) -> None:
    """A screen reader on the Korean page hears the Korean drawing's labels, legends and notes (names
    of chips and models, units and code as they are); the English page's alt text is the English one."""
    outputs = [output for cell in executed(built_site, docname)["cells"]  # type: ignore[attr-defined]
               for output in cell.get("outputs", []) if "image/png" in output.get("data", {})]
    tr, shown = languages(figure_languages())["ko"], names()
    english_alts, korean_alts = {}, {}
    for output in outputs:
        about = output["metadata"]["image/png"]
        drawn = about["rooflinekit_translations"]["ko"]
        english_alts[_named_by_sha(output["data"]["image/png"])] = alt_in(about[ALT_KEY])
        korean_alts[_named_by_sha(drawn["png"])] = alt_in(drawn[ALT_KEY], tr)
    english_page, korean_page = read_page(built_site, docname), read_page(built_site / "ko", docname)
    english_shown = {name: alt for name, alt in english_page.alts.items() if name in english_alts}
    korean_shown = {name: alt for name, alt in korean_page.alts.items() if name in korean_alts}
    assert len(english_shown) == len(korean_shown) == len(outputs), docname
    assert english_shown == english_alts, f"{docname}: not the English figures' alt texts"
    assert all(english_words(alt, shown) and not letters(alt)[0] for alt in english_shown.values())
    assert korean_shown == korean_alts, f"{docname}: a Korean figure's alt text is not read from its drawing"
    english = {alt[:80]: found for alt in korean_shown.values() if (found := english_words(alt, shown))}
    assert not english, f"{docname}: a Korean figure's alt text says English words: {english}"
