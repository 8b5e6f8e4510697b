"""What every kernel-free view's HTML needs: its assets, safe embedding and unique ids.

A view's script and styles ship in ``rooflinekit/explorer/assets``; its data and code go
inside ``<script>`` elements, which must not be closed early by a ``</`` in them; and each
view on a page needs an element id of its own.

>>> script_safe('{"label": "</script>"}')
'{"label": "<\\\\/script>"}'
>>> asset("explorer.css").startswith("/*")
True
>>> element_id("rk-x") != element_id("rk-x")
True
"""

from __future__ import annotations

import itertools
from functools import cache
from importlib import resources

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
