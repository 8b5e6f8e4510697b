"""Roofline plots with matplotlib, which loads only when a function here is first called.

- :func:`roofline_axes` draws one or more roofs, attainable FLOP/s against arithmetic
  intensity on log-log axes, with a dotted line at each ridge (the critical intensity).
- :func:`mark_operations` places operations on such a plot, coloured by what limits them.
- :func:`attainable_curve` draws attainable FLOP/s against the token batch.
- :func:`hierarchical_roofline` draws one roof per memory level of a chip, the ceilings below
  the roof, and operations' points at each level (:mod:`rooflinekit.hierarchy`).
- :func:`critical_intensity_lines` marks chips' critical intensities, each line labelled, and
  :func:`label_lines_at_edge` names lines that lie too close for a legend beside the axes.

Every plotted number comes from :mod:`rooflinekit.analysis`; the lines carry a ``gid``
(``"roof"``, ``"achieved-roof"``, ``"ridge"``, ``"operation"``, ``"batch-curve"``, ``"peak"``,
``"critical-intensity"``, ``"level-roof"``, ``"ceiling"``, ``"level-point"``) so code can find them
again, and every line has a legend label
or, for a ridge, a label written beside it. The colours are readable on white and stay
apart under the common colour-vision deficiencies (``tests/rooflinekit/test_plot.py`` checks both).

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import rooflinekit as rk
>>> ax = roofline_axes("tpu-v5e")
>>> [r.bound for r in mark_operations(ax, [("dot", rk.dot_cost(10**6))], "tpu-v5e")]
['memory']
>>> bool(max(roof_lines(ax)[0].get_ydata()) == rk.chip("tpu-v5e").peak("bf16"))
True
>>> import matplotlib.pyplot as plt; plt.close("all")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from rooflinekit._validate import check_fraction
from rooflinekit.analysis import Hardware, Roofline, analyze, attainable_flops, hardware
from rooflinekit.catalog import Chip, chip
from rooflinekit.costs import Cost
from rooflinekit.dtypes import DType, dtype
from rooflinekit.errors import RooflineInputError
from rooflinekit.fmt import num, pct, si
from rooflinekit.hierarchy import Hierarchical, MeasuredPoint, ceilings, levels
from rooflinekit.words import N_, Message, Translate, english, message

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D

RoofSpec = str | Chip | Hardware
"""A roof: a chip id, a ``Chip`` (its HBM bandwidth) or a ``Hardware`` (any peak and bandwidth)."""

BOUND_COLORS: dict[str, str] = {"compute": "#0072B2", "memory": "#D55E00", "network": "#009E73"}
"""Colour of a point by what limits it (Okabe-Ito palette, readable with colour blindness)."""

ROOF_COLORS: tuple[str, ...] = ("#000000", "#882255", "#117733", "#332288", "#CC79A7", "#999933")
"""Colours of successive roofs or chips on one plot: black, then Paul Tol's "muted" wine,
green, indigo, rose-purple and olive, each with at least 3:1 contrast on white."""

LINE_STYLES: tuple[Any, ...] = (":", "--", "-.", (0, (1, 1)), (0, (6, 2, 1, 2)), (0, (3, 1, 1, 1, 1, 1)))
"""Dash patterns of successive marker lines, so that lines differ by more than colour."""

INTENSITY_LABEL = N_("Arithmetic intensity (FLOPs per byte)")
ATTAINABLE_LABEL = N_("Attainable FLOP/s")
ATTAINABLE_OPS_LABEL = N_("Attainable OP/s")
BATCH_LABEL = "Token batch B"


def _new_axes() -> Axes:
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(7.0, 4.5), layout="constrained")
    return ax


def _is_int(compute: str | DType) -> bool:
    return dtype(compute, "compute").name.startswith("int")


def _resolve(spec: RoofSpec, compute: str | DType) -> tuple[Hardware, str]:
    """A roof's peak and bandwidth, and a default label naming where they come from."""
    if isinstance(spec, Hardware):
        unit = "OP/s" if _is_int(compute) else "FLOP/s"
        return spec, f"{si(spec.peak, unit)}, {si(spec.bandwidth, 'B/s')}"
    if isinstance(spec, (str, Chip)):
        found = chip(spec, "roof")
        return hardware(found, compute=compute), f"{found.name} ({dtype(compute, 'compute').name})"
    raise RooflineInputError("roof", "a chip id, a Chip or a Hardware (from rk.hardware)", spec)


def _as_list(roofs: RoofSpec | Sequence[RoofSpec]) -> list[RoofSpec]:
    if isinstance(roofs, (str, Chip, Hardware)):
        return [roofs]
    if not isinstance(roofs, Sequence):
        raise RooflineInputError("roof", "a chip id, a Chip or a Hardware (from rk.hardware)", roofs)
    listed = list(cast(Sequence[RoofSpec], roofs))  # a Hardware is a tuple too: handled above
    if not listed:
        raise RooflineInputError("roofs", "at least one chip id, Chip or Hardware", roofs)
    return listed


def roofline_axes(
    roofs: RoofSpec | Sequence[RoofSpec],
    ax: Axes | None = None,
    *,
    compute: str | DType = "bf16",
    labels: Sequence[str] | None = None,
    intensity_range: tuple[float, float] | None = None,
    points: int = 256,
    mark_ridge: bool = True,
    legend: bool = True,
    achieved: float | None = None,
    tr: Translate = english,
) -> Axes:
    """Draw the roof of each chip (or ``Hardware``) on log-log axes and return the axes.

    Each roof is ``min(peak, intensity * bandwidth)`` at ``points`` log-spaced intensities over
    ``intensity_range`` (by default three decades below the lowest ridge to two above the
    highest: slope, knee and flat roof, no empty decades), plus the ridge itself. ``labels``
    replaces the default legend entries, one per roof. With ``achieved`` (a share of the
    peak, see ``rk.catalog.achievable``) each roof gets a dashed twin at that share of its
    peak: the roof real kernels live under. ``tr`` gives the plot's words in another language
    (:mod:`rooflinekit.words`; the explorers' Korean comes from :mod:`rooflinekit.explorer.labels`).

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import rooflinekit as rk
    >>> ax = roofline_axes(["h100-sxm", rk.hardware(peak=1e15, bandwidth=1e13)], achieved=0.8)
    >>> [line.get_label() for line in roof_lines(ax)]
    ['NVIDIA H100 SXM (bf16)', '1 PFLOP/s, 10 TB/s']
    >>> [line.get_label() for line in ax.get_lines() if line.get_gid() == "achieved-roof"]
    ['NVIDIA H100 SXM (bf16) at 80% of peak', '1 PFLOP/s, 10 TB/s at 80% of peak']
    >>> x = roof_lines(ax)[0].get_xdata()   # from a thousandth of the lower ridge to 100x the higher
    >>> float(x[0]), round(float(x[-1]))
    (0.1, 29522)
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    specs = _as_list(roofs)
    if labels is not None and len(labels) != len(specs):
        raise RooflineInputError("labels", f"{len(specs)} labels, one per roof", labels)
    resolved = [_resolve(spec, compute) for spec in specs]
    low, high = _intensity_range([hw for hw, _ in resolved], intensity_range)
    if points < 2:
        raise RooflineInputError("points", "an integer of at least 2", points)
    share, ax = None if achieved is None else check_fraction("achieved", achieved), ax or _new_axes()
    grid = np.geomspace(low, high, points)
    for i, (hw, default_label) in enumerate(resolved):
        label = labels[i] if labels is not None else default_label
        color = ROOF_COLORS[i % len(ROOF_COLORS)]
        _draw_roof(ax, hw, grid, color=color, label=label, mark_ridge=mark_ridge, tr=tr)
        if share is not None:
            _draw_roof(ax, Hardware(hw.peak * share, hw.bandwidth), grid, color=color,
                       label=Message(tr("{label} at {share} of peak"), {"label": label, "share": pct(share)}),
                       mark_ridge=mark_ridge, achieved=pct(share), tr=tr)
    ax.set(xscale="log", yscale="log")
    ax.set_xlabel(tr(INTENSITY_LABEL))
    ax.set_ylabel(tr(ATTAINABLE_LABEL if not _is_int(compute) else ATTAINABLE_OPS_LABEL))
    ax.grid(True, which="major", alpha=0.3)
    if legend:
        ax.legend(loc="lower right", fontsize=9)
    return ax


def _intensity_range(
    roofs: Sequence[Hardware], given: tuple[float, float] | None
) -> tuple[float, float]:
    """``given``, checked; by default three decades below the lowest ridge to two above the highest."""
    if given is None:
        ridges = [hw.critical_intensity for hw in roofs]
        given = (min(ridges) / 1e3, max(ridges) * 1e2)
    low, high = given
    if not (0 < low < high and np.isfinite(high)):
        raise RooflineInputError("intensity_range", "(low, high) with 0 < low < high", given)
    return low, high


def _draw_roof(
    ax: Axes, hw: Hardware, grid: np.ndarray, *, color: str, label: str, mark_ridge: bool, achieved: str = "",
    tr: Translate = english,
) -> None:
    """One roof over ``grid`` with its ridge as a sample point, so the knee is sharp: solid for a
    peak, dashed for an ``achieved`` share of it (the share as text: "80%")."""
    low, high = float(grid[0]), float(grid[-1])
    ridge = hw.critical_intensity
    inside = low < ridge < high
    x = np.union1d(grid, [ridge]) if inside else grid
    ax.plot(x, attainable_flops(x, hw.peak, hw.bandwidth), color=color, label=label,
            linewidth=1.5 if achieved else 2, linestyle="--" if achieved else "-",
            gid="achieved-roof" if achieved else "roof")
    if mark_ridge and inside:
        _mark_ridge(ax, hw, color, bottom=low * hw.bandwidth, share=achieved, tr=tr)


def _mark_ridge(
    ax: Axes, hw: Hardware, color: str, *, bottom: float, share: str = "", tr: Translate = english
) -> None:
    """A dotted line from ``bottom`` (where the roof starts, at most three decades below the
    peak) up to the knee of the roof, labelled with the critical intensity."""
    ridge = hw.critical_intensity
    bottom = max(bottom, hw.peak / 1e3)
    ax.plot([ridge, ridge], [bottom, hw.peak], color=color, linestyle=":", linewidth=1,
            label="_ridge", gid="ridge")
    # A message (rooflinekit.words) from the template in tr's language, so that a figure drawn again in
    # another language (rooflinekit.figure_languages) translates it too.
    text = (Message(tr("ridge {ridge} FLOPs/B at {share}"), {"ridge": num(ridge), "share": share}) if share
            else Message(tr("ridge {ridge} FLOPs/B"), {"ridge": num(ridge)}))
    ax.annotate(
        text, (ridge, bottom), xytext=(-3, 2),
        textcoords="offset points", rotation=90, ha="right", va="bottom", fontsize=8, color=color,
    )


def critical_intensity_lines(
    ax: Axes,
    chips: Sequence[str | Chip],
    *,
    vertical: bool = True,
    compute: str | DType = "bf16",
) -> list[Line2D]:
    """A line at each chip's critical intensity (vertical, or horizontal with ``vertical=False``),
    each in a colour and a dash pattern of its own and labelled with the chip and the value.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> _, ax = plt.subplots()
    >>> [line.get_label() for line in critical_intensity_lines(ax, ["tpu-v5e", "h100-sxm"])]
    ['TPU v5e: 240', 'NVIDIA H100 SXM: 295']
    >>> plt.close("all")
    """
    lines = []
    for i, spec in enumerate(chips):
        found = chip(spec, "chips")
        value = found.critical_intensity(compute)
        style = {"color": ROOF_COLORS[i % len(ROOF_COLORS)], "linestyle": LINE_STYLES[i % len(LINE_STYLES)],
                 "linewidth": 1.5, "label": f"{found.name}: {num(value)}", "gid": "critical-intensity"}
        lines.append(ax.axvline(value, **style) if vertical else ax.axhline(value, **style))
    return lines


def label_lines_at_edge(ax: Axes, lines: Sequence[Line2D], *, gap: float = 0.08,
                        fontsize: float = 8) -> list[Any]:
    """Name horizontal ``lines`` (such as :func:`critical_intensity_lines` with ``vertical=False``)
    beside the right edge of ``ax``, in their colours, each joined to its line by a short leader.

    Lines that nearly coincide (the catalog's chips between 164 and 295 FLOPs per byte) cannot be
    told apart by a legend; their names are spread out in height, ``gap`` (a share of the axes'
    height) apart at least, and kept in the lines' order. Call it once the axes' limits are set.
    Returns the annotations, from the lowest line to the highest.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> _, ax = plt.subplots()
    >>> lines = critical_intensity_lines(ax, ["h100-sxm", "b200"], vertical=False)
    >>> _ = ax.set(yscale="log", ylim=(1, 1000))
    >>> names = label_lines_at_edge(ax, lines)
    >>> [n.get_text() for n in names], round(names[1].xyann[1] - names[0].xyann[1], 2)
    (['NVIDIA B200: 281', 'NVIDIA H100 SXM: 295'], 0.08)
    >>> plt.close("all")
    """
    if not 0 < gap < 1 / max(1, len(lines)):
        raise RooflineInputError("gap", f"a share of the axes' height below 1/{max(1, len(lines))}", gap)
    to_axes = ax.transAxes.inverted()
    heights = []
    for line in lines:
        y = float(np.asarray(line.get_ydata(), dtype=float)[0])
        heights.append(float(to_axes.transform(ax.transData.transform((ax.get_xlim()[0], y)))[1]))
    order = sorted(range(len(lines)), key=lambda i: heights[i])
    placed = [heights[i] for i in order]
    for k in range(1, len(placed)):  # upwards: at least `gap` above the one below
        placed[k] = max(placed[k], placed[k - 1] + gap)
    top = 1.0
    for k in reversed(range(len(placed))):  # then down from the top, if that overflowed
        placed[k] = min(placed[k], top)
        top = placed[k] - gap
    annotations = []
    for k, i in enumerate(order):
        color = lines[i].get_color()
        annotations.append(ax.annotate(
            str(lines[i].get_label()), xy=(1.0, heights[i]), xycoords="axes fraction",
            xytext=(1.04, placed[k]), textcoords="axes fraction", ha="left", va="center",
            fontsize=fontsize, color=color, annotation_clip=False,
            arrowprops={"arrowstyle": "-", "color": color, "linewidth": 0.8, "shrinkA": 0, "shrinkB": 0},
        ))
    return annotations


def roof_lines(ax: Axes) -> list[Line2D]:
    """The roofs :func:`roofline_axes` drew on ``ax``, in drawing order."""
    return [line for line in ax.get_lines() if line.get_gid() == "roof"]


def mark_operations(
    ax: Axes,
    operations: Sequence[tuple[str, Cost]],
    on: RoofSpec,
    *,
    compute: str | DType = "bf16",
    annotate: bool = True,
) -> list[Roofline]:
    """Place each ``(label, cost)`` at its intensity and attainable FLOP/s on ``on``'s roof.

    A point is coloured by what limits it (:data:`BOUND_COLORS`) and, with ``annotate``,
    labelled. Returns the analyses, in order, so a caller can tabulate what it plotted.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import rooflinekit as rk
    >>> ax = roofline_axes("tpu-v5e")
    >>> marks = mark_operations(ax, [("B=16", rk.matmul_cost(16, 8192, 8192)),
    ...                              ("B=1024", rk.matmul_cost(1024, 8192, 8192))], "tpu-v5e")
    >>> [m.bound for m in marks]
    ['memory', 'compute']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    hw, _ = _resolve(on, compute)
    results = []
    compute_bound_seen = 0
    for item in operations:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Cost)):
            raise RooflineInputError("operations", "a list of (label, Cost) pairs", item)
        label, cost = item
        if np.ndim(cost.flops) != 0 or np.ndim(cost.bytes) != 0:
            raise RooflineInputError("operations", "costs of one size each (not arrays of sizes)", label)
        r = analyze(cost, peak=hw.peak, bandwidth=hw.bandwidth)
        color = BOUND_COLORS[str(r.bound)]
        ax.plot([r.intensity], [r.attainable], marker="o", markersize=7, linestyle="none", color=color,
                label=str(label), gid="operation")
        if annotate:
            # Labels go under the roof: right of points on the slope, below points on the flat
            # part, staggered so that neighbours on the flat part do not collide.
            if r.bound == "compute":
                offset, ha = (0, -8 - 11 * (compute_bound_seen % 3)), "center"
                compute_bound_seen += 1
            else:
                offset, ha = (8, -2), "left"
            ax.annotate(str(label), (r.intensity, r.attainable), xytext=offset, textcoords="offset points",
                        ha=ha, va="top", fontsize=8, color=color)
        results.append(r)
    return results


def operation_points(ax: Axes) -> list[Line2D]:
    """The points :func:`mark_operations` placed on ``ax``, in order."""
    return [line for line in ax.get_lines() if line.get_gid() == "operation"]


def attainable_curve(
    batches: Any,
    cost: Cost,
    on: RoofSpec,
    ax: Axes | None = None,
    *,
    label: str,
    compute: str | DType = "bf16",
    mark_peak: bool = True,
    **line_style: Any,
) -> Line2D:
    """Plot attainable FLOP/s against the token batch for a ``cost`` computed over ``batches``.

    ``cost`` must have one value per batch, e.g. ``matmul_cost(batches, 4096, 4096)``. With
    ``mark_peak`` a dashed line shows the chip's peak (once per axes and peak).

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, rooflinekit as rk
    >>> B = np.arange(1, 512)
    >>> cost = rk.matmul_cost(B, 4096, 4096, w="int8")
    >>> line = attainable_curve(B, cost, "tpu-v5e", label="D=F=4096")
    >>> v5e = rk.chip("tpu-v5e")
    >>> roof = rk.attainable_flops(cost.intensity, v5e.peak("bf16"), v5e.hbm_bandwidth)
    >>> bool(np.allclose(line.get_ydata(), roof))
    True
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    x = np.asarray(batches, dtype=float)
    if x.ndim != 1 or x.size < 2:
        raise RooflineInputError("batches", "a one-dimensional array of at least two batch sizes", batches)
    if not isinstance(cost, Cost) or np.shape(cost.flops) != x.shape:
        raise RooflineInputError("cost", f"a Cost computed over the {x.size} batches", cost)
    hw, _ = _resolve(on, compute)
    r = analyze(cost, peak=hw.peak, bandwidth=hw.bandwidth)
    new_axes = ax is None
    ax = ax if ax is not None else _new_axes()
    (line,) = ax.plot(x, r.attainable, label=label, gid="batch-curve", **line_style)
    if mark_peak and not any(
        other.get_gid() == "peak" and float(np.asarray(other.get_ydata())[0]) == hw.peak
        for other in ax.get_lines()
    ):
        unit = "OP/s" if _is_int(compute) else "FLOP/s"
        ax.axhline(hw.peak, color="0.4", linestyle="--", linewidth=1, gid="peak",
                   label=message("peak {peak}", peak=si(hw.peak, unit)))
    if new_axes:
        ax.set_xlabel(BATCH_LABEL)
        ax.set_ylabel(ATTAINABLE_LABEL if not _is_int(compute) else ATTAINABLE_OPS_LABEL)
        ax.grid(True, alpha=0.3)
    return line


LEVEL_MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P")
"""Markers of successive operations on a hierarchical roofline, so that points differ by more than colour."""


def hierarchical_roofline(
    on: str | Chip,
    operations: Sequence[tuple[str, Hierarchical]] = (),
    ax: Axes | None = None,
    *,
    compute: str | DType = "bf16",
    show_ceilings: bool = True,
    intensity_range: tuple[float, float] | None = None,
    measured: Sequence[MeasuredPoint] = (),
) -> Axes:
    """One roof per memory level of ``on`` (HBM first, then its on-chip memories), the ceilings
    below the roof (:func:`rooflinekit.hierarchy.ceilings`, dashed and labelled) and each
    operation's point at every level: its intensity there, under that level's roof. ``measured``
    kernels (``KernelOnLevel.point`` of :mod:`rooflinekit.measure`) are drawn hollow at the FLOP/s
    they achieved, in the colour of the level their working set lives in (gid ``"measured-point"``).

    A level whose bandwidth no source gives gets no roof and no points: a note on the axes says
    so (gid ``"missing-level"``), in the words of :meth:`rooflinekit.hierarchy.Level.missing`.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from rooflinekit.hierarchy import tiled_matmul_levels
    >>> op = tiled_matmul_levels(4096, 4096, 4096, [(256, 256, 256), (128, 128, 128)], "h100-sxm")
    >>> ax = hierarchical_roofline("h100-sxm", [("matmul", op)])
    >>> [line.get_label() for line in ax.get_lines() if line.get_gid() == "level-roof"]
    ['HBM', 'shared memory (L1)']
    >>> [t.get_text()[:30] for t in ax.texts if t.get_gid() == "missing-level"]
    ['h100-sxm: L2 cache has no band']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    found = chip(on)
    peak = found.peak(compute)
    chain = levels(found)
    roofed = [lv for lv in chain if lv.bandwidth is not None]
    ridges = [peak / float(lv.bandwidth) for lv in roofed if lv.bandwidth is not None]
    low, high = intensity_range or (min(ridges) / 1e2, max(ridges) * 1e2)
    ax = ax or _new_axes()
    grid = np.geomspace(low, high, 256)
    colors = {lv.id: ROOF_COLORS[i % len(ROOF_COLORS)] for i, lv in enumerate(chain)}
    for lv in roofed:
        x = np.union1d(grid, [peak / float(lv.bandwidth or 1)])
        ax.plot(x, attainable_flops(x, peak, float(lv.bandwidth or 1)), color=colors[lv.id], linewidth=2,
                label=lv.name, gid="level-roof")
    if show_ceilings:
        _draw_ceilings(ax, found, compute, grid)
    missing = [lv.missing(found.id) for lv in chain if lv.bandwidth is None]
    if missing:
        ax.text(0.01, 0.01, "\n".join(m for m in missing if m), transform=ax.transAxes, ha="left",
                va="bottom", fontsize=7, color="0.3", gid="missing-level", wrap=True)
        ax.set_ylim(bottom=low * min(float(lv.bandwidth or 1) for lv in roofed) / 10)
    _level_points(ax, operations, colors, peak)
    _measured_points(ax, measured, {lv.id: lv.name for lv in chain}, colors)
    ax.set(xscale="log", yscale="log")
    ax.set_xlabel(INTENSITY_LABEL)
    ax.set_ylabel(ATTAINABLE_LABEL if not _is_int(compute) else ATTAINABLE_OPS_LABEL)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return ax


def _draw_ceilings(ax: Axes, found: Chip, compute: str | DType, grid: np.ndarray) -> None:
    """The compute ceilings below the roof, dashed, each labelled under its left end; memory
    ceilings as a dashed slope."""
    for i, c in enumerate(ceilings(found, compute=compute)[1:]):
        style = {"color": "0.35", "linestyle": LINE_STYLES[(i + 1) % len(LINE_STYLES)], "linewidth": 1,
                 "gid": "ceiling"}
        if c.kind == "compute":
            # labelled under its right end, where the roofs are flat above it: at its left end the
            # label would cross the steep roofs of the fast levels
            ax.plot(grid, np.full_like(grid, c.value), label=f"_{c.label}", **style)
            ax.annotate(c.label, (float(grid[-1]), c.value), xytext=(-3, -2), textcoords="offset points",
                        ha="right", va="top", fontsize=7, color="0.35", gid="ceiling-label")
        else:
            ax.plot(grid, np.minimum(found.peak(compute), grid * c.value), label=c.label, **style)


def _level_points(ax: Axes, operations: Sequence[tuple[str, Hierarchical]], colors: dict[str, str],
                  peak: float) -> None:
    """Each operation's point at each roofed level, in the level's colour, one marker an operation."""
    for i, item in enumerate(operations):
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Hierarchical)):
            raise RooflineInputError("operations", "a list of (label, Hierarchical) pairs", item)
        label, op = item
        if np.ndim(op.flops) != 0:
            raise RooflineInputError("operations", "operations of one size each (not arrays of sizes)", label)
        marker = LEVEL_MARKERS[i % len(LEVEL_MARKERS)]
        # Operations of nearly the same intensity land on one another (a matmul and attention both
        # near 60 FLOP/B): each later one is smaller and edged in white, so it shows on the earlier.
        size = max(4.0, 9.0 - 1.5 * i)
        for t in op.traffic:
            if t.level.bandwidth is None:
                continue
            ax.plot([t.intensity], [t.attainable(peak)], marker=marker, markersize=size, linestyle="none",
                    markeredgecolor="white", markeredgewidth=0.8, color=colors.get(t.level.id, "0"),
                    label=message("{operation} ({level})", operation=label, level=t.level.name),
                    gid="level-point", zorder=3)


def _measured_points(ax: Axes, points: Sequence[MeasuredPoint], names: dict[str, str], colors: dict[str, str],
                     ) -> None:
    """Each measured kernel at the FLOP/s it achieved, hollow, in its level's colour."""
    for i, point in enumerate(points):
        if not isinstance(point, MeasuredPoint) or point.level_id not in names:
            accepted = "MeasuredPoint(label, level_id, intensity, flops_per_second) of the chip's levels: "
            raise RooflineInputError("measured", accepted + ", ".join(names), point)
        ax.plot([point.intensity], [point.flops_per_second], marker=LEVEL_MARKERS[i % len(LEVEL_MARKERS)],
                markersize=7, linestyle="none", markerfacecolor="none", color=colors[point.level_id],
                label=message("{operation} ({level})", operation=point.label, level=names[point.level_id]),
                gid="measured-point")
