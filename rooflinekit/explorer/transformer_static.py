"""The transformer view with no kernel: one self-contained HTML fragment for the book's pages.

The fragment carries, as JSON, what :func:`rooflinekit.explorer.transformer_view.view` shows at
every position of its controls (both sets of figures, both phases, every batch and context on the
sliders): the
title, the totals, the operations table's texts and, from
:class:`~rooflinekit.explorer.transformer_figure.Canvas`, where each operation's point goes on
the roofline, which is embedded as SVG. The texts and the SVG are there in every language of
the course (:mod:`rooflinekit.explorer.labels`): the script shows the page's (``<html lang>``), or
English. It only looks texts up and writes them into the page: the browser computes no number.

>>> html = transformer_html(TransformerSettings("llama-3.1-8b", "h100-sxm", 1), element_id="tv")
>>> html.startswith('<div class="rk-transformer" id="tv"') and "<svg" in html
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from html import escape
from typing import Any

from rooflinekit.explorer.labels import ENGLISH, LANGUAGES, noscript, tables, translator
from rooflinekit.explorer.page import asset, script_safe
from rooflinekit.explorer.page import element_id as new_element_id
from rooflinekit.explorer.transformer_figure import SHAPES, Canvas, svg_id_prefixed
from rooflinekit.explorer.transformer_view import (
    BATCHES,
    CONTEXTS,
    FIGURES,
    TransformerSettings,
    View,
    every_view,
    views,
)
from rooflinekit.plot import BOUND_COLORS
from rooflinekit.transformer.setup import PHASES
from rooflinekit.words import N_


class _Texts:
    """Each distinct text once, numbered: cells hold the numbers (most texts repeat across
    settings, which keeps the page a third smaller). A text is numbered with its translations
    (one per language, in the order of LANGUAGES), so one number serves every language."""

    def __init__(self) -> None:
        self.numbers: dict[tuple[str, ...], int] = {}

    def __call__(self, texts: Sequence[str]) -> int:
        return self.numbers.setdefault(tuple(texts), len(self.numbers))

    def listed(self, language: int) -> list[str]:
        return [texts[language] for texts in self.numbers]


def _cell(shown: Sequence[View], canvas: Canvas, text: _Texts) -> dict[str, Any]:
    """What the page shows at one setting (``shown``: the view in each language): texts (by
    number), and the points' places."""
    first = shown[0]
    if first.step is None:
        return {"title": text([v.title for v in shown]), "message": text([v.message for v in shown])}
    return {
        "title": text([v.title for v in shown]),
        "summary": [text([line.text for line in lines])
                    for lines in zip(*(v.summary for v in shown), strict=True)],
        # names and runs never change: they are in the grid's words
        "rows": [[text(cells) for cells in zip(*(op.row[2:] for op in ops), strict=True)]
                 for ops in zip(*(v.ops for v in shown), strict=True)],
        "points": canvas.places(first),
    }


@cache
def _grid(model: str, on: str, n_chips: int) -> tuple[dict[str, Any], dict[str, str]]:
    """Every setting's cell (at both sets of figures), the operations, the words in every language
    and the roofline's SVG in every language, for one model on one chip."""
    settings = TransformerSettings(model, on, n_chips)
    canvas = Canvas.for_chip(on)
    shown = {figures: list(every_view(settings.at(figures=figures), LANGUAGES)) for figures in FIGURES}
    first = views(settings.at(batch=BATCHES[0], context=CONTEXTS[0]), LANGUAGES)  # fits: the settings say so
    for each in (view for figures in FIGURES for view in shown[figures]):  # the same operations everywhere
        assert each[0].step is None or [op.name for op in each[0].ops] == [op.name for op in first[0].ops]
    text = _Texts()
    cells = {figures: iter([_cell(each, canvas, text) for each in shown[figures]]) for figures in FIGURES}
    words = {
        language: {
            "header": list(v.header),
            "summary": [line.label for line in v.summary],
            "ops": [op.row[0] for op in v.ops],
            "phases": [translator(language)(phase) for phase in PHASES],
            "figures": [translator(language)(figures) for figures in FIGURES],
            "texts": text.listed(index),
            "labels": tables().get(language, {}),
        }
        for index, (language, v) in enumerate(zip(LANGUAGES, first, strict=True))
    }
    grid = {
        "figures": list(FIGURES),
        "phases": list(PHASES),
        "batches": list(BATCHES),
        "contexts": list(CONTEXTS),
        "summary": [line.key for line in first[0].summary],
        "ops": [{"name": op.name, "kind": op.kind, "runs": op.row[1]} for op in first[0].ops],
        "shapes": SHAPES,
        "colors": BOUND_COLORS,
        "cells": {figures: [[[next(cells[figures]) for _ in CONTEXTS] for _ in BATCHES] for _ in PHASES]
                  for figures in FIGURES},
        "words": words,
    }
    svgs = {language: canvas.in_language(language).svg() for language in LANGUAGES}
    return grid, svgs


def view_data(settings: TransformerSettings) -> dict[str, Any]:
    """Everything the page needs, JSON-ready: ``cells[figures][phase][batch][context]`` (the set of
    figures by name, the others by their indices on the controls), the words of every language
    (``words[language]``) and where the view starts.

    >>> from rooflinekit.transformer import step_summary, transformer_step
    >>> data = view_data(TransformerSettings("llama-3.1-8b", "h100-sxm", 1))
    >>> cell = data["grid"]["cells"]["ideal"][0][0][4]        # decode, batch 1, context 2048
    >>> shown = [data["grid"]["words"][lang]["texts"][cell["summary"][4]] for lang in ("en", "ko")]
    >>> shown      # texts are numbered, one number for a text and its translations
    ['4.564 ms (one decode step)', '4.564 ms (디코드 스텝 한 번)']
    >>> shown[0] == step_summary(transformer_step("llama-3.1-8b", "h100-sxm"))[4].text
    True
    """
    grid, _ = _grid(settings.model, settings.chip, settings.n_chips)
    return {"grid": grid, "initial": settings.to_dict()}


def transformer_html(settings: TransformerSettings, element_id: str | None = None) -> str:
    """The kernel-free transformer view as HTML, starting where ``settings`` say, in their
    language or, by default, the page's.

    >>> html = transformer_html(TransformerSettings(phase="prefill", batch=4), element_id="v2")
    >>> '"phase":"prefill","batch":4' in html and 'id="v2-' in html   # its state, its SVG's ids
    True
    """
    phase, batch, context = settings.phase, settings.batch, settings.context
    root = element_id or new_element_id("rk-transformer")
    grid, svgs = _grid(settings.model, settings.chip, settings.n_chips)
    data = json.dumps(view_data(settings), separators=(",", ":"), ensure_ascii=False)
    cells = grid["cells"][settings.figures]
    start = cells[PHASES.index(phase)][BATCHES.index(batch)][CONTEXTS.index(context)]
    shown = LANGUAGES if settings.language is None else (settings.language,)
    by_page = " rk-by-page" if settings.language is None else ""
    plots = "".join(f'<div class="rk-tv-plot{by_page}" lang="{language}">'
                    f'{svg_id_prefixed(svgs[language], f"{root}-{language}-")}</div>' for language in shown)
    title = grid["words"][settings.language or ENGLISH]["texts"][start["title"]]
    return (
        f'<div class="rk-transformer" id="{root}">'
        f"<style>{asset('transformer.css')}</style>"
        f'<script type="application/json" class="rk-tv-data">{script_safe(data)}</script>'
        f'<p class="rk-tv-title">{escape(title)}</p>'
        + plots
        + noscript(N_("The transformer view needs JavaScript; in JupyterLab, run {code} for the live "
                      "version."), "rooflinekit.explorer.transformer_explorer()", settings.language)
        + f"<script>{script_safe(asset('transformer.js'))}</script>"
        "</div>"
    )
