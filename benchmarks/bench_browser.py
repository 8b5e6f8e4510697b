"""What does keeping a browser test offline cost: each request routed through the test, or the
browser reaching no host but 127.0.0.1 while the test watches?

The browser tests open pages served on 127.0.0.1 and fail on any request to another host. They
used to route every request through Playwright (``page.route``: each request stops until the
test's Python says continue or abort), which also turns the browser's cache off. Now chromium
resolves no name but 127.0.0.1 (tests/support/browsers.py) and the test only notes what a page
asks for. Side by side, in one run, on the built site (``make book``, which it runs if the site is
not there), interleaved over ``--rounds`` rounds, alternating which goes first:

- ``routed``: every request continued or aborted by the test, as before;
- ``watched``: the requests only noted, as now.

Two ways of opening the pages, each timed until every page has loaded and settled
(tests/support/site_pages.py): each page in a new browser context, as each test of
tests/book/test_browser.py opens its page, and every page in one phone's context, as the public
edition's phone test does (where the browser's cache can serve a file it has loaded before).

    python benchmarks/bench_browser.py [--rounds 3] [--every 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "book" / "_ext"))

from tests.support.book_build import make_book  # noqa: E402
from tests.support.book_site import toc_docnames  # noqa: E402
from tests.support.browsers import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.support.site_pages import browser_context, open_page, served  # noqa: E402

SITE = ROOT / "_build" / "html"


def routed(context: Any, url: str) -> Any:
    """``context`` with every request of its pages routed through this process (the former way):
    continued to ``url``, aborted elsewhere."""
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith((url, "data:")) else r.abort())
    return context


def watched(context: Any, url: str) -> Any:
    """``context`` as the tests use it now: its pages' requests only noted (by :func:`open_page`)."""
    return context


def timed(way: Callable[[Any, str], Any], chromium: Any, url: str, pages: list[str], shared: bool) -> float:
    """Seconds to open and settle every page of ``pages``, each in a new context or all in one."""
    started = time.perf_counter()
    phone = way(browser_context(chromium, 390, touch=True), url) if shared else None
    for path in pages:
        context = phone or way(browser_context(chromium, 390), url)
        seen = open_page(chromium, url, path, context=context)
        assert not seen.blocked and not seen.errors, seen.blocked + seen.errors
        seen.page.close()
        if phone is None:
            context.close()
    if phone is not None:
        phone.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each way (default 3)")
    parser.add_argument("--every", type=int, default=3, help="open every n-th page of the site (default 3)")
    args = parser.parse_args()
    if not (SITE / "index.html").is_file():
        print("building the site first: make book")
        built = make_book()
        if built.returncode != 0:
            sys.exit(f"make book failed:\n{built.stdout[-3000:]}{built.stderr[-3000:]}")
    docnames = toc_docnames()
    pages = [f"{lang}{d}.html" for lang in ("", "ko/") for d in docnames][:: args.every]
    from playwright.sync_api import sync_playwright

    times: dict[tuple[str, bool], list[float]] = {}
    ways = {"routed": routed, "watched": watched}
    with sync_playwright() as playwright, served(SITE) as url:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for round_ in range(args.rounds):
            order = list(ways) if round_ % 2 == 0 else list(reversed(ways))
            for shared in (False, True):
                for way in order:
                    times.setdefault((way, shared), []).append(timed(ways[way], chromium, url, pages, shared))
        chromium.close()
    print(f"{len(pages)} pages of the site, medians of {args.rounds} rounds")
    print(f"  {'opened':<34}{'routed':>9}{'watched':>10}{'ratio':>8}")
    for shared, label in ((False, "each in a new context"), (True, "all in one phone's context")):
        before, after = (statistics.median(times[(way, shared)]) for way in ways)
        print(f"  {label:<34}{before:8.1f}s{after:9.1f}s{after / before:8.2f}")


if __name__ == "__main__":
    main()
