"""The kernel-free roofline explorer: one self-contained HTML fragment.

The fragment carries the data :func:`rooflinekit.explorer.model.grid_data` computes (the
FLOPs and bytes of every explorer operation at every slider size, the catalog's chips) as
JSON, with its words in every language of the course
(:func:`~rooflinekit.explorer.model.every_language_words`; the script speaks the page's), plus a
small script and stylesheet shipped in ``rooflinekit/explorer/assets``. In a
browser it shows the same sliders, plot and table as the JupyterLab explorer with no kernel
behind it: the script places those numbers on the roofline of the sliders' peak and
bandwidth, and ``tests/rooflinekit/test_explorer_js.py`` runs it in node over the sliders' whole grid
against rooflinekit. The book's pages get it from :func:`rooflinekit.explorer.explorer`
(whose output carries it as ``text/html``).

>>> html = explorer_html("h100-sxm", B=512, D=4096)
>>> html.startswith('<div class="rk-explorer"') and '"chip": "h100-sxm"' in html
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache

from rooflinekit.explorer.labels import noscript
from rooflinekit.explorer.model import ExplorerSettings, every_language_words, grid_data
from rooflinekit.explorer.page import asset as _asset
from rooflinekit.explorer.page import element_id as _element_id
from rooflinekit.explorer.page import script_safe as _script_safe
from rooflinekit.words import N_


@cache
def _grid_json() -> str:
    return json.dumps(grid_data(), separators=(",", ":"))


@cache
def _words_json() -> str:
    return json.dumps(every_language_words(), separators=(",", ":"), ensure_ascii=False)


def explorer_html(
    chip: str = "tpu-v5e",
    *,
    B: int = 256,
    D: int = 8192,
    operations: Sequence[str] | None = None,
    element_id: str | None = None,
    achieved: float = 1.0,
    language: str | None = None,
    level: str = "hbm",
    tile: int = 128,
) -> str:
    """The static explorer as HTML, starting on ``chip`` with batch ``B`` and width ``D``.

    ``B`` must be on the batch slider (:data:`~rooflinekit.explorer.model.B_VALUES`) and
    ``D`` on the width slider (:data:`~rooflinekit.explorer.model.D_VALUES`); ``achieved``, the
    share of the peak the roofline starts at, on the achieved control
    (:data:`~rooflinekit.explorer.model.ACHIEVED_SHARES`). Its words are in ``language``, or by
    default in the page's (``<html lang>``; English where the course has no translation).
    ``level`` and ``tile`` are the memory level whose roof it starts on and the matmuls' tile out
    of an on-chip level (:func:`rooflinekit.explorer.explorer`).

    >>> explorer_html(element_id="ex").count('id="ex"')
    1
    """
    settings = ExplorerSettings.of(chip, B, D, operations, achieved, language, level, tile)
    element_id = element_id or _element_id("rk-explorer")
    data = ('{"grid":' + _grid_json() + ',"initial":' + json.dumps(settings.to_dict())
            + ',"words":' + _words_json() + "}")
    return (
        f'<div class="rk-explorer" id="{element_id}">'
        f"<style>{_asset('explorer.css')}</style>"
        f'<script type="application/json" class="rk-data">{_script_safe(data)}</script>'
        + noscript(N_("The roofline explorer needs JavaScript; in JupyterLab, run {code} for the live "
                      "version."), "rooflinekit.explorer.explorer()", language)
        + f"<script>{_script_safe(_asset('explorer.js'))}</script>"
        "</div>"
    )
