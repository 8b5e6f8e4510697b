"""The built site: offline-ready, solution-free, every page there.

These read the files of _build/html (built once per session by ``make book``); the browser
test (test_browser.py) then opens the pages.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from book_site import ROOT, SOLUTION_MARKERS, find_exercises, toc_docnames

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


@pytest.mark.slow
def test_every_toc_document_has_a_page(built_site: Path) -> None:
    missing = [d for d in toc_docnames() if not (built_site / f"{d}.html").is_file()]
    assert not missing


@pytest.mark.slow
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
            if re.search(r"requirejs?\.config", text) and re.search(r"https?://", text):
                problems.append(f"{name}: require.js config names a host")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_stylesheets_load_nothing_from_other_hosts(built_site: Path) -> None:
    problems = [
        f"{css.relative_to(built_site)}: {match.group(0)}"
        for css in (built_site / "_static").rglob("*.css")
        for match in CSS_EXTERNAL.finditer(css.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_math_and_widget_scripts_are_the_vendored_ones(built_site: Path) -> None:
    explorer = (built_site / "book" / "explorer.html").read_text(encoding="utf-8")
    for script in ("_static/vendor/mathjax/tex-mml-chtml.js", "_static/vendor/require.js",
                   "_static/vendor/html-manager/embed-amd.js"):
        assert script in explorer
        assert (built_site / script).is_file()


@pytest.mark.slow
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


@pytest.mark.slow
def test_every_released_exercise_has_a_page_and_a_download(built_site: Path) -> None:
    listing = (built_site / "book" / "exercises.html").read_text(encoding="utf-8")
    exercises = find_exercises(ROOT)
    if not exercises:
        assert "No exercises have been released yet" in listing
    for ex in exercises:
        assert (built_site / f"{ex.docname}.html").is_file()
        assert f'download="{ex.path.name}"' in listing or f"{ex.path.name}</span></code></a>" in listing
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
