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

from rooflinekit._arrays import plain
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
from rooflinekit.fmt import num, pct
from rooflinekit.hierarchy import Level, levels, tiled_matmul_bytes
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

TILES: tuple[int, ...] = tuple(2**k for k in range(4, 11))
"""Square tiles ``b x b`` of outputs on the tile menu, 16 to 1024: how the matmuls stream out of
an on-chip level (:func:`rooflinekit.hierarchy.tiled_matmul_bytes`)."""

DEFAULT_TILE = 128
"""The tile an explorer starts with."""

HBM = "hbm"
"""The id of the outermost level, whose roof the explorer draws unless another is chosen."""

LEVEL_NAMES: dict[str, str] = {
    "HBM": N_("HBM"), "DRAM": N_("DRAM"), "VMEM": N_("VMEM"), "L2 cache": N_("L2 cache"),
    "shared memory (L1)": N_("shared memory (L1)"),
}
"""The catalog's names of memory levels, marked for translation (a name not here is shown as it is)."""

FIGURE_KIND_NAMES: dict[str, str] = {
    "vendor figure": N_("vendor figure"), "paper": N_("paper"), "microbenchmark": N_("microbenchmark"),
    "estimate": N_("estimate"), "user": N_("user"), "measured": N_("measured"),
}
"""The kinds of a level's figure (:data:`rooflinekit.chips.FIGURE_KINDS`), marked for translation."""

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
    tiled: Callable[[Any, Any, int], Any] | None = None  # bytes out of a level in b x b tiles

    def __call__(self, B: Any, D: Any) -> Cost:
        return self.cost(B, D)

    def level_bytes(self, B: Any, D: Any, tile: int) -> Any:
        """Bytes out of an on-chip level when the outputs stream out of it in ``tile x tile``
        tiles: a matmul's operands move once per tile of the other dimension; an operation
        without reuse moves what it moves out of HBM (every byte passes through each level).

        >>> operation("matmul").level_bytes(256, 256, 128), operation("dot").level_bytes(256, 256, 128)
        (655360.0, 1026.0)
        """
        if self.tiled is None:
            return plain(np.broadcast_to(self.cost(B, D).bytes, np.shape(B)))
        return self.tiled(B, D, tile)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "matmul", N_("matmul bf16[B,D]·bf16[D,F]"), N_("matmul"), ROOF_COLORS[1],
        lambda B, D: matmul_cost(B, D, D), MatmulDTypes(),
        lambda B, D, b: tiled_matmul_bytes(B, D, D, b, b),
    ),
    Operation(
        "matmul-int8w", N_("matmul bf16[B,D]·int8[D,F] (int8 weights)"), N_("int8-weight matmul"),
        ROOF_COLORS[2],
        lambda B, D: matmul_cost(B, D, D, w="int8"), MatmulDTypes(w="int8"),
        lambda B, D, b: tiled_matmul_bytes(B, D, D, b, b, w="int8"),
    ),
    Operation(
        "batched-matmul", N_("batched matmul bf16[B,D]·bf16[B,D,F]"), N_("batched matmul"), ROOF_COLORS[3],
        lambda B, D: batched_matmul_cost(B, D, D), None,
        # one matmul x[1,D] . w[D,F] a token: its row of x moves once per tile of F
        lambda B, D, b: B * tiled_matmul_bytes(1, D, D, 1, b),
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


def chip_level(on: str | Chip, level_id: str) -> Level:
    """Catalog chip ``on``'s memory level ``level_id`` (``"hbm"``, or one of its on-chip levels,
    :func:`rooflinekit.hierarchy.levels`); an unknown id is named with the chip's.

    >>> chip_level("tpu-v5e", "vmem").bandwidth
    18040000000000.0
    >>> chip_level("tpu-v6e", "vmem")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: level must be a memory level of tpu-v6e ... hbm (got 'vmem')
    """
    found = {lv.id: lv for lv in levels(on)}
    if level_id not in found:
        accepted = f"a memory level of {chip(on).id} the catalog gives, one of " + ", ".join(found)
        raise RooflineInputError("level", accepted, level_id)
    return found[level_id]


def level_name(lv: Level, tr: Translate = english) -> str:
    """A level's name in ``tr``'s language.

    >>> from rooflinekit.explorer.labels import translator
    >>> level_name(chip_level("h100-sxm", "l2"), translator("ko"))
    'L2 캐시'
    """
    return tr(LEVEL_NAMES[lv.name]) if lv.name in LEVEL_NAMES else lv.name


def level_note(on: str, level_id: str, tile: int, achieved: float = 1.0, tr: Translate = english) -> str:
    """What the explorer says of catalog chip ``on``'s roof of level ``level_id``: its bandwidth,
    the kind of that figure, its ridge at ``achieved`` of the peak and the tiles; that no source
    gives its bandwidth, so it has no roof; or, at HBM, that the chip has no other level ("" if
    it has).

    >>> print(level_note("tpu-v5e", "vmem", 128))  # doctest: +NORMALIZE_WHITESPACE
    Roof of VMEM: 1.8e13 B/s (estimate), critical intensity 10.92 FLOP/B; the matmuls stream out of it in
    128 x 128 tiles.
    >>> level_note("tpu-v6e", "hbm", 128)
    "The catalog gives no on-chip memory level of TPU v6e (Trillium): HBM's roof only."
    """
    found, lv = chip(on), chip_level(on, level_id)
    if lv.id == HBM:
        return "" if len(levels(found)) > 1 else tr(
            "The catalog gives no on-chip memory level of {chip}: HBM's roof only.").format(chip=found.name)
    name = level_name(lv, tr)
    if lv.bandwidth is None:
        return tr(NO_ROOF).format(chip=found.name, level=name)
    kind = lv.kinds.get("bandwidth") or "-"
    return tr("Roof of {level}: {bandwidth} B/s ({kind}), critical intensity {ridge} FLOP/B; the matmuls "
              "stream out of it in {tile} x {tile} tiles.").format(
        level=name, bandwidth=num(lv.bandwidth), kind=tr(FIGURE_KIND_NAMES.get(kind, kind)),
        ridge=num(chip_figures(found)[0] * achieved / lv.bandwidth, 4), tile=tile)


NO_ROOF = N_("{chip}: {level} has no bandwidth figure (no source in the catalog gives one): no roof is drawn "
             "for it, and no points under it.")
"""What the explorer says in place of a level's roof when no source gives the level's bandwidth."""


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
    level: str = HBM
    tile: int = DEFAULT_TILE

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
        object.__setattr__(self, "level", chip_level(self.chip, self.level).id)
        if self.tile not in TILES:
            accepted = "a tile on the tile menu, one of " + ", ".join(map(str, TILES))
            raise RooflineInputError("tile", accepted, self.tile)

    @classmethod
    def of(
        cls, chip: str, B: int, D: int, operations: Sequence[str] | None, achieved: float = 1.0,
        language: str | None = None, level: str = HBM, tile: int = DEFAULT_TILE,
    ) -> ExplorerSettings:
        """Settings with every operation shown when ``operations`` is None.

        >>> ExplorerSettings.of("b200", 256, 8192, ["dot"]).operations
        ('dot',)
        """
        keys = tuple(op.key for op in OPERATIONS) if operations is None else tuple(operations)
        return cls(chip, B, D, keys, achieved, language, level, tile)

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON-ready data (the static page's starting state)."""
        return {"chip": self.chip, "B": self.B, "D": self.D, "operations": list(self.operations),
                "achieved": self.achieved, "language": self.language, "level": self.level, "tile": self.tile}


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
    tile: int | None = None,
) -> list[Point]:
    """Place the chosen operations (all by default) on a chip with this peak and bandwidth,
    reaching ``achieved`` of the peak (see :func:`rooflinekit.analysis.hardware`): the times,
    the attainable FLOP/s and the critical batches are those under that lower roof.

    With ``tile``, ``bandwidth`` is an on-chip level's and the bytes are those out of it, the
    matmuls streaming their outputs out of it in ``tile x tile`` tiles
    (:meth:`Operation.level_bytes`); the critical batches, which are HBM's, do not apply there.

    >>> [p.key for p in evaluate(1e14, 1e12, 1, 256, keys=["dot"])]
    ['dot']
    >>> evaluate(1e14, 1e12, 4096, 256, ["matmul"], achieved=0.5)[0].attainable
    50000000000000.0
    >>> evaluate(1e14, 1e13, 4096, 256, ["matmul"], tile=16)[0].intensity   # 16 x 16 tiles: about b/2
    7.757575757575758
    """
    peak = hardware(peak=peak, bandwidth=bandwidth, achieved=achieved).peak
    points = []
    for op in (OPERATIONS if keys is None else [operation(k) for k in keys]):
        cost = op(B, D)
        if tile is not None:
            cost = Cost(cost.flops, op.level_bytes(B, D, tile), 0.0, name=cost.name)
        r = analyze(cost, peak=peak, bandwidth=bandwidth, compute=COMPUTE)
        exact = approx = None
        if op.matmul is not None and tile is None:
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


def on_level(
    on: str | Chip, level_id: str, B: int, D: int, keys: Sequence[str] | None = None, achieved: float = 1.0,
    tile: int = DEFAULT_TILE,
) -> list[Point]:
    """The operations under catalog chip ``on``'s roof of level ``level_id``: at ``"hbm"``, as
    :func:`evaluate` places them on the chip's figures; at an on-chip level, at its bandwidth with
    the bytes out of it in ``tile x tile`` tiles; none under a level without a bandwidth (no roof).

    >>> [round(p.intensity, 1) for p in on_level("tpu-v5e", "vmem", 4096, 8192, ["matmul", "dot"], tile=64)]
    [31.9, 0.5]
    >>> on_level("h100-sxm", "l2", 256, 8192)
    []
    """
    lv = chip_level(on, level_id)
    peak = chip_figures(on)[0]
    if lv.bandwidth is None:
        return []
    return evaluate(peak, lv.bandwidth, B, D, keys, achieved, None if lv.id == HBM else tile)


@cache
def _intensities(key: str, D: int, tile: int | None = None) -> tuple[float, float]:
    """The least and the greatest intensity of operation ``key`` over every batch on the slider
    (out of an on-chip level in ``tile x tile`` tiles, when given)."""
    op, batches = operation(key), np.array(B_VALUES)
    cost = op(batches, D)
    moved = cost.bytes if tile is None else op.level_bytes(batches, D, tile)
    flops, moved = (np.asarray(x, dtype=float) for x in (cost.flops, moved))
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
    peak: float, bandwidth: float, D: int, keys: Sequence[str] | None = None, achieved: float = 1.0,
    tile: int | None = None,
) -> PlotAxes:
    """The plot's axes, fitted to what it shows: the ridge and the chosen operations (all by
    default) at every batch on the slider, so that the axes stay put while the batch moves,
    and the roof over that range (and the roof at ``achieved`` of the peak, with its ridge),
    each with a margin of :data:`MARGIN`. With ``tile``, ``bandwidth`` is an on-chip level's and
    the intensities are those out of it (:func:`evaluate`).

    >>> from rooflinekit.fmt import num
    >>> axes = plot_axes(1.97e14, 8.2e11, 8192)  # TPU v5e: the dot product's 0.5 to 3972 (int8 matmul)
    >>> [num(x) for x in axes.intensity], [num(x) for x in axes.attainable]
    (['0.333', '5958'], ['1.82e11', '2.96e14'])
    """
    shown = [_intensities(op.key, D, tile) for op in (OPERATIONS if keys is None else map(operation, keys))]
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


SLIDER_STEP = 1e-4
"""A peak or bandwidth slider's step, in decades (log10): fine enough that the step nearest a
chip's figure reads, to three significant digits (the sliders' readout and :func:`slider_figure`),
as the figure itself (0.01 % off at most)."""


READOUT = ".3s"
"""How the live explorer's peak and bandwidth sliders show their value (ipywidgets' readout, a d3
format): three significant digits and an SI prefix, 197T for 1.97e14, the digits of
:func:`slider_figure`."""


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

    >>> off_by_a_step(10 ** 14.2945, 1.97e14), off_by_a_step(10 ** 14.2947, 1.97e14)
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
    ``D_VALUES[i]`` and ``B_VALUES[j]``; ``level_bytes[tile][key][i][j]`` the bytes out of an
    on-chip level in ``tile x tile`` tiles, for the operations whose bytes there differ from
    HBM's (:meth:`Operation.level_bytes`); each chip's ``levels``, HBM first, their bandwidths
    (``None`` where no source gives one); ``dtype_bytes`` gives the element sizes the
    critical batch formula needs; ``shares`` the achieved control's choices. The browser places
    them on the sliders' roofline (``assets/explorer.js``; ``tests/rooflinekit/test_explorer_js.py`` checks it
    against rooflinekit). The words it shows are in :func:`grid_words`, one set a language.

    >>> data = grid_data()
    >>> data["flops"]["matmul"][0][0] == 2 * 1 * 256 * 256
    True
    >>> [(lv["id"], lv["bandwidth"]) for lv in data["chips"][0]["levels"]]
    [('hbm', 820000000000.0), ('vmem', 18040000000000.0)]
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
    return {
        "compute": COMPUTE,
        "B": list(B_VALUES),
        "D": list(D_VALUES),
        "peak_range": list(PEAK_RANGE),
        "bandwidth_range": list(BANDWIDTH_RANGE),
        "margin": MARGIN,
        "half_span": HALF_SPAN,
        "chips": _chips_data(),
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
        "tiles": list(TILES),
        "level_bytes": {
            str(tile): {op.key: [_finite(op.level_bytes(batches, D, tile)) for D in D_VALUES]
                        for op in OPERATIONS if op.tiled is not None}
            for tile in TILES
        },
    }


def _chips_data() -> list[dict[str, Any]]:
    """Each catalog chip's figures on the sliders and its memory levels, HBM first, with each
    level's bandwidth (``None`` where no source gives one) and the kind of that figure."""
    chips = []
    for c in CHIPS.values():
        peak, bandwidth = chip_figures(c)
        chip_levels = [{"id": lv.id, "name": lv.name, "bandwidth": lv.bandwidth,
                        "kind": lv.kinds.get("bandwidth")} for lv in levels(c)]
        chips.append({"id": c.id, "name": c.name, "peak": peak, "bandwidth": bandwidth,
                      "levels": chip_levels})
    return chips


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
        "levels": {c.id: [level_name(lv, tr) for lv in levels(c)] for c in CHIPS.values()},
        "kinds": {kind: tr(name) for kind, name in FIGURE_KIND_NAMES.items()},
        "labels": tables().get(language, {}),
    }


def every_language_words() -> dict[str, dict[str, Any]]:
    """:func:`grid_words` in every language of the course: what a static page carries."""
    return {language: grid_words(language) for language in LANGUAGES}
