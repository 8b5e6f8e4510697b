"""The explorer's live face in JupyterLab (ipywidgets), and what a notebook cell displays.

Pick a catalog chip or set the peak and bandwidth with sliders, choose operations, a token
batch ``B`` and a width ``D = F``, and see where each operation lands on the roofline and
whether it is compute- or memory-bound, with its time bounds and critical batch; the achieved
control takes all of these at a share of the peak, under a dashed roof.

Call :func:`explorer` as the last line of a notebook cell (``language="ko"`` for its labels in
Korean: :mod:`rooflinekit.explorer.labels`). The result has two faces:

- in JupyterLab (a live kernel), ipywidgets sliders driven by the kernel, every number from
  :func:`rooflinekit.explorer.model.evaluate`;
- on a static page (the book, or a notebook opened without a kernel), the same controls in
  plain JavaScript over numbers rooflinekit computed beforehand
  (:mod:`rooflinekit.explorer.static`). The book's _config.yml ranks ``text/html`` above the
  widget view so the site shows this face.

matplotlib and ipywidgets are imported only when the live face is first displayed, so
``import rooflinekit`` stays cheap; without them the static face is shown alone.

>>> e = explorer("h100-sxm", B=512, D=4096)
>>> sorted(e._repr_mimebundle_(include=["text/html", "text/plain"]))
['text/html', 'text/plain']
>>> e.points()[0].bound
'compute'
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

import numpy as np

from rooflinekit.analysis import Hardware
from rooflinekit.catalog import CHIPS
from rooflinekit.explorer.labels import ENGLISH, plot_words, translator
from rooflinekit.explorer.model import (
    ACHIEVED_SHARES,
    B_VALUES,
    BANDWIDTH_RANGE,
    COMPUTE,
    D_VALUES,
    HBM,
    OPERATIONS,
    PEAK_RANGE,
    READOUT,
    SLIDER_STEP,
    TILES,
    ExplorerSettings,
    Point,
    achieved_note,
    chip_figures,
    chip_level,
    evaluate,
    level_name,
    level_note,
    off_by_a_step,
    on_level,
    operation,
    plot_axes,
    share_label,
    slider_figure,
)
from rooflinekit.explorer.page import two_faces
from rooflinekit.explorer.static import explorer_html
from rooflinekit.fmt import num, pct, seconds
from rooflinekit.hierarchy import levels
from rooflinekit.plot import roofline_axes
from rooflinekit.words import Translate, english


def _figure(x: float | None, tr: Translate = english) -> str:
    """A table cell: ``-`` where a figure does not apply, ``never`` where no batch is enough."""
    if x is None:
        return "-"
    return num(x, 4) if math.isfinite(x) else tr("never")


def table_html(points: Sequence[Point], achieved: float = 1.0, tr: Translate = english) -> str:
    """The explorer's table of points, as HTML, in ``tr``'s language; the headings of the figures
    that depend on the peak say the share of it they are taken at, when that is not 100%.

    >>> "compute" in table_html(evaluate(1.97e14, 8.2e11, B=4096, D=8192, keys=["matmul"]))
    True
    >>> "<th>T_math at 80% of peak</th>" in table_html([], achieved=0.8)
    True
    """
    at = achieved_note(achieved, tr)
    headings = [tr("operation"), tr("intensity (FLOP/B)"), tr("attainable FLOP/s") + at, tr("T_math") + at,
                tr("T_comms"), tr("T_lower") + at, tr("T_upper") + at, tr("bound"),
                tr("critical batch (exact)") + at, tr("critical batch (B ≪ D rule)") + at]
    head = "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in headings) + "</tr>"
    rows = "".join(
        f"<tr><td>{escape(tr(p.label))}</td><td>{_figure(p.intensity)}</td><td>{_figure(p.attainable)}</td>"
        f"<td>{seconds(p.t_math, 4)}</td><td>{seconds(p.t_comms, 4)}</td>"
        f"<td>{seconds(p.t_lower, 4)}</td><td>{seconds(p.t_upper, 4)}</td><td>{escape(tr(p.bound))}</td>"
        f"<td>{_figure(p.critical_batch, tr)}</td><td>{_figure(p.critical_batch_approx, tr)}</td></tr>"
        for p in points
    )
    return f'<table style="font-variant-numeric: tabular-nums">{head}{rows}</table>'


def roofline_png(
    peak: float, bandwidth: float, B: int, D: int, keys: Iterable[str], *, dpi: int = 96,
    achieved: float = 1.0, language: str = ENGLISH, tile: int | None = None, roof: str | None = None,
) -> bytes:
    """A PNG of the roofline with each operation's point, on axes fitted to them
    (:func:`~rooflinekit.explorer.model.plot_axes`); below 100% ``achieved``, with the dashed
    roof at that share of the peak, under which the points then sit. Its words are in
    ``language`` where matplotlib has a font for it (:func:`~rooflinekit.explorer.labels.plot_words`).
    With ``tile``, ``bandwidth`` is an on-chip level's, named ``roof`` in the legend, and the
    points are the operations' out of it (:func:`~rooflinekit.explorer.model.evaluate`).

    Uses matplotlib's Agg canvas directly (no pyplot state).

    >>> roofline_png(1.97e14, 8.2e11, 256, 8192, ["matmul"])[:4]
    b'\\x89PNG'
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    keys = list(keys)
    fitted = plot_axes(peak, bandwidth, D, keys, achieved, tile)
    with plot_words(language) as tr:
        fig = Figure(figsize=(7, 4), dpi=dpi, layout="constrained")
        FigureCanvasAgg(fig)
        label = tr("roofline") if roof is None else tr("roof of {level}").format(level=tr(roof))
        ax = roofline_axes(Hardware(peak, bandwidth), fig.add_subplot(), compute=COMPUTE,
                           labels=[label], intensity_range=fitted.intensity, legend=False,
                           achieved=None if achieved == 1 else achieved, tr=tr)
        for point in evaluate(peak, bandwidth, B, D, keys, achieved, tile):
            label = tr("{operation}: {bound}-bound").format(operation=tr(point.label), bound=tr(point.bound))
            ax.plot([point.intensity], [point.attainable], "o", color=operation(point.key).color, ms=8,
                    label=label)
        ax.set_xlim(*fitted.intensity)
        ax.set_ylim(*fitted.attainable)
        ax.legend(fontsize=7, loc="upper left")  # above the slope, where the plot is empty
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png")
    return buffer.getvalue()


@dataclass
class Explorer:
    """An explorer: live ipywidgets in a kernel, a static HTML explorer elsewhere.

    ``peak`` and ``bandwidth`` are the figures shown: a catalog chip's own, exactly, while it is
    chosen; the sliders' (three significant digits) once a slider is moved, and the chip menu then
    says "custom (sliders)". The live controls are in ``widget`` (built on first use); ``points()``
    evaluates what they show.
    """

    settings: ExplorerSettings
    peak: float = field(init=False)
    bandwidth: float = field(init=False)
    chip: str = field(init=False)
    """The catalog chip whose figures are shown, or ``"custom"``."""
    achieved: float = field(init=False)
    """The share of the peak the roof, the times and the critical figures are taken at."""
    level: str = field(init=False)
    """The id of the memory level whose roof is drawn (``"hbm"``, or one of the chip's on-chip levels)."""
    tile: int = field(init=False)
    """The side of the square tiles the matmuls stream out of an on-chip level in."""
    _last_chip: str = field(init=False, repr=False)
    _widget: Any = field(default=None, init=False, repr=False)
    _controls: dict[str, Any] = field(default_factory=dict, init=False, repr=False)
    _views: dict[str, Any] = field(default_factory=dict, init=False, repr=False)
    _relabelling: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        self.chip = self._last_chip = self.settings.chip
        self.peak, self.bandwidth = chip_figures(self.chip)
        self.achieved = self.settings.achieved
        self.level, self.tile = self.settings.level, self.settings.tile

    @property
    def language(self) -> str:
        """The language of the live explorer's labels (English unless it was asked for another)."""
        return self.settings.language or ENGLISH

    def tr(self, text: str) -> str:
        """A label in the explorer's language."""
        return translator(self.language)(text)

    def state(self) -> tuple[float, float, int, int, tuple[str, ...]]:
        """(peak, bandwidth, B, D, operations) as the controls currently show them."""
        c = self._controls
        if not c:
            s = self.settings
            return self.peak, self.bandwidth, s.B, s.D, s.operations
        keys = tuple(op.key for op in OPERATIONS if c["ops"][op.key].value)
        return self.peak, self.bandwidth, c["batch"].value, c["width"].value, keys

    def choose(self, chip: str) -> None:
        """Show catalog ``chip``'s figures, exactly (the sliders move to the nearest step)."""
        self.chip = self._last_chip = chip
        self.peak, self.bandwidth = chip_figures(chip)
        if self.level not in [lv.id for lv in levels(chip)]:
            self.level = HBM

    def slide(self, peak: float, bandwidth: float) -> None:
        """The sliders now read ``peak`` and ``bandwidth``: a chip stays chosen while they sit on
        the step nearest its figures (where choosing it put them); any other position makes
        custom figures, read from the sliders."""
        if self.chip != "custom" and not (
            off_by_a_step(peak, self.peak) or off_by_a_step(bandwidth, self.bandwidth)
        ):
            return
        self.chip = "custom"
        self.peak, self.bandwidth = slider_figure(peak), slider_figure(bandwidth)
        self.level = HBM  # an on-chip level's figures are a catalog chip's

    def share_options(self) -> list[tuple[str, float]]:
        """The achieved control's choices, the chip's typical shares marked."""
        return [(share_label(s, self.chip, self.tr), s) for s in ACHIEVED_SHARES]

    def figures_html(self) -> str:
        """Where the figures come from, and the figures: what the explorer's caption says."""
        tr = self.tr
        source = tr("custom (sliders)") if self.chip == "custom" else tr("{chip} (catalog)").format(
            chip=CHIPS[self.chip].name)
        peak = self.peak * self.achieved  # as hardware(achieved=...) takes it
        if self.achieved == 1:
            caption = tr("{source}: peak {peak} FLOP/s, HBM {bandwidth} B/s, critical intensity {ridge} "
                         "FLOP/B")
        else:
            caption = tr("{source}: peak {peak} FLOP/s, HBM {bandwidth} B/s; at {share} of peak: {achieved} "
                         "FLOP/s, critical intensity {ridge} FLOP/B")
        text = caption.format(source=source, peak=num(self.peak), bandwidth=num(self.bandwidth),
                              share=pct(self.achieved), achieved=num(peak, 4),
                              ridge=num(peak / self.bandwidth, 4))
        return f'<span class="rk-figures" data-chip="{self.chip}">{escape(text)}</span>'

    def level_options(self) -> list[tuple[str, str]]:
        """The level menu's choices: HBM and each on-chip level the chosen chip's catalog entry
        has (HBM alone for custom figures)."""
        if self.chip == "custom":
            return [(self.tr("HBM"), HBM)]
        return [(level_name(lv, self.tr), lv.id) for lv in levels(self.chip)]

    def level_html(self) -> str:
        """What the explorer says of the chosen level's roof: its bandwidth and ridge and the
        tiles, that no source gives its bandwidth (so no roof), or that the chip has no other."""
        if self.chip == "custom":
            text = self.tr("Custom figures have HBM's roof only: the on-chip levels are a catalog chip's.")
        else:
            text = level_note(self.chip, self.level, self.tile, self.achieved, self.tr)
        return f'<p class="rk-level" data-level="{self.level}">{escape(text)}</p>'

    def points(self) -> list[Point]:
        """Every shown operation placed under the chosen level's roof, as the table lists them
        (none under a level without a bandwidth)."""
        peak, bandwidth, B, D, keys = self.state()
        if self.chip == "custom" or self.level == HBM:
            return evaluate(peak, bandwidth, B, D, keys, self.achieved)
        return on_level(self.chip, self.level, B, D, keys, self.achieved, self.tile)

    def roof(self) -> tuple[float | None, int | None, str | None]:
        """The chosen roof's bandwidth (``None``: no roof), the tile and the level's English name
        (``None`` at HBM, where the roof is the chip's)."""
        if self.chip == "custom" or self.level == HBM:
            return self.bandwidth, None, None
        lv = chip_level(self.chip, self.level)
        return lv.bandwidth, self.tile, lv.name

    @property
    def widget(self) -> Any:
        """The live explorer (an ipywidgets ``VBox``); needs ipywidgets and matplotlib."""
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    def _make_controls(self, w: Any) -> dict[str, Any]:
        """The chip menu, the four sliders and a checkbox per operation, at the settings."""
        s, tr = self.settings, self.tr
        chip_options = [(c.name, c.id) for c in CHIPS.values()] + [(tr("custom (sliders)"), "custom")]
        log = np.log10
        return {
            "chip": w.Dropdown(options=chip_options, value=s.chip, description=tr("chip")),
            # Each slider reads its figure to three significant digits with an SI prefix (d3's
            # ".3s": 197T, 820G), as slider_figure reads it: its step nearest a chip's figure
            # reads as the figure (SLIDER_STEP).
            "peak": w.FloatLogSlider(
                value=self.peak, base=10, min=log(PEAK_RANGE[0]), max=log(PEAK_RANGE[1]),
                step=SLIDER_STEP, description=tr("peak FLOP/s"), readout_format=READOUT,
            ),
            "bandwidth": w.FloatLogSlider(
                value=self.bandwidth, base=10, min=log(BANDWIDTH_RANGE[0]),
                max=log(BANDWIDTH_RANGE[1]), step=SLIDER_STEP, description=tr("HBM B/s"),
                readout_format=READOUT,
            ),
            "back": w.Button(description=self.back_label(),
                             layout=w.Layout(visibility="hidden", width="auto")),
            "achieved": w.Dropdown(options=self.share_options(), value=self.achieved,
                                   description=tr("achieved"),
                                   style={"description_width": "initial"}, layout=w.Layout(width="auto")),
            "level": w.Dropdown(options=self.level_options(), value=self.level,
                                description=tr("memory level"), style={"description_width": "initial"},
                                layout=w.Layout(width="auto")),
            "tile": w.Dropdown(options=[(f"{b} x {b}", b) for b in TILES], value=self.tile,
                               description=tr("matmul tile"), disabled=self.level == HBM,
                               style={"description_width": "initial"}, layout=w.Layout(width="auto")),
            "batch": w.SelectionSlider(options=list(B_VALUES), value=s.B, description=tr("batch B")),
            "width": w.SelectionSlider(options=list(D_VALUES), value=s.D, description=tr("D = F")),
            "ops": {
                op.key: w.Checkbox(value=op.key in s.operations, description=tr(op.label), indent=False)
                for op in OPERATIONS
            },
        }

    def back_label(self) -> str:
        """The button that returns to the last chip chosen."""
        return self.tr("back to {chip}").format(chip=CHIPS[self._last_chip].name)

    def _relabel_shares(self) -> None:
        """Mark the chosen chip's typical shares in the achieved menu and offer its levels in the
        level menu (new options, the choices put back; the menus' passing values are not the reader's)."""
        self._relabelling = True
        self._controls["achieved"].options = self.share_options()
        self._controls["achieved"].value = self.achieved
        self._controls["level"].options = self.level_options()
        self._controls["level"].value = self.level
        self._relabelling = False

    def _redraw(self, _: Any = None) -> None:
        """Show the controls' state: the caption, the level's note, the plot (none under a level
        without a roof) and the table."""
        c, views = self._controls, self._views
        peak, _hbm, B, D, keys = self.state()
        bw, tile, roof = self.roof()
        views["figures"].value = self.figures_html() + self.level_html()
        c["back"].description = self.back_label()
        c["back"].layout.visibility = "visible" if self.chip == "custom" else "hidden"
        c["tile"].disabled = tile is None
        views["image"].layout.display = "none" if bw is None else None  # no roof: the note says why
        if bw is not None:
            views["image"].value = roofline_png(peak, bw, B, D, keys, achieved=self.achieved,
                                                language=self.language, tile=tile, roof=roof)
        views["table"].value = table_html(self.points(), self.achieved, self.tr)

    def _on_level(self, change: dict[str, Any]) -> None:
        if not (self._relabelling or change["new"] is None):
            self.level = change["new"]
            self._redraw()

    def _on_tile(self, change: dict[str, Any]) -> None:
        self.tile = change["new"]
        self._redraw()

    def _build(self) -> Any:
        import ipywidgets as w  # type: ignore[import-untyped]

        c = self._make_controls(w)
        self._controls = c
        image, table, figures = w.Image(format="png"), w.HTML(), w.HTML()
        self._views = {"image": image, "table": table, "figures": figures}
        redraw = self._redraw
        syncing = False

        def on_chip(change: dict[str, Any]) -> None:
            nonlocal syncing
            if change["new"] == "custom":
                return
            self.choose(change["new"])
            syncing = True  # the sliders follow the chip; they do not make custom figures
            c["peak"].value, c["bandwidth"].value = self.peak, self.bandwidth
            self._relabel_shares()
            syncing = False
            redraw()

        def on_achieved(change: dict[str, Any]) -> None:
            if not (syncing or self._relabelling or change["new"] is None):
                self.achieved = change["new"]
                redraw()

        def on_figure(_: Any) -> None:
            if syncing:
                return
            self.slide(c["peak"].value, c["bandwidth"].value)
            if self.chip == "custom" and c["chip"].value != "custom":
                c["chip"].value = "custom"
                self._relabel_shares()
            redraw()

        c["chip"].observe(on_chip, names="value")
        c["peak"].observe(on_figure, names="value")
        c["bandwidth"].observe(on_figure, names="value")
        c["back"].on_click(lambda _: setattr(c["chip"], "value", self._last_chip))
        c["achieved"].observe(on_achieved, names="value")
        c["level"].observe(self._on_level, names="value")
        c["tile"].observe(self._on_tile, names="value")
        for control in (c["batch"], c["width"], *c["ops"].values()):
            control.observe(redraw, names="value")
        redraw()
        return w.VBox([
            w.HBox([c["chip"], c["back"], c["batch"], c["width"]]),
            w.HBox([c["peak"], c["bandwidth"]]),
            # rows of their own: beside the sliders, their long labels squeeze them
            w.VBox([c["achieved"], w.HBox([c["level"], c["tile"]])]),
            figures,
            w.HBox(list(c["ops"].values()), layout=w.Layout(flex_flow="row wrap")),
            image,
            table,
        ])

    def _repr_mimebundle_(
        self, include: Sequence[str] | None = None, exclude: Sequence[str] | None = None
    ) -> dict[str, Any]:
        s = self.settings
        text = self.tr("roofline explorer on {chip} (B={B}, D=F={D})").format(chip=s.chip, B=s.B, D=s.D)
        html = explorer_html(s.chip, B=s.B, D=s.D, operations=s.operations, achieved=s.achieved,
                             language=s.language, level=s.level, tile=s.tile)
        return two_faces(text, html, lambda: self.widget, include, exclude)


def explorer(
    chip: str = "tpu-v5e",
    *,
    B: int = 256,
    D: int = 8192,
    operations: Sequence[str] | None = None,
    achieved: float = 1.0,
    language: str | None = None,
    level: str = "hbm",
    tile: int = 128,
) -> Explorer:
    """A roofline explorer starting on ``chip`` with batch ``B`` and width ``D = F``.

    ``B`` must be one of :data:`~rooflinekit.explorer.model.B_VALUES` and ``D`` one of
    :data:`~rooflinekit.explorer.model.D_VALUES` (the sliders' positions); ``operations``
    takes keys of :data:`~rooflinekit.explorer.model.OPERATIONS` (all by default); ``achieved``
    is the share of the peak the roof starts at, one of
    :data:`~rooflinekit.explorer.model.ACHIEVED_SHARES` (its menu marks the chip's typical
    ones, from :func:`rooflinekit.catalog.achievable`). ``language`` is the language of its labels,
    one of :data:`~rooflinekit.explorer.labels.LANGUAGES`: by default English in JupyterLab, and
    on a kernel-free page the page's. ``level`` is the memory level whose roof is drawn, ``"hbm"``
    or one of the chip's on-chip levels (:func:`rooflinekit.hierarchy.levels`), and ``tile``, one
    of :data:`~rooflinekit.explorer.model.TILES`, the side of the square tiles the matmuls stream
    out of an on-chip level in.

    >>> [p.key for p in explorer("h100-sxm", level="l2").points()]   # no L2 bandwidth: no roof, no points
    []
    >>> explorer("tpu-v5p", B=4096, operations=["matmul", "dot"]).settings.operations
    ('matmul', 'dot')
    >>> explorer(language="ko").figures_html()  # doctest: +ELLIPSIS
    '<span class="rk-figures" data-chip="tpu-v5e">TPU v5e (카탈로그): 피크 성능 1.97e14 FLOP/s, ...'
    """
    return Explorer(ExplorerSettings.of(chip, B, D, operations, achieved, language, level, tile))
