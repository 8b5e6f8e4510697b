"""The Korean edition in a real browser (as test_browser.py, whose page checks cover ko/ too).

The language switcher leads from every page to the same page in the other language and back,
and a Korean search finds the chapters that use a term, whatever particle follows it there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from book_site import pages_using, toc_docnames
from test_browser import browser, visit  # noqa: F401  (the browser and its offline page)

pytestmark = pytest.mark.browser

TERM = "루프라인"


def _switch(page: Any, language: str) -> None:
    link = page.locator(f".rk-editions a[hreflang={language}]")
    assert link.count() == 1, f"no {language} link in the switcher of {page.url}"
    with page.expect_navigation(wait_until="load"):
        link.click()


def test_the_switcher_leads_to_the_same_page_in_the_other_language_and_back(
    visit: Any, site_url: str  # noqa: F811
) -> None:
    seen = visit("book/intro.html")
    page = seen.page
    for docname in toc_docnames():
        english = f"{site_url}{docname}.html"
        page.goto(english, wait_until="load")
        assert page.evaluate("document.documentElement.lang") == "en"
        _switch(page, "ko")
        assert page.url == f"{site_url}ko/{docname}.html"
        assert page.evaluate("document.documentElement.lang") == "ko"
        assert page.locator(".rk-editions [aria-current=page]").inner_text() == "한국어"
        _switch(page, "en")
        assert page.url == english
    assert not seen.blocked and not seen.errors, seen.blocked + seen.errors


def test_korean_search_finds_the_chapters_that_use_a_term(
    visit: Any, built_site: Path  # noqa: F811
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
