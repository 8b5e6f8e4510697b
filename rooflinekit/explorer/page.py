"""What every view needs on a page: its assets, safe embedding, unique ids and its two faces.

A view's script and styles ship in ``rooflinekit/explorer/assets``; its data and code go
inside ``<script>`` elements, which must not be closed early by a ``</`` in them; each view on
a page needs an element id of its own; and a notebook cell displays it with two faces, the
kernel-free HTML and the live ipywidgets view (:func:`two_faces`).

>>> script_safe('{"label": "</script>"}')
'{"label": "<\\\\/script>"}'
>>> asset("explorer.css").startswith("/*")
True
>>> element_id("rk-x") != element_id("rk-x")
True
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from functools import cache
from importlib import resources
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

_ids = itertools.count(1)


@cache
def asset(name: str) -> str:
    """The text of ``assets/name``, shipped with the package."""
    return (resources.files("rooflinekit.explorer") / "assets" / name).read_text(encoding="utf-8")


def script_safe(text: str) -> str:
    """Keep embedded JSON or code from closing its <script> element early."""
    return text.replace("</", "<\\/")


def element_id(prefix: str) -> str:
    """An id no other view on the page has: ``prefix-1``, ``prefix-2``, ..."""
    return f"{prefix}-{next(_ids)}"


def two_faces(
    text: str,
    html: str,
    live: Callable[[], Any],
    include: Sequence[str] | None = None,
    exclude: Sequence[str] | None = None,
) -> dict[str, Any]:
    """A view's ``_repr_mimebundle_``: plain text, the kernel-free HTML face and, when asked for
    and ipywidgets and matplotlib are there to build it, the live widget ``live()`` returns.

    >>> sorted(two_faces("a view", "<p>a view</p>", lambda: None, include=["text/html", "text/plain"]))
    ['text/html', 'text/plain']
    """
    bundle: dict[str, Any] = {"text/plain": text, "text/html": html}
    if (include is None or WIDGET_VIEW in include) and not (exclude and WIDGET_VIEW in exclude):
        try:
            view = live()._repr_mimebundle_()
        except ImportError:  # no ipywidgets or matplotlib: the static face is all there is
            view = None
        if view and WIDGET_VIEW in view:
            bundle[WIDGET_VIEW] = view[WIDGET_VIEW]
    if include is not None:
        bundle = {k: v for k, v in bundle.items() if k in include}
    return bundle
