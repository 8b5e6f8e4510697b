"""A figure's alt text says what the figure shows, read from the figure as drawn, in English and Korean."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after the backend is chosen

import rooflinekit as rk
from rooflinekit import hierarchy as h
from rooflinekit.alt_text import ALT_KEY, alt_in, alt_text, describe
from rooflinekit.fmt import num
from rooflinekit.plot import hierarchical_roofline, mark_operations, roof_lines, roofline_axes
from rooflinekit.words import Translate, catalog_translations, translator_from

ROOT = Path(__file__).resolve().parents[2]
HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def _korean() -> Translate:
    return translator_from(catalog_translations(ROOT / "locale" / "ko" / "LC_MESSAGES" / "computed.po"))


def test_a_roofline_names_its_roof_and_puts_each_operation_where_rooflinekit_does() -> None:
    ax = roofline_axes("tpu-v5e")
    operations = [("dot product", rk.dot_cost(10**6)), ("B=1024", rk.matmul_cost(1024, 8192, 8192))]
    placed = mark_operations(ax, operations, "tpu-v5e")
    ax.set_title("TPU v5e")
    text = alt_text(ax.figure)
    assert text.startswith("A chart: TPU v5e.")
    assert f"Lines: {roof_lines(ax)[0].get_label()}." in text
    assert "Horizontal axis: Arithmetic intensity (FLOPs per byte), logarithmic scale" in text
    for (label, _), r in zip(operations, placed, strict=True):
        assert f"{label} at ({num(r.intensity)}, {num(r.attainable)})" in text
    assert "Written on the chart: ridge" in text  # the ridge's label; the points' labels are their names
    assert text.count("dot product") == 1


def test_a_hierarchical_roofline_names_each_levels_roof_its_points_and_its_notes() -> None:
    op = h.tiled_matmul_levels(4096, 4096, 4096, [(256, 256, 256), (128, 128, 128)], "h100-sxm")
    ax = hierarchical_roofline("h100-sxm", [("matmul", op)])
    text = alt_text(ax.figure)
    roofed = [lv.name for lv in h.levels("h100-sxm") if lv.roofed]
    assert f"Lines: {'; '.join(roofed)}." in text
    for t in op.traffic:
        if t.level.roofed:
            assert f"matmul ({t.level.name}) at ({num(t.intensity)}, {num(t.attainable(op.peak))})" in text
    for note in [c.label for c in h.ceilings("h100-sxm")[1:]] + list(op.unroofed):
        assert note in text


def test_bars_along_named_places_give_each_places_value() -> None:
    fig, ax = plt.subplots()
    ax.bar([0, 1], [240.0, 295.2], label="critical batch", tick_label=["TPU v5e", "H100"])
    ax.barh(["x"], [1.5], left=1.0)  # one more, unnamed, whose value is where it ends
    text = alt_text(fig)
    assert "Bars of critical batch: TPU v5e 240; H100 295." in text
    assert "Bars: x 2.5." in text


def test_a_figure_of_two_charts_describes_each_in_turn() -> None:
    fig, (left, right) = plt.subplots(1, 2, sharey=True)
    left.plot([1, 2], [3, 4], label="total")
    left.set(title="decode", ylabel="tokens per second")
    right.plot([1, 2], [1, 2], "s", label="step")
    sentences = describe(fig)
    assert sentences[0] == "2 charts."
    assert sentences.index("Chart 1: decode.") < sentences.index("Chart 2.")
    second = sentences[sentences.index("Chart 2.") + 1 :]
    assert any(s.startswith("Vertical axis: tokens per second,") for s in second)  # the shared label
    assert "Points: step, 2 points." in second


def test_in_korean_the_sentences_are_the_catalogs_and_the_names_the_figures() -> None:
    ax = roofline_axes("tpu-v5e")
    mark_operations(ax, [("B=1024", rk.matmul_cost(1024, 8192, 8192))], "tpu-v5e")
    ax.set_title("TPU v5e")
    sentences = [s.to_data() for s in describe(ax.figure)]
    korean = alt_in(sentences, _korean())
    assert korean.startswith("플롯: TPU v5e.")
    assert "가로축: Arithmetic intensity (FLOPs per byte), 로그 눈금" in korean  # the axis as drawn
    assert "B=1024, 위치 (" in korean
    english_words = ("A chart", "Horizontal axis", "logarithmic", "Points:", "Written on the chart")
    assert not [w for w in english_words if w in korean], korean
    assert alt_in(sentences) == alt_text(ax.figure)


def test_a_figure_outside_a_notebook_changes_nothing_and_ipython_is_not_loaded() -> None:
    import subprocess
    import sys

    code = ("import sys, rooflinekit.alt_text as a\n"
            "print(a.describe_figures_in_notebooks(), 'IPython' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


@pytest.mark.slow  # a kernel
def test_a_figure_shown_in_a_notebook_carries_its_alt_text_beside_its_image(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As the book's build runs a chapter: the figure carries its alt text and its drawing in Korean,
    both (each part adds to the figure's metadata through rooflinekit.figure_display)."""
    import nbformat

    from rooflinekit.figure_languages import METADATA_KEY, VARIABLE
    from tests.support.kernels import execute

    catalogs = Path(__file__).resolve().parents[2] / "locale" / "ko" / "LC_MESSAGES"
    monkeypatch.setenv(VARIABLE, f"ko={catalogs / 'computed.po'}")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(
        "import matplotlib.pyplot as plt\nimport rooflinekit\n"
        "fig, ax = plt.subplots()\nax.plot([1, 2], [3, 4], label='roof')\nax.set_title('a roof')\nplt.show()"
    )]
    execute(notebook)
    (image,) = [o for o in notebook.cells[0].outputs if "image/png" in o.get("data", {})]
    about = image["metadata"]["image/png"]
    assert about["alt"].startswith("A chart: a roof.") and "Lines: roof." in about["alt"]
    assert about[METADATA_KEY]["ko"]["png"] and "a roof" in about[METADATA_KEY]["ko"]["texts"]
    assert alt_in(about[ALT_KEY]) == about["alt"]
    assert HANGUL.search(alt_in(about[ALT_KEY], _korean()))
