"""The transformer view with no kernel: one self-contained HTML fragment for the book's pages.

The fragment carries, as JSON, what :func:`rooflinekit.explorer.transformer_view.view` shows at
every position of its controls (both phases, every batch and context on the sliders): the
title, the totals, the operations table's texts and, from
:class:`~rooflinekit.explorer.transformer_figure.Canvas`, where each operation's point goes on
the roofline, which is embedded as SVG. Its script (``assets/transformer.js``) only looks these
up and writes them into the page: the browser computes no number.

>>> html = transformer_html(TransformerSettings("llama-3.1-8b", "h100-sxm", 1), element_id="tv")
>>> html.startswith('<div class="rk-transformer" id="tv"') and "<svg" in html
True
"""

from __future__ import annotations

import json
from functools import cache
from html import escape
from typing import Any

from rooflinekit.explorer.page import asset, script_safe
from rooflinekit.explorer.page import element_id as new_element_id
from rooflinekit.explorer.transformer_figure import SHAPES, Canvas, svg_id_prefixed
from rooflinekit.explorer.transformer_view import (
    BATCHES,
    CONTEXTS,
    TransformerSettings,
    View,
    every_view,
    view,
)
from rooflinekit.plot import BOUND_COLORS
from rooflinekit.transformer import OPERATIONS_HEADER, PHASES


class _Texts:
    """Each distinct text once, numbered: cells hold the numbers (most texts repeat across
    settings, which keeps the page a third smaller)."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.numbers.setdefault(text, len(self.numbers))

    def listed(self) -> list[str]:
        return list(self.numbers)


def _cell(shown: View, canvas: Canvas, text: _Texts) -> dict[str, Any]:
    """What the page shows at one setting: texts (by number), and the points' places."""
    if shown.step is None:
        return {"title": text(shown.title), "message": text(shown.message)}
    return {
        "title": text(shown.title),
        "summary": [text(line.text) for line in shown.summary],
        "rows": [[text(cell) for cell in op.row[2:]] for op in shown.ops],  # names and runs never change
        "points": canvas.places(shown),
    }


@cache
def _grid(model: str, on: str, n_chips: int) -> tuple[dict[str, Any], str]:
    """Every setting's cell, the operations and the roofline's SVG for one model on one chip."""
    settings = TransformerSettings(model, on, n_chips)
    canvas = Canvas.for_chip(on)
    views = list(every_view(settings))
    first = view(settings.at(batch=BATCHES[0], context=CONTEXTS[0]))  # fits: the settings say so
    for shown in views:  # one layer's operations are the same at every setting
        assert shown.step is None or [op.name for op in shown.ops] == [op.name for op in first.ops]
    text = _Texts()
    cells = iter([_cell(shown, canvas, text) for shown in views])
    grid = {
        "phases": list(PHASES),
        "batches": list(BATCHES),
        "contexts": list(CONTEXTS),
        "header": list(OPERATIONS_HEADER),
        "summary": [[line.key, line.label] for line in first.summary],
        "ops": [{"name": op.name, "kind": op.kind, "runs": op.row[1]} for op in first.ops],
        "shapes": SHAPES,
        "colors": BOUND_COLORS,
        "cells": [[[next(cells) for _ in CONTEXTS] for _ in BATCHES] for _ in PHASES],
        "texts": text.listed(),
    }
    return grid, canvas.svg()


def view_data(settings: TransformerSettings) -> dict[str, Any]:
    """Everything the page needs, JSON-ready: ``cells[phase][batch][context]`` (indices on the
    controls) and where the view starts.

    >>> from rooflinekit.transformer import step_summary, transformer_step
    >>> data = view_data(TransformerSettings("llama-3.1-8b", "h100-sxm", 1))
    >>> cell = data["grid"]["cells"][0][0][4]        # decode, batch 1, context 2048
    >>> shown = data["grid"]["texts"][cell["summary"][4]]    # texts are numbered
    >>> shown
    '4.564 ms (one decode step)'
    >>> shown == step_summary(transformer_step("llama-3.1-8b", "h100-sxm"))[4].text
    True
    """
    grid, _ = _grid(settings.model, settings.chip, settings.n_chips)
    return {"grid": grid, "initial": settings.to_dict()}


def transformer_html(settings: TransformerSettings, element_id: str | None = None) -> str:
    """The kernel-free transformer view as HTML, starting where ``settings`` say.

    >>> html = transformer_html(TransformerSettings(phase="prefill", batch=4), element_id="v2")
    >>> '"phase":"prefill","batch":4' in html and 'id="v2-' in html   # its state, its SVG's ids
    True
    """
    phase, batch, context = settings.phase, settings.batch, settings.context
    root = element_id or new_element_id("rk-transformer")
    grid, svg = _grid(settings.model, settings.chip, settings.n_chips)
    data = json.dumps(view_data(settings), separators=(",", ":"))
    start = grid["cells"][PHASES.index(phase)][BATCHES.index(batch)][CONTEXTS.index(context)]
    return (
        f'<div class="rk-transformer" id="{root}">'
        f"<style>{asset('transformer.css')}</style>"
        f'<script type="application/json" class="rk-tv-data">{script_safe(data)}</script>'
        f'<p class="rk-tv-title">{escape(grid["texts"][start["title"]])}</p>'
        f'<div class="rk-tv-plot">{svg_id_prefixed(svg, root + "-")}</div>'
        '<p class="rk-noscript">The transformer view needs JavaScript; in JupyterLab, run '
        "<code>rooflinekit.explorer.transformer_explorer()</code> for the live version.</p>"
        f"<script>{script_safe(asset('transformer.js'))}</script>"
        "</div>"
    )
