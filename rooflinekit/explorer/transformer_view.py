"""The model of the explorer's transformer view: one step of a model, operation by operation.

The view shows one decode step, or one prefill, of a model split over ``n_chips`` chips, at
the batch and context on its sliders: the step's totals, a table of its operations and each
operation on the chip's roofline. Every text it shows comes from
:mod:`rooflinekit.transformer.report` (the same tables the command line and chapter 9 print), in the
language asked for (:mod:`rooflinekit.explorer.labels`).

Both faces use this module: the live one in JupyterLab
(:mod:`rooflinekit.explorer.transformer_widget`) calls :func:`view` on every move, and the
kernel-free one (:mod:`rooflinekit.explorer.transformer_static`) embeds :func:`view` at every
position of the sliders, so the browser only looks texts up.

>>> v = view(TransformerSettings(batch=64))
>>> v.fits, v.summary[-1].text
(True, '8019 (125 per request)')
>>> view(TransformerSettings(batch=1024)).message  # doctest: +ELLIPSIS
'Does not fit in memory: the batch must be at most 742 sequences of 2049 tokens for ...'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from rooflinekit._validate import check_count
from rooflinekit.analysis import attainable_flops
from rooflinekit.catalog import chip
from rooflinekit.errors import RooflineInputError
from rooflinekit.explorer.labels import ENGLISH, check_language, translator
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.calibration import FIGURE_SETS
from rooflinekit.transformer.memory import memory_check, memory_refusal
from rooflinekit.transformer.report import (
    OPERATIONS_HEADER,
    SummaryLine,
    operations_table,
    step_summary,
    step_title,
)
from rooflinekit.transformer.setup import PHASES, Setup, make_setup
from rooflinekit.transformer.step import TransformerStep, transformer_step
from rooflinekit.words import N_, Translate

COMPUTE = "bf16"
"""The dtype of the weights, the cache and the math in this view (its roof is the bf16 peak)."""

BATCHES: tuple[int, ...] = tuple(2**k for k in range(11))
"""Sequences on the batch slider: 1 to 1024."""

CONTEXTS: tuple[int, ...] = tuple(2**k for k in range(7, 18))
"""Tokens on the context slider (the cache in decode, the prompt in prefill): 128 to 131072."""

INTENSITY_RANGE = (0.1, 1e4)
"""FLOPs per byte on the plot's horizontal axis: a norm's 0.17 to a prefill matmul's thousands."""

KINDS = (N_("matmul"), N_("attention"), N_("norm"), N_("elementwise"))
"""Kinds of operation placed on the roofline; collectives are not (they use the link, not HBM)."""

FIGURES: tuple[str, ...] = (N_("ideal"), N_("calibrated"))
"""The sets of figures on the view's toggle (:data:`~rooflinekit.transformer.calibration.FIGURE_SETS`,
marked here for translation): the datasheet's (100 % of every peak, collectives costing only their
bytes) and the catalog's calibrated ones."""


@dataclass(frozen=True)
class TransformerSettings:
    """What the view shows: a model on ``n_chips`` catalog chips, a phase, a batch and a context.

    The batch and the context must be on the sliders; the model must fit on the chips. ``figures``
    is the set of figures the steps are costed at (``"ideal"`` or ``"calibrated"``,
    :mod:`rooflinekit.transformer.calibration`).
    ``language`` (one of :data:`~rooflinekit.explorer.labels.LANGUAGES`) is the language of its
    words; None, the default, is English in JupyterLab and the page's on a kernel-free page.

    >>> TransformerSettings(context=3000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: context must be a context on the slider, one of 128, ... (got 3000)
    >>> TransformerSettings(n_chips=1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: n_chips must be enough h100-sxm chips for llama-3.1-70b's ...
    """

    model: str = "llama-3.1-70b"
    chip: str = "h100-sxm"
    n_chips: int = 8
    phase: str = "decode"
    batch: int = 1
    context: int = 2048
    language: str | None = None
    figures: str = "ideal"

    def __post_init__(self) -> None:
        object.__setattr__(self, "model", transformer_shape(self.model).name)
        if self.language is not None:
            check_language(self.language)
        object.__setattr__(self, "chip", chip(self.chip).id)
        check_count("n_chips", self.n_chips)
        if self.phase not in PHASES:
            raise RooflineInputError("phase", "one of " + ", ".join(PHASES), self.phase)
        if self.figures not in FIGURE_SETS:
            raise RooflineInputError("figures", "one of " + ", ".join(FIGURE_SETS), self.figures)
        for name, values in (("batch", BATCHES), ("context", CONTEXTS)):
            if getattr(self, name) not in values:
                accepted = f"a {name} on the slider, one of " + ", ".join(map(str, values))
                raise RooflineInputError(name, accepted, getattr(self, name))
        # The model must fit on the chips at the sliders' smallest batch and context.
        transformer_step(self.model, self.chip, n_chips=self.n_chips, context=CONTEXTS[0])

    def at(self, **changes: Any) -> TransformerSettings:
        """The same view at another phase, batch or context.

        >>> TransformerSettings().at(phase="prefill").phase
        'prefill'
        """
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: where the static page starts."""
        return asdict(self)


@dataclass(frozen=True)
class Placed:
    """An operation as the view shows it: its row of the operations table (in the view's
    language; ``name`` and ``bound`` stay the library's keys) and, unless it is a collective, its
    place on the roofline."""

    name: str
    kind: str
    row: tuple[str, ...]
    bound: str
    intensity: float | None
    attainable: float | None


@dataclass(frozen=True)
class View:
    """What the view shows at one setting: a title, and either the step or why it does not fit."""

    settings: TransformerSettings
    title: str
    header: tuple[str, ...]
    step: TransformerStep | None
    message: str = ""
    summary: tuple[SummaryLine, ...] = ()
    ops: tuple[Placed, ...] = ()

    @property
    def fits(self) -> bool:
        return self.step is not None


def view(settings: TransformerSettings, language: str | None = None) -> View:
    """The step at ``settings``, with the texts the view shows in ``language`` (by default the
    settings', else English), or why it does not fit.

    >>> [p.name for p in view(TransformerSettings()).ops][:3]
    ['attention norm', 'Q projection', 'K projection']
    >>> [p.row[0] for p in view(TransformerSettings(), "ko").ops][:2]
    ['어텐션 정규화', 'Q 프로젝션']
    """
    return views(settings, [language or settings.language or ENGLISH])[0]


def views(settings: TransformerSettings, languages: Sequence[str]) -> list[View]:
    """The view at ``settings`` in each of ``languages``: one step, its texts in each language."""
    s = settings
    options: dict[str, Any] = {"n_chips": s.n_chips, "phase": s.phase, "batch": s.batch,
                               "context": s.context, "weights": COMPUTE, "compute": COMPUTE,
                               "figures": s.figures}
    shape = transformer_shape(s.model)
    setup = make_setup(s.chip, **options)
    try:
        step: TransformerStep | None = transformer_step(shape, s.chip, **options)
    except RooflineInputError:  # the batch or the context does not fit beside the weights
        step = None
    return [_shown(s, shape, setup, step, translator(language)) for language in languages]


def _shown(s: TransformerSettings, shape: TransformerShape, setup: Setup, step: TransformerStep | None,
           tr: Translate) -> View:
    title = step_title(shape, setup, tr)
    if step is None:
        refused = memory_refusal(shape, setup, memory_check(shape, setup), tr)
        assert refused is not None, "a step that is refused fits in memory"  # the settings check the rest
        argument, accepted = refused
        if argument == "batch":
            message = tr("Does not fit in memory: the batch must be {accepted}.")
        else:
            message = tr("Does not fit in memory: the context must be {accepted}.")
        header = tuple(tr(h) for h in OPERATIONS_HEADER)
        return View(s, title, header, None, message.format(accepted=accepted))
    table = operations_table(step, tr)
    on = step.setup.chip
    peak, bandwidth = on.peak(COMPUTE), on.hbm_bandwidth
    ops = []
    for placed, row in zip(step.ops, table.cells()[1:], strict=True):
        op = placed.op
        intensity = None if op.collective else op.intensity
        attainable = None if intensity is None else float(attainable_flops(intensity, peak, bandwidth))
        ops.append(Placed(op.name, op.kind, tuple(row), placed.bound, intensity, attainable))
    return View(s, title, tuple(table.header), step, summary=tuple(step_summary(step, tr)), ops=tuple(ops))


def every_view(settings: TransformerSettings, languages: Sequence[str] = (ENGLISH,)) -> Iterator[list[View]]:
    """The view in each of ``languages`` at every phase, batch and context on the controls, in
    that nesting order, at the settings' figures.

    >>> sum(1 for _ in every_view(TransformerSettings())) == 2 * len(BATCHES) * len(CONTEXTS)
    True
    """
    for phase in PHASES:
        for batch in BATCHES:
            for context in CONTEXTS:
                yield views(settings.at(phase=phase, batch=batch, context=context), languages)
