"""The built site in a real browser (Debian's chromium, driven by Playwright), offline.

Every page of the book is opened from a server on 127.0.0.1, at a phone's width (390 px) and a
desktop's (1280 px), with requests to any other host blocked and recorded: no console errors,
no failed requests (the favicon included), math rendered by MathJax, every image loaded, no
sideways scroll of the page and nothing wider than its column unless it sits in a box of its
own that scrolls; at desktop width every equation fits; no violation of axe-core's WCAG 2.1 A
and AA rules (axe-core from npm, copied into tests/vendor by ``make vendor``, injected into the
page: nothing comes from a CDN). Every wait is for a condition (the page loaded, no request
pending, fonts and math laid out, the explorers ready), never for a fixed time. A test that fails
leaves a screenshot of every page it opened in _build/screenshots/failed/ (tests/conftest.py).
Then the static roofline explorer is dragged about and what it shows is checked against
rooflinekit (its screenshots, and the transformer view's, in _build/screenshots/), and both
explorers are driven with the keyboard alone.
"""

from __future__ import annotations

import math
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Error as PlaywrightError

import rooflinekit as rk
from rooflinekit.catalog import chip
from rooflinekit.explorer.labels import translator
from rooflinekit.explorer.model import (
    B_VALUES,
    D_VALUES,
    Point,
    chip_figures,
    evaluate,
    level_note,
    on_level,
    plot_axes,
)
from rooflinekit.explorer.transformer_view import BATCHES, CONTEXTS, TransformerSettings
from rooflinekit.explorer.transformer_view import view as transformer_view
from rooflinekit.fmt import num, pct, seconds
from tests.support import screenshots
from tests.support.book_site import ROOT, pages_using, toc_docnames
from tests.support.browsers import note_requests_elsewhere
from tests.support.site_pages import (
    HEADER_CONTROLS,
    OVERFLOW,
    Visit,
    accessibility_violations,
    open_page,
    served,
    settle,
)

pytestmark = pytest.mark.browser

PAGES = [f"{d}.html" for d in toc_docnames()] + ["search.html", "genindex.html"]
PAGES += [f"ko/{page}" for page in PAGES]  # the Korean edition (its switcher and search: at the end)
WIDTHS = {"phone": 390, "desktop": 1280}
SCREENSHOTS = ROOT / "_build" / "screenshots"
NUMBERS = ("flops", "bytes", "intensity", "attainable", "t_math", "t_comms", "t_lower",
           "t_upper", "critical_batch", "critical_batch_approx")
TIMES = ("t_math", "t_comms", "t_lower", "t_upper")


@pytest.fixture
def visit(chromium: Any, site_url: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """Opens a page of the built site (tests/support/site_pages.py); screenshots of every page it
    opened are kept when the test fails."""
    pages = []

    def opened(path: str, width: int = 1280, *, touch: bool = False) -> Visit:
        seen = open_page(chromium, site_url, path, width, touch=touch)
        pages.append(seen.page)
        return seen

    yield opened
    screenshots.if_failed(request.node, pages)  # _build/screenshots/failed/, before the pages close
    for page in pages:
        page.context.close()


def _wait_for_math(page: Any) -> None:
    page.wait_for_function(
        """() => [...document.querySelectorAll('.math')].every(
               m => m.querySelector('mjx-container'))""",
        timeout=90_000,
    )


# Display equations whose box must scroll to show them all.
CUT_EQUATIONS = """() => [...document.querySelectorAll('mjx-container[display="true"]')]
    .filter(m => m.scrollWidth > m.clientWidth + 1)
    .map(m => (m.querySelector('mjx-assistive-mml') || m).textContent.slice(0, 60))"""


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("path", PAGES)
def test_page_loads_cleanly_offline(
    visit: Any, path: str, width: str, site_url: str, axe_script: str
) -> None:
    seen = visit(path, width=WIDTHS[width])
    page = seen.page
    # In its edition's language, with a switcher to the same page in the other one.
    korean = path.startswith("ko/")
    assert page.evaluate("document.documentElement.lang") == ("ko" if korean else "en")
    other = page.locator(f".rk-editions a[hreflang={'en' if korean else 'ko'}]")
    assert other.count() == 1 and other.evaluate("a => a.href") == site_url + (
        path.removeprefix("ko/") if korean else f"ko/{path}"), path
    math_count = page.locator(".math").count()
    if math_count:
        _wait_for_math(page)
        assert page.locator("mjx-container").count() >= math_count
        assert page.locator("mjx-merror").count() == 0, "MathJax could not typeset some math"
    images = page.evaluate(
        "() => [...document.images].map(i => [i.currentSrc || i.src, i.complete, i.naturalWidth])"
    )
    broken = [src for src, complete, width in images if not complete or width == 0]
    assert not broken, f"images not loaded: {broken}"
    explorers = page.locator(".rk-explorer")
    for index in range(explorers.count()):
        assert explorers.nth(index).get_attribute("data-ready") == "true"
    views = page.locator(".rk-transformer")
    for index in range(views.count()):
        assert views.nth(index).get_attribute("data-ready") == "true"
    if path == "book/explorer.html":
        assert explorers.count() >= 1, "the explorer page has no explorer"
        assert page.locator(".rk-explorer svg .rk-point").count() >= 1
        assert views.count() >= 1, "the explorer page has no transformer view"
        assert page.locator(".rk-transformer svg .rk-tv-point").count() >= 1
    # The favicon: the one the page names, and the one at the root browsers ask for otherwise.
    icons = page.evaluate("() => [...document.querySelectorAll('link[rel~=icon]')].map(l => l.href)")
    assert len(icons) == 1, icons
    for icon in (icons[0], site_url + "favicon.ico"):
        answer = page.request.get(icon)
        assert answer.ok and answer.headers["content-type"].startswith("image/"), (icon, answer.status)
    settle(seen)  # what the checks above loaded (the favicon) and any late script error
    assert not seen.blocked, f"requests to other hosts: {seen.blocked}"
    assert not seen.errors, "\n".join(seen.errors)

    layout = page.evaluate(OVERFLOW)
    shot = f"{screenshots.FAILED_SHOTS.relative_to(ROOT)}/"
    assert layout["page"] <= layout["window"], f"the page scrolls sideways ({layout}); see {shot}"
    off = [name for name, on_screen in page.evaluate(HEADER_CONTROLS) if not on_screen]
    assert not off, f"header controls off the screen at {WIDTHS[width]} px: {off}; see {shot}"
    assert not layout["wide"], f"wider than the column, see {shot}:\n" + "\n".join(layout["wide"])
    if width == "desktop":
        assert not page.evaluate(CUT_EQUATIONS), f"equations cut at {WIDTHS[width]} px, see {shot}"
    violations = accessibility_violations(page, axe_script)
    assert not violations, f"axe-core, WCAG 2.1 A/AA, at {WIDTHS[width]} px:\n" + "\n".join(violations)


def test_the_browser_reaches_this_machine_at_127_0_0_1_alone(chromium: Any, tmp_path: Path) -> None:
    # What every browser test relies on (tests/support/browsers.py): a page served on 127.0.0.1
    # loads; the same server by another name, one this machine resolves, cannot be reached; another
    # server on 127.0.0.1 can, and the test's record names both requests.
    (tmp_path / "index.html").write_text("<!doctype html><html lang=en><title>t</title><p>here</p>")
    with served(tmp_path) as url, served(tmp_path) as another:
        other = url.replace("127.0.0.1", "localhost") + "index.html"
        with urllib.request.urlopen(other, timeout=30) as answer:  # the name works outside the browser
            assert b"here" in answer.read()
        page = chromium.new_page()
        elsewhere: list[str] = []
        note_requests_elsewhere(page, url, elsewhere)
        assert page.goto(url + "index.html").ok
        assert page.goto(another + "index.html").ok
        with pytest.raises(PlaywrightError, match="ERR_NAME_NOT_RESOLVED"):
            page.goto(other)
        page.close()
    assert elsewhere == [another + "index.html", other]


def test_the_audit_names_what_it_breaks(chromium: Any, axe_script: str) -> None:
    # The faults the audit of issue 21 found, in a page of their own: the audit must name both.
    page = chromium.new_page()
    page.set_content('<html lang="en"><head><title>t</title></head><body><main><h1>t</h1>'
                     '<button aria-label="Search">Search <kbd>Ctrl</kbd>+<kbd>K</kbd></button>'
                     '<details><summary><i></i></summary><p>more</p></details></main></body></html>')
    rules = {line.split(" ", 1)[0] for line in accessibility_violations(page, axe_script)}
    # Audited in part (tests/e2e/test_public_edition.py): the fault in the part, none outside it.
    in_part = accessibility_violations(page, axe_script, ["details", ".none"])
    parts = {line.split(" ", 1)[0] for line in in_part}
    page.close()
    assert rules == {"label-content-name-mismatch", "summary-name"}
    assert parts == {"summary-name"}


def test_one_search_field_and_a_sidebar_that_opens_on_a_phone(visit: Any) -> None:
    # pydata-sphinx-theme's header navbar (book/_ext turns it off) doubles the search field and
    # leaves the visible sidebar toggle dead.
    desktop = visit("book/chapters/01-where-the-time-goes.html").page
    fields = desktop.locator(".search-button-field")
    assert sum(fields.nth(i).is_visible() for i in range(fields.count())) == 1
    phone = visit("book/chapters/01-where-the-time-goes.html", width=480).page
    on_screen_links = """() => [...document.querySelectorAll('nav.bd-docs-nav a.reference.internal')]
        .filter(a => { const r = a.getBoundingClientRect();
                       return r.width > 0 && r.right > 0 && r.left < innerWidth; }).length"""
    assert phone.evaluate(on_screen_links) == 0, "the navigation starts hidden on a narrow screen"
    toggles = phone.locator(".primary-toggle")
    visible = [toggles.nth(i) for i in range(toggles.count()) if toggles.nth(i).is_visible()]
    assert len(visible) == 1
    visible[0].click()
    chapters = [d for d in toc_docnames() if d.startswith("book/chapters/")]
    phone.wait_for_function(f"() => ({on_screen_links})() >= {len(chapters)}", timeout=30_000)


# --- the static explorer ---------------------------------------------------------------

def _shown(explorer: Any) -> dict[str, Any]:
    """What the explorer shows: its state and, per operation, every number in its table."""
    state = explorer.evaluate("e => JSON.parse(e.getAttribute('data-state'))")
    cells = explorer.evaluate(
        """e => [...e.querySelectorAll('td[data-op]')].map(
               td => [td.dataset.op, td.dataset.key, td.dataset.value, td.textContent])"""
    )
    rows: dict[str, dict[str, Any]] = {}
    for op, key, value, text in cells:
        rows.setdefault(op, {})[key] = (value, text)
    summary = explorer.evaluate(
        """e => Object.fromEntries([...e.querySelectorAll('.rk-summary [data-key]')].map(
               s => [s.dataset.key, Number(s.dataset.value)]))"""
    )
    point_x = explorer.evaluate(
        "e => [...e.querySelectorAll('.rk-point')].map(c => Number(c.getAttribute('cx')))"
    )
    axes = explorer.evaluate("e => JSON.parse(e.querySelector('svg.rk-plot').getAttribute('data-axes'))")
    said = explorer.evaluate(
        """e => [e.querySelector('svg.rk-plot').getAttribute('aria-label'),
                 [...e.querySelectorAll('svg.rk-plot .rk-point title, svg.rk-plot .rk-ridge-label tspan')]
                     .map(t => t.textContent)]"""
    )
    return {"state": state, "rows": rows, "summary": summary, "points": point_x, "axes": axes, "said": said}


def _close(shown: float, expected: float | None) -> bool:
    if expected is None:
        return False
    if math.isinf(expected):
        return math.isinf(shown)
    return math.isclose(shown, expected, rel_tol=1e-12)


def _text_number(text: str) -> float:
    scale = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12, "fs": 1e-15}
    match = re.fullmatch(r"([-+0-9.e]+)(?: (s|ms|µs|ns|ps|fs))?", text.strip())
    assert match, f"not a number: {text!r}"
    return float(match.group(1)) * scale[match.group(2) or "s"]


def _check_against_rooflinekit(shown: dict[str, Any]) -> list[Point]:
    state = shown["state"]
    share = state["achieved"]
    expected = evaluate(state["peak"], state["bandwidth"], state["B"], state["D"],
                        keys=state["operations"], achieved=share)
    assert list(shown["rows"]) == [p.key for p in expected]
    fitted = plot_axes(state["peak"], state["bandwidth"], state["D"], state["operations"], share)
    assert shown["axes"] == {"intensity": list(fitted.intensity), "attainable": list(fitted.attainable)}
    roof = rk.hardware(peak=state["peak"], bandwidth=state["bandwidth"], achieved=share)
    assert math.isclose(shown["summary"]["critical_intensity"], roof.critical_intensity)
    # The plot says what it shows (a screen reader reads an image by its name): every point and the ridge.
    name, drawn = shown["said"]
    assert len(drawn) == len(expected) + 1 + (share != 1), drawn  # the points, the ridge and its share
    assert all(text in name for text in drawn), (name, drawn)
    for point in expected:
        row = shown["rows"][point.key]
        assert row["bound"][0] == point.bound, point.key
        for key in NUMBERS:
            want = getattr(point, key)
            value, text = row[key]
            if want is None:
                assert value is None and text == "-", (point.key, key, value, text)
                continue
            shown_value = math.inf if value == "inf" else float(value)
            assert _close(shown_value, want), (point.key, key, shown_value, want)
            if math.isfinite(want):  # the text is the same number to 4 significant digits
                assert math.isclose(_text_number(text), want, rel_tol=6e-4), (point.key, key, text)
                assert text == (seconds(want, 4) if key in TIMES else num(want, 4)), (point.key, key, text)
            else:
                assert text == "never"
    return expected


def _to_middle(element: Any) -> None:
    """Scroll ``element`` to the middle of the window, clear of the page's sticky header."""
    element.evaluate("e => e.scrollIntoView({block: 'center', inline: 'nearest'})")


def _drag(page: Any, slider: Any, fraction: float) -> None:
    """Press the mouse on a range input's thumb and drag it to ``fraction`` of its width."""
    _to_middle(slider)
    box = slider.bounding_box()
    current = slider.evaluate("s => (s.value - s.min) / (s.max - s.min)")
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 8 + current * (box["width"] - 16), y)
    page.mouse.down()
    for step in range(1, 6):
        target = current + (fraction - current) * step / 5
        page.mouse.move(box["x"] + 8 + target * (box["width"] - 16), y)
    page.mouse.up()


def test_static_explorer_follows_its_controls_and_matches_rooflinekit(visit: Any) -> None:
    seen = visit("book/explorer.html")
    page = seen.page
    explorer = page.locator(".rk-explorer").first
    explorer.wait_for()
    first = _shown(explorer)
    peak, bandwidth = chip_figures(first["state"]["chip"])
    assert (first["state"]["peak"], first["state"]["bandwidth"]) == (peak, bandwidth)
    _check_against_rooflinekit(first)
    source = explorer.locator(".rk-summary [data-key=source]")
    back = explorer.locator("button[data-control=back]")
    assert source.inner_text() == f"{chip(first['state']['chip']).name} (catalog)"
    assert not back.is_visible()

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "explorer-page.png"), full_page=True)
    explorer.scroll_into_view_if_needed()
    explorer.screenshot(path=str(SCREENSHOTS / "explorer.png"))

    # Drag the peak slider well to the right: a custom chip, faster math.
    _drag(page, explorer.locator("input[data-control=peak]"), 0.9)
    dragged = _shown(explorer)
    assert dragged["state"]["chip"] == "custom"
    assert explorer.locator("select[data-control=chip]").input_value() == "custom"
    assert dragged["state"]["peak"] > first["state"]["peak"]
    assert dragged["rows"]["matmul"]["t_math"] != first["rows"]["matmul"]["t_math"]
    _check_against_rooflinekit(dragged)
    assert source.inner_text() == "custom (sliders)"
    assert back.is_visible() and back.inner_text() == f"back to {chip(first['state']['chip']).name}"

    # Drag the bandwidth slider to the left: the ridge moves right, points move.
    _drag(page, explorer.locator("input[data-control=bandwidth]"), 0.1)
    slower = _shown(explorer)
    assert slower["state"]["bandwidth"] < first["state"]["bandwidth"]
    assert slower["summary"]["critical_intensity"] > dragged["summary"]["critical_intensity"]
    _check_against_rooflinekit(slower)

    # Drag the batch and width sliders: the matmul's point moves along its path.
    _drag(page, explorer.locator("input[data-control=batch]"), 1.0)
    _drag(page, explorer.locator("input[data-control=width]"), 0.0)
    resized = _shown(explorer)
    assert resized["state"]["B"] == B_VALUES[-1]
    assert resized["state"]["D"] == D_VALUES[0]
    assert resized["points"] != slower["points"]
    _check_against_rooflinekit(resized)

    # "back to" the chip puts its own figures back, exactly; nudging a slider one step and back
    # leaves slider figures, labelled custom, and the way back is still there.
    back.click()
    returned = _shown(explorer)
    assert (returned["state"]["peak"], returned["state"]["bandwidth"]) == (peak, bandwidth)
    assert source.inner_text().endswith("(catalog)") and not back.is_visible()
    _check_against_rooflinekit(returned)
    slider = explorer.locator("input[data-control=bandwidth]")
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    nudged = _shown(explorer)
    assert nudged["state"]["chip"] == "custom" and source.inner_text() == "custom (sliders)"
    assert nudged["state"]["bandwidth"] != bandwidth and back.is_visible()
    _check_against_rooflinekit(nudged)

    # A catalog chip puts its own figures back, exactly.
    explorer.locator("select[data-control=chip]").select_option("h100-sxm")
    h100 = _shown(explorer)
    assert (h100["state"]["peak"], h100["state"]["bandwidth"]) == chip_figures("h100-sxm")
    points = _check_against_rooflinekit(h100)
    assert math.isclose(points[0].critical_batch_approx or 0, chip("h100-sxm").critical_intensity("bf16"))

    # Unticking an operation drops its column and its point.
    explorer.locator("input[data-control=op][value=dot]").uncheck()
    fewer = _shown(explorer)
    assert "dot" not in fewer["rows"]
    assert len(fewer["points"]) == len(h100["points"]) - 1
    fewer_points = _check_against_rooflinekit(fewer)

    explorer.screenshot(path=str(SCREENSHOTS / "explorer-h100.png"))

    # The achieved share: the chip's typical share is marked; choosing it draws a dashed roof at
    # it, labelled, and the figures that depend on the peak are taken under it, labelled so.
    share_menu = explorer.locator("select[data-control=achieved]")
    assert fewer["state"]["achieved"] == 1 and "of peak" not in explorer.locator(".rk-table").inner_text()
    assert explorer.locator(".rk-achieved-roof").count() == 0
    share = rk.catalog.achievable("h100-sxm").high
    options = share_menu.evaluate("s => [...s.options].map(o => [Number(o.value), o.textContent])")
    assert dict(options)[share] == f"{pct(share)} of peak (typical for {chip('h100-sxm').name})"
    assert dict(options)[1.0] == "100% of peak"
    share_menu.select_option(str(share))
    achieved = _shown(explorer)
    assert achieved["state"]["achieved"] == share
    assert (achieved["state"]["peak"], achieved["state"]["bandwidth"]) == chip_figures("h100-sxm")
    assert source.inner_text() == f"{chip('h100-sxm').name} (catalog)"
    lower = rk.hardware("h100-sxm", achieved=share)
    assert achieved["summary"]["achieved_peak"] == lower.peak
    assert achieved["summary"]["critical_intensity"] == lower.critical_intensity
    at = f" at {pct(share)} of peak"
    summary = explorer.locator(".rk-summary").inner_text()
    ridge = num(lower.critical_intensity, 4)
    assert f";{at}: {num(lower.peak, 4)} FLOP/s, critical intensity {ridge} FLOP/B" in summary
    under = _check_against_rooflinekit(achieved)
    assert under[0].t_math > fewer_points[0].t_math
    headings = explorer.locator(".rk-table tbody th").all_inner_texts()
    for heading in ("attainable FLOP/s", "T_math", "T_lower = max", "T_upper = sum",
                    "critical batch, exact", "critical batch, B ≪ D rule"):
        assert heading + at in headings
    assert "T_comms" in headings and "intensity (FLOP/B)" in headings
    roofs = explorer.evaluate("e => [...e.querySelectorAll('.rk-roof')].map(r => [r.getAttribute('class'),"
                              " Number(r.dataset.peak), getComputedStyle(r).strokeDasharray])")
    assert [(c, p) for c, p, _ in roofs] == [("rk-roof", chip_figures("h100-sxm")[0]),
                                             ("rk-roof rk-achieved-roof", lower.peak)]
    assert roofs[0][2] == "none" and roofs[1][2] != "none"  # the achieved roof is dashed
    labels = explorer.locator("svg.rk-plot text.rk-achieved-label").all_text_contents()
    assert labels == [at.strip()]
    ridge_label = explorer.locator("svg.rk-plot .rk-ridge-label tspan").all_text_contents()
    assert ridge_label == [f"critical intensity {ridge}", at.strip()]  # two lines
    explorer.screenshot(path=str(SCREENSHOTS / "explorer-h100-achieved.png"))

    # Back to 100%: the datasheet's roof alone, and the figures as before.
    share_menu.select_option("1")
    full = _shown(explorer)
    assert full["rows"] == fewer["rows"] and explorer.locator(".rk-achieved-roof").count() == 0
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors


def _check_level_against_rooflinekit(shown: dict[str, Any]) -> list[Point]:
    """The rows under the chosen level's roof are rooflinekit's (on_level), number for number."""
    state = shown["state"]
    expected = on_level(state["chip"], state["level"], state["B"], state["D"], state["operations"],
                        state["achieved"], state["tile"])
    assert list(shown["rows"]) == [p.key for p in expected]
    for point in expected:
        for key in NUMBERS:
            want, (value, text) = getattr(point, key), shown["rows"][point.key][key]
            if want is None:
                assert value is None and text == "-", (point.key, key, value, text)
            else:
                shown_value = math.inf if value == "inf" else float(value)
                assert _close(shown_value, want), (point.key, key, value, want)
    return expected


def _roofs(explorer: Any) -> list[tuple[str, float]]:
    """The roofs drawn: each one's level and bandwidth."""
    found = explorer.evaluate("e => [...e.querySelectorAll('svg.rk-plot .rk-roof')].map("
                              "r => [r.dataset.level, r.dataset.bandwidth])")
    return [(level, float(bandwidth)) for level, bandwidth in found]


def test_static_explorer_draws_the_chosen_levels_roof_with_rooflinekits_points(visit: Any) -> None:
    seen = visit("book/explorer.html")
    explorer = seen.page.locator(".rk-explorer").first
    level = explorer.locator("select[data-control=level]")
    tile = explorer.locator("select[data-control=tile]")
    note = explorer.locator("p.rk-level")
    explorer.locator("input[data-control=batch]").fill(str(B_VALUES.index(4096)))
    explorer.locator("input[data-control=batch]").dispatch_event("input")
    hbm = _shown(explorer)
    assert hbm["state"]["level"] == "hbm" and tile.is_disabled() and not note.is_visible()
    assert level.evaluate("s => [...s.options].map(o => o.value)") == ["hbm", "vmem"]
    assert _roofs(explorer) == [("hbm", chip("tpu-v5e").hbm_bandwidth)]
    _check_against_rooflinekit(hbm)

    # VMEM: its roof, and each operation at its intensity out of VMEM in 128 x 128 tiles.
    level.select_option("vmem")
    vmem = _shown(explorer)
    assert vmem["state"]["level"] == "vmem" and vmem["state"]["tile"] == 128 and not tile.is_disabled()
    assert _roofs(explorer) == [("vmem", rk.hierarchy.level("tpu-v5e", "vmem").bandwidth)]
    placed = _check_level_against_rooflinekit(vmem)
    assert placed[0].intensity < float(hbm["rows"]["matmul"]["intensity"][0])  # more bytes out of VMEM
    assert vmem["points"] != hbm["points"]
    assert note.inner_text() == level_note("tpu-v5e", "vmem", 128)
    tile.select_option("16")
    small = _shown(explorer)
    _check_level_against_rooflinekit(small)
    assert small["rows"]["matmul"]["intensity"] != vmem["rows"]["matmul"]["intensity"]
    assert small["rows"]["dot"] == vmem["rows"]["dot"]  # no reuse to tile: the same bytes
    explorer.screenshot(path=str(SCREENSHOTS / "explorer-vmem.png"))

    # The H100's L2: no bandwidth figure, so no roof and no points, and the explorer says why.
    explorer.locator("select[data-control=chip]").select_option("h100-sxm")
    assert level.input_value() == "hbm"  # the v5e's VMEM is no level of the H100's
    level.select_option("l2")
    assert _roofs(explorer) == [] and explorer.locator(".rk-point").count() == 0
    assert explorer.locator(".rk-no-roof").count() == 1 and explorer.locator("td[data-op]").count() == 0
    assert note.inner_text() == level_note("h100-sxm", "l2", 16)
    level.select_option("smem")
    _check_level_against_rooflinekit(_shown(explorer))
    assert _roofs(explorer) == [("smem", rk.hierarchy.level("h100-sxm", "smem").bandwidth)]

    # A chip whose catalog entry has no on-chip level offers HBM alone, and says so.
    explorer.locator("select[data-control=chip]").select_option("tpu-v6e")
    assert level.evaluate("s => [...s.options].map(o => o.value)") == ["hbm"]
    assert note.inner_text() == level_note("tpu-v6e", "hbm", 16)
    _check_against_rooflinekit(_shown(explorer))
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors


def test_the_korean_explorer_names_the_levels_in_korean(visit: Any) -> None:
    seen = visit("ko/book/explorer.html")
    explorer = seen.page.locator(".rk-explorer").first
    explorer.locator("select[data-control=chip]").select_option("h100-sxm")
    level = explorer.locator("select[data-control=level]")
    names = level.evaluate("s => [...s.options].map(o => o.textContent)")
    assert names == ["HBM", "L2 캐시", "공유 메모리(L1)"]
    level.select_option("l2")
    said = explorer.locator("p.rk-level").inner_text()
    assert said == level_note("h100-sxm", "l2", 128, tr=translator("ko"))
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors



# What a reader sees of the plot's text: the size of its letters on screen, in CSS pixels.
PLOT_TEXT = """e => [...e.querySelectorAll('svg.rk-plot text')].map(t => {
    const svg = t.ownerSVGElement, scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * scale, t.getBoundingClientRect().right,
            svg.getBoundingClientRect().right];
})"""


def _touch_drag(page: Any, slider: Any, fraction: float) -> None:
    """Put a finger on a range input's thumb and slide it to ``fraction`` of its width
    (Chromium's touch events through the DevTools protocol: Playwright taps but cannot slide)."""
    _to_middle(slider)
    box = slider.bounding_box()
    current = slider.evaluate("s => (s.value - s.min) / (s.max - s.min)")
    y = box["y"] + box["height"] / 2
    at = [box["x"] + 8 + f * (box["width"] - 16) for f in (current, fraction)]
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": at[0], "y": y}]})
    for step in range(1, 9):
        x = at[0] + (at[1] - at[0]) * step / 8
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_static_explorer_on_a_phone_reads_and_follows_a_finger(visit: Any) -> None:
    seen = visit("book/explorer.html", width=WIDTHS["phone"], touch=True)
    page = seen.page
    explorer = page.locator(".rk-explorer").first
    explorer.scroll_into_view_if_needed()
    first = _shown(explorer)
    _check_against_rooflinekit(first)
    # The plot's letters are as large on a phone as on a desktop, and none leaves the plot.
    texts = explorer.evaluate(PLOT_TEXT)
    small = [(text, round(size, 1)) for text, size, _, _ in texts if size < 12]
    assert texts and not small, f"plot text smaller than 12 px at {WIDTHS['phone']} px: {small}"
    assert all(right <= edge + 1 for _, _, right, edge in texts), texts
    explorer.screenshot(path=str(SCREENSHOTS / "explorer-phone.png"))

    # A tap on the peak slider's track moves it there; the figures follow.
    peak = explorer.locator("input[data-control=peak]")
    _to_middle(peak)
    box = peak.bounding_box()
    page.touchscreen.tap(box["x"] + 0.9 * box["width"], box["y"] + box["height"] / 2)
    tapped = _shown(explorer)
    assert tapped["state"]["chip"] == "custom" and tapped["state"]["peak"] > first["state"]["peak"]
    assert tapped["axes"] != first["axes"]
    _check_against_rooflinekit(tapped)

    # A finger slides the batch to its end: the matmul's point moves, the axes hold still.
    _touch_drag(page, explorer.locator("input[data-control=batch]"), 1.0)
    slid = _shown(explorer)
    assert slid["state"]["B"] == B_VALUES[-1]
    assert slid["points"] != tapped["points"] and slid["axes"] == tapped["axes"]
    _check_against_rooflinekit(slid)
    explorer.screenshot(path=str(SCREENSHOTS / "explorer-phone-touched.png"))
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors


# --- the transformer view ----------------------------------------------------------------

_PREFIXES = {"p": 1e-12, "n": 1e-9, "µ": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _agrees(text: str, value: float) -> bool:
    """Whether ``text`` (a figure as rooflinekit.fmt writes it: 5.231 ms, 4.29e9, 2.43 GB,
    14.5%, 30562) is ``value`` to the digits it shows: within half a unit of its last digit."""
    match = re.match(r"(\d+)(?:\.(\d+))?(?:e(-?\d+))?(?: ([pnµmkMGT]?)(?:s|B)\b|(%))?", text.strip())
    assert match, f"not a figure: {text!r}"
    whole, decimals, exponent, prefix, percent = match.groups()
    scale = 10.0 ** int(exponent or 0) * _PREFIXES[prefix or ""] * (0.01 if percent else 1.0)
    shown = float(f"{whole}.{decimals or 0}") * scale
    unit = 10.0 ** -len(decimals or "") * scale
    return abs(shown - value) <= unit / 2 * (1 + 1e-9)


def _transformer_shown(view: Any) -> dict[str, Any]:
    """What the transformer view shows: its state, title, message, totals, rows and points."""
    return view.evaluate(
        """v => ({
            state: JSON.parse(v.getAttribute('data-state')),
            title: v.querySelector('.rk-tv-title').textContent,
            message: v.querySelector('.rk-tv-message').hidden ? '' :
                     v.querySelector('.rk-tv-message').textContent,
            summary: Object.fromEntries([...v.querySelectorAll('.rk-tv-summary dd')].map(
                dd => [dd.dataset.key, dd.textContent])),
            rows: Object.fromEntries([...v.querySelectorAll('tbody tr')].map(
                tr => [tr.dataset.op, [...tr.children].map(c => c.textContent)])),
            points: Object.fromEntries([...v.querySelectorAll('.rk-tv-point')].map(
                p => [p.dataset.op, p.transform.baseVal.consolidate().matrix.e])),
            said: v.querySelector('svg.rk-tv-svg').getAttribute('aria-label'),
            tips: [...v.querySelectorAll('.rk-tv-point title')].map(t => t.textContent)
        })"""
    )


def _check_transformer_against_rooflinekit(shown: dict[str, Any]) -> rk.TransformerStep | None:
    """The figures the view shows are rooflinekit's step at its state, to the digits shown."""
    state = shown["state"]
    settings = {"n_chips": 8, "phase": state["phase"], "batch": state["batch"], "context": state["context"],
                "figures": state["figures"]}
    # The plot says what it shows (a screen reader reads an image by its name): the step, each point.
    said = shown["said"]
    assert shown["title"] in said and shown["message"] in said, said
    assert all(tip in said for tip in shown["tips"]), said
    try:
        step = rk.transformer_step("llama-3.1-70b", "h100-sxm", **settings)
    except rk.RooflineInputError as error:
        assert not state["fits"] and shown["message"].endswith(f"must be {error.accepted}.")
        assert not shown["rows"] and not shown["points"] and not shown["summary"]
        return None
    assert state["fits"] and not shown["message"]
    assert shown["title"].startswith(f"llama-3.1-70b on 8 x NVIDIA H100 SXM: {state['phase']}, "
                                     f"batch {state['batch']}, {state['context']} ")
    summary = shown["summary"]
    assert _agrees(summary["t_lower"], step.t_lower), summary["t_lower"]
    assert _agrees(summary["tokens_per_second"], step.tokens_per_second), summary["tokens_per_second"]
    assert summary["max_batch"].startswith(f"{step.max_batch} sequences of ")
    assert summary["bound"].startswith(step.bound + " ")
    assert _agrees(summary["params"], step.model.params)
    assert list(shown["rows"]) == [p.op.name for p in step.ops]
    for placed in step.ops:
        op = placed.op
        name, runs, flops, moved, intensity, bound, time, share = shown["rows"][op.name]
        assert (name, int(runs), bound) == (op.name, op.count, placed.bound)
        assert _agrees(flops, op.flops) and _agrees(moved, op.bytes), (op.name, flops, moved)
        assert (intensity == "-") if op.collective else _agrees(intensity, op.intensity), (op.name, intensity)
        assert _agrees(time, placed.t_lower), (op.name, time)
        assert _agrees(share, op.count * placed.t_lower / step.t_lower), (op.name, share)
        assert (op.name in shown["points"]) == (not op.collective)
    return step


def _drag_into_view(page: Any, slider: Any, fraction: float) -> None:
    slider.scroll_into_view_if_needed()
    _drag(page, slider, fraction)


def test_transformer_view_follows_its_controls_and_matches_rooflinekit(visit: Any) -> None:
    seen = visit("book/explorer.html")
    page = seen.page
    view = page.locator(".rk-transformer").first
    view.scroll_into_view_if_needed()
    first = _transformer_shown(view)
    assert first["state"] == {"figures": "ideal", "phase": "decode", "batch": 1, "context": 2048,
                              "fits": True}
    _check_transformer_against_rooflinekit(first)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    view.screenshot(path=str(SCREENSHOTS / "transformer-view.png"))

    # A larger batch: the weight matmuls move right along the roof, attention stays put.
    _drag_into_view(page, view.locator("input[data-control=batch]"), 0.6)
    batched = _transformer_shown(view)
    assert batched["state"]["batch"] > 8
    assert batched["points"]["MLP up"] > first["points"]["MLP up"]
    assert batched["points"]["attention scores"] == first["points"]["attention scores"]
    assert batched["summary"]["tokens_per_second"] != first["summary"]["tokens_per_second"]
    _check_transformer_against_rooflinekit(batched)

    # Prefill: the big matmuls turn compute-bound.
    view.locator("input[data-control=phase][value=prefill]").check()
    prefill = _transformer_shown(view)
    assert prefill["state"]["phase"] == "prefill"
    step = _check_transformer_against_rooflinekit(prefill)
    assert step is not None and prefill["rows"]["MLP up"][5] == "compute"

    # The calibrated figures: the same step at the catalog's achievable shares, said in its title.
    view.locator("input[data-control=figures][value=calibrated]").check()
    calibrated = _transformer_shown(view)
    assert calibrated["state"] == {**prefill["state"], "figures": "calibrated"}
    assert calibrated["title"].endswith("(calibrated figures)") and "calibrated" not in prefill["title"]
    slower = _check_transformer_against_rooflinekit(calibrated)
    assert slower is not None and slower.t_lower > step.t_lower
    assert calibrated["summary"]["t_lower"] != prefill["summary"]["t_lower"]
    view.locator("input[data-control=figures][value=ideal]").check()
    assert _transformer_shown(view) == prefill

    # The longest context at this batch does not fit: the view says how much would.
    _drag_into_view(page, view.locator("input[data-control=context]"), 1.0)
    too_long = _transformer_shown(view)
    assert too_long["state"]["context"] == 131072 and not too_long["state"]["fits"]
    assert too_long["message"].startswith("Does not fit in memory")
    _check_transformer_against_rooflinekit(too_long)

    # Back to decode with a short context and a small batch, by keyboard.
    view.locator("input[data-control=phase][value=decode]").check()
    context = view.locator("input[data-control=context]")
    context.focus()
    for _ in range(10):
        page.keyboard.press("ArrowLeft")
    short = _transformer_shown(view)
    assert short["state"]["context"] == 128 and short["state"]["phase"] == "decode"
    _check_transformer_against_rooflinekit(short)
    view.screenshot(path=str(SCREENSHOTS / "transformer-view-short.png"))
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors


# --- the explorers with the keyboard alone -----------------------------------------------
# Tab reaches every control of both explorers from the top of the page, each named as a reader sees
# it and showing its focus; arrows, Home, End, Space and Enter move them; the numbers follow as
# rooflinekit says. No mouse, no locator's click or fill: only keys.


def _focus_is_on(control: Any) -> bool:
    """Whether ``control`` has the keyboard's focus, drawn around it (``:focus-visible``)."""
    shown: bool = control.evaluate(
        "e => e === document.activeElement && e.matches(':focus-visible')"
        " && getComputedStyle(e).outlineStyle !== 'none'"
    )
    return shown


def _tab_into(page: Any, view: str, limit: int = 200) -> int:
    """Press Tab until the focus is inside the first ``view`` (a CSS selector); the presses."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => document.activeElement.closest('{view}') !== null"):
            return presses
    raise AssertionError(f"{limit} presses of Tab never reached {view}")


def _press(page: Any, key: str, times: int = 1) -> None:
    for _ in range(times):
        page.keyboard.press(key)


def test_both_explorers_work_with_the_keyboard_alone(visit: Any) -> None:
    seen = visit("book/explorer.html")
    page = seen.page
    explorer = page.locator(".rk-explorer").first
    menu = explorer.get_by_role("combobox", name="chip", exact=True)
    _tab_into(page, ".rk-explorer")
    assert _focus_is_on(menu), "the chip menu is not the explorer's first stop"
    first = _shown(explorer)

    # The next chip of the menu, by arrow: its own figures, exactly.
    chips = menu.evaluate("s => [...s.options].map(o => o.value)")
    _press(page, "ArrowDown")
    chosen = _shown(explorer)
    assert chosen["state"]["chip"] == chips[chips.index(first["state"]["chip"]) + 1]
    assert (chosen["state"]["peak"], chosen["state"]["bandwidth"]) == chip_figures(chosen["state"]["chip"])
    _check_against_rooflinekit(chosen)

    # The peak, up five steps: custom figures, and the slider says the figure, not its logarithm.
    _press(page, "Tab")
    peak = explorer.get_by_role("slider", name=re.compile(r"^peak \S+ FLOP\/s$"))
    assert _focus_is_on(peak)
    _press(page, "ArrowRight", 5)
    raised = _shown(explorer)
    assert raised["state"]["chip"] == "custom" and raised["state"]["peak"] > chosen["state"]["peak"]
    assert peak.get_attribute("aria-valuetext") == num(raised["state"]["peak"], 4)
    _check_against_rooflinekit(raised)

    # The bandwidth, down five steps.
    _press(page, "Tab")
    bandwidth = explorer.get_by_role("slider", name="HBM bandwidth (B/s)", exact=True)
    assert _focus_is_on(bandwidth)
    _press(page, "ArrowLeft", 5)
    slower = _shown(explorer)
    assert slower["state"]["bandwidth"] < raised["state"]["bandwidth"]
    assert bandwidth.get_attribute("aria-valuetext") == num(slower["state"]["bandwidth"], 4)
    _check_against_rooflinekit(slower)

    # The batch to its end and the width to its start: their values are sizes, not positions.
    _press(page, "Tab")
    batch = explorer.get_by_role("slider", name="batch B (tokens)", exact=True)
    assert _focus_is_on(batch)
    _press(page, "End")
    _press(page, "Tab")
    width = explorer.get_by_role("slider", name="width D = F", exact=True)
    assert _focus_is_on(width)
    _press(page, "Home")
    resized = _shown(explorer)
    assert (resized["state"]["B"], resized["state"]["D"]) == (B_VALUES[-1], D_VALUES[0])
    assert batch.get_attribute("aria-valuetext") == str(B_VALUES[-1])
    assert width.get_attribute("aria-valuetext") == str(D_VALUES[0])
    _check_against_rooflinekit(resized)

    # The achieved share, one choice down.
    _press(page, "Tab")
    shares = explorer.get_by_role("combobox", name="achieved share of the peak", exact=True)
    assert _focus_is_on(shares)
    _press(page, "ArrowDown")
    achieved = _shown(explorer)
    assert achieved["state"]["achieved"] == float(shares.evaluate("s => s.options[1].value")) != 1
    _check_against_rooflinekit(achieved)

    # The memory level: custom figures have HBM's alone, and the tile menu, for an on-chip level,
    # is out of the way until one is chosen.
    _press(page, "Tab")
    levels = explorer.get_by_role("combobox", name="memory level", exact=True)
    assert _focus_is_on(levels) and levels.evaluate("s => s.options.length") == 1
    assert explorer.get_by_role("combobox", name="matmul tile", exact=True).is_disabled()

    # The first operation, unticked with Space; Tab goes on through the others to the table.
    _press(page, "Tab")
    operation = achieved["state"]["operations"][0]
    label = explorer.locator(f"input[data-control=op][value={operation}]").evaluate(
        "b => b.labels[0].textContent")
    assert _focus_is_on(explorer.get_by_role("checkbox", name=label.strip(), exact=True))
    _press(page, "Space")
    fewer = _shown(explorer)
    assert fewer["state"]["operations"] == achieved["state"]["operations"][1:]
    assert operation not in fewer["rows"]
    _check_against_rooflinekit(fewer)
    _press(page, "Tab", explorer.locator("input[data-control=op]").count())  # the others, the table
    table = explorer.get_by_role("region", name="figures of the operations", exact=True)
    assert _focus_is_on(table)

    # Back, with Shift+Tab, to "back to <chip>", and Enter: the chip's figures again.
    name = chip(chosen["state"]["chip"]).name
    back = explorer.get_by_role("button", name=f"back to {name}", exact=True)
    for _ in range(20):
        if _focus_is_on(back):
            break
        _press(page, "Shift+Tab")
    assert _focus_is_on(back)
    _press(page, "Enter")
    returned = _shown(explorer)
    assert returned["state"]["chip"] == chosen["state"]["chip"]
    figures = (returned["state"]["peak"], returned["state"]["bandwidth"])
    assert figures == chip_figures(chosen["state"]["chip"])
    _check_against_rooflinekit(returned)

    # The transformer view: its phase by arrow, then its sliders.
    view = page.locator(".rk-transformer").first
    _tab_into(page, ".rk-transformer")
    decode = view.get_by_role("radio", name="decode", exact=True)
    assert _focus_is_on(decode), "the phase is not the transformer view's first stop"
    before = _transformer_shown(view)
    _check_transformer_against_rooflinekit(before)
    _press(page, "ArrowRight")
    prefill = _transformer_shown(view)
    assert prefill["state"]["phase"] == "prefill"
    assert _focus_is_on(view.get_by_role("radio", name="prefill", exact=True))
    _check_transformer_against_rooflinekit(prefill)

    _press(page, "Tab")
    sequences = view.get_by_role("slider", name="batch (sequences)", exact=True)
    assert _focus_is_on(sequences)
    _press(page, "ArrowRight", 4)
    batched = _transformer_shown(view)
    assert batched["state"]["batch"] == BATCHES[BATCHES.index(before["state"]["batch"]) + 4]
    assert sequences.get_attribute("aria-valuetext") == str(batched["state"]["batch"])
    _check_transformer_against_rooflinekit(batched)

    _press(page, "Tab")
    context = view.get_by_role("slider", name="context (tokens)", exact=True)
    assert _focus_is_on(context)
    _press(page, "End")
    too_long = _transformer_shown(view)
    assert too_long["state"]["context"] == CONTEXTS[-1] and not too_long["state"]["fits"]
    assert context.get_attribute("aria-valuetext") == str(CONTEXTS[-1])
    _check_transformer_against_rooflinekit(too_long)
    _press(page, "Home")
    short = _transformer_shown(view)
    assert short["state"]["context"] == CONTEXTS[0] and short["state"]["fits"]
    _check_transformer_against_rooflinekit(short)

    _press(page, "Tab")
    ideal = view.get_by_role("radio", name="ideal", exact=True)
    assert _focus_is_on(ideal), "the figures are not the stop after the sliders"
    _press(page, "ArrowRight")
    calibrated = _transformer_shown(view)
    assert calibrated["state"] == {**short["state"], "figures": "calibrated"}
    assert _focus_is_on(view.get_by_role("radio", name="calibrated", exact=True))
    _check_transformer_against_rooflinekit(calibrated)

    _press(page, "Tab")
    assert _focus_is_on(view.get_by_role("region", name="figures of the step's operations", exact=True))
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors


# --- the Korean edition (its pages are in PAGES above) -----------------------------------
# The switcher leads to the same page in the other language and back; a Korean search finds the
# chapters that use a term, whatever particle follows it there.

TERM = "루프라인"


# Every page's switcher is checked where test_browser.py opens it; these are clicked through.
CLICKED = ["book/intro", "book/chapters/01-where-the-time-goes", "book/catalog", "search", "genindex"]


def _switch(seen: Visit, language: str) -> None:
    page = seen.page
    link = page.locator(f".rk-editions a[hreflang={language}]")
    assert link.count() == 1, f"no {language} link in the switcher of {page.url}"
    settle(seen)  # leaving a page aborts what it still loads (fonts)
    with page.expect_navigation(wait_until="load"):
        link.click()
    # MathJax fetches its fonts after "load": let the new page settle too, so that whatever the
    # test does next (another goto, another switch) aborts nothing it still loads.
    settle(seen)


def test_the_switcher_leads_to_the_same_page_in_the_other_language_and_back(
    visit: Any, site_url: str
) -> None:
    seen = visit("book/intro.html")
    page = seen.page
    assert set(CLICKED) - {"search", "genindex"} <= set(toc_docnames())
    for docname in CLICKED:
        english = f"{site_url}{docname}.html"
        page.goto(english, wait_until="load")
        assert page.evaluate("document.documentElement.lang") == "en"
        _switch(seen, "ko")
        assert page.url == f"{site_url}ko/{docname}.html"
        assert page.evaluate("document.documentElement.lang") == "ko"
        assert page.locator(".rk-editions [aria-current=page]").inner_text() == "한국어"
        _switch(seen, "en")
        assert page.url == english
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors


def test_korean_search_finds_the_chapters_that_use_a_term(
    visit: Any, built_site: Path
) -> None:
    using = pages_using(built_site / "ko", TERM)
    assert any(d.startswith("book/chapters/") for d in using), "no Korean chapter uses the term"
    seen = visit(f"ko/search.html?q={quote(TERM)}")
    page = seen.page
    page.wait_for_function(
        "() => document.querySelector('#search-results .search-summary')?.textContent.trim()",
        timeout=60_000,
    )
    found = page.evaluate(
        "() => [...document.querySelectorAll('#search-results ul.search li a')].map(a => a.pathname)"
    )
    found_docs = sorted({p.split("/ko/", 1)[1].removesuffix(".html") for p in found})
    assert set(using) <= set(found_docs), (using, found_docs)
    assert page.locator("#search-results .search-summary").inner_text() != ""
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors


# --- the explorers on the Korean site ----------------------------------------------------
# The pages carry the explorers' words in every language; on the Korean site they read Korean
# (tests/rooflinekit/test_explorer_js.py checks every word in node), and stay live with rooflinekit's numbers.


def _korean_summary(state: dict[str, Any], source: str) -> str:
    """The explorer's caption, as a Korean reader should read it at ``state``."""
    roof = rk.hardware(peak=state["peak"], bandwidth=state["bandwidth"], achieved=state["achieved"])
    figures = f"{source}: 피크 성능 {num(state['peak'], 4)} FLOP/s, 대역폭 {num(state['bandwidth'], 4)} B/s; "
    if state["achieved"] != 1:
        figures += f"피크 성능의 {pct(state['achieved'])} 기준: {num(roof.peak, 4)} FLOP/s, "
    ridge = num(roof.critical_intensity, 4)
    return figures + f"임계 강도 {ridge} FLOP/B. B = {state['B']}, D = F = {state['D']}."


def test_the_korean_explorer_reads_korean_and_follows_its_controls_with_rooflinekits_numbers(
    visit: Any,
) -> None:
    seen = visit("ko/book/explorer.html")
    page = seen.page
    explorer = page.locator(".rk-explorer").first
    explorer.scroll_into_view_if_needed()
    first = _shown(explorer)
    _check_against_rooflinekit(first)
    assert explorer.get_attribute("lang") == "ko"
    labels = explorer.locator(".rk-control label").all_inner_texts()
    assert labels == ["칩", "피크 성능 bf16 FLOP/s", "HBM 대역폭 (B/s)", "배치 B (토큰)", "너비 D = F",
                      "달성하는 피크 성능 비율", "메모리 레벨", "행렬 곱셈 타일"]
    assert explorer.locator("select[data-control=chip] option").last.inner_text() == "사용자 지정 (슬라이더)"
    assert explorer.locator(".rk-ops legend").inner_text() == "연산"
    name = chip(first["state"]["chip"]).name
    summary = explorer.locator(".rk-summary")
    assert summary.inner_text() == _korean_summary(first["state"], f"{name} (카탈로그)")
    headings = explorer.locator(".rk-table tbody th").all_inner_texts()
    assert headings[:3] == ["FLOPs", "옮긴 바이트", "강도 (FLOP/B)"] and "임계 배치, B ≪ D 규칙" in headings
    plot = explorer.locator("svg.rk-plot text").all_text_contents()
    assert "산술 강도 (바이트당 FLOPs)" in plot and "도달 가능 bf16 FLOP/s" in plot
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    explorer.screenshot(path=str(SCREENSHOTS / "explorer-ko.png"))

    # A chip from the menu, then a slider dragged: the caption follows, in Korean.
    explorer.locator("select[data-control=chip]").select_option("h100-sxm")
    h100 = _shown(explorer)
    _check_against_rooflinekit(h100)
    assert summary.inner_text() == _korean_summary(h100["state"], "NVIDIA H100 SXM (카탈로그)")
    _drag(page, explorer.locator("input[data-control=peak]"), 0.9)
    dragged = _shown(explorer)
    assert dragged["state"]["chip"] == "custom" and dragged["state"]["peak"] > h100["state"]["peak"]
    _check_against_rooflinekit(dragged)
    assert summary.inner_text() == _korean_summary(dragged["state"], "사용자 지정 (슬라이더)")
    back = explorer.locator("button[data-control=back]")
    assert back.is_visible() and back.inner_text() == "NVIDIA H100 SXM 수치로 돌아가기"
    back.click()

    # The chip's typical share of the peak, marked in Korean; the figures under it labelled so.
    share = rk.catalog.achievable("h100-sxm").high
    menu = explorer.locator("select[data-control=achieved]")
    options = dict(menu.evaluate("s => [...s.options].map(o => [Number(o.value), o.textContent])"))
    assert options[share] == f"피크 성능의 {pct(share)} (NVIDIA H100 SXM의 통상 수준)"
    menu.select_option(str(share))
    achieved = _shown(explorer)
    _check_against_rooflinekit(achieved)
    assert summary.inner_text() == _korean_summary(achieved["state"], "NVIDIA H100 SXM (카탈로그)")
    headings = explorer.locator(".rk-table tbody th").all_inner_texts()
    assert f"T_math (피크 성능의 {pct(share)} 기준)" in headings
    explorer.screenshot(path=str(SCREENSHOTS / "explorer-ko-achieved.png"))
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors


def test_the_korean_transformer_view_shows_the_librarys_korean_texts(visit: Any) -> None:
    seen = visit("ko/book/explorer.html")
    page = seen.page
    view = page.locator(".rk-transformer").first
    view.scroll_into_view_if_needed()
    settings = TransformerSettings("llama-3.1-70b", "h100-sxm", 8)

    def check() -> dict[str, Any]:
        shown = _transformer_shown(view)
        at = settings.at(**{key: shown["state"][key] for key in ("figures", "phase", "batch", "context")})
        expected = transformer_view(at, "ko")
        assert shown["title"] == expected.title and shown["message"] == expected.message
        assert list(shown["summary"].values()) == [line.text for line in expected.summary]
        assert [row for row in shown["rows"].values()] == [
            [op.row[0], str(op.row[1]), *op.row[2:]] for op in expected.ops]
        return shown

    first = check()
    assert first["title"].startswith("8 x NVIDIA H100 SXM의 llama-3.1-70b: 디코드, 배치 1")
    assert view.locator("thead th").all_inner_texts()[:2] == ["연산 (칩 하나)", "실행 횟수"]
    assert view.locator(".rk-tv-phase legend").inner_text() == "단계"
    phases = [t.strip() for t in view.locator(".rk-tv-phase label").all_inner_texts()]
    assert phases == ["디코드", "프리필"]
    plot = view.locator(".rk-tv-plot svg text").all_text_contents()
    assert "산술 강도 (바이트당 FLOPs)" in plot and "메모리 병목" in plot
    assert view.locator(".rk-tv-plot").count() == 1 and view.get_attribute("lang") == "ko"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    view.screenshot(path=str(SCREENSHOTS / "transformer-view-ko.png"))

    view.locator("input[data-control=phase][value=prefill]").check()
    _drag_into_view(page, view.locator("input[data-control=batch]"), 0.6)
    prefill = check()
    assert prefill["state"]["phase"] == "prefill" and "연산" in [row[5] for row in prefill["rows"].values()]
    _drag_into_view(page, view.locator("input[data-control=context]"), 1.0)
    too_long = check()
    assert not too_long["state"]["fits"] and too_long["message"].startswith("메모리에 들어가지 않습니다.")
    assert view.locator(".rk-tv-figures legend").inner_text() == "수치"
    assert [t.strip() for t in view.locator(".rk-tv-figures label").all_inner_texts()] == ["이상적", "보정"]
    view.locator("input[data-control=figures][value=calibrated]").check()
    calibrated = check()
    assert calibrated["state"]["figures"] == "calibrated" and calibrated["title"].endswith("(보정된 수치)")
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors


def test_chapter_3s_explorer_reads_korean_on_the_korean_site(visit: Any) -> None:
    seen = visit("ko/book/chapters/03-roofline-plots.html")
    explorer = seen.page.locator(".rk-explorer").first
    explorer.scroll_into_view_if_needed()
    shown = _shown(explorer)
    _check_against_rooflinekit(shown)
    assert explorer.locator(".rk-control label").first.inner_text() == "칩"
    source = f"{chip(shown['state']['chip']).name} (카탈로그)"
    assert explorer.locator(".rk-summary").inner_text() == _korean_summary(shown["state"], source)
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors
