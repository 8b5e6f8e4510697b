"""The built site: offline-ready, solution-free, every page there.

These read the files of _build/html (built once per session by ``make book``); the browser
test (test_browser.py) then opens the pages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.support.book_site import ROOT, SOLUTION_MARKERS, find_exercises, toc_docnames

EXTERNAL = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
CSS_EXTERNAL = re.compile(r"""(@import\s+(url\()?|url\()\s*['"]?\s*(https?:)?//""", re.IGNORECASE)
# Elements and attributes a browser fetches by itself when it loads a page.
FETCHED = {
    "script": ("src",), "img": ("src", "srcset"), "iframe": ("src",), "source": ("src", "srcset"),
    "video": ("src", "poster"), "audio": ("src",), "embed": ("src",), "object": ("data",),
    "input": ("src",), "track": ("src",),
}
LINK_FETCHED = {"stylesheet", "preload", "modulepreload", "prefetch", "icon", "manifest",
                "apple-touch-icon", "shortcut icon", "dns-prefetch", "preconnect"}


class _Loads(HTMLParser):
    """Collects the URLs a page loads at run time, and its inline scripts and styles."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[tuple[str, str]] = []
        self.inline: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        for attribute in FETCHED.get(tag, ()):
            if attribute in values:
                self.urls.append((f"<{tag} {attribute}>", values[attribute]))
        if tag == "link" and (LINK_FETCHED & set(values.get("rel", "").lower().split())
                              or values.get("rel", "").lower() in LINK_FETCHED):
            self.urls.append(("<link href>", values.get("href", "")))
        for attribute, value in values.items():
            if attribute.startswith("data-jupyter-widgets-cdn"):
                self.urls.append((f"<{tag} {attribute}>", value))
        if "style" in values:
            self.inline.append(values["style"])
        if tag in ("script", "style"):
            self._in = tag

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in:
            self.inline.append(data)


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)


def test_the_checker_sees_what_a_page_would_fetch() -> None:
    parser = _Loads()
    parser.feed(
        '<script src="https://cdn.jsdelivr.net/npm/x.js"></script><link rel="stylesheet" '
        'href="//fonts.example/css"><a href="https://example.org">a link is not a load</a>'
        '<script>require.config({paths: {x: "https://unpkg.com/x"}})</script>'
        '<style>@import url("https://fonts.example/f.css");</style>'
    )
    assert [url for _, url in parser.urls if EXTERNAL.match(url)] == [
        "https://cdn.jsdelivr.net/npm/x.js", "//fonts.example/css",
    ]
    assert any(CSS_EXTERNAL.search(text) for text in parser.inline)
    assert any("require.config" in text and "https://" in text for text in parser.inline)


@pytest.mark.book
def test_every_toc_document_has_a_page(built_site: Path) -> None:
    missing = [d for d in toc_docnames() if not (built_site / f"{d}.html").is_file()]
    assert not missing


@pytest.mark.book
def test_pages_load_nothing_from_other_hosts(built_site: Path) -> None:
    problems = []
    for page in _pages(built_site):
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        for where, url in parser.urls:
            if EXTERNAL.match(url):
                problems.append(f"{page.relative_to(built_site)}: {where} {url}")
        name = page.relative_to(built_site)
        for text in parser.inline:
            if match := CSS_EXTERNAL.search(text):
                problems.append(f"{name}: inline css loads {match.group(0)}")
            # An inline script that names a host: a require.js config pointing at a CDN, or
            # sphinx-thebe's address for live code the site never offers. SVG's namespace is a
            # name, not a place to load from.
            hosts = re.findall(r"https?://[\w.-]+", text)
            problems += [f"{name}: inline script names {host}" for host in hosts if host != "http://www.w3.org"]
    assert not problems, "\n".join(problems)


@pytest.mark.book
def test_stylesheets_load_nothing_from_other_hosts(built_site: Path) -> None:
    problems = [
        f"{css.relative_to(built_site)}: {match.group(0)}"
        for css in (built_site / "_static").rglob("*.css")
        for match in CSS_EXTERNAL.finditer(css.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.book
def test_math_and_widget_scripts_are_the_vendored_ones(built_site: Path) -> None:
    explorer = (built_site / "book" / "explorer.html").read_text(encoding="utf-8")
    for script in ("_static/vendor/mathjax/tex-mml-chtml.js", "_static/vendor/require.js",
                   "_static/vendor/html-manager/embed-amd.js"):
        assert script in explorer
        assert (built_site / script).is_file()


@pytest.mark.book
def test_no_solution_reaches_the_site(built_site: Path) -> None:
    binary = {".png", ".jpg", ".gif", ".ico", ".woff", ".woff2", ".ttf", ".eot"}
    leaks = []
    for path in built_site.rglob("*"):
        if not path.is_file() or path.suffix in binary:
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        leaks.extend(f"{path.relative_to(built_site)}: {m}" for m in SOLUTION_MARKERS if m in text)
    assert not leaks, "\n".join(leaks)
    for folder in ("solutions", "_sources/solutions", "_downloads/solutions"):
        assert not (built_site / folder).exists()


@pytest.mark.book
def test_every_released_exercise_has_a_page_and_a_download(built_site: Path) -> None:
    listing = (built_site / "book" / "exercises.html").read_text(encoding="utf-8")
    exercises = find_exercises(ROOT)
    if not exercises:
        assert "No exercises have been released yet" in listing
    for ex in exercises:
        assert (built_site / f"{ex.docname}.html").is_file()
        # the link shows the file's name (which breaks only between its pieces: <wbr>, roofline_book)
        download = rf'<a class="reference download[^>]*href="[^"]*/{re.escape(ex.path.name)}">(.*?)</a>'
        links = re.findall(download, listing)
        assert [re.sub(r"<[^>]+>", "", link) for link in links] == [ex.path.name], links
        assert "<wbr>" in links[0] and "_</span><wbr>" in links[0], links
        downloads = list((built_site / "_downloads").rglob(ex.path.name))
        assert downloads, f"no download of {ex.path}"


def test_the_catalog_page_shows_where_every_figure_comes_from(built_site: Path) -> None:
    import html

    import rooflinekit as rk
    from rooflinekit.fmt import num

    page = html.unescape((built_site / "book" / "catalog.html").read_text(encoding="utf-8"))
    text = re.sub(r"<[^>]+>", " ", page).replace("\u2018", "'").replace("\u2019", "'")  # MyST's quotes
    for c in rk.CHIPS.values():
        figures = c.figures()
        for figure, where in c.provenance.items():
            row = re.search(rf"{re.escape(figure)}\s+{re.escape(num(figures[figure], 4))}\s+"
                            rf"{re.escape(where.source.title)}\s+{where.source.kind}\s+{where.checked}", text)
            assert row, (c.id, figure)
            assert f'href="{where.source.url}"' in page
            assert " ".join(where.note.split()) in " ".join(text.split())


# --- one value everywhere: what the pages say against what the library computes ------------------

def _soup(site: Path, docname: str) -> Any:
    from bs4 import BeautifulSoup

    return BeautifulSoup((site / f"{docname}.html").read_text(encoding="utf-8"), "html.parser")


def _text(node: Any) -> str:
    """Text as a reader sees it: whitespace collapsed, MyST's curly quotes made straight."""
    text = node.get_text(" ") if hasattr(node, "get_text") else str(node)
    return " ".join(text.replace("\u2018", "'").replace("\u2019", "'").split())


def _section(soup: Any, heading: str) -> Any:
    """The <section> whose heading is ``heading``."""
    for section in soup.find_all("section"):
        title = section.find(re.compile(r"h[1-6]"))
        shown = re.sub(r"^[\d.]+\s+", "", _text(title).rstrip("#").strip()) if title is not None else ""
        if shown == heading:  # without its number ("10.11.") and its link sign
            return section
    raise AssertionError(f"no section {heading!r}")


def _rows(table: Any) -> list[list[str]]:
    return [[_text(cell) for cell in row.find_all(["td", "th"])] for row in table.find_all("tr")]


def _rounds_to(shown: str, value: float) -> bool:
    """True when ``shown`` (``295.2``, ``8.2e11``, ``136``) is ``value`` rounded to the digits shown."""
    mantissa, _, exponent = shown.partition("e")
    decimals = len(mantissa.partition(".")[2])
    scale = 10.0 ** int(exponent or 0)
    return abs(float(shown) - value) <= 0.5 * 10.0**-decimals * scale * (1 + 1e-9)


def test_the_rounding_check_tells_a_neighbour_apart() -> None:
    assert _rounds_to("295.2", 295.22) and not _rounds_to("295.4", 295.22)
    assert _rounds_to("8.2e11", 8.2e11) and _rounds_to("136", 136.08) and not _rounds_to("2.5", 2.56)


@pytest.mark.book
def test_the_errata_summary_gives_the_librarys_numbers(built_site: Path) -> None:
    import rooflinekit as rk
    from rooflinekit.exercises import EX2_CHIP, EX3_SIZES

    h100 = rk.chip("h100-sxm")
    library = {  # the topic a row starts with: what rooflinekit computes for it
        "TPU v5e, exercise 1": rk.matmul_critical_batch_approx("tpu-v5e", w="int8", compute="int8"),
        "H100 critical batch": rk.matmul_critical_batch_approx(h100),
        "H100, a write-up's": rk.matmul_critical_batch_approx(h100),
        "exercise 3": rk.matmul_critical_batch(EX3_SIZES[0], EX3_SIZES[0], EX2_CHIP, w="int8"),
        "H100 critical intensity": h100.critical_intensity("bf16"),
        "TPU v6e bf16 peak": rk.chip("tpu-v6e").peak("bf16"),
    }
    header, *rows = _rows(_section(_soup(built_site, "book/chapters/10-errata"), "Summary").find("table"))
    assert header[:3] == ["topic", "published", "library"]
    checked = set()
    for topic, _, shown, *_ in rows:
        if not re.fullmatch(r"[\d.e]+", shown):
            continue  # a formula, such as the tiling footnote's
        (key,) = [k for k in library if topic.startswith(k)]
        assert _rounds_to(shown, library[key]), (topic, shown, library[key])
        checked.add(key)
    assert checked == set(library)


@pytest.mark.book
def test_the_errata_name_published_figures_in_words(built_site: Path) -> None:
    section = _section(_soup(built_site, "book/chapters/10-errata"), "The published figures under discussion")
    header, *rows = _rows(section.find("table"))
    assert header == ["figure", "published", "where"] and rows
    for figure, *_ in rows:
        assert " " in figure and not re.search(r"\w_\w", figure), figure  # words, not a code key


STATED_VECTOR_INTENSITY = re.compile(
    r"vector unit (\d[\d.]*) FLOPs/B|critical intensity (?:of |is )?(?:about |around )?(\d[\d.]*)"
)


@pytest.mark.book
def test_the_vector_unit_has_one_critical_intensity_everywhere(built_site: Path) -> None:
    import rooflinekit as rk
    from rooflinekit.fmt import num

    expected = num(rk.chip("tpu-v5p").vector_critical_intensity)
    stated = []
    for docname in toc_docnames():
        text = _text(_soup(built_site, docname).find("main") or "")
        for sentence in re.split(r"(?<=[.:;])\s", text):
            if "vector unit" not in sentence:
                continue
            stated += [(docname, n) for n in re.findall(STATED_VECTOR_INTENSITY, sentence)]
    values = [(doc, a or b) for doc, (a, b) in stated]
    assert {doc for doc, _ in values} >= {"book/chapters/02-arithmetic-intensity"}
    assert all(value == expected for _, value in values), values
    header, *rows = _rows(_section(_soup(built_site, "book/catalog"), "Links beyond the chip").find("table"))
    column = header.index("vector critical intensity")
    assert [row[column] for row in rows if row[0] == "TPU v5p"] == [expected]


def _bandwidth(text: str) -> float:
    prefixes = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    number, unit = text.split()
    return float(number) * prefixes[unit.removesuffix("B/s")]


@dataclass(frozen=True)
class ElevenWords:
    """How chapter 11 names its measurements in one edition: the section, the table's headings,
    the list items' opening words and, for each comparison, the words of more, less and same."""

    site: str
    section: str
    headings: tuple[str, str, str]
    items: dict[str, str]
    words: dict[str, tuple[str, str, str]]
    gain: str


ELEVEN = {
    "en": ElevenWords(
        "", "What was measured", ("kernel", "threads", "bandwidth"),
        {"threads": "Threads", "scale": "Write-allocate", "triad": "numpy has no fused triad"},
        {"threads": ("times as much", "one thread moved more", "about as much"),
         "scale": ("even beat it", "yet reached only", "about as much"),
         "triad": ("more than the copy", "of the copy", "about as much")},
        r"([\d.]+) times as much",
    ),
    # The Korean page composes the same comparisons from the Korean templates (computed.po).
    "ko": ElevenWords(
        "ko", "무엇을 측정했는가", ("커널", "스레드", "대역폭"),
        {"threads": "스레드", "scale": "Write-allocate(쓰기 할당)",
         "triad": "numpy에는 융합된 triad가 없습니다"},
        {"threads": ("배입니다", "스레드 하나가 모든 스레드보다 많이", "거의 같은 만큼"),
         "scale": ("앞서기까지", "에 그쳤습니다", "거의 같은 만큼"),
         "triad": ("보다 많은", "곧 복사의", "거의 같은 만큼")},
        r"([\d.]+)배입니다",
    ),
}


@pytest.mark.book
@pytest.mark.parametrize("edition", ELEVEN)
def test_chapter_eleven_words_follow_its_own_measurement(built_site: Path, edition: str) -> None:
    words = ELEVEN[edition]
    soup = _soup(built_site / words.site, "book/chapters/11-measure-your-machine")
    measured = _section(soup, words.section)
    header, *rows = _rows(measured.find("table"))
    kernel, threads, rate = (header.index(h) for h in words.headings)
    runs = {(row[kernel], int(row[threads])): _bandwidth(row[rate]) for row in rows}
    most = max(t for _, t in runs)
    copy_all, copy_one = runs[("copy", most)], runs[("copy", 1)]
    items = {_text(li).split(".", 1)[0]: _text(li) for li in measured.find_all("li")}

    def agrees(item: str, a: float, b: float) -> None:
        sentence = items[words.items[item]]
        more, less, same = words.words[item]
        said = [word for word in (more, less, same) if word in sentence]
        assert len(said) == 1, sentence
        if said == [more]:
            assert a > b, sentence
        elif said == [less]:
            assert a < b, sentence
        else:
            assert abs(a / b - 1) < 0.1, sentence

    if most > 1:
        agrees("threads", copy_all, copy_one)
        if gain := re.search(words.gain, items[words.items["threads"]]):
            assert _rounds_to(gain.group(1), copy_all / copy_one), items[words.items["threads"]]
    agrees("scale", runs[("scale", most)], copy_all)
    agrees("triad", runs[("triad", most)], copy_all)


@pytest.mark.book
def test_every_page_has_a_favicon_the_site_ships(built_site: Path) -> None:
    assert (built_site / "favicon.ico").is_file()  # where browsers look when a page names none
    for page in _pages(built_site):
        text = page.read_text(encoding="utf-8")
        if text.startswith('<meta http-equiv="Refresh"'):
            continue  # the root's redirect to the introduction: the root favicon serves it
        icons = re.findall(r'<link rel="(?:shortcut )?icon" href="([^"]+)"', text)
        assert len(icons) == 1, page
        assert (page.parent / icons[0].split("?")[0]).resolve().is_file(), (page, icons[0])


@pytest.mark.book
def test_no_button_leads_to_a_repository_that_is_not_set(built_site: Path) -> None:
    from tests.support.book_site import config

    if config()["repository"]["url"]:
        pytest.skip("the course has a public home: its buttons are wanted")
    for page in _pages(built_site):
        text = page.read_text(encoding="utf-8")
        for sign in ("btn-source-repository-button", "btn-source-issues-button", "launch-buttons",
                     "mybinder.org", "/issues/new"):
            assert sign not in text, (page.relative_to(built_site), sign)


def test_the_vector_unit_check_reads_what_the_catalog_once_said() -> None:
    note = "The vector unit does about 7e12 FLOP/s, so elementwise work has a critical intensity of about 3"
    assert [a or b for a, b in STATED_VECTOR_INTENSITY.findall(note)] == ["3"]
    assert [a or b for a, b in STATED_VECTOR_INTENSITY.findall("vector unit 2.5 FLOPs/B")] == ["2.5"]
