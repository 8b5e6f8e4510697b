"""The browser every browser test drives: Debian's chromium (``playwright install`` cannot
download one on the course's machines), headless, with nothing reaching out on its own, and no
address but this machine's (127.0.0.1) within its reach.

The tests serve what they open on 127.0.0.1, so the browser itself refuses every other host
(``--host-resolver-rules``: every name resolves to nothing) and a test only watches what a page
asks for (:func:`note_requests_elsewhere`). Intercepting each request instead (Playwright's
``page.route``) would send every one through this process and turn the browser's cache off
(microsoft/playwright#7220): a JupyterLab or formgrader page asks for dozens of files.

>>> page_requests = []
>>> class Page:  # what note_requests_elsewhere needs of a Playwright page: its "request" event
...     def on(self, event, handler): page_requests.append(handler) if event == "request" else None
>>> class Request:
...     def __init__(self, url): self.url = url
>>> elsewhere = []
>>> note_requests_elsewhere(Page(), "http://127.0.0.1:4321", elsewhere)
>>> for url in ("http://127.0.0.1:4321/a.css", "data:,x", "http://127.0.0.1:43210/", "https://cdn.example/m.js"):
...     page_requests[0](Request(url))
>>> elsewhere
['http://127.0.0.1:43210/', 'https://cdn.example/m.js']
"""

from __future__ import annotations

from typing import Any

CHROMIUM = "/usr/bin/chromium"
ONLY_THIS_MACHINE = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"
"""Every host name resolves to nothing (net::ERR_NAME_NOT_RESOLVED), 127.0.0.1 alone excepted."""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-proxy-server",  # a proxy would look names up for the browser, past ONLY_THIS_MACHINE
    ONLY_THIS_MACHINE,
]
IN_THE_PAGE = ("data:", "blob:")
"""Addresses a page makes of what it already holds: never a request to another host."""


def note_requests_elsewhere(
    page: Any, local: str | tuple[str, ...], into: list[str], in_the_page: tuple[str, ...] = IN_THE_PAGE
) -> None:
    """Append to ``into`` the address of every request ``page`` makes to anything but ``local`` (the
    start of the served addresses) and what it holds itself (``in_the_page``). The browser cannot
    reach them (:data:`ONLY_THIS_MACHINE`); the test says which the page asked for."""
    served = (local,) if isinstance(local, str) else local
    # http://127.0.0.1:4321 must not pass for http://127.0.0.1:43210/: an origin ends with a slash.
    origins = tuple(f"{p}/" if p.startswith("http") and p.count("/") == 2 else p for p in served)
    allowed = origins + in_the_page

    def note(request: Any) -> None:
        if not request.url.startswith(allowed):
            into.append(request.url)

    page.on("request", note)
