"""The memory hierarchy (rooflinekit.hierarchy, issue 24): bytes per level against formulas derived
here by walking the tiles, the laws of tiling and fusion, and the catalog's level figures."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rooflinekit as rk
from rooflinekit import hierarchy as h
from rooflinekit.chips import FIGURE_KINDS

sizes = st.integers(1, 5000)
small = st.integers(1, 40)


def walked_matmul_bytes(m: int, k: int, n: int, bm: int, bn: int, sx: int, sw: int, so: int) -> int:
    """Walk the output tiles one by one: each reads its rows of x and columns of w, writes itself."""
    total = 0
    for i in range(0, m, bm):
        rows = min(bm, m - i)
        for j in range(0, n, bn):
            cols = min(bn, n - j)
            total += sx * rows * k + sw * k * cols + so * rows * cols
    return total


@given(small, small, small, small, small, st.sampled_from(["bf16", "int8", "fp32"]))
def test_tiled_matmul_bytes_are_the_tiles_walked_one_by_one(m: int, k: int, n: int, bm: int, bn: int,
                                                            dt: str) -> None:
    size = int(rk.dtype_bytes(dt))
    assert h.tiled_matmul_bytes(m, k, n, bm, bn, x=dt, w=dt, out=dt) == walked_matmul_bytes(
        m, k, n, bm, bn, size, size, size)


@given(small, small, small, small, small, small, st.sampled_from(["bf16", "int8", "fp32"]))
def test_chapter_4s_tiled_matmul_cost_counts_hbm_bytes_as_the_hierarchy_does(
        m: int, k: int, n: int, bm: int, bk: int, bn: int, dt: str) -> None:
    # one count of a tiled matmul's HBM traffic, edge tiles included, whichever function asks
    size = int(rk.dtype_bytes(dt))
    assert rk.tiled_matmul_cost(m, k, n, bm, bk, bn, dt).bytes == walked_matmul_bytes(
        m, k, n, bm, bn, size, size, size)


def test_one_tile_the_size_of_the_output_is_the_untiled_matmul() -> None:
    m, k, n = 300, 700, 500
    assert h.tiled_matmul_bytes(m, k, n, m, n) == rk.matmul_cost(m, k, n).bytes


def test_tiled_matmul_bytes_are_vectorised() -> None:
    tiles = np.array([64, 128, 256, 512])
    moved = h.tiled_matmul_bytes(4096, 4096, 4096, tiles, tiles)
    assert list(moved) == [h.tiled_matmul_bytes(4096, 4096, 4096, int(b), int(b)) for b in tiles]


def walked_attention_bytes(seq: int, d: int, size: int, fused: bool, block: int) -> tuple[int, int]:
    """Reads and writes of attention, operation by operation (unfused) or block by block (fused)."""
    if not fused:
        steps = [  # (read, written) elements
            (2 * seq * d, seq * seq),           # S = Q K^T: read Q and K, write S
            (seq * seq, seq * seq),             # P = softmax(S): read S, write P
            (seq * seq + seq * d, seq * d),     # O = P V: read P and V, write O
        ]
    else:
        steps = [(seq * d, 0)]                  # Q, block by block, read once in all
        steps += [(2 * seq * d, 0) for _ in range(0, seq, block)]  # K and V for every block of Q
        steps += [(0, seq * d)]                 # O written once
    return size * sum(r for r, _ in steps), size * sum(w for _, w in steps)


@given(st.integers(1, 300), st.integers(1, 130), st.booleans(), st.integers(1, 300))
def test_attention_bytes_are_its_steps_walked(seq: int, d: int, fused: bool, block: int) -> None:
    cost = h.attention_cost(seq, d, fused=fused, block=block)
    assert (cost.bytes_read, cost.bytes_written) == walked_attention_bytes(seq, d, 2, fused, block)
    assert cost.flops == 4 * seq * seq * d + h.SOFTMAX_FLOPS_PER_SCORE * seq * seq


def test_attention_heads_multiply_everything() -> None:
    one, eight = h.attention_cost(1024, 64), h.attention_cost(1024, 64, heads=8)
    assert (eight.flops, eight.bytes) == (8 * one.flops, 8 * one.bytes)


@given(sizes, sizes, sizes, st.integers(1, 2048), st.integers(1, 2048), st.integers(0, 2048),
       st.integers(0, 2048))
def test_a_larger_tile_never_moves_more_hbm_bytes(m: int, k: int, n: int, bm: int, bn: int, dm: int,
                                                 dn: int) -> None:
    assert h.tiled_matmul_bytes(m, k, n, bm + dm, bn + dn) <= h.tiled_matmul_bytes(m, k, n, bm, bn)


@given(st.integers(1, 65536), st.integers(1, 256), st.data())
def test_fused_attention_never_moves_more_hbm_bytes(seq: int, d: int, data: st.DataObject) -> None:
    # FlashAttention's query blocks hold at least half a head's width of rows (Dao et al. 2022 take
    # them near d); a block of fewer rows rereads K and V so often that fusion would lose.
    block = data.draw(st.integers(min(seq, math.ceil(d / 2)), seq))
    assert h.attention_cost(seq, d, fused=True, block=block).bytes <= h.attention_cost(seq, d).bytes


@given(sizes, sizes, sizes, st.floats(0.5, 50))
def test_a_fused_elementwise_op_never_moves_more_hbm_bytes(b: int, d: int, f: int, per: float) -> None:
    fused = h.matmul_elementwise_cost(b, d, f, flops_per_element=per, fused=True)
    unfused = h.matmul_elementwise_cost(b, d, f, flops_per_element=per)
    assert fused.bytes < unfused.bytes and fused.flops == unfused.flops


tiles = st.tuples(st.integers(1, 1024), st.integers(1, 1024), st.integers(1, 1024))


@given(st.integers(1, 8192), st.integers(1, 8192), st.integers(1, 8192), tiles)
def test_inner_level_intensity_with_the_same_tiling_is_never_below_hbm(m: int, k: int, n: int,
                                                                         tile: tuple[int, int, int]) -> None:
    r = h.tiled_matmul_levels(m, k, n, [tile], "h100-sxm")
    for t in r.traffic[1:]:
        assert t.intensity >= r.of("hbm").intensity


@given(st.integers(1, 8192), st.integers(1, 8192), st.integers(1, 8192), tiles, st.integers(1, 1024),
       st.integers(1, 1024))
def test_inner_level_never_moves_fewer_bytes_than_hbm_for_nested_tiles(
    m: int, k: int, n: int, outer: tuple[int, int, int], shrink_m: int, shrink_n: int,
) -> None:
    # Every byte out of HBM passes through the levels inside on its way to the math, so with an inner
    # tile inside the outer one an inner level moves at least as many bytes: its intensity is at most
    # the HBM's (the hierarchical roofline's usual order; issue 24 states the law the other way round,
    # which holds, as equality, only for the same tiling: the test above).
    inner = (max(1, outer[0] - shrink_m), outer[1], max(1, outer[2] - shrink_n))
    r = h.tiled_matmul_levels(m, k, n, [outer, inner], "tpu-v5e")
    assert r.of("vmem").bytes >= r.of("hbm").bytes
    assert r.of("vmem").intensity <= r.of("hbm").intensity


def test_the_binding_level_is_the_one_whose_bytes_take_longest() -> None:
    r = h.tiled_matmul_levels(8192, 8192, 8192, [(128, 128, 128), (8, 8, 8)], "tpu-v5e")
    times = {t.level.id: t.t_comms for t in r.traffic} | {"compute": r.flops / r.peak}
    slowest = max(times, key=lambda name: times[name])
    assert r.binding == ("compute" if slowest == "compute" else f"memory: {slowest}")
    assert r.t_lower == max(times.values())


def test_the_smallest_compute_bound_tile_crosses_each_ridge() -> None:
    for chip_id in ("tpu-v5e", "h100-sxm"):
        for fit in h.smallest_compute_bound_tiles(chip_id):
            b = fit.tile
            assert rk.tiled_matmul_intensity(b, b, b) > fit.critical_intensity
            assert rk.tiled_matmul_intensity(b - 1, b - 1, b - 1) <= fit.critical_intensity
            assert fit.held_bytes == h.tile_bytes(b, b, b)
            assert fit.fits == (None if fit.capacity is None else fit.held_bytes <= fit.capacity)


def test_v5e_tiles_compute_bound_from_hbm_fit_in_vmem() -> None:
    hbm, vmem = h.smallest_compute_bound_tiles("tpu-v5e")
    v5e = rk.chip("tpu-v5e")
    assert hbm.holder == "vmem" and hbm.fits is True
    assert hbm.critical_intensity == v5e.critical_intensity("bf16")
    assert vmem.critical_intensity == pytest.approx(v5e.critical_intensity("bf16") / rk.VMEM_OVER_HBM.value)


def test_every_level_figure_of_the_catalog_has_a_source_a_kind_and_a_checked_day() -> None:
    seen = 0
    for c in rk.CHIPS.values():
        for level in c.levels:
            for figure in level.figures():
                where = level.provenance[figure]
                assert where.source in rk.catalog.SOURCES.values(), (c.id, level.id, figure)
                assert where.checked and where.note, (c.id, level.id, figure)
                assert level.kinds[figure] in FIGURE_KINDS, (c.id, level.id, figure)
                seen += 1
    assert seen >= 6
    smem = rk.chip("h100-sxm").levels[1]
    assert smem.kinds["bandwidth"] == "estimate"
    assert [kind for figure, kind in smem.kinds.items() if figure != "bandwidth"] == ["vendor figure"] * 2


def test_a_level_without_a_bandwidth_says_so_and_gets_no_roof() -> None:
    l2 = h.level("h100-sxm", "l2")
    assert not l2.roofed
    message = l2.missing("h100-sxm")
    assert message is not None and "no bandwidth figure" in message and "no roof" in message
    r = h.tiled_matmul_levels(4096, 4096, 4096, [(256, 64, 256)], "h100-sxm")
    assert "memory: l2" not in r.bounds.times and r.unroofed == (message,)
    assert r.of("l2").t_comms is None and r.of("l2").attainable(r.peak) is None
    assert [f.level for f in h.smallest_compute_bound_tiles("h100-sxm")] == ["hbm", "smem"]


def test_a_chip_without_levels_has_hbm_alone() -> None:
    assert [lv.id for lv in h.levels("tpu-v6e")] == ["hbm"]
    (fit,) = h.smallest_compute_bound_tiles("tpu-v6e")
    assert fit.holder == "on-chip memory" and fit.fits is None


def test_fusion_bounds_across_sequence_lengths_are_vectorised() -> None:
    seq = np.array([2048, 8192, 32768])
    for fused in (False, True):
        cost = h.attention_cost(seq, 128, heads=32, fused=fused)
        r = rk.analyze(cost, "h100-sxm")
        assert r.t_lower.shape == seq.shape
    assert set(rk.analyze(h.attention_cost(seq, 128, fused=True), "h100-sxm").bound) == {"compute"}
    assert set(rk.analyze(h.attention_cost(seq, 128), "h100-sxm").bound) == {"memory"}


def test_ceilings_are_below_the_roof_and_labelled() -> None:
    for chip_id in rk.CHIPS:
        found = h.ceilings(chip_id, achieved_bandwidth=0.9)
        roof = rk.chip(chip_id).peak("bf16")
        assert found[0].value == roof
        assert all(c.value <= roof for c in found if c.kind == "compute")
        assert len({c.label for c in found}) == len(found)
    with pytest.raises(rk.RooflineInputError, match="achieved_bandwidth must be a fraction"):
        h.ceilings("tpu-v5e", achieved_bandwidth=2)


def test_bad_input_is_one_line_naming_what_is_accepted() -> None:
    with pytest.raises(rk.RooflineInputError, match=r"^tiles must be a list of \(bm, bk, bn\) tiles"):
        h.tiled_matmul_levels(8, 8, 8, "128", "tpu-v5e")  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="level of tpu-v5e must be one of hbm, vmem"):
        h.level("tpu-v5e", "l2")
    with pytest.raises(rk.RooflineInputError, match="block must be a positive integer"):
        h.attention_cost(128, 64, fused=True, block=0)


GOOD = """
id = "x1"
name = "ACME X1"
hbm_bandwidth = { value = 2, unit = "TB/s" }
dense_flops = { bf16 = 4e14 }

[levels.sram]
name = "SRAM"
units = { value = 64, source = "acme" }
capacity = { value = 256, unit = "KiB", source = "acme", kind = "vendor figure" }
bandwidth_over_hbm = { value = 10, source = "acme", kind = "estimate", note = "ten times HBM" }

[sources.acme]
title = "ACME X1 datasheet"
url = "https://example.com/x1"
kind = "datasheet"
"""


def test_a_chip_file_of_ones_own_gives_levels(tmp_path: Path) -> None:
    path = tmp_path / "x1.toml"
    path.write_text(GOOD, encoding="utf-8")
    (sram,) = rk.load_chip(path).levels
    assert (sram.capacity, sram.units, sram.bandwidth) == (256 * 1024, 64, 2e13)
    assert sram.kinds == {"units": "vendor figure", "capacity": "vendor figure", "bandwidth": "estimate"}
    assert [lv.id for lv in h.levels(rk.load_chip(path))] == ["hbm", "sram"]


@pytest.mark.parametrize(("change", "message"), [
    (('kind = "estimate"', 'kind = "guess"'),
     "x1.toml: levels.sram.bandwidth_over_hbm.kind must be one of vendor figure, paper, microbenchmark, "
     "estimate"),
    (('name = "SRAM"', 'size = "SRAM"'), "x1.toml: levels.sram key must be one of name, capacity, units"),
    (('unit = "KiB"', 'unit = "KiB/s"'), "x1.toml: levels.sram.capacity.unit must be one of B, kB"),
    (('value = 64, source', 'value = 6.5, source'), "x1.toml: levels.sram.units must be a positive integer"),
])
def test_a_wrong_level_field_is_named_in_one_line(tmp_path: Path, change: tuple[str, str],
                                                  message: str) -> None:
    assert change[0] in GOOD
    path = tmp_path / "x1.toml"
    path.write_text(GOOD.replace(*change), encoding="utf-8")
    with pytest.raises(rk.RooflineInputError) as raised:
        rk.load_chip(path)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


# The command line, in-process: `rooflinekit levels`.

def levels_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from rooflinekit.cli import main

    try:
        status = main(["levels", *args])
    except SystemExit as exit_:  # argparse's errors
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_levels_json_is_the_librarys(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    status, out, err = levels_cli(capsys, "--chip", "h100-sxm", "--json")
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert [lv["id"] for lv in data["levels"]] == [lv.id for lv in h.levels("h100-sxm")]
    fits = {f.level: f for f in h.smallest_compute_bound_tiles("h100-sxm")}
    for row in data["levels"]:
        fit = fits.get(row["id"])
        assert row["smallest_compute_bound_tile"] == (fit.tile if fit else None)
        assert row["missing"] == h.level("h100-sxm", row["id"]).missing("h100-sxm")
    assert [c["label"] for c in data["ceilings"]] == [c.label for c in h.ceilings("h100-sxm")]


def test_levels_text_says_what_no_source_gives(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = levels_cli(capsys, "--chip", "h100-sxm")
    assert status == 0
    assert h.level("h100-sxm", "l2").missing("h100-sxm") in out
    status, out, _ = levels_cli(capsys, "--chip", "tpu-v6e")
    assert "tpu-v6e: no on-chip memory has figures in the catalog" in out


def test_levels_counts_a_level_only_where_a_source_does(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    # NVIDIA gives the H100's SM count, hence its shared memories; no B200 SM count is in the catalog.
    counts = {}
    for name in ("h100-sxm", "b200"):
        status, out, _ = levels_cli(capsys, "--chip", name, "--json")
        assert status == 0
        counts[name] = {row["id"]: row["units"] for row in json.loads(out)["levels"]}
    assert counts["h100-sxm"]["smem"] == h.level("h100-sxm", "smem").units == 132
    assert counts["b200"] == {"hbm": 1, "smem": None}
    status, out, _ = levels_cli(capsys, "--chip", "b200")
    assert status == 0 and re.search(r"smem\s+shared memory \(L1\)\s+233472\s+-\s", out), out


def test_levels_reads_a_chip_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "x1.toml"
    path.write_text(GOOD, encoding="utf-8")
    status, out, _ = levels_cli(capsys, "--chip-file", str(path))
    assert status == 0 and "sram" in out


@pytest.mark.parametrize(("args", "message"), [
    (("--chip", "h100"), "argument --chip: must be one of tpu-v5e, tpu-v5p, tpu-v6e, h100-sxm, h200-sxm"),
    (("--chip", "tpu-v5e", "--compute", "fp8"),
     "error: --compute must be a dtype tpu-v5e has a dense peak for (bf16, int8) (got 'fp8')"),
    (("--chip", "tpu-v5e", "--compute", "fp3"), "argument --compute: must be one of fp64, fp32"),
    ((), "one of the arguments --chip --chip-file is required"),
])
def test_levels_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], args: tuple[str, ...],
                                      message: str) -> None:
    status, out, err = levels_cli(capsys, *args)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err and err.startswith("rooflinekit")


# The hierarchical roofline plot.

def test_the_plot_draws_a_roof_per_level_with_a_bandwidth_and_says_which_have_none() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rooflinekit.plot import hierarchical_roofline

    op = h.tiled_matmul_levels(4096, 4096, 4096, [(256, 256, 256), (128, 128, 128)], "h100-sxm")
    ax = hierarchical_roofline("h100-sxm", [("matmul", op)])
    roofs = [line for line in ax.get_lines() if line.get_gid() == "level-roof"]
    assert [r.get_label() for r in roofs] == [lv.name for lv in h.levels("h100-sxm") if lv.roofed]
    for roof, lv in zip(roofs, [lv for lv in h.levels("h100-sxm") if lv.roofed], strict=True):
        assert max(roof.get_ydata()) == op.peak and roof.get_ydata()[0] == roof.get_xdata()[0] * lv.bandwidth
    points = [line for line in ax.get_lines() if line.get_gid() == "level-point"]
    assert [p.get_xdata()[0] for p in points] == [t.intensity for t in op.traffic if t.level.roofed]
    assert [t.get_text() for t in ax.texts if t.get_gid() == "missing-level"] == list(op.unroofed)
    ceiling_lines = [line for line in ax.get_lines() if line.get_gid() == "ceiling"]
    assert len(ceiling_lines) == len(h.ceilings("h100-sxm")) - 1  # the first is the roof itself
    assert {t.get_text() for t in ax.texts} >= {c.label for c in h.ceilings("h100-sxm")[1:]}
    plt.close("all")


# This machine's levels: `rooflinekit measure --levels`.

def test_the_cache_levels_are_sized_from_the_reported_caches() -> None:
    from rooflinekit.measure import cache_level_plan
    from rooflinekit.measure.machine import MachineInfo, describe_machine

    info = MachineInfo("cpu", 1, (("L1d", 49152), ("L2", 2**21), ("L3", 2**25)), 2**25, 2**34, 2**33, "", "")
    plan = cache_level_plan(info)
    assert [name for name, _, _ in plan] == ["L1d", "L2", "L3", "DRAM"]
    for _, cache, working_set in plan[:-1]:
        assert cache is not None and working_set <= cache // 2
    assert plan[-1][1] is None and plan[-1][2] > info.last_level_cache_bytes
    here = describe_machine()
    assert [name for name, _, _ in cache_level_plan(here)][:-1] == sorted(
        dict(here.caches), key=lambda name: dict(here.caches)[name])


# The three tests that measure this machine are in the slow tier with tests/rooflinekit/test_measure.py
# (seconds each, and one measurement at a time: their xdist group).
@pytest.mark.slow
@pytest.mark.xdist_group("measure")
def test_measuring_the_cache_levels_gives_a_bandwidth_for_each() -> None:
    from rooflinekit import measure

    levels = measure.measure_cache_levels(repeats=2, budget=2.0, progress=False)
    plan = measure.cache_level_plan(measure.machine.describe_machine())
    assert [lv.level for lv in levels] == [name for name, _, _ in plan]
    for lv, (_, cache, working_set) in zip(levels, plan, strict=True):
        assert lv.cache_bytes == cache and abs(lv.working_set_bytes - working_set) <= 8192
        assert lv.bandwidth == lv.working_set_bytes * lv.passes / lv.timing.median > 0
    text = measure.report.format_cache_levels([lv.to_dict() for lv in levels])
    assert all(lv.level in text for lv in levels)


def test_an_inner_level_no_faster_than_an_outer_one_is_left_out_and_the_report_says_why() -> None:
    from rooflinekit import measure
    from rooflinekit.measure.timing import Timing

    # As a 2-core virtual machine measured them: numpy's call caps L1d below L2, the host's L3 is no
    # faster than DRAM, and one thread's DRAM copy beats the all-thread roof (a neighbour got busy).
    l1 = measure.CacheLevelResult("L1d", 49152, 24576, 341, Timing((1.4e-4,)), call_seconds=3e-7)
    l2 = measure.CacheLevelResult("L2", 2**21, 2**20, 8, Timing((1.05e-4,)), call_seconds=3e-7)
    l3 = measure.CacheLevelResult("L3", 2**28, 2**27, 1, Timing((1.4e-2,)), call_seconds=3e-7)
    dram = measure.CacheLevelResult("DRAM", None, 2**31, 1, Timing((1e-1,)), call_seconds=3e-7)
    checks = measure.check_levels([l1, l2, l3, dram], dram_roof=1.5e10, threads=2)
    assert [(c.level.level, c.reason) for c in checks] == [("L1d", "call"), ("L2", None), ("L3", "slower"),
                                                           ("DRAM", "roof")]
    text = measure.report.format_cache_levels([c.to_dict() for c in checks])
    assert "L1d left out" in text and "numpy's call alone" in text and "no faster than L2's" in text
    assert "L3 left out" in text and "no faster than DRAM's" in text and "disagree" in text
    chip = measure.machine_chip(1.5e10, {"fp32": 1e11}, measure.machine.describe_machine())
    assert [lv.id for lv in measure.with_levels(chip, [l1, l2, l3, dram]).levels] == ["l2"]
    # In order, every cache stays, and nothing is said.
    fast = measure.CacheLevelResult("L1d", 49152, 24576, 341, Timing((2e-5,)), call_seconds=3e-8)
    ordered = measure.check_levels([fast, l2, dram], dram_roof=3e10, threads=2)
    assert all(c.reason is None for c in ordered) and all(c.note() is None for c in ordered)


@pytest.fixture(scope="module")
def measured_levels() -> dict[str, Any]:
    """``rooflinekit measure --quick --levels --json`` on this machine, once for the tests below
    (each level measured for 2 s at the most)."""
    import contextlib
    import io
    import json

    from rooflinekit import cli

    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setattr(cli.measure, "LEVELS_BUDGET", 2.0)
        assert cli.main(["measure", "--quick", "--budget", "3", "--levels", "--no-progress", "--json"]) == 0
    data: dict[str, Any] = json.loads(printed.getvalue())
    return data


@pytest.mark.slow
@pytest.mark.xdist_group("measure")
def test_measure_levels_on_the_command_line(measured_levels: dict[str, Any]) -> None:
    data = measured_levels
    assert data["cache_levels"][-1]["level"] == "DRAM"
    assert {"level", "cache_bytes", "working_set_bytes", "bandwidth"} <= set(data["cache_levels"][0])
    from rooflinekit.measure.report import format_report, level_of

    assert level_of(1, data["cache_levels"]) == data["cache_levels"][0]["level"]
    # On this machine the levels come out in order, or the report says why one does not.
    caches = data["cache_levels"]
    in_order = [lv for lv in caches if lv["in_order"] and lv["cache_bytes"] is not None]
    outer = max(data["bandwidth"], caches[-1]["bandwidth"])
    for lv in reversed(in_order):
        assert lv["bandwidth"] > outer, (lv["level"], lv["bandwidth"], outer)
        outer = lv["bandwidth"]
    printed = format_report(data)
    for lv in caches:
        assert lv["in_order"] == (lv["note"] is None)
        assert lv["in_order"] or lv["note"] in printed
    # A report saved before the kernels were placed on the levels still says where their bytes live.
    older = {key: value for key, value in data.items() if key != "kernel_levels"}
    assert "where each kernel's bytes live" in format_report(older)
    assert "where each kernel's bytes live" not in format_report(data)


def smallest_holding(nbytes: float, cache_levels: list[dict[str, Any]]) -> str:
    """The level a working set lives in, from the reported cache sizes: the smallest cache that holds
    it, DRAM when none does (worked out here, independently of the library)."""
    holding = sorted((lv["cache_bytes"], lv["level"]) for lv in cache_levels
                     if lv["cache_bytes"] is not None and nbytes <= lv["cache_bytes"]
                     and lv.get("in_order", True))
    return str(holding[0][1]) if holding else "DRAM"


@pytest.mark.slow
@pytest.mark.xdist_group("measure")
def test_measure_levels_places_each_kernel_on_its_levels_roof(measured_levels: dict[str, Any]) -> None:
    from rooflinekit.measure.report import format_report

    data = measured_levels
    placed, caches = data["kernel_levels"], data["cache_levels"]
    assert [k["name"] for k in placed] == [k["name"] for k in data["kernels"]]
    bandwidth = {lv["level"]: lv["bandwidth"] for lv in caches[:-1]} | {"DRAM": data["bandwidth"]}
    capacity = {lv["level"]: lv["cache_bytes"] for lv in caches[:-1]}
    levels_seen = set()
    for k, kernel in zip(placed, data["kernels"], strict=True):
        assert k["working_set_bytes"] == kernel["bytes"]
        assert k["level"] == smallest_holding(kernel["bytes"], caches)
        levels_seen.add(k["level"])
        assert k["level_capacity_bytes"] == capacity.get(k["level"], data["machine"]["memory_bytes"])
        assert k["level_bandwidth"] == bandwidth[k["level"]]
        roof = min(data["peaks"][k["compute"]], kernel["intensity"] * bandwidth[k["level"]])
        assert k["roof_flops_per_second"] == pytest.approx(roof)
        assert k["efficiency"] == pytest.approx(kernel["achieved_flops_per_second"] / roof)
        assert k["bound"] == ("compute" if roof == data["peaks"][k["compute"]] else "memory")
    assert "DRAM" in levels_seen  # the kernels over the measurement's large arrays live in DRAM

    out = format_report(data)  # what the command prints without --json
    assert "kernels on this machine's hierarchical roofline: each against the roof of the level its" in out
    table = out.split("kernels on this machine's hierarchical roofline")[1].splitlines()[2:]
    assert table[0].split()[:4] == ["kernel", "working", "set", "level"]
    rows = {k["name"]: k for k in placed}
    for name, k in rows.items():
        (line,) = [row for row in table if row.startswith(f"  {name} ")]
        assert line[len(name) + 2:].split()[2] == k["level"]


def test_a_working_set_lives_in_the_smallest_cache_that_holds_it() -> None:
    from rooflinekit import measure
    from rooflinekit.costs import elementwise_cost
    from rooflinekit.measure.timing import Timing

    info = measure.machine.describe_machine()
    chip = measure.machine_chip(2e10, {"fp32": 2e11}, info)
    caches = [measure.CacheLevelResult("L1d", 49152, 24576, 100, Timing((1e-5,))),
              measure.CacheLevelResult("L2", 2**21, 2**20, 8, Timing((1e-4,))),
              measure.CacheLevelResult("DRAM", None, 2**28, 1, Timing((2e-2,)))]
    kernels = []
    for n in (1, 49152 // 12, 49152 // 12 + 1, 2**21 // 12, 2**21 // 12 + 1):  # 3 arrays of 4 bytes
        cost = elementwise_cost(n, dtype="fp32", inputs=2)
        kernels.append(measure.KernelResult(f"add {n}", "fp32", cost, Timing((1e-6,)),
                                            rk.analyze(cost, chip, compute="fp32")))
    placed = measure.kernels_on_levels(kernels, chip, caches)
    assert [k.level.name for k in placed] == ["L1d", "L1d", "L2", "L2", "DRAM"]
    assert [k.level.name for k in placed] == [smallest_holding(12 * n, [c.to_dict() for c in caches])
                                              for n in (1, 4096, 4097, 174762, 174763)]
    l1 = placed[0]
    assert l1.roof == min(2e11, l1.kernel.intensity * caches[0].bandwidth)
    assert placed[-1].roof == min(2e11, placed[-1].kernel.intensity * 2e10)  # DRAM: the chip's bandwidth


def test_the_hierarchical_roofline_draws_measured_kernels_where_they_landed() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rooflinekit import measure
    from rooflinekit.measure.timing import Timing
    from rooflinekit.plot import ROOF_COLORS, hierarchical_roofline

    chip = measure.machine_chip(2e10, {"fp32": 2e11}, measure.machine.describe_machine())
    caches = [measure.CacheLevelResult("L2", 2**21, 2**20, 8, Timing((1e-4,))),
              measure.CacheLevelResult("DRAM", None, 2**28, 1, Timing((2e-2,)))]
    mine = measure.with_levels(chip, caches)
    points = [h.MeasuredPoint("small", "l2", 0.5, 3e9), h.MeasuredPoint("large", "hbm", 0.25, 1e9)]
    ax = hierarchical_roofline(mine, compute="fp32", show_ceilings=False, measured=points)
    drawn = [line for line in ax.get_lines() if line.get_gid() == "measured-point"]
    assert [(p.get_xdata()[0], p.get_ydata()[0]) for p in drawn] == [(0.5, 3e9), (0.25, 1e9)]
    assert [p.get_label() for p in drawn] == ["small (L2)", "large (DRAM)"]
    roofs = {line.get_label(): line.get_color() for line in ax.get_lines() if line.get_gid() == "level-roof"}
    assert [p.get_color() for p in drawn] == [roofs["L2"], roofs["DRAM"]] == [ROOF_COLORS[1], ROOF_COLORS[0]]
    with pytest.raises(rk.RooflineInputError, match="measured"):
        hierarchical_roofline(mine, compute="fp32", measured=[h.MeasuredPoint("x", "l1d", 1.0, 1e9)])
    plt.close("all")


def test_a_measured_machine_gets_its_caches_as_levels() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rooflinekit import measure
    from rooflinekit.measure.timing import Timing
    from rooflinekit.plot import hierarchical_roofline

    info = measure.machine.describe_machine()
    chip = measure.machine_chip(2e10, {"fp32": 2e11}, info)
    found = [measure.CacheLevelResult("L1d", 49152, 24576, 100, Timing((1e-5,))),
             measure.CacheLevelResult("L2", 2**21, 2**20, 8, Timing((1e-4,))),
             measure.CacheLevelResult("DRAM", None, 2**28, 1, Timing((2e-2,)))]
    mine = measure.with_levels(chip, found)
    assert [lv.id for lv in h.levels(mine)] == ["hbm", "l2", "l1d"]  # outermost first; DRAM is the chip's own
    assert all(lv.kinds == {"capacity": "measured", "bandwidth": "measured"} for lv in mine.levels)
    assert [lv.bandwidth for lv in mine.levels] == [found[1].bandwidth, found[0].bandwidth]
    ax = hierarchical_roofline(mine, compute="fp32", show_ceilings=False)
    roofs = [line.get_label() for line in ax.get_lines() if line.get_gid() == "level-roof"]
    assert roofs == ["DRAM", "L2", "L1d"]
    plt.close("all")
