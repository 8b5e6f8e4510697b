"""Running a measurement: time the kernels within the budget and gather the results.

:func:`measure_machine` is the whole measurement (CPU, then GPU where one is found);
:func:`measure_bandwidth` and :func:`measure_matmul` time one part on its own, and
:func:`measure_cache_levels` the copy bandwidth at a working set inside each cache level.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from rooflinekit.analysis import analyze
from rooflinekit.catalog import Chip
from rooflinekit.errors import RooflineInputError
from rooflinekit.measure.gpu import Backend, find_backend, measure_gpu, task_count
from rooflinekit.measure.kernels import (
    ELEMENT_BYTES,
    NUMPY_DTYPES,
    STREAMS,
    Arena,
    Kernel,
    memory_kernels,
    skinny_matmul_kernels,
    square_matmul_kernel,
    stream_call,
)
from rooflinekit.measure.machine import MachineInfo, describe_machine
from rooflinekit.measure.planning import (
    MEASURED_DTYPES,
    Plan,
    check_budget,
    check_repeats,
    check_sizes,
    plan_measurement,
)
from rooflinekit.measure.records import (
    NOT_ASKED,
    CacheLevelResult,
    GpuReport,
    KernelResult,
    MatmulResult,
    Measurement,
    StreamResult,
    best_flops,
    machine_chip,
)
from rooflinekit.measure.timing import Progress, Schedule, Timing, progress_stream, time_interleaved
from rooflinekit.words import message

TARGET_FRACTION = 0.85
"""Share of the budget the repeats are planned to fill; the rest absorbs overruns."""
_ALIGN_ELEMENTS = 1024
_IN_CACHE_BYTES = 2**26
"""Streams over arrays smaller than this re-warm the cache before each sample."""


def _time_streams(
    jobs: Sequence[tuple[str, int, int | None]], arena: Arena, repeats: int, schedule: Schedule, label: str,
) -> list[StreamResult]:
    """Time STREAM kernels ``(name, threads, elements or None for the whole arena)``, interleaved.

    In-cache sizes loop short calls and re-warm the cache before each sample.
    """
    calls = [stream_call(name, arena, threads, n) for name, threads, n in jobs]
    small = any(n is not None and n * ELEMENT_BYTES < _IN_CACHE_BYTES for _, _, n in jobs)
    timings = time_interleaved(
        calls, repeats=repeats, deadline=schedule.next_deadline(len(jobs)), rewarm=small,
        on_round=lambda: schedule.tick(label),
    )
    schedule.finish(label, len(jobs))
    return [
        StreamResult(name, threads, (arena.n if n is None else n) * ELEMENT_BYTES, timing)
        for (name, threads, n), timing in zip(jobs, timings, strict=True)
    ]


def _time_kernels(kernels: Sequence[Kernel], repeats: int, schedule: Schedule, label: str) -> list[Timing]:
    timings = time_interleaved(
        [k.run for k in kernels], repeats=repeats, deadline=schedule.next_deadline(len(kernels)),
        on_round=lambda: schedule.tick(label),
    )
    schedule.finish(label, len(kernels))
    return timings


def measure_bandwidth(
    array_bytes: int | None = None,
    *,
    threads: int | None = None,
    streams: Sequence[str] = tuple(STREAMS),
    repeats: int = 5,
    budget: float | None = None,
) -> tuple[StreamResult, ...]:
    """Time STREAM kernels over float32 arrays of ``array_bytes`` bytes each on ``threads`` threads.

    Defaults: arrays 4x the last-level cache (at least 256 MiB), all usable CPUs.

    >>> [s.name for s in measure_bandwidth(2**20, streams=["scale"], repeats=2)]
    ['scale']
    """
    plan = plan_measurement(array_bytes=array_bytes, threads=threads, budget=budget)
    names = list(streams) if isinstance(streams, Sequence) and not isinstance(streams, str) else [streams]
    if not names or any(name not in STREAMS for name in names):
        raise RooflineInputError("streams", "a non-empty list of " + ", ".join(STREAMS), streams)
    repeats = check_repeats(repeats)
    schedule = Schedule(plan.budget if budget is not None else None, len(names))
    arena = Arena.allocate(plan.array_bytes, plan.threads)
    try:
        jobs = [(name, plan.threads, None) for name in names]
        return tuple(_time_streams(jobs, arena, repeats, schedule, "streams"))
    finally:
        arena.close()


CACHE_SHARE = 2
"""A cache level's working set is its size over this: the copy's two arrays fit with room to spare."""
DRAM_OVER_LLC = 8
"""The DRAM level's working set is this many times the last-level cache: nothing of it stays cached."""


def cache_level_plan(info: MachineInfo) -> list[tuple[str, int | None, int]]:
    """``(level, cache bytes or None for DRAM, working-set bytes)`` for every data cache the
    machine reports, smallest first, then DRAM: working sets sized from the reported caches.

    >>> from rooflinekit.measure.machine import MachineInfo
    >>> caches = (("L1d", 49152), ("L2", 2**21), ("L3", 2**25))
    >>> info = MachineInfo("cpu", 1, caches, 2**25, 2**34, 2**33, "", "")
    >>> [(name, ws) for name, _, ws in cache_level_plan(info)]
    [('L1d', 24576), ('L2', 1048576), ('L3', 16777216), ('DRAM', 268435456)]
    """
    levels: dict[str, int] = {}
    for name, size in info.caches:
        levels[name] = max(size, levels.get(name, 0))
    ordered = sorted(levels.items(), key=lambda item: item[1])
    plan: list[tuple[str, int | None, int]] = [(name, size, size // CACHE_SHARE) for name, size in ordered]
    plan.append(("DRAM", None, DRAM_OVER_LLC * info.last_level_cache_bytes))
    return plan


PASS_BYTES = 2**23
"""Bytes one timed call of the cache-level copy moves at least: a small working set is copied
as many times as that takes."""


def _passes_copy(arena: Arena, elements: int, passes: int) -> Callable[[], None]:
    """One timed call: ``passes`` copies of ``arena.b[:elements]`` onto ``arena.a[:elements]``.
    (A numpy copy through a zero stride would need no Python loop, but numpy buffers it and is
    slower; the loop's few hundred nanoseconds a copy still cap what the smallest cache shows.)"""
    a, b = arena.a[:elements], arena.b[:elements]

    def copies() -> None:
        for _ in range(passes):
            np.copyto(a, b)

    return copies


def measure_cache_levels(
    *, repeats: int = 5, budget: float | None = 10.0, progress: bool | None = None,
    info: MachineInfo | None = None,
) -> tuple[CacheLevelResult, ...]:
    """Copy bandwidth (one thread) at a working set inside each cache level the machine reports,
    then in DRAM: the levels of this machine's memory hierarchy, measured.

    >>> levels = measure_cache_levels(repeats=2, budget=2.0)
    >>> levels[-1].level, all(lv.bandwidth > 0 for lv in levels)
    ('DRAM', True)
    """
    info = info or describe_machine()
    plan = cache_level_plan(info)
    repeats = check_repeats(repeats)
    checked = None if budget is None else check_budget(budget)
    bar = Progress(len(plan), checked, progress_stream(progress))
    schedule = Schedule(checked, len(plan), bar)
    arena = Arena.allocate(max(ws for _, _, ws in plan) // 2, 1)  # two arrays: half the working set each
    try:
        sizes = [max(_ALIGN_ELEMENTS, ws // 2 // ELEMENT_BYTES) for _, _, ws in plan]
        passes = [max(1, PASS_BYTES // (2 * n * ELEMENT_BYTES)) for n in sizes]
        calls = [_passes_copy(arena, n, count) for n, count in zip(sizes, passes, strict=True)]
        label = "copy bandwidth by memory level"
        timings = time_interleaved(calls, repeats=repeats, deadline=schedule.next_deadline(len(calls)),
                                   on_round=lambda: schedule.tick(label), rewarm=True)
        schedule.finish(label, len(calls))
    finally:
        arena.close()
        bar.close()
    call = call_seconds()
    return tuple(CacheLevelResult(name, size, 2 * n * ELEMENT_BYTES, count, timing, call)
                 for (name, size, _), n, count, timing in zip(plan, sizes, passes, timings, strict=True))


CALLS = 2000
"""Calls of a copy of a few bytes that :func:`call_seconds` times together."""


def call_seconds(repeats: int = 5) -> float:
    """What one ``np.copyto`` call costs on its own: the median over ``repeats`` of ``CALLS`` copies
    of 16 bytes, over ``CALLS``. A copy of a small cache's working set that takes not much longer
    measures the call, not the cache.

    >>> 0 < call_seconds(repeats=1) < 1e-3
    True
    """
    a, b = np.zeros(4, dtype=np.float32), np.ones(4, dtype=np.float32)
    samples = []
    for _ in range(check_repeats(repeats)):
        start = time.perf_counter()
        for _ in range(CALLS):
            np.copyto(a, b)
        samples.append((time.perf_counter() - start) / CALLS)
    return float(np.median(samples))


def measure_matmul(
    sizes: Sequence[int], dtype: str = "fp32", *, repeats: int = 5, budget: float | None = None
) -> tuple[MatmulResult, ...]:
    """Time ``np.matmul`` of square ``dtype`` (fp32 or fp64) matrices of each size, interleaved.

    >>> [m.n for m in measure_matmul([32, 64], "fp32", repeats=2)]
    [32, 64]
    """
    checked = check_sizes("sizes", sizes)
    if dtype not in NUMPY_DTYPES:
        raise RooflineInputError("dtype", "one of " + ", ".join(NUMPY_DTYPES), dtype)
    repeats = check_repeats(repeats)
    schedule = Schedule(check_budget(budget) if budget is not None else None, len(checked))
    timings = _time_kernels([square_matmul_kernel(n, dtype) for n in checked], repeats, schedule, "matmuls")
    return tuple(MatmulResult(dtype, n, t) for n, t in zip(checked, timings, strict=True))


def _place(kernel: Kernel, timing: Timing, chip: Chip) -> KernelResult:
    roofline = analyze(kernel.cost, chip, compute=kernel.compute)
    return KernelResult(kernel.name, kernel.compute, kernel.cost, timing, roofline, kernel.note)


class _CpuPart(NamedTuple):
    chip: Chip
    streams: list[StreamResult]
    sweep: list[StreamResult]
    matmuls: list[MatmulResult]
    kernels: list[KernelResult]


def _measure_cpu(plan: Plan, info: MachineInfo, schedule: Schedule) -> _CpuPart:
    """Streams, the cache sweep and matmuls give the chip; then the kernels are placed on it."""
    repeats = plan.max_repeats
    arena = Arena.allocate(plan.array_bytes, plan.threads)
    try:
        jobs = [(name, plan.threads, None) for name in STREAMS]
        jobs += [(name, 1, None) for name in plan.single_thread_streams]
        streams = _time_streams(jobs, arena, repeats, schedule, "memory bandwidth (STREAM)")
        sweep_jobs = [("copy", 1, max(_ALIGN_ELEMENTS, size // ELEMENT_BYTES)) for size in plan.sweep_bytes]
        sweep = _time_streams(sweep_jobs, arena, repeats, schedule, "copy bandwidth by array size")
        sizes = [(dtype, n) for dtype in MEASURED_DTYPES for n in plan.matmul_sizes]
        square = [square_matmul_kernel(n, dtype) for dtype, n in sizes]
        timings = _time_kernels(square, repeats, schedule, "matmul FLOP/s")
        matmuls = [MatmulResult(dtype, n, t) for (dtype, n), t in zip(sizes, timings, strict=True)]
        chip = machine_chip(max(s.bandwidth for s in streams), best_flops(matmuls), info)
        placed = [_place(k, t, chip) for k, t in zip(square, timings, strict=True)]
        del square  # the matrices go before the kernels' arrays are made
        kernels = memory_kernels(arena) + skinny_matmul_kernels(arena, plan.batches)
        timings = _time_kernels(kernels, repeats, schedule, "kernels")
        placed += [_place(k, t, chip) for k, t in zip(kernels, timings, strict=True)]
        del kernels
    finally:
        arena.close()
        del arena
    placed.sort(key=lambda k: k.intensity)
    return _CpuPart(chip, streams, sweep, matmuls, placed)


def _measure_gpu(
    backend: Backend | None, skipped: tuple[str, ...], quick: bool, schedule: Schedule, repeats: int
) -> GpuReport:
    if backend is None:
        return GpuReport(ran=False, skipped=skipped)
    try:
        return measure_gpu(backend, skipped, quick=quick, schedule=schedule, repeats=repeats)
    except Exception as error:  # out of GPU memory, a driver error: the CPU results still stand
        reason = message("{backend} failed on {device}: {error}", backend=backend.name, device=backend.device,
                         error=f"{type(error).__name__}: {error}")
        return GpuReport(ran=False, skipped=(*skipped, reason))


def measure_machine(
    *,
    quick: bool = False,
    budget: float | None = None,
    array_bytes: int | None = None,
    matmul_sizes: Sequence[int] | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    gpu: bool = True,
) -> Measurement:
    """Measure bandwidth, peak FLOP/s and kernels within ``budget`` seconds.

    ``quick`` runs in at most :data:`~rooflinekit.measure.planning.QUICK_BUDGET` seconds (by
    default) with smaller arrays, fewer sizes and fewer repeats. Each measurement gets a warm-up
    and at least one timed repeat whatever the budget, so a budget below that minimum is overrun
    by it. ``progress``: ``None`` shows a bar on stderr only when stderr is a terminal.
    ``gpu``: also measure a GPU through torch or jax where one is installed and sees one.

    A tiny run (small arrays that fit in cache, one small matmul size) takes about a second:

    >>> tiny = measure_machine(quick=True, array_bytes=2**22, matmul_sizes=[64], budget=2.0, gpu=False)
    >>> tiny.chip.id, sorted(tiny.peaks), tiny.kernel("np.dot(b, c)").bound
    ('this-machine', ['fp32', 'fp64'], 'memory')
    >>> from rooflinekit.measure.report import format_report
    >>> print(format_report(tiny.to_dict()).splitlines()[0])  # doctest: +ELLIPSIS
    this machine (...): measured in ... (quick mode, budget 2 s)
    """
    start = time.perf_counter()
    info = describe_machine()
    plan = plan_measurement(
        quick=quick, budget=budget, array_bytes=array_bytes, matmul_sizes=matmul_sizes, threads=threads,
        machine=info,
    )
    if not (progress is None or isinstance(progress, bool)):
        accepted = "True, False or None (a bar only when stderr is a terminal)"
        raise RooflineInputError("progress", accepted, progress)
    backend, skipped = find_backend() if gpu else (None, (NOT_ASKED,))
    tasks = plan.tasks + (task_count(quick) if backend is not None else 0)
    bar = Progress(tasks, plan.budget, progress_stream(progress))
    # Aim at 85% of the budget: the last round of each group may run past its share, and
    # releasing the arrays takes a moment after the last measurement.
    aim = TARGET_FRACTION * plan.budget - (time.perf_counter() - start)
    schedule = Schedule(max(aim, 0.0), tasks, bar)
    cpu = _measure_cpu(plan, info, schedule)
    gpu_report = _measure_gpu(backend, skipped, quick, schedule, plan.max_repeats)
    bar.close()
    return Measurement(
        chip=cpu.chip,
        machine=info,
        plan=plan,
        streams=tuple(cpu.streams),
        cache_sweep=tuple(cpu.sweep),
        matmuls=tuple(cpu.matmuls),
        kernels=tuple(cpu.kernels),
        gpu=gpu_report,
        elapsed=time.perf_counter() - start,
    )
