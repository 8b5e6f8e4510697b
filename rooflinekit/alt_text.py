"""What a figure shows, in words, for a reader who cannot see it: its alt text, read from the figure.

:func:`describe` reads a matplotlib figure as it was drawn, whatever code drew it (the plots of
:mod:`rooflinekit.plot` and a chapter's own): each chart's title, its axes (label, scale and
range, or the categories along them), the names of its lines and shaded areas, its points with
their coordinates, its bars with their values, and the notes written on it. The text cannot drift
from the picture, since both come from the same figure. It is a list of sentences, each a
:func:`rooflinekit.words.message`, so that the book's Korean edition composes them in Korean; the
names and notes stay as the figure writes them, as a sighted reader sees them.

In a notebook, every figure carries its alt text: importing rooflinekit in IPython (a chapter's
first cell) has IPython's display put the text (``alt``) and its sentences (:data:`ALT_KEY`) in the
metadata of the figure's image output, beside the image (:func:`figure_metadata`, contributed to
:mod:`rooflinekit.figure_display`). The book (``roofline_book.figures``) writes them into the
page's ``<img alt>``, composed in the page's language by :func:`alt_in`.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots()
>>> _ = ax.plot([1, 10, 100], [1, 10, 10], label="roof")
>>> _ = ax.plot([40], [9], "o", label="matmul")
>>> _ = ax.set(xscale="log", xlim=(1, 100), ylim=(0, 12), xlabel="intensity", ylabel="FLOP/s", title="A roof")
>>> _ = ax.annotate("ridge", (10, 10))
>>> for sentence in describe(fig):
...     print(sentence)
A chart: A roof.
Horizontal axis: intensity, logarithmic scale, from 1 to 100.
Vertical axis: FLOP/s, linear scale, from 1 to 10.
Lines: roof.
Points: matmul at (40, 9).
Written on the chart: ridge.
>>> plt.close(fig)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rooflinekit.figure_display import contribute
from rooflinekit.fmt import num
from rooflinekit.words import Message, Translate, english, message

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.container import BarContainer
    from matplotlib.figure import Figure

ALT_KEY = "rooflinekit_alt"
"""The key, in an image output's metadata, of its alt text's sentences (``Message.to_data``)."""

SCALES = {
    "log": message("logarithmic scale"),
    "linear": message("linear scale"),
}


def describe(figure: Figure) -> list[Message]:
    """The sentences that say what ``figure`` shows (see the module's docstring)."""
    figure.draw_without_rendering()  # the tick labels, as they will be drawn
    charts = [ax for ax in figure.get_axes() if ax.get_visible() and ax.get_label() != "<colorbar>"]
    title = _clean(figure.get_suptitle())
    if len(charts) == 1:
        title = title or _title(charts[0])
        opening = message("A chart: {title}.", title=title) if title else message("A chart.")
        return [opening, *_chart(charts[0])]
    sentences = [message("{count} charts: {title}.", count=len(charts), title=title) if title
                 else message("{count} charts.", count=len(charts))]
    for number, ax in enumerate(charts, 1):
        name = _title(ax)
        sentences.append(message("Chart {number}: {title}.", number=number, title=name) if name
                         else message("Chart {number}.", number=number))
        sentences += _chart(ax)
    return sentences


def alt_text(figure: Figure) -> str:
    """:func:`describe`'s sentences, in English, one after another."""
    return " ".join(describe(figure))


def alt_in(sentences: Sequence[Mapping[str, Any]], translate: Translate = english) -> str:
    """The alt text whose sentences an image output's metadata holds (:data:`ALT_KEY`), in the
    language of ``translate``.

    >>> korean = {"Chart {number}.": "차트 {number}."}
    >>> alt_in([message("Chart {number}.", number=2).to_data()], lambda template: korean[template])
    '차트 2.'
    """
    return " ".join(Message.from_data(data).translated(translate) for data in sentences)


def _chart(ax: Axes) -> list[Message]:
    lines, points = _lines(ax)
    areas = [_clean(c.get_label()) for c in ax.collections if _named(c) and not _is_points(c)]
    named = set(lines) | set(areas) | {str(p.values["name"]) for p in points}
    notes = [text for text in _notes(ax) if text not in named]
    sentences = [s for s in (_axis(ax, "x"), _axis(ax, "y")) if s is not None]
    if lines:
        sentences.append(message("Lines: {names}.", names=lines))
    if areas:
        sentences.append(message("Shaded: {names}.", names=areas))
    if points:
        sentences.append(message("Points: {points}.", points=list(points)))
    sentences += [_bars(ax, bars) for bars in _bar_containers(ax)]
    if notes:
        sentences.append(message("Written on the chart: {notes}.", notes=notes))
    return sentences


def _axis(ax: Axes, which: str) -> Message | None:
    axis: Axis = ax.xaxis if which == "x" else ax.yaxis
    if not axis.get_visible():
        return None
    label = _axis_label(ax, which) or message("no label")
    categories = [name for _, name in _categories(axis)]
    if categories and which == "x":
        return message("Horizontal axis: {label}, one place for each of: {categories}.", label=label,
                       categories=categories)
    if categories:
        return message("Vertical axis: {label}, one place for each of: {categories}.", label=label,
                       categories=categories)
    low, high = _extent(ax, which)
    scale = SCALES.get(axis.get_scale()) or message("{name} scale", name=axis.get_scale())
    values = {"label": label, "scale": scale, "low": num(low), "high": num(high)}
    if which == "x":
        return message("Horizontal axis: {label}, {scale}, from {low} to {high}.", **values)
    return message("Vertical axis: {label}, {scale}, from {low} to {high}.", **values)


def _extent(ax: Axes, which: str) -> tuple[float, float]:
    """What the chart shows along an axis: its data within the view (the view's margins left out)."""
    view = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    data = sorted(ax.dataLim.intervalx if which == "x" else ax.dataLim.intervaly)
    low, high = max(view[0], data[0]), min(view[1], data[1])
    return (float(low), float(high)) if low < high else (float(view[0]), float(view[1]))


def _axis_label(ax: Axes, which: str) -> str:
    """The axis's label, or the label of an axis it shares (``sharey``: only the first is labelled)."""
    shared = ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()
    for other in [ax, *shared.get_siblings(ax)]:
        label = _clean((other.xaxis if which == "x" else other.yaxis).get_label_text())
        if label:
            return label
    return ""


def _categories(axis: Axis) -> list[tuple[float, str]]:
    """The places and names along an axis of categories (ticks placed one by one, with words for
    names), else none."""
    from matplotlib.category import StrCategoryLocator
    from matplotlib.ticker import FixedLocator

    if not isinstance(axis.get_major_locator(), (FixedLocator, StrCategoryLocator)):
        return []
    along = 0 if getattr(axis, "axis_name", "x") == "x" else 1
    ticks = [(float(t.get_position()[along]), _clean(t.get_text())) for t in axis.get_majorticklabels()]
    words = [name for _, name in ticks if any(c.isalpha() for c in name.replace("mathdefault", ""))]
    return [(place, name) for place, name in ticks if name] if words else []


def _lines(ax: Axes) -> tuple[list[str], list[Message]]:
    """The names of the chart's lines, and its points (markers alone) with their coordinates."""
    lines: list[str] = []
    points: list[Message] = []
    places = _categories(ax.xaxis)
    for line in ax.get_lines():
        if not _named(line):
            continue
        name = _clean(line.get_label())
        xs, ys = line.get_xdata(), line.get_ydata()
        if _markers_alone(line):
            points.append(_points(name, xs, ys, places))
        else:
            lines.append(name)
    for collection in ax.collections:
        if _named(collection) and _is_points(collection):
            offsets = np.asarray(collection.get_offsets())
            points.append(_points(_clean(collection.get_label()), offsets[:, 0], offsets[:, 1], places))
    return lines, points


def _markers_alone(line: Any) -> bool:
    """A line drawn as markers with nothing between them: points."""
    no_line = str(line.get_linestyle()).lower() in ("none", "", " ")
    return no_line and line.get_marker() not in (None, "", "None")


def _points(name: str, xs: Any, ys: Any, places: list[tuple[float, str]]) -> Message:
    """A series of points: each one's coordinates, or its category and value along an axis of
    categories; a long series by its count."""
    if places:
        values = [message("{category} {value}", category=_nearest(places, float(x)), value=num(float(y)))
                  for x, y in zip(xs, ys, strict=True)]
        return message("{name}: {values}", name=name, values=values)
    if len(xs) == 1:
        return message("{name} at ({x}, {y})", name=name, x=num(float(xs[0])), y=num(float(ys[0])))
    return message("{name}, {count} points", name=name, count=len(xs))


def _nearest(places: list[tuple[float, str]], where: float) -> str:
    return min(places, key=lambda place: abs(place[0] - where))[1]


def _is_points(collection: Any) -> bool:
    from matplotlib.collections import PathCollection

    return isinstance(collection, PathCollection)


def _bar_containers(ax: Axes) -> list[BarContainer]:
    from matplotlib.container import BarContainer

    return [c for c in ax.containers if isinstance(c, BarContainer) and len(c.patches) > 0]


def _bars(ax: Axes, bars: BarContainer) -> Message:
    """Each bar's category (the tick nearest its middle) and value (its far end)."""
    horizontal = bars.orientation == "horizontal"
    places = _categories(ax.yaxis if horizontal else ax.xaxis)
    values = []
    for bar in bars.patches:
        middle = bar.get_y() + bar.get_height() / 2 if horizontal else bar.get_x() + bar.get_width() / 2
        end = bar.get_x() + bar.get_width() if horizontal else bar.get_y() + bar.get_height()
        values.append(message("{category} {value}", category=_nearest(places, middle), value=num(end))
                      if places else num(end))
    if _named(bars):
        return message("Bars of {name}: {values}.", name=_clean(bars.get_label()), values=values)
    return message("Bars: {values}.", values=values)


def _notes(ax: Axes) -> list[str]:
    found = [_clean(text.get_text()) for text in ax.texts if text.get_visible()]
    return [text for text in found if text]


def _title(ax: Axes) -> str:
    return " ".join(t for t in (_clean(ax.get_title(loc)) for loc in ("left", "center", "right")) if t)


def _named(artist: Any) -> bool:
    """Whether an artist (a line, a collection, a bar container) is shown with a name of its own."""
    label = artist.get_label()
    visible = artist.get_visible() if hasattr(artist, "get_visible") else True
    return bool(label) and not str(label).startswith("_") and visible


def _clean(text: object) -> str:
    """A label as one line of words (matplotlib's line breaks and mathtext dollars left out)."""
    return " ".join(str(text or "").replace("$", "").split())


def figure_metadata(figure: Figure) -> dict[str, Any]:
    """What a figure's image output carries of its alt text: the text (``alt``) and its sentences
    (:data:`ALT_KEY`)."""
    sentences = describe(figure)
    return {"alt": " ".join(sentences), ALT_KEY: [s.to_data() for s in sentences]}


def describe_figures_in_notebooks() -> bool:
    """Have every matplotlib figure IPython displays carry its alt text (:func:`figure_metadata`,
    through :mod:`rooflinekit.figure_display`); False, doing nothing, outside IPython. IPython is
    never imported here, nor matplotlib."""
    return contribute("alt_text", figure_metadata)
