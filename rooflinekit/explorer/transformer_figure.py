"""The transformer view's roofline: the chip's roof, and each operation of the step on it.

matplotlib draws it (:func:`rooflinekit.plot.roofline_axes`, the book's roof). The live face
shows it as a PNG with the points drawn in; the kernel-free face embeds the roof alone as SVG
and places the points itself, at the coordinates :meth:`Canvas.places` computes here with
matplotlib's own transform, so the browser draws each point where matplotlib would.

A point's colour says what bounds the operation (:data:`rooflinekit.plot.BOUND_COLORS`), its
shape what kind of operation it is (:data:`MARKERS`). A canvas in another language
(:mod:`rooflinekit.explorer.labels`) keeps the English one's layout, so a point lands on the same
spot whatever the language of the words around it.

>>> from rooflinekit.explorer.transformer_view import TransformerSettings, view
>>> canvas = Canvas.for_chip("h100-sxm")
>>> canvas.svg().startswith("<svg")
True
>>> x, y = canvas.places(view(TransformerSettings()))[1]   # the Q projection, in SVG points
>>> 0 < x < canvas.width and 0 < y < canvas.height
True
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rooflinekit.catalog import chip
from rooflinekit.explorer.labels import ENGLISH, plot_words
from rooflinekit.explorer.transformer_view import COMPUTE, INTENSITY_RANGE, KINDS, View
from rooflinekit.plot import BOUND_COLORS, roofline_axes
from rooflinekit.words import Translate, english

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.transforms import Bbox

SIZE = (7.0, 4.2)
"""The figure's width and height in inches (the SVG's viewBox is 72 points an inch)."""

MARKERS = {"matmul": "o", "attention": "^", "norm": "s", "elementwise": "D"}
"""matplotlib's marker for each kind of operation."""

SHAPES = {
    "matmul": "M -3.5 0 A 3.5 3.5 0 1 0 3.5 0 A 3.5 3.5 0 1 0 -3.5 0 Z",
    "attention": "M 0 -4.2 L 3.6 2.1 L -3.6 2.1 Z",
    "norm": "M -3.2 -3.2 H 3.2 V 3.2 H -3.2 Z",
    "elementwise": "M 0 -4 L 4 0 L 0 4 L -4 0 Z",
}
"""The same markers as SVG paths around (0, 0), in points, for the kernel-free face."""

MARKER_SIZE = 7.0


@dataclass
class Canvas:
    """A figure with the chip's roof on log-log axes, fixed so that every step fits on it."""

    figure: Figure
    axes: Axes
    chip: str

    @classmethod
    def for_chip(cls, on: str, language: str = ENGLISH) -> Canvas:
        """The chip's canvas, its words in ``language`` (where matplotlib has a font for it)."""
        return cls._drawn(on, english, None).in_language(language)

    def in_language(self, language: str) -> Canvas:
        """This canvas with its words in ``language``, laid out as this one (the same axes)."""
        if language == ENGLISH:
            return self
        with plot_words(language) as tr:
            return self if tr is english else self._drawn(self.chip, tr, self.axes.get_position())

    @classmethod
    def _drawn(cls, on: str, tr: Translate, position: Bbox | None) -> Canvas:
        """The canvas with ``tr``'s words, laid out by matplotlib, or with its axes at ``position``."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D

        found = chip(on)
        figure = Figure(figsize=SIZE, dpi=72, layout="constrained" if position is None else None)
        FigureCanvasAgg(figure)
        axes = roofline_axes(found, figure.add_subplot(), compute=COMPUTE, intensity_range=INTENSITY_RANGE,
                             legend=False, tr=tr)
        if position is not None:
            axes.set_position(position)
        peak, bandwidth = found.peak(COMPUTE), found.hbm_bandwidth
        axes.set_xlim(*INTENSITY_RANGE)
        axes.set_ylim(INTENSITY_RANGE[0] * bandwidth / 2, peak * 3)
        handles = [Line2D([], [], color="0.35", marker=MARKERS[k], linestyle="none", label=tr(k))
                   for k in KINDS]
        handles += [Line2D([], [], color=BOUND_COLORS[b], marker="o", linestyle="none",
                           label=tr("{bound}-bound").format(bound=tr(b))) for b in ("memory", "compute")]
        axes.legend(handles=handles, loc="lower right", fontsize=8, ncol=2)
        figure.canvas.draw()
        figure.set_layout_engine("none")  # the layout stays as drawn: the same for SVG and PNG
        return cls(figure, axes, found.id)

    @property
    def width(self) -> float:
        return float(self.figure.bbox.width)

    @property
    def height(self) -> float:
        return float(self.figure.bbox.height)

    def places(self, shown: View) -> list[tuple[float, float] | None]:
        """Where each operation's point goes in the SVG (points from the top left), or None
        for a collective; rounded to a tenth of a point."""
        spots: list[tuple[float, float] | None] = []
        for op in shown.ops:
            if op.intensity is None or op.attainable is None:
                spots.append(None)
                continue
            x, y = self.axes.transData.transform((op.intensity, op.attainable))
            spots.append((round(float(x), 1), round(self.height - float(y), 1)))
        return spots

    def svg(self) -> str:
        """The roof, axes and legend as an inline ``<svg>`` element, text kept as text."""
        from matplotlib import rc_context

        buffer = io.StringIO()
        with rc_context({"svg.fonttype": "none", "svg.hashsalt": "rooflinekit"}):
            self.figure.savefig(buffer, format="svg", metadata={"Date": None})
        text = buffer.getvalue()
        text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
        return text[text.index("<svg"):].strip()

    def png(self, shown: View) -> bytes:
        """The figure with the step's operations drawn in, as a PNG (the live face)."""
        drawn: list[Any] = []
        for op in shown.ops:
            if op.intensity is None or op.attainable is None:
                continue
            drawn += self.axes.plot([op.intensity], [op.attainable], MARKERS[op.kind],
                                    color=BOUND_COLORS[op.bound], markersize=MARKER_SIZE,
                                    markeredgecolor="white", linestyle="none")
        buffer = io.BytesIO()
        try:
            self.figure.savefig(buffer, format="png", dpi=96)
        finally:
            for line in drawn:
                line.remove()
        return buffer.getvalue()


def svg_id_prefixed(svg: str, prefix: str) -> str:
    """The SVG with its element ids (and the references to them) prefixed, so that two
    figures on one page never share an id.

    >>> svg_id_prefixed('<g id="a"><use xlink:href="#a"/><g clip-path="url(#a)"/></g>', "v1-")
    '<g id="v1-a"><use xlink:href="#v1-a"/><g clip-path="url(#v1-a)"/></g>'
    """
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}\1"', svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}\1"', svg)
    return re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}\1)", svg)
