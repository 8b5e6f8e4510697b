"""The roofline explorer: its model, the live ipywidgets face and the static HTML face."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import unescape
from typing import Any

import numpy as np
import pytest

import rooflinekit as rk
from rooflinekit.errors import RooflineInputError
from rooflinekit.explorer import (
    WIDGET_VIEW,
    Explorer,
    explorer,
    roofline_png,
    table_html,
    transformer_explorer,
)
from rooflinekit.explorer.labels import LANGUAGES, translator
from rooflinekit.explorer.model import (
    ACHIEVED_SHARES,
    B_VALUES,
    D_VALUES,
    OPERATIONS,
    SLIDER_STEP,
    chip_figures,
    evaluate,
    every_language_words,
    grid_data,
    grid_words,
    on_level,
    operation,
    plot_axes,
    slider_figure,
)
from rooflinekit.explorer.static import explorer_html
from rooflinekit.fmt import num, pct, seconds


def test_slider_positions() -> None:
    assert B_VALUES[0] == 1 and B_VALUES[-1] == 65536
    assert list(B_VALUES) == sorted(set(B_VALUES))
    assert {256, 4096} <= set(B_VALUES)
    assert tuple(2**k for k in range(8, 16)) == D_VALUES


def test_operations_are_the_cost_models() -> None:
    B, D = 512, 4096
    expected = {
        "matmul": rk.matmul_cost(B, D, D),
        "matmul-int8w": rk.matmul_cost(B, D, D, w="int8"),
        "batched-matmul": rk.batched_matmul_cost(B, D, D),
        "layer-norm": rk.layer_norm_cost(B, D),
        "dot": rk.dot_cost(D),
    }
    assert [op.key for op in OPERATIONS] == list(expected)
    for key, cost in expected.items():
        got = operation(key)(B, D)
        assert (got.flops, got.bytes) == (cost.flops, cost.bytes)


def test_grid_holds_every_cost_at_every_slider_position() -> None:
    data = grid_data()
    assert data["B"] == list(B_VALUES) and data["D"] == list(D_VALUES)
    for op in OPERATIONS:
        for i, D in enumerate(D_VALUES):
            for j, B in enumerate(B_VALUES):
                cost = op(B, D)
                assert data["flops"][op.key][i][j] == cost.flops
                assert data["bytes"][op.key][i][j] == cost.bytes
    assert [c["id"] for c in data["chips"]] == list(rk.CHIPS)
    for c in data["chips"]:
        assert (c["peak"], c["bandwidth"]) == chip_figures(c["id"])
    sizes = {o["key"]: o["matmul"] for o in data["operations"]}
    assert sizes["matmul-int8w"] == {"x": 2.0, "w": 1.0, "out": 2.0}
    assert sizes["dot"] is None


def test_evaluate_agrees_with_analyze_and_the_critical_batch() -> None:
    peak, bandwidth = chip_figures("tpu-v5e")
    for point in evaluate(peak, bandwidth, B=4096, D=8192):
        r = rk.analyze(operation(point.key)(4096, 8192), "tpu-v5e")
        assert point.intensity == r.intensity
        assert (point.t_math, point.t_comms, point.t_lower, point.t_upper) == (
            r.t_math, r.t_comms, r.t_lower, r.t_upper)
        assert point.attainable == r.attainable and point.bound == r.bound
    matmul = evaluate(peak, bandwidth, B=256, D=4096, keys=["matmul-int8w"])[0]
    assert matmul.critical_batch == rk.matmul_critical_batch(4096, 4096, "tpu-v5e", w="int8")
    assert matmul.critical_batch_approx == rk.matmul_critical_batch_approx("tpu-v5e", w="int8")
    assert evaluate(peak, bandwidth, B=256, D=4096, keys=["dot"])[0].critical_batch is None


def test_operations_that_never_become_compute_bound() -> None:
    for c in rk.CHIPS.values():
        peak, bandwidth = chip_figures(c)
        for key in ("batched-matmul", "layer-norm", "dot"):
            assert all(p.bound == "memory" for p in evaluate(peak, bandwidth, 65536, 32768, [key]))
        # a narrow matmul has no critical batch on any chip
        assert evaluate(peak, bandwidth, 1, 256, ["matmul"])[0].critical_batch == np.inf


def test_unknown_operation_is_named() -> None:
    with pytest.raises(RooflineInputError, match="operation must be one of matmul"):
        operation("conv")


def test_static_html_embeds_rooflinekits_numbers() -> None:
    html = explorer_html("h100-sxm", B=512, D=4096, operations=["matmul", "dot"], element_id="x1")
    match = re.search(r'<script type="application/json" class="rk-data">(.*?)</script>', html, re.S)
    assert match
    data = json.loads(match.group(1).replace("<\\/", "</"))
    assert data["initial"] == {"chip": "h100-sxm", "B": 512, "D": 4096, "operations": ["matmul", "dot"],
                               "achieved": 1.0, "language": None, "level": "hbm", "tile": 128}
    assert data["grid"] == json.loads(json.dumps(grid_data()))
    assert data["words"] == every_language_words() and set(data["words"]) == set(LANGUAGES)
    # nothing inside the fragment's scripts can close them early
    for body in re.findall(r"<script[^>]*>(.*?)</script>", html, re.S):
        assert "</" not in body
    assert 'id="x1"' in html and "<style>" in html


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [({"B": 300}, "B"), ({"D": 1000}, "D"), ({"chip": "h100"}, "chip"),
     ({"operations": ["conv"]}, "operation"), ({"achieved": 0.83}, "achieved"),
     ({"achieved": 80}, "achieved")],
)
def test_bad_settings_are_named(kwargs: dict[str, object], argument: str) -> None:
    with pytest.raises(RooflineInputError) as caught:
        explorer_html(**kwargs)  # type: ignore[arg-type]
    assert caught.value.argument == argument


def test_output_has_both_faces() -> None:
    e = explorer("tpu-v5p", B=1024, D=16384)
    bundle = e._repr_mimebundle_()
    assert {"text/plain", "text/html", WIDGET_VIEW} <= set(bundle)
    assert bundle[WIDGET_VIEW]["model_id"] == e.widget.model_id
    assert set(e._repr_mimebundle_(include=["text/html"])) == {"text/html"}
    assert WIDGET_VIEW not in e._repr_mimebundle_(exclude=[WIDGET_VIEW])


@pytest.mark.slow  # the live widget, each control moved (seconds)
def test_live_controls_recompute_with_rooflinekit() -> None:
    e = explorer("tpu-v5e", B=256, D=8192)
    widget = e.widget  # built on first use
    controls = e._controls
    image, table = widget.children[5], widget.children[6]
    image_before = image.value
    assert image_before[:4] == b"\x89PNG"

    controls["peak"].value = 1e15
    assert controls["chip"].value == "custom"
    (matmul, *_rest) = e.points()
    r = rk.analyze(rk.matmul_cost(256, 8192, 8192), peak=1e15, bandwidth=8.2e11)
    assert (matmul.t_math, matmul.bound) == (r.t_math, r.bound)
    assert image.value != image_before

    controls["chip"].value = "b200"
    assert e.state()[:2] == chip_figures("b200")
    controls["batch"].value = 4096
    controls["ops"]["dot"].value = False
    keys = [p.key for p in e.points()]
    assert "dot" not in keys and e.state()[2] == 4096
    assert "dot product" not in table.value


def _caption(e: Explorer) -> str:
    return str(e.widget.children[3].value)


@pytest.mark.slow  # the live widget, once per chip (seconds)
@pytest.mark.parametrize("name", list(rk.CHIPS))
def test_a_chosen_chip_keeps_its_own_figures_when_the_sliders_snap_to_their_steps(name: str) -> None:
    # The browser puts each log slider on its nearest step and sends that value back to the
    # kernel: 1.95e14 for the TPU v5e's 1.97e14. That is not a move: the chip stays chosen.
    e = explorer("tpu-v5e")
    controls = e._controls if e.widget else {}
    controls["chip"].value = name
    peak, bandwidth = chip_figures(name)
    for slider, figure in ((controls["peak"], peak), (controls["bandwidth"], bandwidth)):
        slider.value = 10 ** (round(np.log10(figure) / SLIDER_STEP) * SLIDER_STEP)  # the snapped echo
    assert controls["chip"].value == name and e.chip == name
    assert e.state()[:2] == (peak, bandwidth)
    (matmul, *_rest) = e.points()
    assert matmul.critical_batch_approx == rk.matmul_critical_batch_approx(name)
    assert f"{rk.chip(name).name} (catalog)" in _caption(e)
    assert f"peak {num(peak)} FLOP/s, HBM {num(bandwidth)} B/s" in _caption(e)


def test_a_chosen_chips_sliders_read_its_figures() -> None:
    """Each slider shows its value (ipywidgets' readout, three significant digits): where choosing
    a chip puts it, the step nearest the figure, it reads the chip's figure, as the caption does."""
    e = explorer("tpu-v5e")
    controls = e._controls if e.widget else {}
    for key in ("peak", "bandwidth"):
        assert controls[key].readout and controls[key].readout_format == ".3s"  # d3: 197T, 820G
    for name in rk.CHIPS:
        for figure in chip_figures(name):
            snapped = 10 ** (round(np.log10(figure) / SLIDER_STEP) * SLIDER_STEP)
            assert slider_figure(snapped) == slider_figure(figure), (name, figure, snapped)


@pytest.mark.slow  # the live widget, each slider moved (seconds)
def test_a_moved_slider_makes_custom_figures_and_the_chip_can_be_had_back() -> None:
    e = explorer("tpu-v5e", B=256, D=8192)
    controls = e._controls if e.widget else {}
    back = controls["back"]
    assert back.layout.visibility == "hidden"
    controls["bandwidth"].value = 10 ** 11.93  # well off the step nearest 8.2e11: a move
    assert controls["chip"].value == "custom" and e.chip == "custom"
    assert e.state()[:2] == (1.97e14, slider_figure(10 ** 11.93)) == (1.97e14, 8.51e11)
    assert "custom (sliders)" in _caption(e) and "8.51e11" in _caption(e)
    snapped = 10 ** (round(np.log10(8.2e11) / SLIDER_STEP) * SLIDER_STEP)
    controls["bandwidth"].value = snapped  # back where the chip put it: still custom
    assert e.chip == "custom" and e.state()[1] == 8.2e11
    assert back.layout.visibility == "visible" and back.description == "back to TPU v5e"
    back.click()
    assert controls["chip"].value == "tpu-v5e" and e.state()[:2] == chip_figures("tpu-v5e")
    assert back.layout.visibility == "hidden"
    (matmul, *_rest) = e.points()
    critical = rk.chip("tpu-v5e").critical_intensity("bf16")
    assert round(matmul.critical_batch_approx or 0, 1) == round(critical, 1)


def test_table_and_plot_helpers() -> None:
    points = evaluate(*chip_figures("h200-sxm"), B=64, D=2048)
    html = table_html(points)
    assert html.count("<tr>") == len(points) + 1 and "memory" in html
    assert "e+" not in html, "numbers as the book and the static explorer print them: 3.436e10"
    assert roofline_png(*chip_figures("h200-sxm"), 64, 2048, [], dpi=50)[:4] == b"\x89PNG"


def test_importing_the_explorer_loads_neither_matplotlib_nor_ipywidgets() -> None:
    # nor Babel: the Korean labels ship as a JSON file, read with the standard library
    code = (
        "import sys, rooflinekit.explorer as e; e.explorer()._repr_mimebundle_(include=['text/html']);"
        "e.explorer(language='ko').figures_html();"
        "print(','.join(m for m in ('matplotlib', 'ipywidgets', 'babel') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_the_achieved_control_offers_100_to_50_percent_and_marks_each_chips_typical_share() -> None:
    assert ACHIEVED_SHARES[0] == 1 and ACHIEVED_SHARES[-1] == 0.5
    data, words = grid_data(), grid_words("en")
    assert [s["value"] for s in data["shares"]] == list(ACHIEVED_SHARES)
    assert [s["note"] for s in words["shares"]][:2] == ["", " at 95% of peak"]
    for c in data["chips"]:
        typical = rk.catalog.achievable(c["id"])
        marked = [share for share, label in zip(ACHIEVED_SHARES, words["share_labels"][c["id"]], strict=True)
                  if label.endswith(f"(typical for {rk.chip(c['id']).name})")]
        assert marked and all(typical.low <= share <= typical.high for share in marked), c["id"]
        assert {typical.low, typical.high} <= set(marked)


@pytest.mark.slow  # the live widget at many shares (seconds)
def test_the_live_achieved_share_lowers_the_roof_and_the_figures_under_it() -> None:
    e = explorer("h100-sxm", B=256, D=8192)
    controls = e._controls if e.widget else {}
    image, table = e.widget.children[5], e.widget.children[6]
    before = image.value
    share = rk.catalog.achievable("h100-sxm").high
    menu = controls["achieved"]
    assert menu.value == 1.0 and menu.label == "100% of peak"
    assert "(typical for NVIDIA H100 SXM)" in dict((v, k) for k, v in menu.options)[share]
    menu.value = share
    # The chip's own figures stay the catalog's; what depends on the peak is taken at the share.
    peak, bandwidth = chip_figures("h100-sxm")
    assert e.chip == "h100-sxm" and e.state()[:2] == (peak, bandwidth)
    lower = rk.hardware("h100-sxm", achieved=share)
    for point in e.points():
        r = rk.analyze(operation(point.key)(256, 8192), "h100-sxm", achieved=share)
        assert (point.attainable, point.t_math, point.t_lower, point.t_upper, point.bound) == (
            r.attainable, r.t_math, r.t_lower, r.t_upper, r.bound)
    (matmul, *_rest) = e.points()
    figures = {"peak": lower.peak, "bandwidth": bandwidth}
    assert matmul.critical_batch == rk.matmul_critical_batch(8192, 8192, **figures)
    assert matmul.critical_batch_approx == rk.matmul_critical_batch_approx(**figures)
    at = f" at {pct(share)} of peak"
    caption = f"peak {num(peak)} FLOP/s, HBM {num(bandwidth)} B/s;{at}: {num(lower.peak, 4)} FLOP/s"
    assert caption in _caption(e)
    assert f"critical intensity {num(lower.critical_intensity, 4)} FLOP/B" in _caption(e)
    assert f"<th>attainable FLOP/s{at}</th>" in table.value and f"<th>T_math{at}</th>" in table.value
    assert f"<td>{seconds(matmul.t_math, 4)}</td>" in table.value
    assert image.value != before
    # Another chip keeps the share chosen, and marks its own typical share.
    controls["chip"].value = "tpu-v5e"
    assert e.achieved == share and menu.value == share
    v5e = rk.analyze(rk.matmul_cost(256, 8192, 8192), "tpu-v5e", achieved=share)
    assert e.points()[0].t_math == v5e.t_math
    typical = rk.catalog.achievable("tpu-v5e").high
    assert dict((v, k) for k, v in menu.options)[typical].endswith("(typical for TPU v5e)")
    menu.value = 1.0
    assert "of peak" not in table.value and "of peak" not in _caption(e)


def test_the_live_plot_follows_the_share_and_its_axes_hold_the_lower_roof() -> None:
    import matplotlib.pyplot as plt

    png = roofline_png(*chip_figures("b200"), 256, 8192, ["matmul"], dpi=50, achieved=0.5)
    assert png[:4] == b"\x89PNG" and png != roofline_png(*chip_figures("b200"), 256, 8192, ["matmul"], dpi=50)
    plt.close("all")
    for name in rk.CHIPS:
        peak, bandwidth = chip_figures(name)
        fitted = plot_axes(peak, bandwidth, 256, ["dot"], achieved=0.5)
        lower = rk.hardware(name, achieved=0.5)
        assert fitted.intensity[0] < lower.critical_intensity < fitted.intensity[1]
        assert fitted.attainable[0] < lower.peak < peak < fitted.attainable[1]


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def _cells(html: str) -> list[str]:
    return re.findall(r"<td>(.*?)</td>", html)


@pytest.mark.slow  # the live widget in two languages (seconds)
def test_the_live_explorer_speaks_korean_when_asked_with_rooflinekits_numbers() -> None:
    tr = translator("ko")
    e = explorer("tpu-v5e", B=256, D=8192, language="ko")
    controls = e._controls if e.widget else {}
    labels = [controls[k].description for k in ("chip", "peak", "bandwidth", "achieved", "batch", "width")]
    assert labels == ["칩", "피크 성능 FLOP/s", "HBM B/s", "달성 비율", "배치 B", "D = F"]
    assert [box.description for box in controls["ops"].values()] == [tr(op.label) for op in OPERATIONS]
    assert controls["ops"]["dot"].description == "bf16[D] 두 개의 내적"
    assert dict((v, k) for k, v in controls["chip"].options)["custom"] == "사용자 지정 (슬라이더)"
    peak, bandwidth = chip_figures("tpu-v5e")
    assert _text(_caption(e)) == (f"TPU v5e (카탈로그): 피크 성능 {num(peak)} FLOP/s, "
                                  f"HBM {num(bandwidth)} B/s, 임계 강도 {num(peak / bandwidth, 4)} FLOP/B")
    # The table: Korean headings, names and bounds; rooflinekit's numbers, as in English.
    table = e.widget.children[6].value
    assert re.findall(r"<th>(.*?)</th>", table)[:3] == ["연산", "강도 (FLOP/B)", "도달 가능 FLOP/s"]
    english, korean = _cells(table_html(e.points())), _cells(table)
    words = {i for i, (en, ko) in enumerate(zip(english, korean, strict=True)) if en != ko}
    assert {i % 10 for i in words} == {0, 7}  # the operation's name and its bound: nothing else
    assert [korean[i] for i in sorted(words)][:2] == ["행렬 곱셈 bf16[B,D]·bf16[D,F]", "연산"]
    image = e.widget.children[5].value
    assert image != roofline_png(peak, bandwidth, 256, 8192, [op.key for op in OPERATIONS])  # its words

    # A moved slider: custom figures, said so in Korean; the way back names the chip.
    controls["bandwidth"].value = 10 ** 11.93
    assert _text(_caption(e)).startswith("사용자 지정 (슬라이더): 피크 성능 1.97e14 FLOP/s, HBM 8.51e11 B/s")
    assert controls["back"].description == "TPU v5e 수치로 돌아가기"

    # The achieved share: the chip's typical share marked, the figures under it labelled so.
    controls["chip"].value = "h100-sxm"
    share, menu = rk.catalog.achievable("h100-sxm").high, controls["achieved"]
    typical = f"피크 성능의 {pct(share)} (NVIDIA H100 SXM의 통상 수준)"
    assert dict((v, k) for k, v in menu.options)[share] == typical
    menu.value = share
    lower = rk.hardware("h100-sxm", achieved=share)
    assert f"; 피크 성능의 {pct(share)} 기준: {num(lower.peak, 4)} FLOP/s, 임계 강도 " in _caption(e)
    assert f"<th>T_math (피크 성능의 {pct(share)} 기준)</th>" in e.widget.children[6].value
    under = rk.analyze(rk.matmul_cost(256, 8192, 8192), "h100-sxm", achieved=share)
    assert e.points()[0].t_math == under.t_math
    plain = e._repr_mimebundle_(include=["text/plain"])["text/plain"]
    assert plain == "tpu-v5e의 루프라인 탐색기 (B=256, D=F=8192)"


@pytest.mark.parametrize("make", [explorer, transformer_explorer, explorer_html])
def test_a_language_the_explorers_do_not_speak_is_named_with_those_they_do(make: Any) -> None:
    with pytest.raises(RooflineInputError) as caught:
        make(language="xx")
    assert str(caught.value) == f"language must be one of {', '.join(LANGUAGES)} (got 'xx')"


@pytest.mark.slow  # the live widget, every level drawn (seconds)
def test_the_live_level_menu_draws_each_levels_roof_with_the_points_rooflinekit_places_under_it() -> None:
    e = explorer("tpu-v5e", B=4096, D=8192)
    controls = e._controls if e.widget else {}
    image, table, figures = e.widget.children[5], e.widget.children[6], e.widget.children[3]
    level, tile = controls["level"], controls["tile"]
    assert [v for _, v in level.options] == ["hbm", "vmem"] and tile.disabled
    hbm_png = image.value
    level.value = "vmem"
    vmem = rk.hierarchy.level("tpu-v5e", "vmem")
    assert not tile.disabled and image.value != hbm_png
    # The matmuls' bytes out of VMEM in 128 x 128 tiles at VMEM's bandwidth, as the library counts them.
    peak = rk.chip("tpu-v5e").peak("bf16")
    moved = rk.hierarchy.tiled_matmul_bytes(4096, 8192, 8192, 128, 128)
    flops = rk.matmul_cost(4096, 8192, 8192).flops
    r = rk.analyze(rk.Cost(flops, moved, 0.0), peak=peak, bandwidth=vmem.bandwidth)
    (matmul, *_rest) = e.points()
    assert (matmul.bytes, matmul.intensity, matmul.t_comms) == (moved, r.intensity, r.t_comms)
    assert matmul.bound == r.bound
    assert matmul.critical_batch is None and f"<td>{num(r.intensity, 4)}</td>" in table.value
    assert f"Roof of VMEM: {num(vmem.bandwidth)} B/s (estimate)" in figures.value
    assert f"critical intensity {num(peak / vmem.bandwidth, 4)} FLOP/B" in figures.value
    # A smaller tile moves more bytes: the point moves left.
    at_128 = image.value
    tile.value = 16
    assert e.points()[0].intensity < matmul.intensity and image.value != at_128
    assert "16 x 16 tiles" in figures.value
    # The H100's L2 has no bandwidth figure: no roof, no points, and the explorer says so.
    controls["chip"].value = "h100-sxm"
    assert e.level == "hbm"  # the H100 has no VMEM: back to HBM
    assert [v for _, v in level.options] == ["hbm", "l2", "smem"] and level.value == "hbm"
    level.value = "l2"
    assert e.points() == [] and image.layout.display == "none"
    assert "L2 cache has no bandwidth figure" in figures.value and "<td>" not in table.value
    level.value = "smem"
    smem = rk.hierarchy.level("h100-sxm", "smem")
    assert image.layout.display is None and e.points() == on_level("h100-sxm", "smem", 4096, 8192, tile=16)
    # A chip without on-chip levels offers HBM alone and says why; custom figures too.
    controls["chip"].value = "tpu-v6e"
    assert [v for _, v in level.options] == ["hbm"] and e.level == "hbm"
    assert "The catalog gives no on-chip memory level of TPU v6e (Trillium)" in figures.value
    controls["chip"].value = "h100-sxm"
    level.value = "smem"
    controls["peak"].value = 2e15
    assert e.chip == "custom" and e.level == "hbm" and [v for _, v in level.options] == ["hbm"]
    assert "Custom figures have HBM's roof only" in unescape(figures.value)
    assert e.points()[0].t_math == rk.analyze(rk.matmul_cost(4096, 8192, 8192), peak=2e15,
                                              bandwidth=rk.chip("h100-sxm").hbm_bandwidth).t_math
    assert smem.bandwidth is not None


def test_the_live_level_note_speaks_korean() -> None:
    e = explorer("h100-sxm", level="l2", language="ko")
    assert "L2 캐시에는 대역폭 수치가 없습니다" in e.level_html()
    vmem = explorer("tpu-v5e", level="vmem", language="ko").level_html()
    assert "VMEM의 지붕" in vmem and "(추정치)" in vmem


@pytest.mark.parametrize(("kwargs", "argument"), [({"level": "vmem", "chip": "tpu-v6e"}, "level"),
                                                  ({"tile": 100}, "tile")])
def test_a_level_or_tile_the_explorer_has_not_is_named(kwargs: dict[str, object], argument: str) -> None:
    with pytest.raises(RooflineInputError) as caught:
        explorer(**kwargs)  # type: ignore[arg-type]
    assert caught.value.argument == argument
