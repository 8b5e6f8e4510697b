"""The static explorer's script computes what rooflinekit computes, over the sliders' whole grid.

tests/support/explorer_grid.js runs rooflinekit/explorer/assets/explorer.js in node (the very file the
book's pages carry) and writes what it computed. These tests compare each number with
rooflinekit's, exactly (the same IEEE operations give the same doubles), and each text with
rooflinekit.fmt's:

- the critical batches (exact, and the B << D rule) of both matmul operations and the critical
  intensity at every position of the peak slider with every position of the bandwidth slider,
  at every D: 401 x 331 x 8;
- whole tables (every operation at every D and every B: 5 x 8 x 65 rows) for each catalog chip
  at every share of the peak on the achieved control, for a 21 x 18 lattice of slider positions
  spanning both sliders, ends included, at 100%, and for a 3 x 3 lattice at every other share (a
  table's times and bounds are quotients and comparisons of one peak, taken at a share, or one
  bandwidth with the FLOPs and bytes rooflinekit wrote, so a lattice finds any slip; the slider
  pairs' full product would be 69 million tables), with the critical intensity of each;
- the plot's axes (rooflinekit.explorer.model.plot_axes) at those chips, slider pairs and
  shares, at every D, for every set of operations the checkboxes can show (2^5 sets);
- the texts of its formatter for every number in the catalog chips' tables and in the tables at
  the sliders' fastest corner (times below a picosecond), and for ties and powers of ten; and
  how it writes times, pinned with examples;
- its words, and the transformer view's (assets/transformer.js): tests/support/explorer_words.js builds
  both views on a stand-in document (tests/support/fake_dom.js) as an English and as a Korean page, and
  does what a reader does; on the Korean page every label, menu entry, caption and heading is
  Korean, with rooflinekit's numbers, and the transformer view shows the library's Korean texts.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rooflinekit as rk
from rooflinekit.critical import exact_crossover, rule_of_thumb
from rooflinekit.explorer.labels import LANGUAGES, tables
from rooflinekit.explorer.model import (
    ACHIEVED_SHARES,
    B_VALUES,
    D_VALUES,
    OPERATIONS,
    ExplorerSettings,
    chip_figures,
    every_language_words,
    grid_data,
    grid_words,
    on_level,
    plot_axes,
)
from rooflinekit.explorer.transformer_static import view_data
from rooflinekit.explorer.transformer_view import TransformerSettings, view
from rooflinekit.fmt import num, sci, seconds

# node, over every position of the sliders
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("explorer-js")]

SUPPORT = Path(__file__).resolve().parents[1] / "support"
HARNESS = SUPPORT / "explorer_grid.js"
SCRIPT = Path(rk.__file__).parent / "explorer" / "assets" / "explorer.js"
LATTICE = ([*range(0, 400, 20), 400], [*range(0, 330, 20), 330])  # slider positions, ends included
SHARE_LATTICE = ([0, 200, 400], [0, 165, 330])  # slider positions at the shares below 100%
SHOWN = [list(keys) for n in range(len(OPERATIONS) + 1)
         for keys in itertools.combinations([op.key for op in OPERATIONS], n)]
TRANSFORMER = TransformerSettings("llama-3.1-70b", "h100-sxm", 8)  # as test_transformer_view.py
TRICKY = [0.0, 0.5, 1.0625, 2.5, 12.125, 999.95, 9.9995, 0.0009995, 999999.5, 1e6, 1234500.0,
          1.97e14, 8.1e11, 1e-3, 9.99e-4, 0.1, 2.675, 1e21, 3.3e22, 1.2345e-9, 5e-13, 83.16e-12]


def _figure(x: float) -> str:
    """What the live explorer's table writes (rooflinekit.explorer.widget)."""
    return num(x, 4) if np.isfinite(x) else "never"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    node = shutil.which("node")
    assert node, "node is not installed (apt-get install nodejs)"
    out = tmp_path_factory.mktemp("explorer-js")
    grid = grid_data()
    (out / "grid.json").write_text(json.dumps(grid))
    fastest = (max(grid["peak_range"]), max(grid["bandwidth_range"]))
    pairs = [(c["peak"], c["bandwidth"]) for c in grid["chips"]] + [fastest]
    tables = np.concatenate([_tables(*pair)[..., :6].ravel() for pair in pairs])
    numbers = TRICKY + sorted(set(tables[np.isfinite(tables)].tolist()))
    (out / "cases.json").write_text(json.dumps(
        {"peak_positions": LATTICE[0], "bandwidth_positions": LATTICE[1], "numbers": numbers,
         "share_peak_positions": SHARE_LATTICE[0], "share_bandwidth_positions": SHARE_LATTICE[1],
         "shown": SHOWN}
    ))
    done = subprocess.run(
        [node, str(HARNESS), str(SCRIPT), str(out / "grid.json"), str(out / "cases.json"), str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads((out / "figures.json").read_text())
    rows = np.fromfile(out / "rows.f64", dtype=np.float64)
    return {"figures": figures, "numbers": numbers, "rows": rows,
            "chip": np.fromfile(out / "chip.f64", dtype=np.float64),
            "axes": np.fromfile(out / "axes.f64", dtype=np.float64)}


def test_the_sliders_reach_what_the_library_says() -> None:
    """Each slider covers its whole range in steps of 0.01 decades."""
    node = shutil.which("node")
    assert node
    probe = (f"require({json.dumps(str(SCRIPT))}); const E = globalThis.RooflineExplorer;"
             f"console.log(JSON.stringify([E.sliderFigures({list(map(float, grid_data()['peak_range']))}),"
             f" E.sliderFigures({list(map(float, grid_data()['bandwidth_range']))})]))")
    peaks, bandwidths = json.loads(subprocess.run([node, "-e", probe], capture_output=True, text=True,
                                                  check=True).stdout)
    assert (len(peaks), len(bandwidths)) == (401, 331)
    assert peaks[-1] == 1e16 and bandwidths[-1] == 2e13 and np.isclose(peaks[0], 1e12)


def test_critical_batches_and_intensity_at_every_slider_position(run: dict[str, Any]) -> None:
    peaks = np.array(run["figures"]["peaks"])[:, None, None]
    bandwidths = np.array(run["figures"]["bandwidths"])[None, :, None]
    D = np.array(D_VALUES, dtype=float)[None, None, :]
    matmuls = [op for op in OPERATIONS if op.matmul is not None]
    shown = run["chip"].reshape(peaks.shape[0], bandwidths.shape[1], -1)
    per_d = shown[:, :, :-1].reshape(peaks.shape[0], bandwidths.shape[1], len(D_VALUES), len(matmuls), 2)
    for m, op in enumerate(matmuls):
        assert op.matmul is not None
        sx, sw, so = (rk.dtype_bytes(t) for t in (op.matmul.x, op.matmul.w, op.matmul.out))
        exact = exact_crossover(D, D, sx, sw, so, peaks, bandwidths)
        rule = np.broadcast_to(rule_of_thumb(sw, peaks, bandwidths), exact.shape)
        assert np.array_equal(per_d[..., m, 0], exact), op.key
        assert np.array_equal(per_d[..., m, 1], rule), op.key
    ridge = rk.Hardware(peaks[:, :, 0], bandwidths[:, :, 0]).critical_intensity  # type: ignore[arg-type]
    assert np.array_equal(shown[:, :, -1], ridge)


def _tables(peak: float, bandwidth: float, share: float = 1.0) -> np.ndarray[Any, Any]:
    """rooflinekit's rows for every D, B and operation: [D][B][operation][field], at ``share``
    of the peak (rk.hardware's ``achieved``)."""
    B, D = np.meshgrid(np.array(B_VALUES, dtype=float), np.array(D_VALUES, dtype=float))
    columns = []
    lower = rk.hardware(peak=peak, bandwidth=bandwidth, achieved=share)
    for op in OPERATIONS:
        r = rk.analyze(op(B, D), peak=peak, bandwidth=bandwidth, achieved=share)
        exact = approx = np.full(B.shape, np.nan)
        if op.matmul is not None:
            dt = {"x": op.matmul.x, "w": op.matmul.w, "out": op.matmul.out}
            figures = {"peak": lower.peak, "bandwidth": bandwidth}
            exact = np.broadcast_to(rk.matmul_critical_batch(D, D, **dt, **figures), B.shape)
            approx = np.full(B.shape, rk.matmul_critical_batch_approx(w=op.matmul.w, **figures))
        fields = (r.intensity, r.attainable, r.t_math, r.t_comms, r.t_lower, r.t_upper,
                  r.bound == "compute", exact, approx)
        columns.append(np.stack([np.broadcast_to(f, B.shape).astype(float) for f in fields], axis=-1))
    return np.stack(columns, axis=2)


def test_whole_tables_at_every_chip_and_share_and_across_both_sliders(run: dict[str, Any]) -> None:
    pairs = run["figures"]["pairs"]
    shares = len(ACHIEVED_SHARES)
    assert len(pairs) == (len(rk.CHIPS) * shares + len(LATTICE[0]) * len(LATTICE[1])
                          + len(SHARE_LATTICE[0]) * len(SHARE_LATTICE[1]) * (shares - 1))
    assert {share for _, _, share in pairs} == set(ACHIEVED_SHARES)
    assert run["figures"]["fields"][6] == "bound"
    shown = run["rows"].reshape(len(pairs), len(D_VALUES), len(B_VALUES), len(OPERATIONS), -1)
    for index, (peak, bandwidth, share) in enumerate(pairs):
        expected = _tables(peak, bandwidth, share)
        assert np.array_equal(shown[index], expected, equal_nan=True), (peak, bandwidth, share)
        ridge = rk.hardware(peak=peak, bandwidth=bandwidth, achieved=share).critical_intensity
        assert run["figures"]["ridges"][index] == ridge, (peak, bandwidth, share)
    bounds = shown[..., 6]
    assert 0 < bounds.mean() < 1  # the lattice sees both compute- and memory-bound rows


def test_its_texts_are_rooflinekit_fmts(run: dict[str, Any]) -> None:
    texts = run["figures"]["texts"]
    assert len(texts) > 10_000
    for x, text in zip(run["numbers"], texts, strict=True):
        assert text == [num(x, 4), num(x, 3), sci(x, 4), seconds(x, 4), _figure(x)], x


def test_plot_axes_are_rooflinekits_at_every_chip_share_width_and_set_of_operations(
    run: dict[str, Any],
) -> None:
    pairs = run["figures"]["pairs"]
    shown = run["axes"].reshape(len(pairs), len(D_VALUES), len(SHOWN), 4)
    for index, (peak, bandwidth, share) in enumerate(pairs):
        expected = [[(a := plot_axes(peak, bandwidth, D, keys, share)).intensity + a.attainable
                     for keys in SHOWN] for D in D_VALUES]
        assert np.array_equal(shown[index], np.array(expected)), (peak, bandwidth, share)
    # Fitted: the roof's top, the ridge and every operation lie inside, with no empty decade
    # beyond them (the margin is less than a decade; an axis spans two decades at least).
    low_x, high_x, low_y, high_y = np.moveaxis(shown, -1, 0)
    peaks = np.array(pairs)[:, 0, None, None]
    assert np.all(high_y > peaks) and np.all(high_y < 10 * peaks)
    assert np.all(low_y < peaks * np.array(pairs)[:, 2, None, None])  # the achieved roof is inside
    assert np.all(high_x / low_x >= 100 * (1 - 1e-12)) and np.all(high_y / low_y >= 100 * (1 - 1e-12))


def test_times_read_with_si_prefixes_in_both_explorers(run: dict[str, Any]) -> None:
    """Times below a picosecond occur at the sliders' fastest corner: they read in fs, not as a
    long fraction of a larger unit, in the node script and in the live table alike."""
    texts = dict(zip(run["numbers"], (t[3] for t in run["figures"]["texts"]), strict=True))
    times = [x for x in run["numbers"] if 0 < x < 1e-12]
    assert times, "no time below a picosecond in the tables"
    assert all(re.fullmatch(r"\d{1,3}(\.\d+)? fs", texts[x]) for x in times), [texts[x] for x in times[:5]]
    examples = {5.603e-14: "56.03 fs", 5.603e-11: "56.03 ps", 1.234e-3: "1.234 ms", 2.5: "2.5 s"}
    node = shutil.which("node")
    assert node
    probe = (f"require({json.dumps(str(SCRIPT))}); const E = globalThis.RooflineExplorer;"
             f"console.log(JSON.stringify({list(examples)}.map(x => E.seconds(x, 4))))")
    in_node = json.loads(subprocess.run([node, "-e", probe], capture_output=True, text=True,
                                        check=True).stdout)
    assert in_node == [seconds(x, 4) for x in examples] == list(examples.values())


# --- their words: the page's language ------------------------------------------------------

WORDS_HARNESS = SUPPORT / "explorer_words.js"
TRANSFORMER_SCRIPT = SCRIPT.with_name("transformer.js")
HANGUL = re.compile("[\uac00-\ud7a3]")


@pytest.fixture(scope="module")
def spoken(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What both explorers show in node, on an English page and on a Korean one, step by step
    (tests/support/explorer_words.js), from the data the pages embed."""
    node = shutil.which("node")
    assert node, "node is not installed (apt-get install nodejs)"
    out = tmp_path_factory.mktemp("explorer-words")
    roofline = {"grid": grid_data(), "initial": ExplorerSettings().to_dict(), "words": every_language_words()}
    (out / "explorer.json").write_text(json.dumps(roofline))
    (out / "transformer.json").write_text(json.dumps(view_data(TRANSFORMER)))
    done = subprocess.run(
        [node, str(WORDS_HARNESS), str(SCRIPT), str(TRANSFORMER_SCRIPT), str(out / "explorer.json"),
         str(out / "transformer.json"), ",".join(LANGUAGES), str(out / "seen.json")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = json.loads((out / "seen.json").read_text())
    return seen


def _no_english_label_left(texts: list[str], english: list[str]) -> None:
    """Every text a Korean page shows is Korean, or what the English page shows too and is no
    word of the catalog's (a number, a unit, a chip's name, a symbol such as T_math)."""
    labels = {text for text, korean in tables()["ko"].items() if korean != text}
    left = [t for t in texts if not HANGUL.search(t) and (t in labels or t not in english)]
    assert not left, left


def test_the_roofline_explorer_speaks_the_pages_language(spoken: dict[str, Any]) -> None:
    english, korean = spoken["en"]["explorer"], spoken["ko"]["explorer"]
    assert [s["lang"] for s in english + korean] == ["en"] * 5 + ["ko"] * 5
    assert not any(HANGUL.search(t) for s in english for t in s["texts"])
    everything_english = [t for s in english for t in s["texts"]]
    for shown in korean:
        _no_english_label_left(shown["texts"], everything_english)
    # The same state, step by step, in both languages: the reader's moves did the same.
    assert [s["state"] for s in korean] == [s["state"] for s in english]
    start, h100, achieved, custom, back = korean
    peak, bandwidth = chip_figures("tpu-v5e")
    ridge = num(rk.chip("tpu-v5e").critical_intensity("bf16"), 4)
    assert start["summary"] == (f"TPU v5e (카탈로그): 피크 성능 {num(peak)} FLOP/s, 대역폭 {num(bandwidth)} "
                                f"B/s; 임계 강도 {ridge} FLOP/B. B = 256, D = F = 8192.")
    assert "칩" in start["texts"] and "사용자 지정 (슬라이더)" in start["texts"]
    assert h100["shares"] == grid_words("ko")["share_labels"]["h100-sxm"]
    assert "피크 성능의 85% (NVIDIA H100 SXM의 통상 수준)" in h100["shares"]
    lower = rk.hardware("h100-sxm", achieved=0.85)
    under = f"{num(lower.peak, 4)} FLOP/s, 임계 강도 {num(lower.critical_intensity, 4)} FLOP/B"
    assert f"; 피크 성능의 85% 기준: {under}" in achieved["summary"]
    assert "T_math (피크 성능의 85% 기준)" in achieved["rows"] and "T_comms" in achieved["rows"]
    assert custom["summary"].startswith("사용자 지정 (슬라이더): 피크 성능 1e15 FLOP/s")
    assert "NVIDIA H100 SXM 수치로 돌아가기" in custom["texts"]
    assert back["summary"] == achieved["summary"]


def test_the_transformer_view_speaks_the_pages_language(spoken: dict[str, Any]) -> None:
    english, korean = spoken["en"]["transformer"], spoken["ko"]["transformer"]
    everything_english = [t for s in english for t in s["texts"]]
    for language, seen in (("en", english), ("ko", korean)):
        assert all(s["lang"] == language and s["plots"] == [language] for s in seen)  # its own roof alone
        for shown in seen:
            at = TRANSFORMER.at(**{k: shown["state"][k] for k in ("figures", "phase", "batch", "context")})
            expected = view(at, language)
            assert shown["title"] == expected.title and shown["message"] == expected.message
            assert shown["header"] == list(expected.header)
            assert shown["summary"] == [line.text for line in expected.summary]
            assert shown["rows"] == [[op.row[0], str(op.row[1]), *op.row[2:]] for op in expected.ops]
            if language == "ko":
                _no_english_label_left(shown["texts"], everything_english)
    assert [s["state"]["fits"] for s in korean] == [True, True, True, False]
    assert [s["state"]["figures"] for s in korean] == ["ideal", "ideal", "calibrated", "calibrated"]
    assert korean[1]["title"].startswith("8 x NVIDIA H100 SXM의 llama-3.1-70b: 프리필, 배치 64")
    assert korean[2]["title"] == korean[1]["title"] + " (보정된 수치)"
    assert {"수치", "이상적", "보정"} <= set(korean[2]["texts"])
    assert korean[3]["message"].startswith("메모리에 들어가지 않습니다. 배치는 ")


LEVEL_SHARES = (1.0, 0.8)
LEVEL_BATCHES = range(0, len(B_VALUES), 4)  # every fourth batch on the slider, both ends included

# The static explorer's model under every catalog chip's every level: what its table and its plot's
# axes hold when the level menu and the tile menu are set, at two shares, every D and these batches.
LEVELS_PROBE = """
require(process.argv[1]);
const E = globalThis.RooflineExplorer, fs = require("fs");
const grid = JSON.parse(fs.readFileSync(process.argv[2], "utf8")), cases = JSON.parse(process.argv[3]);
const keys = grid.operations.map(op => op.key), out = [];
for (const c of grid.chips) for (const lv of c.levels)
  for (const tile of lv.id === "hbm" ? [128] : grid.tiles)
  for (const share of cases.shares) for (let iD = 0; iD < grid.D.length; iD++) {
    const state = {peak: c.peak, bandwidth: c.bandwidth, share: share, iD: iD, ops: keys, level: lv.id,
                   tile: tile, levelBandwidth: lv.id === "hbm" ? null : lv.bandwidth};
    const axes = E.plotAxes(grid, Object.assign({}, state, {iB: 0}));
    const rows = cases.batches.map(iB => E.model(grid, Object.assign({}, state, {iB: iB})).map(
      r => [r.key, r.bytes, r.intensity, r.attainable, r.t_math, r.t_comms, r.t_lower, r.t_upper, r.bound,
            r.critical_batch === Infinity ? "inf" : r.critical_batch]));
    out.push({chip: c.id, level: lv.id, tile: tile, share: share, D: grid.D[iD], axes: axes, rows: rows});
  }
fs.writeFileSync(process.argv[4], JSON.stringify(out));
"""


def test_each_level_of_each_chip_places_the_operations_where_rooflinekit_does(tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node
    (tmp_path / "grid.json").write_text(json.dumps(grid_data()))
    cases = json.dumps({"shares": list(LEVEL_SHARES), "batches": list(LEVEL_BATCHES)})
    subprocess.run([node, "-e", LEVELS_PROBE, str(SCRIPT), str(tmp_path / "grid.json"), cases,
                    str(tmp_path / "levels.json")], check=True, timeout=300)
    shown = json.loads((tmp_path / "levels.json").read_text())
    seen = {(s["chip"], s["level"]) for s in shown}
    assert seen == {(c, lv.id) for c in rk.CHIPS for lv in rk.hierarchy.levels(c)}
    assert ("tpu-v5e", "vmem") in seen and ("h100-sxm", "smem") in seen and ("tpu-v6e", "vmem") not in seen
    for s in shown:
        level = rk.hierarchy.level(s["chip"], s["level"])
        on_chip = s["level"] != "hbm"
        if level.bandwidth is None:  # no source gives it: no roof, no points
            assert all(rows == [] for rows in s["rows"]), s["chip"]
            continue
        peak = chip_figures(s["chip"])[0]
        fitted = plot_axes(peak, level.bandwidth, s["D"], None, s["share"], s["tile"] if on_chip else None)
        assert s["axes"] == {"intensity": list(fitted.intensity), "attainable": list(fitted.attainable)}
        for iB, rows in zip(LEVEL_BATCHES, s["rows"], strict=True):
            expected = on_level(s["chip"], s["level"], B_VALUES[iB], s["D"], None, s["share"], s["tile"])
            assert [r[0] for r in rows] == [p.key for p in expected]
            for row, p in zip(rows, expected, strict=True):
                critical = "inf" if p.critical_batch == np.inf else p.critical_batch
                assert row[1:] == [p.bytes, p.intensity, p.attainable, p.t_math, p.t_comms, p.t_lower,
                                   p.t_upper, p.bound, critical], (s["chip"], s["level"], p.key)
                assert (critical is None) == (on_chip or p.key not in ("matmul", "matmul-int8w"))
    # A tile moves what chapter 12's formula says: the matmul's operands once per tile of the other side.
    b, D = 64, 8192
    (matmul,) = on_level("tpu-v5e", "vmem", 4096, D, ["matmul"], tile=b)
    assert matmul.bytes == 2 * (4096 * D * (D // b) + D * D * (4096 // b) + 4096 * D)
