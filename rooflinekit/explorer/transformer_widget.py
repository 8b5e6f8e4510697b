"""The transformer view's live face in JupyterLab (ipywidgets), and what a notebook cell displays.

Call :func:`transformer_explorer` as the last line of a cell: one decode step, or one prefill,
of a model split over chips, with a phase toggle, batch and context sliders and a toggle between
the ideal figures and the calibrated ones (:mod:`rooflinekit.transformer.calibration`); the step's
totals, its operations' table and each operation on the chip's roofline follow the controls.
``language="ko"`` gives its words in Korean (:mod:`rooflinekit.explorer.labels`).

- In JupyterLab (a live kernel): ipywidgets, every text from
  :func:`rooflinekit.explorer.transformer_view.view`, the plot drawn by matplotlib.
- On a static page (the book): the same controls in plain JavaScript over what rooflinekit
  showed at every position when the page was built (:mod:`rooflinekit.explorer.transformer_static`).

>>> e = transformer_explorer("llama-3.1-8b", n_chips=1, batch=16)
>>> e.shown().step.bound
'memory'
>>> sorted(e._repr_mimebundle_(include=["text/html", "text/plain"]))
['text/html', 'text/plain']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from rooflinekit.explorer.labels import ENGLISH, translator
from rooflinekit.explorer.page import two_faces
from rooflinekit.explorer.transformer_figure import Canvas
from rooflinekit.explorer.transformer_static import transformer_html
from rooflinekit.explorer.transformer_view import BATCHES, CONTEXTS, FIGURES, TransformerSettings, View, view
from rooflinekit.transformer.setup import PHASES


def view_html(shown: View) -> str:
    """The title, the totals (or why the step does not fit) and the operations table, as HTML.

    >>> html = view_html(view(TransformerSettings(batch=64)))
    >>> html.count("<tr>"), "largest batch that fits" in html   # 7 totals, a header, 19 operations
    (27, True)
    """
    parts = [f"<p><b>{escape(shown.title)}</b></p>"]
    if shown.step is None:
        return "".join([*parts, f"<p><b>{escape(shown.message)}</b></p>"])
    lines = "".join(
        f"<tr><th>{escape(line.label)}</th><td>{escape(line.text)}</td></tr>" for line in shown.summary
    )
    head = "".join(f"<th>{escape(h)}</th>" for h in shown.header)
    rows = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in op.row) + "</tr>" for op in shown.ops
    )
    style = 'style="font-variant-numeric: tabular-nums"'
    return "".join([*parts, f"<table {style}>{lines}</table>",
                    f"<table {style}><tr>{head}</tr>{rows}</table>"])


@dataclass
class TransformerExplorer:
    """A transformer view: live ipywidgets in a kernel, a static HTML view elsewhere.

    The live controls are in ``widget`` (built on first use); :meth:`shown` is what they show.
    """

    settings: TransformerSettings
    _widget: Any = field(default=None, init=False, repr=False)
    _controls: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def current(self) -> TransformerSettings:
        """The settings as the controls currently show them."""
        c = self._controls
        if not c:
            return self.settings
        return self.settings.at(phase=c["phase"].value, batch=c["batch"].value, context=c["context"].value,
                                figures=c["figures"].value)

    @property
    def language(self) -> str:
        """The language of the live view's words (English unless it was asked for another)."""
        return self.settings.language or ENGLISH

    def shown(self) -> View:
        """What the view shows now: the step's texts and operations, or why it does not fit."""
        return view(self.current(), self.language)

    @property
    def widget(self) -> Any:
        """The live view (an ipywidgets ``VBox``); needs ipywidgets and matplotlib."""
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    def _build(self) -> Any:
        import ipywidgets as w  # type: ignore[import-untyped]

        s, tr = self.settings, translator(self.language)
        c = {
            "phase": w.ToggleButtons(options=[(tr(p), p) for p in PHASES], value=s.phase,
                                     description=tr("phase")),
            "batch": w.SelectionSlider(options=list(BATCHES), value=s.batch, description=tr("batch")),
            "context": w.SelectionSlider(options=list(CONTEXTS), value=s.context, description=tr("context")),
            "figures": w.ToggleButtons(options=[(tr(f), f) for f in FIGURES], value=s.figures,
                                       description=tr("figures")),
        }
        self._controls = c
        canvas = Canvas.for_chip(s.chip, self.language)
        image = w.Image(format="png")
        text = w.HTML()

        def redraw(_: Any = None) -> None:
            shown = self.shown()
            image.value = canvas.png(shown)
            text.value = view_html(shown)

        for control in c.values():
            control.observe(redraw, names="value")
        redraw()
        return w.VBox([w.HBox([c["phase"], c["figures"]]), w.HBox([c["batch"], c["context"]]), image, text])

    def _repr_mimebundle_(
        self, include: Sequence[str] | None = None, exclude: Sequence[str] | None = None
    ) -> dict[str, Any]:
        s, tr = self.settings, translator(self.language)
        text = tr("transformer view of {model} on {n_chips} x {chip} ({phase}, batch {batch}, "
                  "context {context})").format(model=s.model, n_chips=s.n_chips, chip=s.chip,
                                               phase=tr(s.phase), batch=s.batch, context=s.context)
        return two_faces(text, transformer_html(s), lambda: self.widget, include, exclude)


def transformer_explorer(
    model: str = "llama-3.1-70b",
    chip: str = "h100-sxm",
    *,
    n_chips: int = 8,
    phase: str = "decode",
    batch: int = 1,
    context: int = 2048,
    language: str | None = None,
    figures: str = "ideal",
) -> TransformerExplorer:
    """A transformer view of ``model`` on ``n_chips`` catalog chips, starting at ``phase``,
    ``batch`` (one of :data:`~rooflinekit.explorer.transformer_view.BATCHES`) and ``context``
    (one of :data:`~rooflinekit.explorer.transformer_view.CONTEXTS`); ``language``, one of
    :data:`~rooflinekit.explorer.labels.LANGUAGES`, is the language of its words (by default
    English in JupyterLab, the page's on a kernel-free page); ``figures``, ``"ideal"`` or
    ``"calibrated"``, the figures its steps are costed at (:mod:`rooflinekit.transformer.calibration`).

    >>> transformer_explorer("llama-3.1-70b", n_chips=1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: n_chips must be enough h100-sxm chips for llama-3.1-70b's ...
    """
    settings = TransformerSettings(model, chip, n_chips, phase, batch, context, language, figures)
    return TransformerExplorer(settings)
