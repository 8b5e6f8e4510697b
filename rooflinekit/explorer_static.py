"""The kernel-free roofline explorer: one self-contained HTML fragment.

The fragment carries the data :func:`rooflinekit.explorer_model.grid_data` computes (the
FLOPs and bytes of every explorer operation at every slider size, the catalog's chips) as
JSON, plus a small script and stylesheet shipped in ``rooflinekit/_static``. In a browser it
shows the same sliders, plot and table as the JupyterLab explorer with no kernel behind it:
the script only divides and compares the numbers rooflinekit computed. The book's pages get
it from :func:`rooflinekit.explorer.explorer` (whose output carries it as ``text/html``).

>>> html = explorer_html("h100-sxm", B=512, D=4096)
>>> html.startswith('<div class="rk-explorer"') and '"chip": "h100-sxm"' in html
True
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from rooflinekit.catalog import chip as find_chip
from rooflinekit.errors import RooflineInputError
from rooflinekit.explorer_model import B_VALUES, D_VALUES, OPERATIONS, grid_data, operation

_ids = itertools.count(1)
_BATCHES_ACCEPTED = "a batch on the slider, one of " + ", ".join(map(str, B_VALUES))


@dataclass(frozen=True)
class ExplorerSettings:
    """Where an explorer starts: a catalog chip, a batch, a width and the operations shown.

    >>> ExplorerSettings(B=300)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: B must be a batch on the slider, one of 1, ... (got 300)
    """

    chip: str = "tpu-v5e"
    B: int = 256
    D: int = 8192
    operations: tuple[str, ...] = field(default_factory=lambda: tuple(op.key for op in OPERATIONS))

    def __post_init__(self) -> None:
        object.__setattr__(self, "chip", find_chip(self.chip).id)
        if self.B not in B_VALUES:
            raise RooflineInputError("B", _BATCHES_ACCEPTED, self.B)
        if self.D not in D_VALUES:
            raise RooflineInputError("D", "one of " + ", ".join(map(str, D_VALUES)), self.D)
        object.__setattr__(self, "operations", tuple(operation(k).key for k in self.operations))

    def to_dict(self) -> dict[str, Any]:
        return {"chip": self.chip, "B": self.B, "D": self.D, "operations": list(self.operations)}


@cache
def _asset(name: str) -> str:
    return (resources.files("rooflinekit") / "_static" / name).read_text(encoding="utf-8")


@cache
def _grid_json() -> str:
    return json.dumps(grid_data(), separators=(",", ":"))


def _script_safe(text: str) -> str:
    """Keep embedded JSON or code from closing its <script> element early."""
    return text.replace("</", "<\\/")


def explorer_html(
    chip: str = "tpu-v5e",
    *,
    B: int = 256,
    D: int = 8192,
    operations: Sequence[str] | None = None,
    element_id: str | None = None,
) -> str:
    """The static explorer as HTML, starting on ``chip`` with batch ``B`` and width ``D``.

    ``B`` must be on the batch slider (:data:`~rooflinekit.explorer_model.B_VALUES`) and
    ``D`` on the width slider (:data:`~rooflinekit.explorer_model.D_VALUES`).

    >>> explorer_html(element_id="ex").count('id="ex"')
    1
    """
    settings = ExplorerSettings(
        chip=chip, B=B, D=D,
        **({} if operations is None else {"operations": tuple(operations)}),
    )
    element_id = element_id or f"rk-explorer-{next(_ids)}"
    data = '{"grid":' + _grid_json() + ',"initial":' + json.dumps(settings.to_dict()) + "}"
    return (
        f'<div class="rk-explorer" id="{element_id}">'
        f"<style>{_asset('explorer.css')}</style>"
        f'<script type="application/json" class="rk-data">{_script_safe(data)}</script>'
        '<p class="rk-noscript">The roofline explorer needs JavaScript; in JupyterLab, run '
        "<code>rooflinekit.explorer.explorer()</code> for the live version.</p>"
        f"<script>{_script_safe(_asset('explorer.js'))}</script>"
        "</div>"
    )
