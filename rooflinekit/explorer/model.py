"""The model of what the roofline explorer shows: operations, sizes, settings, their place on a roofline.

Both faces of the explorer use this module: the live one in JupyterLab
(:mod:`rooflinekit.explorer.widget`, ipywidgets) evaluates :func:`evaluate` on every slider
move, and the kernel-free one on the static site (:mod:`rooflinekit.explorer.static`) embeds
:func:`grid_data`, the FLOPs and bytes of every operation at every size on its sliders,
computed here by the cost models. Only numpy and the rest of ``rooflinekit`` are needed.

Every operation computes in bf16 and ``F = D``, so one peak (bf16 FLOP/s) and one bandwidth
(HBM B/s) describe the chip.

>>> rows = evaluate(peak=1.97e14, bandwidth=8.2e11, B=256, D=8192)
>>> [(r.key, r.bound) for r in rows]  # doctest: +NORMALIZE_WHITESPACE
[('matmul', 'compute'), ('matmul-int8w', 'compute'), ('batched-matmul', 'memory'),
 ('layer-norm', 'memory'), ('dot', 'memory')]
>>> round(rows[0].critical_batch, 1), round(rows[0].critical_batch_approx, 1)
(255.2, 240.2)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from rooflinekit.analysis import analyze, hardware
from rooflinekit.catalog import CHIPS, Chip, achievable, chip
from rooflinekit.costs import (
    Cost,
    batched_matmul_cost,
    dot_cost,
    layer_norm_cost,
    matmul_cost,
)
from rooflinekit.critical import matmul_critical_batch, matmul_critical_batch_approx
from rooflinekit.dtypes import dtype_bytes
from rooflinekit.errors import RooflineInputError
from rooflinekit.explorer.labels import LANGUAGES, check_language, tables, translator
from rooflinekit.fmt import pct
from rooflinekit.plot import ROOF_COLORS
from rooflinekit.words import N_, Translate, english

COMPUTE = "bf16"
"""The dtype every explorer operation computes in (its peak is the one on the slider)."""

B_VALUES: tuple[int, ...] = tuple(sorted({round(2 ** (k / 4)) for k in range(0, 65)}))
"""Token batches on the B slider: 1 to 65536, four steps per doubling."""

D_VALUES: tuple[int, ...] = tuple(2**k for k in range(8, 16))
"""Model widths on the D slider (``F = D``): 256 to 32768."""

PEAK_RANGE = (1e12, 1e16)
"""Peak FLOP/s the peak slider spans (log scale)."""

BANDWIDTH_RANGE = (1e10, 2e13)
"""Bandwidths (B/s) the bandwidth slider spans (log scale)."""

ACHIEVED_SHARES: tuple[float, ...] = tuple(round(1 - k / 20, 2) for k in range(11))
"""Shares of the peak on the achieved control, 100% (the datasheet) down to 50% in steps of 5%."""

MARGIN = 1.5
"""How far the plot's axes reach past what they show, on each side (a factor: the axes are log)."""

HALF_SPAN = 10.0
"""An axis reaches at least this factor either side of its middle: two decades, two ticks."""


@dataclass(frozen=True)
class MatmulDTypes:
    """Element types of ``x[B,D] . w[D,F] -> out[B,F]``, for its critical batch."""

    x: str = "bf16"
    w: str = "bf16"
    out: str = "bf16"


@dataclass(frozen=True)
class Operation:
    """An operation the explorer can place on the roofline, as a function of ``B`` and ``D``."""

    key: str
    label: str  # in English (N_): shown through a translator
    short: str  # a column heading
    color: str
    cost: Callable[[Any, Any], Cost]
    matmul: MatmulDTypes | None = None  # set when the critical batch applies

    def __call__(self, B: Any, D: Any) -> Cost:
        return self.cost(B, D)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "matmul", N_("matmul bf16[B,D]·bf16[D,F]"), N_("matmul"), ROOF_COLORS[1],
        lambda B, D: matmul_cost(B, D, D), MatmulDTypes(),
    ),
    Operation(
        "matmul-int8w", N_("matmul bf16[B,D]·int8[D,F] (int8 weights)"), N_("int8-weight matmul"),
        ROOF_COLORS[2],
        lambda B, D: matmul_cost(B, D, D, w="int8"), MatmulDTypes(w="int8"),
    ),
    Operation(
        "batched-matmul", N_("batched matmul bf16[B,D]·bf16[B,D,F]"), N_("batched matmul"), ROOF_COLORS[3],
        lambda B, D: batched_matmul_cost(B, D, D),
    ),
    Operation(
        "layer-norm", N_("layer norm of bf16[B,D]"), N_("layer norm"), ROOF_COLORS[4],
        lambda B, D: layer_norm_cost(B, D),
    ),
    Operation(
        "dot", N_("dot product of two bf16[D]"), N_("dot product"), ROOF_COLORS[5],
        lambda B, D: dot_cost(D if np.ndim(B) == 0 else np.full(np.shape(B), D)),
    ),
)

_BY_KEY = {op.key: op for op in OPERATIONS}


def operation(key: str) -> Operation:
    """Look up an explorer operation by key.

    >>> operation("dot").label
    'dot product of two bf16[D]'
    """
    if key not in _BY_KEY:
        raise RooflineInputError("operation", "one of " + ", ".join(_BY_KEY), key)
    return _BY_KEY[key]


_BATCHES_ACCEPTED = "a batch on the slider, one of " + ", ".join(map(str, B_VALUES))


@dataclass(frozen=True)
class ExplorerSettings:
    """Where an explorer starts: a catalog chip, a batch, a width and the operations shown.

    ``achieved`` is the share of the peak the roofline is drawn at, one of
    :data:`ACHIEVED_SHARES` (1, the datasheet's peak, by default). ``language``, one of
    :data:`~rooflinekit.explorer.labels.LANGUAGES`, is the language of its labels; None (the
    default) is English in JupyterLab and the page's language on a kernel-free page.

    >>> ExplorerSettings(B=300)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: B must be a batch on the slider, one of 1, ... (got 300)
    """

    chip: str = "tpu-v5e"
    B: int = 256
    D: int = 8192
    operations: tuple[str, ...] = field(default_factory=lambda: tuple(op.key for op in OPERATIONS))
    achieved: float = 1.0
    language: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "chip", chip(self.chip).id)
        if self.language is not None:
            check_language(self.language)
        if self.B not in B_VALUES:
            raise RooflineInputError("B", _BATCHES_ACCEPTED, self.B)
        if self.D not in D_VALUES:
            raise RooflineInputError("D", "one of " + ", ".join(map(str, D_VALUES)), self.D)
        object.__setattr__(self, "operations", tuple(operation(k).key for k in self.operations))
        if self.achieved not in ACHIEVED_SHARES:
            accepted = "a share on the achieved control, one of " + ", ".join(map(str, ACHIEVED_SHARES))
            raise RooflineInputError("achieved", accepted, self.achieved)

    @classmethod
    def of(
        cls, chip: str, B: int, D: int, operations: Sequence[str] | None, achieved: float = 1.0,
        language: str | None = None,
    ) -> ExplorerSettings:
        """Settings with every operation shown when ``operations`` is None.

        >>> ExplorerSettings.of("b200", 256, 8192, ["dot"]).operations
        ('dot',)
        """
        keys = tuple(op.key for op in OPERATIONS) if operations is None else tuple(operations)
        return cls(chip, B, D, keys, achieved, language)

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON-ready data (the static page's starting state)."""
        return {"chip": self.chip, "B": self.B, "D": self.D, "operations": list(self.operations),
                "achieved": self.achieved, "language": self.language}


def share_label(share: float, on: str | Chip | None = None, tr: Translate = english) -> str:
    """How the achieved control names ``share``, marked when it is in catalog chip ``on``'s
    typical range (:func:`rooflinekit.catalog.achievable`), in ``tr``'s language.

    >>> share_label(1.0), share_label(0.85, "h100-sxm"), share_label(0.9, "h100-sxm")
    ('100% of peak', '85% of peak (typical for NVIDIA H100 SXM)', '90% of peak')
    """
    if on is not None and on != "custom":
        typical = achievable(on)
        if typical.low <= share <= typical.high:
            return tr("{share} of peak (typical for {chip})").format(share=pct(share), chip=chip(on).name)
    return tr("{share} of peak").format(share=pct(share))


def achieved_note(share: float, tr: Translate = english) -> str:
    """What the explorer adds to a figure that is taken at ``share`` of the peak ("" at 100%).

    >>> achieved_note(0.8), achieved_note(1.0)
    (' at 80% of peak', '')
    """
    return "" if share == 1 else tr(" at {share} of peak").format(share=pct(share))


@dataclass(frozen=True)
class Point:
    """One operation placed on a chip: what the explorer's table shows in a row."""

    key: str
    label: str
    flops: float
    bytes: float
    intensity: float
    attainable: float
    t_math: float
    t_comms: float
    t_lower: float
    t_upper: float
    bound: str
    critical_batch: float | None  # exact crossover for this D; inf if none; None if n/a
    critical_batch_approx: float | None


def evaluate(
    peak: float,
    bandwidth: float,
    B: int,
    D: int,
    keys: Sequence[str] | None = None,
    achieved: float = 1.0,
) -> list[Point]:
    """Place the chosen operations (all by default) on a chip with this peak and bandwidth,
    reaching ``achieved`` of the peak (see :func:`rooflinekit.analysis.hardware`): the times,
    the attainable FLOP/s and the critical batches are those under that lower roof.

    >>> [p.key for p in evaluate(1e14, 1e12, 1, 256, keys=["dot"])]
    ['dot']
    >>> evaluate(1e14, 1e12, 4096, 256, ["matmul"], achieved=0.5)[0].attainable
    50000000000000.0
    """
    peak = hardware(peak=peak, bandwidth=bandwidth, achieved=achieved).peak
    points = []
    for op in (OPERATIONS if keys is None else [operation(k) for k in keys]):
        r = analyze(op(B, D), peak=peak, bandwidth=bandwidth, compute=COMPUTE)
        exact = approx = None
        if op.matmul is not None:
            dt = op.matmul
            exact = float(matmul_critical_batch(
                D, D, x=dt.x, w=dt.w, out=dt.out, peak=peak, bandwidth=bandwidth
            ))
            approx = float(matmul_critical_batch_approx(w=dt.w, peak=peak, bandwidth=bandwidth))
        points.append(Point(
            key=op.key, label=op.label, flops=float(r.flops), bytes=float(r.cost.bytes),
            intensity=float(r.intensity), attainable=float(r.attainable),
            t_math=float(r.t_math), t_comms=float(r.t_comms), t_lower=float(r.t_lower),
            t_upper=float(r.t_upper), bound=str(r.bound),
            critical_batch=exact, critical_batch_approx=approx,
        ))
    return points


@cache
def _intensities(key: str, D: int) -> tuple[float, float]:
    """The least and the greatest intensity of operation ``key`` over every batch on the slider."""
    cost = operation(key)(np.array(B_VALUES), D)
    flops, moved = (np.asarray(x, dtype=float) for x in (cost.flops, cost.bytes))
    intensity = np.broadcast_to(flops / moved, len(B_VALUES))
    return float(intensity.min()), float(intensity.max())


def _reach(low: float, high: float) -> tuple[float, float]:
    """An axis showing ``low`` to ``high`` with a margin, two decades at least."""
    low, high = low / MARGIN, high * MARGIN
    if high < low * HALF_SPAN * HALF_SPAN:
        middle = math.sqrt(low * high)
        low, high = middle / HALF_SPAN, middle * HALF_SPAN
    return low, high


@dataclass(frozen=True)
class PlotAxes:
    """What the explorer's roofline plot spans: ``(low, high)`` on each log axis."""

    intensity: tuple[float, float]
    attainable: tuple[float, float]


def plot_axes(
    peak: float, bandwidth: float, D: int, keys: Sequence[str] | None = None, achieved: float = 1.0
) -> PlotAxes:
    """The plot's axes, fitted to what it shows: the ridge and the chosen operations (all by
    default) at every batch on the slider, so that the axes stay put while the batch moves,
    and the roof over that range (and the roof at ``achieved`` of the peak, with its ridge),
    each with a margin of :data:`MARGIN`.

    >>> from rooflinekit.fmt import num
    >>> axes = plot_axes(1.97e14, 8.2e11, 8192)  # TPU v5e: the dot product's 0.5 to 3972 (int8 matmul)
    >>> [num(x) for x in axes.intensity], [num(x) for x in axes.attainable]
    (['0.333', '5958'], ['1.82e11', '2.96e14'])
    """
    shown = [_intensities(op.key, D) for op in (OPERATIONS if keys is None else map(operation, keys))]
    lower = hardware(peak=peak, bandwidth=bandwidth, achieved=achieved).peak
    ridges = [lower / bandwidth, peak / bandwidth]
    intensity = _reach(min(ridges + [low for low, _ in shown]), max(ridges + [high for _, high in shown]))
    return PlotAxes(intensity, _reach(min(lower, intensity[0] * bandwidth), peak))


def chip_figures(on: str | Chip) -> tuple[float, float]:
    """A chip's bf16 dense peak and HBM bandwidth: what its preset puts on the sliders.

    >>> chip_figures("tpu-v5e")
    (197000000000000.0, 820000000000.0)
    """
    found = chip(on)
    return found.peak(COMPUTE), found.hbm_bandwidth


SLIDER_STEP = 0.01
"""A peak or bandwidth slider's step, in decades (log10)."""


def slider_figure(value: float) -> float:
    """The figure a log slider at ``value`` stands for: three significant digits, as both
    explorers read their sliders (catalog figures are never read from a slider).

    >>> slider_figure(10 ** 14.29), slider_figure(10 ** 11.91)
    (195000000000000.0, 813000000000.0)
    """
    return float(f"{value:.3g}")


def off_by_a_step(value: float, figure: float) -> bool:
    """True when a slider's ``value`` is at least half a step from ``figure``: the slider was
    moved, rather than placed on the nearest step to ``figure``.

    >>> off_by_a_step(10 ** 14.29, 1.97e14), off_by_a_step(10 ** 14.31, 1.97e14)
    (False, True)
    """
    return abs(math.log10(value) - math.log10(figure)) > SLIDER_STEP / 2 + 1e-9


def _finite(values: Any) -> list[float]:
    out = [float(v) for v in np.asarray(values, dtype=float).ravel()]
    if not all(math.isfinite(v) for v in out):
        raise ValueError("explorer grid has a non-finite value")
    return out


def grid_data() -> dict[str, Any]:
    """Everything the static explorer needs, as JSON-ready data.

    ``flops[key][i][j]`` and ``bytes[key][i][j]`` are the cost of operation ``key`` at
    ``D_VALUES[i]`` and ``B_VALUES[j]``; ``dtype_bytes`` gives the element sizes the
    critical batch formula needs; ``shares`` the achieved control's choices. The browser places
    them on the sliders' roofline (``assets/explorer.js``; ``tests/rooflinekit/test_explorer_js.py`` checks it
    against rooflinekit). The words it shows are in :func:`grid_words`, one set a language.

    >>> data = grid_data()
    >>> data["flops"]["matmul"][0][0] == 2 * 1 * 256 * 256
    True
    """
    batches = np.array(B_VALUES)
    flops: dict[str, list[list[float]]] = {}
    moved: dict[str, list[list[float]]] = {}
    for op in OPERATIONS:
        flops[op.key], moved[op.key] = [], []
        for D in D_VALUES:
            cost = op(batches, D)
            flops[op.key].append(_finite(np.broadcast_to(cost.flops, batches.shape)))
            moved[op.key].append(_finite(np.broadcast_to(cost.bytes, batches.shape)))
    chips = []
    for c in CHIPS.values():
        peak, bandwidth = chip_figures(c)
        chips.append({"id": c.id, "name": c.name, "peak": peak, "bandwidth": bandwidth})
    return {
        "compute": COMPUTE,
        "B": list(B_VALUES),
        "D": list(D_VALUES),
        "peak_range": list(PEAK_RANGE),
        "bandwidth_range": list(BANDWIDTH_RANGE),
        "margin": MARGIN,
        "half_span": HALF_SPAN,
        "chips": chips,
        "shares": [{"value": s, "percent": pct(s)} for s in ACHIEVED_SHARES],
        "operations": [
            {
                "key": op.key,
                "color": op.color,
                "matmul": None if op.matmul is None else {
                    "x": dtype_bytes(op.matmul.x),
                    "w": dtype_bytes(op.matmul.w),
                    "out": dtype_bytes(op.matmul.out),
                },
            }
            for op in OPERATIONS
        ],
        "flops": flops,
        "bytes": moved,
    }


def grid_words(language: str) -> dict[str, Any]:
    """The words the static explorer shows in ``language``: the operations' names, the achieved
    control's choices (each chip's ``share_labels`` marking its typical shares) and the notes of
    the figures taken at a share, and ``labels``, the translations of its script's own words.

    >>> words = grid_words("ko")
    >>> words["operations"]["dot"]["short"], words["shares"][2]["note"]
    ('내적', ' (피크 성능의 90% 기준)')
    """
    tr = translator(language)
    return {
        "operations": {op.key: {"label": tr(op.label), "short": tr(op.short)} for op in OPERATIONS},
        "shares": [{"label": share_label(s, tr=tr), "note": achieved_note(s, tr)} for s in ACHIEVED_SHARES],
        "share_labels": {c.id: [share_label(s, c, tr) for s in ACHIEVED_SHARES] for c in CHIPS.values()},
        "labels": tables().get(language, {}),
    }


def every_language_words() -> dict[str, dict[str, Any]]:
    """:func:`grid_words` in every language of the course: what a static page carries."""
    return {language: grid_words(language) for language in LANGUAGES}
