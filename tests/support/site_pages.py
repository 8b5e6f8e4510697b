"""A built site's pages in chromium: opened offline from a server on 127.0.0.1, settled, measured for
sideways scroll and audited with axe-core. tests/book/test_browser.py opens the checkout's site
with these, tests/e2e/test_public_edition.py a public edition's.
"""

from __future__ import annotations

import functools
import http.server
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.browsers import note_requests_elsewhere

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
"""axe-core's rules of WCAG 2.0 and 2.1, levels A and AA."""

# axe-core's audit of the page as it is now (or of the parts of it that the selectors name, those
# the page has): one line per element that breaks a rule.
AUDIT = """([tags, parts]) => axe.run(
        parts.length ? {include: parts.filter(s => document.querySelector(s)).map(s => [s])} : document,
        {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})
    .then(r => r.violations.flatMap(v => v.nodes.map(n =>
        `${v.id} (${v.impact}): ${n.target.join(' ')}: ${n.html.slice(0, 160)}`)))"""


def accessibility_violations(page: Any, axe_script: str, parts: Sequence[str] = ()) -> list[str]:
    """axe-core's WCAG 2.1 A and AA violations on ``page`` (on the elements ``parts``, CSS selectors,
    select, if any: what sets the page apart from one audited whole); axe is injected as an inline script."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(content=axe_script)
    found: list[str] = page.evaluate(AUDIT, [AXE_TAGS, list(parts)])
    return found


@dataclass
class Visit:
    """A page opened in the browser, with everything that went wrong while it loaded."""

    page: Any
    errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    """Its requests to any other address, noted (the browser reaches no host but 127.0.0.1)."""
    pending: set[Any] = field(default_factory=set)


# The page has settled: its fonts are laid out, MathJax (where the page loads it) has typeset, and
# the next frame is drawn, so a deferred script's error would have been reported.
SETTLED = """() => Promise.all([document.fonts.ready,
                         window.MathJax && MathJax.startup ? MathJax.startup.promise : null])
    .then(() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done))))
    .then(() => document.readyState === 'complete')"""


def settle(seen: Visit, timeout_ms: float = 90_000) -> None:
    """Wait until nothing the page asked for is still pending, and it has settled (SETTLED): the
    conditions network idle stood for, without its fixed half second of quiet."""
    page, deadline = seen.page, time.monotonic() + timeout_ms / 1000
    assert page.evaluate(SETTLED)
    while seen.pending:  # the browser's events reach this process while Playwright waits
        assert time.monotonic() < deadline, f"requests still pending: {[r.url for r in seen.pending]}"
        page.wait_for_timeout(20)
    assert page.evaluate(SETTLED)  # what the last requests brought (a font, a MathJax part) laid out


def browser_context(chromium: Any, width: int = 1280, *, touch: bool = False) -> Any:
    """A new context of ``chromium``, ``width`` CSS pixels wide (with touch: a phone's browser: touch
    events, the page's meta viewport, a dense screen)."""
    phone = {"has_touch": True, "is_mobile": True, "device_scale_factor": 3} if touch else {}
    return chromium.new_context(viewport={"width": width, "height": 1000}, **phone)


def open_page(
    chromium: Any, site_url: str, path: str, width: int = 1280, *, touch: bool = False, context: Any = None
) -> Visit:
    """``site_url + path`` in a new context of ``chromium`` (:func:`browser_context`), or in a new page
    of ``context``, one of its contexts, every request to another host recorded (the browser
    reaches none: tests/support/browsers.py), settled. Close ``visit.page.context`` when done (the
    page, in a context of the caller's)."""
    page = (context or browser_context(chromium, width, touch=touch)).new_page()
    seen = Visit(page)
    note_requests_elsewhere(page, site_url, seen.blocked)

    def console(message: Any) -> None:
        if message.type == "error":
            seen.errors.append(f"console: {message.text}")

    def response(answer: Any) -> None:
        if answer.status >= 400:
            seen.errors.append(f"{answer.status}: {answer.url}")

    page.on("console", console)
    page.on("pageerror", lambda e: seen.errors.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: seen.errors.append(f"failed: {r.url} {r.failure}"))
    page.on("response", response)
    page.on("request", lambda r: seen.pending.add(r))
    page.on("requestfinished", lambda r: seen.pending.discard(r))
    page.on("requestfailed", lambda r: seen.pending.discard(r))
    # Generous limits: on a busy machine a page of many equations takes a while to settle.
    page.goto(site_url + path, wait_until="load", timeout=90_000)
    settle(seen)
    return seen


# What overflows a page's column: every element wider than the article that does not sit in a
# box of its own that scrolls sideways (and fits). MathJax's copy of each formula for screen
# readers is clipped to nothing, so it is left out.
OVERFLOW = """() => {
  const column = document.querySelector('article.bd-article') || document.querySelector('main');
  const limit = column.getBoundingClientRect().right + 1;
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX)
                       && e.getBoundingClientRect().right <= limit;
  const wide = [];
  for (const e of column.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= limit || e.closest('mjx-assistive-mml')) continue;
    let box = e.parentElement;
    while (box && box !== column && !scrolls(box)) box = box.parentElement;
    if (box && box !== column) continue;
    if (wide.some(w => w.contains(e))) continue;
    wide.push(e);
  }
  const describe = e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} ` +
    `(right edge ${Math.round(e.getBoundingClientRect().right)} > ${Math.round(limit)}): ` +
    `${(e.textContent || '').trim().slice(0, 50)}`;
  const root = document.documentElement;
  return {page: Math.max(root.scrollWidth, document.body.scrollWidth), window: root.clientWidth,
          wide: wide.map(describe)};
}"""

# The header's controls, each one's label and whether it lies wholly on the screen.
HEADER_CONTROLS = """() => [...document.querySelectorAll('.bd-header-article button, .bd-header-article a')]
    .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
    .map(e => { const r = e.getBoundingClientRect();
                return [e.getAttribute('aria-label') || e.getAttribute('title') || e.textContent.trim()
                        || e.className, r.left >= 0 && r.right <= document.documentElement.clientWidth]; })"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """``http://127.0.0.1:PORT/``: ``folder`` served on the loopback address by a thread of this process."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
