"""Measuring this machine: figures are sane, the roofline classifies kernels, budgets hold,
bad input is refused (API and command line), and the GPU part says why it skipped.

One quick measurement is shared by the whole module (it takes up to its 20 s budget); the
other runs are tiny (small arrays, one small matmul) and take about a second.
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import json
import math
import subprocess
import sys
import time
from typing import Any

import pytest

import rooflinekit as rk
from rooflinekit import measure
from rooflinekit.measure.kernels import ELEMENT_BYTES, Arena, skinny_width
from rooflinekit.measure.timing import Progress, Schedule, time_interleaved
from tests.support.cli import run_cli

# measures this machine, within budgets of seconds
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("measure")]

TINY = {"array_bytes": 2**22, "matmul_sizes": [64], "budget": 5.0}


@pytest.fixture(scope="module")
def quick() -> tuple[measure.Measurement, float]:
    start = time.perf_counter()
    result = measure.measure_machine(quick=True)
    return result, time.perf_counter() - start


def _finite_positive(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value) and value > 0


def test_figures_are_positive_and_finite(quick: tuple[measure.Measurement, float]) -> None:
    m, _ = quick
    assert _finite_positive(m.bandwidth)
    assert set(m.peaks) == {"fp32", "fp64"} and all(_finite_positive(p) for p in m.peaks.values())
    for s in (*m.streams, *m.cache_sweep):
        assert _finite_positive(s.bandwidth) and s.timing.repeats >= 1, s
    for mm in m.matmuls:
        assert _finite_positive(mm.flops_per_second), mm
    for k in m.kernels:
        assert all(_finite_positive(v) for v in (k.achieved, k.attainable, k.efficiency, k.intensity)), k
    json.dumps(m.to_dict(), allow_nan=False)  # JSON-ready: raises on any inf or nan


def test_the_chip_is_the_best_measurements(quick: tuple[measure.Measurement, float]) -> None:
    m, _ = quick
    all_threads = [s for s in m.streams if s.threads == m.plan.threads]
    assert {s.name for s in all_threads} == {"copy", "scale", "add", "triad"}
    assert m.stream("copy", threads=1) in m.streams
    assert m.bandwidth == max(s.bandwidth for s in m.streams) == m.best_stream.bandwidth
    assert all(s.array_bytes == m.plan.array_bytes for s in m.streams)
    for dtype in ("fp32", "fp64"):
        assert m.peaks[dtype] == max(x.flops_per_second for x in m.matmuls if x.dtype == dtype)
    # The peak is the best matmul, so no square matmul sits above the roof.
    assert all(k.efficiency <= 1 + 1e-12 for k in m.kernels if "matmul" in k.name)


def test_stream_bytes_are_counted_reads_plus_writes(quick: tuple[measure.Measurement, float]) -> None:
    m, _ = quick
    arrays = {"copy": 2, "scale": 2, "add": 3, "triad": 3}
    for s in m.streams:
        assert s.bytes_counted == arrays[s.name] * s.array_bytes
        assert s.bandwidth == pytest.approx(s.bytes_counted / s.timing.median)


def test_arrays_dwarf_the_last_level_cache(quick: tuple[measure.Measurement, float]) -> None:
    m, _ = quick
    llc = m.machine.last_level_cache_bytes
    enough_memory = m.machine.available_memory_bytes // 8 >= 2 * llc
    assert m.plan.array_bytes >= 2 * llc or not enough_memory


def test_the_measured_chip_works_like_a_catalog_chip(quick: tuple[measure.Measurement, float]) -> None:
    m, _ = quick
    chip = m.chip
    assert chip.id == "this-machine" and set(chip.dense_flops) == {"fp32", "fp64"}
    assert chip.hbm_bandwidth == m.bandwidth
    big = rk.analyze(rk.matmul_cost(4096, 4096, 4096, x="fp32", w="fp32", out="fp32"), chip, compute="fp32")
    dot = rk.analyze(rk.dot_cost(10**8, "fp32"), chip, compute="fp32")
    assert (big.bound, dot.bound) == ("compute", "memory")
    assert big.critical_intensity == pytest.approx(m.peaks["fp32"] / m.bandwidth)
    batch = rk.matmul_critical_batch(8192, 8192, chip, x="fp32", w="fp32", out="fp32", compute="fp32")
    approx = rk.matmul_critical_batch_approx(chip, w="fp32", compute="fp32")
    assert 0 < approx < batch < math.inf
    assert chip.to_dict()["critical_intensity_bf16"] is None  # a CPU measured without bf16


def test_measured_kernels_land_where_the_model_says(quick: tuple[measure.Measurement, float]) -> None:
    m, _ = quick
    assert m.kernel("fp32 matmul 2048x2048x2048").bound == "compute"
    assert m.kernel("np.dot(b, c)").bound == "memory"
    assert m.kernel("np.add(b, c, out=a)").bound == "memory"
    intensities = [k.intensity for k in m.kernels]
    assert intensities == sorted(intensities)
    assert intensities[0] < 0.1 and intensities[-1] > 300  # three decades and more of intensity


def test_kernel_costs_come_from_the_cost_models(quick: tuple[measure.Measurement, float]) -> None:
    m, _ = quick
    n = m.plan.array_bytes // ELEMENT_BYTES // 4096 * 4096
    assert m.kernel("np.dot(b, c)").cost == rk.dot_cost(n, "fp32")
    assert m.kernel("np.add(b, c, out=a)").cost == rk.elementwise_cost(n, dtype="fp32", inputs=2)
    big = m.kernel("fp32 matmul 2048x2048x2048")
    assert big.cost == rk.matmul_cost(2048, 2048, 2048, x="fp32", w="fp32", out="fp32")
    k = m.kernel("np.dot(b, c)")
    assert k.attainable == pytest.approx(min(m.peaks["fp32"], k.intensity * m.bandwidth))
    assert k.efficiency == pytest.approx(float(k.cost.flops) / k.timing.median / k.attainable)


def test_quick_mode_reports_its_budget_and_the_time_it_took(quick: tuple[measure.Measurement, float]) -> None:
    m, wall = quick
    assert m.plan.budget == measure.QUICK_BUDGET
    assert 0 < m.elapsed <= wall


def test_gpu_part_runs_or_says_why_not(quick: tuple[measure.Measurement, float]) -> None:
    m, _ = quick
    if m.gpu.ran:
        assert m.gpu.chip is not None and m.gpu.chip.hbm_bandwidth > 0
        return
    for library in ("torch", "jax"):
        if importlib.util.find_spec(library) is None:
            assert f"{library} is not installed" in m.gpu.skipped
    assert m.gpu.message.startswith("GPU measurement skipped: ")


def test_the_smallest_accepted_arrays_measure_everything() -> None:
    for quick in (True, False):
        m = measure.measure_machine(
            quick=quick, array_bytes=measure.MIN_ARRAY_BYTES, matmul_sizes=[32], budget=1.0, gpu=False
        )
        assert len(m.kernels) == 2 + 3 + len(m.plan.batches) and m.bandwidth > 0


def test_a_tiny_run_has_no_stderr_unless_asked(capsys: pytest.CaptureFixture[str]) -> None:
    quiet = measure.measure_machine(quick=True, **TINY)  # type: ignore[arg-type]
    assert capsys.readouterr().err == ""
    assert quiet.plan.array_bytes == 2**22 and quiet.plan.matmul_sizes == (64,)
    measure.measure_machine(quick=True, progress=True, gpu=False, **TINY)  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert err.startswith("\rmeasuring [") and err.endswith("\n") and "kernels" in err


@pytest.mark.parametrize("budget", [0, -1.0, math.nan, math.inf, "20", True, [10]])
def test_bad_budgets_are_refused(budget: Any) -> None:
    with pytest.raises(rk.RooflineInputError, match=r"^budget must be a positive, finite number of seconds"):
        measure.measure_machine(quick=True, budget=budget)


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("array_bytes", 0),
        ("array_bytes", -4096),
        ("array_bytes", 2.5e6),
        ("array_bytes", 10**15),
        ("matmul_sizes", []),
        ("matmul_sizes", [0]),
        ("matmul_sizes", [256, -1]),
        ("matmul_sizes", [64.5]),
        ("matmul_sizes", [10**6]),
        ("matmul_sizes", "512"),
        ("threads", 0),
        ("progress", "yes"),
        ("quick", 1),
    ],
)
def test_bad_sizes_are_refused(argument: str, value: Any) -> None:
    with pytest.raises(rk.RooflineInputError) as caught:
        measure.measure_machine(**{argument: value, "budget": 1.0})
    assert caught.value.argument == argument
    assert str(caught.value).startswith(f"{argument} must be ")


def test_lower_level_functions_refuse_bad_input() -> None:
    with pytest.raises(rk.RooflineInputError, match=r"^streams must be"):
        measure.measure_bandwidth(2**20, streams=["memcpy"])
    with pytest.raises(rk.RooflineInputError, match=r"^repeats must be"):
        measure.measure_bandwidth(2**20, repeats=0)
    with pytest.raises(rk.RooflineInputError, match=r"^dtype must be one of fp32, fp64"):
        measure.measure_matmul([64], "bf16")
    with pytest.raises(rk.RooflineInputError, match=r"^sizes must be"):
        measure.measure_matmul([0])


def test_measure_bandwidth_and_matmul_small() -> None:
    streams = measure.measure_bandwidth(2**22, threads=1, repeats=3)
    assert [s.name for s in streams] == ["copy", "scale", "add", "triad"]
    assert all(s.threads == 1 and s.array_bytes == 2**22 and s.bandwidth > 0 for s in streams)
    (mm,) = measure.measure_matmul([96], "fp32", repeats=3)
    assert mm.flops == 2 * 96**3 and mm.flops_per_second > 0


def test_the_arena_splits_work_across_threads_exactly() -> None:
    arena = Arena.allocate(2**20 + 3 * 4096 * 4, threads=3)
    try:
        parts = arena.chunks()
        assert parts[0].start == 0 and parts[-1].stop == arena.n
        assert all(a.stop == b.start for a, b in itertools.pairwise(parts))
        assert len(parts) == 3 and skinny_width(arena) ** 2 <= arena.n
    finally:
        arena.close()


def test_interleaved_timing_stops_at_its_deadline() -> None:
    def nap() -> None:
        time.sleep(0.01)

    start = time.perf_counter()
    (timing,) = time_interleaved([nap], repeats=1000, deadline=start + 0.1)
    assert 1 <= timing.repeats <= 12  # a warm-up call, then one sample a round until 0.1 s have passed
    assert timing.median >= 0.01


def test_no_round_starts_when_it_would_end_past_the_deadline() -> None:
    """The budget's promise, which load cannot break: a round starts only if the one before it,
    taken again from where it ended, would end by the deadline; the first round always runs.
    (How long a round takes is the machine's; a busier machine only runs fewer of them.)"""
    starts: list[float] = []
    ends: list[float] = []

    def nap() -> None:  # longer than a round's aim: one call a sample, one sample a round
        starts.append(time.perf_counter())
        time.sleep(0.003)

    deadline = time.perf_counter() + 0.05
    time_interleaved([nap], repeats=100, deadline=deadline, on_round=lambda: ends.append(time.perf_counter()))
    warm_up = len(starts) - len(ends)  # the calls before the first round (a short one is timed thrice)
    rounds = list(zip(starts[warm_up:], ends, strict=True))
    assert 1 <= len(rounds) < 100
    for start, end in rounds[:-1]:  # each was followed by another round, which was allowed to start
        assert end + (end - start) <= deadline
    starts.clear()
    ends.clear()
    past = time.perf_counter() - 1.0
    time_interleaved([nap], repeats=100, deadline=past, on_round=lambda: ends.append(0.0))
    assert len(ends) == 1  # a deadline already past: the one round every measurement gets


def test_schedule_shares_what_is_left_and_progress_draws_only_with_a_stream() -> None:
    schedule = Schedule(12.0, tasks=3)
    first = schedule.next_deadline()
    assert first is not None and 3.9 < first - schedule.start < 4.1
    schedule.finish("one")
    assert schedule.tasks_left == 2
    silent = Progress(3, 12.0, None)
    silent.show("x", 1, 1.0)
    silent.close()  # nothing to write to, nothing raised
    out = io.StringIO()
    bar = Progress(3, 12.0, out)
    bar.show("copy", 3, 2.0)
    bar.close()
    assert out.getvalue() == "\rmeasuring [########################] 3/3  2.0 s of 12 s  copy\n"


# --- the command line -------------------------------------------------------------------------------


def test_cli_measure_json_is_one_object_and_nothing_on_stderr() -> None:
    done = run_cli("measure", "--quick", "--budget", "6", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = json.loads(done.stdout)
    assert out["chip"]["id"] == "this-machine" and out["budget"] == 6.0 and out["quick"] is True
    assert out["bandwidth"] == out["chip"]["hbm_bandwidth"] > 0
    best = out["best_stream"]
    assert out["bandwidth"] == max(s["bandwidth"] for s in out["streams"])
    assert [(s["name"], s["threads"]) for s in out["streams"] if s["bandwidth"] == out["bandwidth"]] == [
        (best["name"], best["threads"])
    ]
    assert set(out["peaks"]) == {"fp32", "fp64"}
    assert {k["name"] for k in out["kernels"]} >= {"np.dot(b, c)", "fp32 matmul 2048x2048x2048"}
    assert out["gpu"]["message"]
    assert measure.format_report(out).startswith("this machine (")


@pytest.mark.parametrize("budget", ["0", "-5", "nan", "inf", "ten"])
def test_cli_refuses_a_bad_budget_in_one_line(budget: str) -> None:
    done = run_cli("measure", "--quick", f"--budget={budget}")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "--budget" in done.stderr and "a positive, finite number of seconds" in done.stderr


def test_the_cli_and_the_package_do_not_load_the_measuring_code() -> None:
    probe = (
        "import sys, rooflinekit, rooflinekit.cli;"
        "print(','.join(m for m in sys.modules if m.startswith('rooflinekit.measure')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_the_gpu_code_path_builds_a_chip_from_any_backend() -> None:
    """No GPU here: a numpy backend runs the very code a torch or jax backend runs (float32
    stands in for bf16, which numpy lacks), so the report and chip it builds are checked."""
    import numpy as np

    from rooflinekit.measure import gpu as _gpu

    def stream(name: str, array_bytes: int) -> Any:
        a, b, c = (np.full(array_bytes // 4, v, dtype=np.float32) for v in (0.0, 1.0, 0.5))
        return (lambda: np.copyto(a, b)) if name == "copy" else (lambda: np.add(b, 3 * c, out=a))

    def matmul(n: int, dtype: str) -> Any:
        x = np.ones((n, n), dtype=np.float32)
        return lambda: x @ x

    backend = _gpu.Backend("numpy", "a CPU standing in", 2**33, stream, matmul)
    schedule = Schedule(2.0, tasks=_gpu.task_count(True))
    report = _gpu.measure_gpu(backend, ("jax is not installed",), quick=True, schedule=schedule, repeats=3,
                              array_bytes=2**22, sizes=(64, 128))
    assert report.ran and report.message == "GPU measured: a CPU standing in through numpy."
    assert report.chip is not None and report.chip.id == "this-gpu"
    assert set(report.chip.dense_flops) == {"fp32", "bf16"}
    assert report.chip.hbm_bandwidth == max(s.bandwidth for s in report.streams) > 0
    measured = [(m.dtype, m.n) for m in report.matmuls]
    assert measured == [("fp32", 64), ("fp32", 128), ("bf16", 64), ("bf16", 128)]
    json.dumps(report.to_dict(), allow_nan=False)
