"""Roofline plots show rooflinekit's numbers: the data read back from the axes must match."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Iterator

import matplotlib
import numpy as np
import pytest

import rooflinekit as rk
from roofline_grading.exercises.ex3_roofline_plot.answers import attainable as ex3_attainable
from roofline_grading.exercises.ex3_roofline_plot.answers import crossover as ex3_crossover
from rooflinekit import plot
from rooflinekit.exercises import EX2_CHIP, EX3_BATCHES, EX3_SIZES

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.text import Text


@pytest.fixture(autouse=True)
def close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def test_importing_the_package_or_the_plot_module_loads_no_matplotlib() -> None:
    probe = (
        "import sys, rooflinekit, rooflinekit.plot, rooflinekit.fmt; rooflinekit.plot.roofline_axes;"
        "print('matplotlib' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("chip_id", list(rk.CHIPS))
def test_roof_is_the_libraries_attainable_flops(chip_id: str) -> None:
    found = rk.chip(chip_id)
    ax = plot.roofline_axes(chip_id)
    (roof,) = plot.roof_lines(ax)
    x, y = np.asarray(roof.get_xdata()), np.asarray(roof.get_ydata())
    np.testing.assert_array_equal(y, rk.attainable_flops(x, found.peak("bf16"), found.hbm_bandwidth))
    assert found.critical_intensity("bf16") in x  # the knee is drawn exactly
    assert y.max() == found.peak("bf16")
    assert roof.get_label() == f"{found.name} (bf16)"
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert "intensity" in ax.get_xlabel().lower()
    assert "FLOP/s" in ax.get_ylabel()
    legend = ax.get_legend()
    assert legend is not None and [t.get_text() for t in legend.get_texts()] == [roof.get_label()]


def test_ridge_line_stands_at_the_critical_intensity() -> None:
    ax = plot.roofline_axes("tpu-v5e")
    ridges = [line for line in ax.get_lines() if line.get_gid() == "ridge"]
    assert len(ridges) == 1
    critical = rk.chip("tpu-v5e").critical_intensity("bf16")
    assert list(ridges[0].get_xdata()) == [critical, critical]
    assert any(rk.fmt.num(critical) in text.get_text() for text in ax.texts)


def test_several_roofs_with_own_labels_and_figures() -> None:
    slow = rk.hardware(peak=1e14, bandwidth=1e11)
    ax = plot.roofline_axes(["h100-sxm", "h200-sxm", slow], labels=["H100", "H200", "slow"], compute="bf16")
    roofs = plot.roof_lines(ax)
    assert [r.get_label() for r in roofs] == ["H100", "H200", "slow"]
    for line, hw in zip(
        roofs, [rk.hardware("h100-sxm"), rk.hardware("h200-sxm"), slow], strict=True
    ):
        x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        np.testing.assert_array_equal(y, np.minimum(hw.peak, x * hw.bandwidth))
    assert len({r.get_color() for r in roofs}) == 3


def test_int8_roof_uses_the_int8_peak_and_says_ops() -> None:
    ax = plot.roofline_axes("tpu-v5e", compute="int8")
    (roof,) = plot.roof_lines(ax)
    assert max(roof.get_ydata()) == rk.chip("tpu-v5e").peak("int8")
    assert "OP/s" in ax.get_ylabel()


def test_marked_operations_sit_on_the_roof_coloured_by_bound() -> None:
    v5e = rk.chip("tpu-v5e")
    operations = [
        ("dot", rk.dot_cost(10**6)),
        ("layer norm", rk.layer_norm_cost(4096, 8192)),
        ("matmul B=64", rk.matmul_cost(64, 8192, 8192)),
        ("matmul B=4096", rk.matmul_cost(4096, 8192, 8192)),
    ]
    ax = plot.roofline_axes(v5e)
    results = plot.mark_operations(ax, operations, v5e)
    points = plot.operation_points(ax)
    assert [p.get_label() for p in points] == [label for label, _ in operations]
    for (label, cost), point, result in zip(operations, points, results, strict=True):
        expected = rk.analyze(cost, v5e)
        assert list(point.get_xdata()) == [expected.intensity]
        assert list(point.get_ydata()) == [expected.attainable]
        assert result.bound == expected.bound
        assert point.get_color() == plot.BOUND_COLORS[expected.bound]
        assert label in [t.get_text() for t in ax.texts]
    assert [r.bound for r in results] == ["memory", "memory", "memory", "compute"]


def test_operations_on_a_custom_roof_use_its_figures() -> None:
    hw = rk.hardware(peak=1e13, bandwidth=1e12)
    ax = plot.roofline_axes(hw)
    (result,) = plot.mark_operations(ax, [("matmul", rk.matmul_cost(64, 1024, 1024))], hw)
    assert result.hardware == hw
    assert result.bound == "compute"  # intensity ~ 60 > 10


def test_attainable_curves_match_exercise_three() -> None:
    ax = None
    lines = []
    for D in EX3_SIZES:
        cost = rk.matmul_cost(EX3_BATCHES, D, D, w="int8")
        line = plot.attainable_curve(EX3_BATCHES, cost, EX2_CHIP, ax, label=f"D = F = {D}")
        ax = line.axes
        lines.append(line)
        np.testing.assert_array_equal(line.get_xdata(), EX3_BATCHES)
        np.testing.assert_allclose(line.get_ydata(), ex3_attainable(EX3_BATCHES, D), rtol=1e-15)
        reaches_peak = np.asarray(line.get_xdata())[np.asarray(line.get_ydata()) >= EX2_CHIP.peak("bf16")]
        assert reaches_peak.min() == np.ceil(ex3_crossover(D))
    assert ax is not None
    peaks = [line for line in ax.get_lines() if line.get_gid() == "peak"]
    assert len(peaks) == 1 and peaks[0].get_ydata()[0] == EX2_CHIP.peak("bf16")
    assert ax.get_xlabel() == plot.BATCH_LABEL and ax.get_ylabel() == plot.ATTAINABLE_LABEL


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: plot.roofline_axes("h100"), "roof"),
        (lambda: plot.roofline_axes([]), "roofs"),
        (lambda: plot.roofline_axes(["tpu-v5e"], labels=["a", "b"]), "labels"),
        (lambda: plot.roofline_axes("tpu-v5e", intensity_range=(10, 1)), "intensity_range"),
        (lambda: plot.roofline_axes(42), "roof"),  # type: ignore[arg-type]
        (
            lambda: plot.mark_operations(
                plot.roofline_axes("tpu-v5e"), [("many", rk.matmul_cost(np.arange(1, 4), 8, 8))], "tpu-v5e"
            ),
            "operations",
        ),
        (
            lambda: plot.mark_operations(plot.roofline_axes("tpu-v5e"), [rk.dot_cost(8)], "tpu-v5e"),  # type: ignore[list-item]
            "operations",
        ),
        (lambda: plot.attainable_curve([1, 2, 3], rk.matmul_cost(4, 8, 8), "tpu-v5e", label="x"), "cost"),
        (lambda: plot.attainable_curve([1], rk.matmul_cost(1, 8, 8), "tpu-v5e", label="x"), "batches"),
        (lambda: plot.roofline_axes("tpu-v5e", achieved=1.2), "achieved"),
        (lambda: plot.critical_intensity_lines(plt.subplots()[1], ["h100"]), "chips"),
    ],
)
def test_bad_input_names_the_argument(call: object, argument: str) -> None:
    with pytest.raises(rk.RooflineInputError) as error:
        call()  # type: ignore[operator]
    assert error.value.argument == argument


# --- what a reader sees: lines told apart by colour, pattern and label ---------------------------

VISIONS = {"normal vision": None} | {
    kind: {"name": "sRGB1+CVD", "cvd_type": kind, "severity": 100}
    for kind in ("deuteranomaly", "protanomaly", "tritanomaly")
}
"""Normal vision and the three colour-vision deficiencies at full severity (Machado et al., 2009,
as colorspacious simulates them)."""


def _rgb(color: str) -> np.ndarray:
    return np.asarray(matplotlib.colors.to_rgb(color))


def _contrast_on_white(color: str) -> float:
    """WCAG 2 contrast ratio of a colour against a white page."""
    linear = np.where(_rgb(color) <= 0.03928, _rgb(color) / 12.92, ((_rgb(color) + 0.055) / 1.055) ** 2.4)
    luminance = float(linear @ [0.2126, 0.7152, 0.0722])
    return 1.05 / (luminance + 0.05)


@pytest.mark.parametrize("palette", ["ROOF_COLORS", "BOUND_COLORS"])
def test_every_line_colour_is_readable_on_a_white_page(palette: str) -> None:
    colors = getattr(plot, palette)
    colors = list(colors.values()) if isinstance(colors, dict) else list(colors)
    # 3:1 is WCAG's minimum for graphics; the pale yellow this replaced had 1.3:1.
    weak = {c: round(_contrast_on_white(c), 2) for c in colors if _contrast_on_white(c) < 3}
    assert not weak


@pytest.mark.parametrize("vision", list(VISIONS))
@pytest.mark.parametrize("palette", ["ROOF_COLORS", "BOUND_COLORS"])
def test_colours_of_one_plot_stay_apart_with_colour_blindness(palette: str, vision: str) -> None:
    from colorspacious import cspace_convert, deltaE

    colors = getattr(plot, palette)
    colors = list(colors.values()) if isinstance(colors, dict) else list(colors)
    view = VISIONS[vision]
    seen = {c: _rgb(c) if view is None else np.clip(cspace_convert(_rgb(c), view, "sRGB1"), 0, 1)
            for c in colors}
    # CAM02-UCS distance: about 1 is a just-noticeable difference between large patches; thin
    # lines need far more. The palettes keep their colours more than 10 apart in every vision.
    close = [(a, b, round(float(deltaE(seen[a], seen[b], input_space="sRGB1")), 1))
             for i, a in enumerate(colors) for b in colors[i + 1:]
             if deltaE(seen[a], seen[b], input_space="sRGB1") <= 10]
    assert not close


def test_critical_intensity_lines_are_labelled_and_differ_beyond_colour() -> None:
    chips = list(rk.CHIPS.values())
    _, ax = plt.subplots()
    lines = plot.critical_intensity_lines(ax, chips)
    assert len(lines) == len(chips)
    for line, found in zip(lines, chips, strict=True):
        value = found.critical_intensity("bf16")
        assert list(line.get_xdata()) == [value, value]
        assert line.get_label() == f"{found.name}: {rk.fmt.num(value)}"
    assert len({(line.get_color(), str(line.get_linestyle())) for line in lines}) == len(chips)
    assert len({line.get_color() for line in lines}) == len(chips)
    (horizontal,) = plot.critical_intensity_lines(ax, ["tpu-v5p"], vertical=False, compute="int8")
    assert list(horizontal.get_ydata()) == [rk.chip("tpu-v5p").critical_intensity("int8")] * 2


def test_lines_too_close_for_a_legend_are_named_apart_beside_the_axes() -> None:
    # Five of the catalog's six ridges lie between 164 and 295 FLOPs per byte: on a log axis from
    # 0.1 to 2000 their lines are a few pixels apart, and their names must not be.
    chips = list(rk.CHIPS.values())
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    lines = plot.critical_intensity_lines(ax, chips, vertical=False)
    ax.set(yscale="log", ylim=(0.1, 2000))
    names = plot.label_lines_at_edge(ax, lines, gap=0.08)
    heights = [name.xyann[1] for name in names]
    values = [float(line.get_ydata()[0]) for line in lines]
    assert [name.get_text() for name in names] == [lines[i].get_label() for i in np.argsort(values)]
    assert all(b - a >= 0.08 - 1e-9 for a, b in itertools.pairwise(heights))
    assert max(heights) <= 1 and all(name.xyann[0] > 1 for name in names)  # beside, not on, the plot
    assert [name.get_color() for name in names] == [lines[i].get_color() for i in np.argsort(values)]
    fig.canvas.draw()
    boxes = [Text.get_window_extent(name) for name in names]  # the words, not their leaders
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    with pytest.raises(rk.RooflineInputError, match="gap"):
        plot.label_lines_at_edge(ax, lines, gap=0.5)


def test_the_achieved_roof_is_the_share_of_the_peak() -> None:
    share = rk.achievable("h100-sxm").low
    ax = plot.roofline_axes("h100-sxm", achieved=share)
    (roof,) = plot.roof_lines(ax)
    (real,) = [line for line in ax.get_lines() if line.get_gid() == "achieved-roof"]
    x, y = np.asarray(real.get_xdata()), np.asarray(real.get_ydata())
    hw = rk.hardware("h100-sxm", achieved=share)
    np.testing.assert_array_equal(y, rk.attainable_flops(x, hw.peak, hw.bandwidth))
    assert max(y) == share * max(roof.get_ydata())
    assert hw.critical_intensity in x  # its knee, left of the advertised one
    assert hw.critical_intensity < rk.chip("h100-sxm").critical_intensity("bf16")
    assert real.get_linestyle() == "--" and real.get_color() == roof.get_color()
    assert real.get_label() == f"{roof.get_label()} at {rk.fmt.pct(share)} of peak"


@pytest.mark.parametrize("chip_id", list(rk.CHIPS))
def test_the_default_range_shows_the_slope_the_knee_and_the_roof(chip_id: str) -> None:
    (roof,) = plot.roof_lines(plot.roofline_axes(chip_id))
    x = np.asarray(roof.get_xdata())
    ridge = rk.chip(chip_id).critical_intensity("bf16")
    assert x[0] == pytest.approx(ridge / 1e3) and x[-1] == pytest.approx(ridge * 1e2)
