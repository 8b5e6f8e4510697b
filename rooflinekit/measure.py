"""Measure this machine: an empirical roofline, and where real numpy kernels land under it.

:func:`measure_machine` times STREAM kernels over arrays far larger than the last-level
cache (memory bandwidth, bytes counted as :mod:`rooflinekit.kernels` explains) and numpy
matmuls in float32 and float64 over several sizes (peak FLOP/s), then returns a
:class:`Measurement` whose ``chip`` is a :class:`~rooflinekit.catalog.Chip` like the
catalog's (id ``"this-machine"``, peaks for fp32 and fp64, ``hbm_bandwidth`` = the measured
DRAM bandwidth), usable with ``analyze``, the critical-batch functions and the plots. It also
times kernels of many intensities (elementwise, dot, matmuls) and places each on that roof.

Every figure is the median over repeats after a warm-up; the whole run shares a time
budget (:data:`QUICK_BUDGET` seconds in quick mode). A progress bar goes to stderr when
stderr is a terminal or when asked, never otherwise. Where torch or jax is installed and
sees a GPU, the same measurement runs there (:class:`GpuReport`); otherwise it says why not.

A tiny measurement runs in well under a second:

>>> streams = measure_bandwidth(array_bytes=2**22, streams=("copy", "triad"), repeats=3)
>>> [(s.name, s.bandwidth > 0) for s in streams]
[('copy', True), ('triad', True)]
>>> mm = measure_matmul([64], "fp64", repeats=3)[0]
>>> mm.flops == 2 * 64**3, mm.flops_per_second > 0
(True, True)

The real thing takes about :data:`QUICK_BUDGET` seconds at most:

>>> import rooflinekit as rk
>>> m = measure_machine(quick=True)  # doctest: +SKIP
>>> m.chip.id, m.analyze(rk.dot_cost(10**8, "fp32")).bound  # doctest: +SKIP
('this-machine', 'memory')
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rooflinekit._machine import MachineInfo, describe_machine
from rooflinekit._timing import Progress, Schedule, Timing, progress_stream, time_interleaved
from rooflinekit.analysis import Roofline, analyze
from rooflinekit.catalog import Chip, Source
from rooflinekit.costs import Cost, matmul_cost
from rooflinekit.errors import RooflineInputError
from rooflinekit.fmt import si
from rooflinekit.kernels import (
    ELEMENT_BYTES,
    NUMPY_DTYPES,
    STREAMS,
    Arena,
    Kernel,
    StreamSpec,
    memory_kernels,
    skinny_matmul_kernels,
    square_matmul_kernel,
    stream_call,
)

QUICK_BUDGET = 20.0
"""Seconds a quick measurement may take (the book runs one per build)."""
FULL_BUDGET = 120.0
"""Seconds a full measurement may take by default."""
TARGET_FRACTION = 0.85
"""Share of the budget the repeats are planned to fill; the rest absorbs overruns."""
MIN_ARRAY_BYTES = 2**20
SWEEP_START_BYTES = 2**13
"""The cache sweep's smallest array: two of them fit in any L1 data cache."""
_ALIGN_ELEMENTS = 1024
MAX_MATMUL_SIZE = 16384
MEASURED_DTYPES = ("fp32", "fp64")
SOURCE = Source(
    "Measured on this machine by rooflinekit.measure (STREAM kernels and numpy matmul)",
    "https://www.cs.virginia.edu/stream/",
)


@dataclass(frozen=True)
class StreamResult:
    """Bandwidth of one STREAM kernel: counted bytes over the median time of one pass."""

    name: str
    threads: int | None
    array_bytes: int
    timing: Timing

    @property
    def spec(self) -> StreamSpec:
        return STREAMS[self.name]

    @property
    def bytes_counted(self) -> int:
        """Arrays read plus arrays written, times the bytes of one array (no write-allocate)."""
        return (self.spec.reads + self.spec.writes) * self.array_bytes

    @property
    def seconds(self) -> float:
        return self.timing.median

    @property
    def bandwidth(self) -> float:
        """Counted bytes per second."""
        return self.bytes_counted / self.timing.median

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "formula": self.spec.formula,
            "threads": self.threads,
            "array_bytes": self.array_bytes,
            "bytes_counted": self.bytes_counted,
            "seconds": self.seconds,
            "repeats": self.timing.repeats,
            "bandwidth": self.bandwidth,
        }


@dataclass(frozen=True)
class MatmulResult:
    """Throughput of one square matmul ``x[n,n] @ y[n,n]`` in one dtype."""

    dtype: str
    n: int
    timing: Timing

    @property
    def cost(self) -> Cost:
        return matmul_cost(self.n, self.n, self.n, x=self.dtype, w=self.dtype, out=self.dtype)

    @property
    def flops(self) -> float:
        return float(self.cost.flops)

    @property
    def flops_per_second(self) -> float:
        return self.flops / self.timing.median

    def to_dict(self) -> dict[str, Any]:
        return {
            "dtype": self.dtype,
            "n": self.n,
            "flops": self.flops,
            "seconds": self.timing.median,
            "repeats": self.timing.repeats,
            "flops_per_second": self.flops_per_second,
        }


@dataclass(frozen=True)
class KernelResult:
    """A timed kernel placed on the measured roofline.

    ``efficiency`` is the FLOP/s it achieved over what the roof allows at its intensity:
    ``min(peak, intensity * bandwidth)`` of the measured chip.
    """

    name: str
    compute: str
    cost: Cost
    timing: Timing
    roofline: Roofline
    note: str = ""

    @property
    def seconds(self) -> float:
        return self.timing.median

    @property
    def intensity(self) -> float:
        return float(self.cost.intensity)

    @property
    def achieved(self) -> float:
        """FLOP/s: the cost model's FLOPs over the median time."""
        return float(self.cost.flops) / self.timing.median

    @property
    def achieved_bandwidth(self) -> float:
        """B/s: the cost model's bytes over the median time."""
        return float(self.cost.bytes) / self.timing.median

    @property
    def attainable(self) -> float:
        return float(self.roofline.attainable)

    @property
    def efficiency(self) -> float:
        return self.achieved / self.attainable

    @property
    def bound(self) -> str:
        return str(self.roofline.bound)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "compute": self.compute,
            "flops": float(self.cost.flops),
            "bytes": float(self.cost.bytes),
            "intensity": self.intensity,
            "seconds": self.seconds,
            "repeats": self.timing.repeats,
            "achieved_flops_per_second": self.achieved,
            "attainable_flops_per_second": self.attainable,
            "efficiency": self.efficiency,
            "bound": self.bound,
            "note": self.note,
        }


@dataclass(frozen=True)
class GpuReport:
    """The GPU part of a measurement: what ran through torch or jax, or why nothing did."""

    ran: bool
    skipped: tuple[str, ...] = ()
    backend: str | None = None
    device: str | None = None
    chip: Chip | None = None
    streams: tuple[StreamResult, ...] = ()
    matmuls: tuple[MatmulResult, ...] = ()

    @property
    def message(self) -> str:
        """One sentence for people.

        >>> GpuReport(ran=False, skipped=("torch is not installed",)).message
        'GPU measurement skipped: torch is not installed.'
        """
        if self.ran:
            return f"GPU measured: {self.device} through {self.backend}."
        return "GPU measurement skipped: " + "; ".join(self.skipped or ("not asked for",)) + "."

    def to_dict(self) -> dict[str, Any]:
        return {
            "ran": self.ran,
            "message": self.message,
            "skipped": list(self.skipped),
            "backend": self.backend,
            "device": self.device,
            "chip": self.chip.to_dict() if self.chip is not None else None,
            "streams": [s.to_dict() for s in self.streams],
            "matmuls": [m.to_dict() for m in self.matmuls],
        }


@dataclass(frozen=True)
class Plan:
    """What a measurement will do: sizes, threads, repeats and budget, all checked."""

    quick: bool
    budget: float
    array_bytes: int
    threads: int
    matmul_sizes: tuple[int, ...]
    batches: tuple[int, ...]
    max_repeats: int
    single_thread_streams: tuple[str, ...]
    sweep_bytes: tuple[int, ...]

    @property
    def tasks(self) -> int:
        return (
            len(STREAMS)
            + len(self.single_thread_streams)
            + len(self.sweep_bytes)
            + len(MEASURED_DTYPES) * len(self.matmul_sizes)
            + 3  # memory kernels
            + len(self.batches)
        )


@dataclass(frozen=True)
class Measurement:
    """Everything one run measured, and the chip it adds up to."""

    chip: Chip
    machine: MachineInfo
    plan: Plan
    streams: tuple[StreamResult, ...]
    cache_sweep: tuple[StreamResult, ...]
    matmuls: tuple[MatmulResult, ...]
    kernels: tuple[KernelResult, ...]
    gpu: GpuReport
    elapsed: float

    @property
    def bandwidth(self) -> float:
        """The attainable DRAM bandwidth in B/s: the best STREAM kernel over the large arrays.

        Usually a kernel on all threads; on a busy machine one thread can win, because a
        split pass waits for its slowest thread."""
        return self.chip.hbm_bandwidth

    @property
    def peaks(self) -> dict[str, float]:
        """The best matmul FLOP/s per dtype."""
        return dict(self.chip.dense_flops)

    @property
    def best_stream(self) -> StreamResult:
        """The STREAM kernel (and thread count) that set :attr:`bandwidth`."""
        return max(self.streams, key=lambda s: s.bandwidth)

    def stream(self, name: str, threads: int | None = None) -> StreamResult:
        """The result of STREAM kernel ``name`` on ``threads`` threads (all of them by default)."""
        wanted = self.plan.threads if threads is None else threads
        for s in self.streams:
            if s.name == name and s.threads == wanted:
                return s
        measured = ", ".join(f"{s.name} on {s.threads} threads" for s in self.streams)
        raise RooflineInputError("stream", f"one of {measured}", (name, wanted))

    def kernel(self, name: str) -> KernelResult:
        """The kernel called ``name`` (see ``[k.name for k in m.kernels]``)."""
        for k in self.kernels:
            if k.name == name:
                return k
        raise RooflineInputError("kernel", "one of " + ", ".join(k.name for k in self.kernels), name)

    def analyze(self, cost: Cost, compute: str = "fp32") -> Roofline:
        """``rooflinekit.analyze`` on this machine's measured chip."""
        return analyze(cost, self.chip, compute=compute)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready: every number finite)."""
        return {
            "chip": self.chip.to_dict(),
            "bandwidth": self.bandwidth,
            "best_stream": {"name": self.best_stream.name, "threads": self.best_stream.threads},
            "peaks": self.peaks,
            "critical_intensity": {d: self.chip.critical_intensity(d) for d in self.peaks},
            "quick": self.plan.quick,
            "budget": self.plan.budget,
            "elapsed": self.elapsed,
            "array_bytes": self.plan.array_bytes,
            "threads": self.plan.threads,
            "machine": self.machine.to_dict(),
            "streams": [s.to_dict() for s in self.streams],
            "cache_sweep": [s.to_dict() for s in self.cache_sweep],
            "matmuls": [m.to_dict() for m in self.matmuls],
            "kernels": [k.to_dict() for k in self.kernels],
            "gpu": self.gpu.to_dict(),
        }


# --- checking what a caller asked for -------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_budget(budget: Any) -> float:
    """A budget is a positive, finite number of seconds.

    >>> check_budget(20)
    20.0
    >>> check_budget(float("inf"))
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: budget must be a positive, finite number of seconds (got inf)
    """
    accepted = "a positive, finite number of seconds"
    if isinstance(budget, bool) or not isinstance(budget, numbers.Real):
        raise RooflineInputError("budget", accepted, budget)
    if not (math.isfinite(float(budget)) and float(budget) > 0):
        raise RooflineInputError("budget", accepted, budget)
    return float(budget)


def _check_array_bytes(value: Any, machine: MachineInfo) -> int:
    limit = max(MIN_ARRAY_BYTES, machine.available_memory_bytes // 6)
    accepted = (
        f"an integer number of bytes from {MIN_ARRAY_BYTES} to {limit} (a sixth of this machine's"
        " available memory: three arrays plus two temporaries must fit)"
    )
    if not _is_int(value) or not MIN_ARRAY_BYTES <= int(value) <= limit:
        raise RooflineInputError("array_bytes", accepted, value)
    return int(value)


def _check_sizes(name: str, values: Any, largest: int) -> tuple[int, ...]:
    accepted = f"a non-empty list of integers from 1 to {largest}"
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise RooflineInputError(name, accepted, values)
    for value in values:
        if not _is_int(value) or not 1 <= int(value) <= largest:
            raise RooflineInputError(name, accepted, values)
    return tuple(int(v) for v in values)


def _check_threads(value: Any) -> int:
    if not _is_int(value) or not 1 <= int(value) <= 1024:
        raise RooflineInputError("threads", "an integer from 1 to 1024", value)
    return int(value)


def _check_repeats(value: Any) -> int:
    if not _is_int(value) or not 1 <= int(value) <= 1000:
        raise RooflineInputError("repeats", "an integer from 1 to 1000", value)
    return int(value)


def _sweep(array_bytes: int, factor: int) -> tuple[int, ...]:
    """Array sizes from 8 KiB up to ``array_bytes``, each ``factor`` times the last."""
    sizes = []
    size = SWEEP_START_BYTES
    while size < array_bytes:
        sizes.append(size)
        size *= factor
    return (*sizes, array_bytes)


def plan_measurement(
    *,
    quick: bool = False,
    budget: float | None = None,
    array_bytes: int | None = None,
    matmul_sizes: Sequence[int] | None = None,
    threads: int | None = None,
    machine: MachineInfo | None = None,
) -> Plan:
    """Check the arguments and fill in defaults for this machine.

    Arrays default to 2x (quick) or 4x (full) the last-level cache, at least 256 MiB, and
    at most an eighth of the available memory; ``array_bytes`` may ask for up to a sixth.

    >>> p = plan_measurement(quick=True)
    >>> p.budget, p.matmul_sizes, p.sweep_bytes[-1] == p.array_bytes, p.threads >= 1
    (20.0, (128, 512, 2048), True, True)
    >>> plan_measurement(matmul_sizes=[0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: matmul_sizes must be a non-empty list of integers ... (got [0])
    """
    info = machine if machine is not None else describe_machine()
    if not isinstance(quick, bool):
        raise RooflineInputError("quick", "True or False", quick)
    checked_budget = check_budget(budget) if budget is not None else (QUICK_BUDGET if quick else FULL_BUDGET)
    if array_bytes is None:
        wanted = max((2 if quick else 4) * info.last_level_cache_bytes, 2**28)
        array_bytes = max(MIN_ARRAY_BYTES, min(wanted, info.available_memory_bytes // 8))
    else:
        array_bytes = _check_array_bytes(array_bytes, info)
    if matmul_sizes is None:
        matmul_sizes = (128, 512, 2048) if quick else (64, 128, 256, 512, 1024, 2048, 4096)
    sizes = _check_sizes("matmul_sizes", matmul_sizes, MAX_MATMUL_SIZE)
    return Plan(
        quick=quick,
        budget=checked_budget,
        array_bytes=array_bytes,
        threads=_check_threads(threads) if threads is not None else info.cpus,
        matmul_sizes=sizes,
        batches=(1, 8, 64) if quick else (1, 4, 16, 64, 256),
        max_repeats=9 if quick else 21,
        single_thread_streams=("copy",) if quick else tuple(STREAMS),
        sweep_bytes=_sweep(array_bytes, 8 if quick else 4),
    )


# --- measuring -------------------------------------------------------------------------------------


def _time_streams(
    jobs: Sequence[tuple[str, int, int | None]], arena: Arena, repeats: int, schedule: Schedule, label: str,
) -> list[StreamResult]:
    """Time STREAM kernels ``(name, threads, elements or None for the whole arena)``, interleaved.

    In-cache sizes loop short calls and re-warm the cache before each sample.
    """
    calls = [stream_call(name, arena, threads, n) for name, threads, n in jobs]
    small = any(n is not None and n * ELEMENT_BYTES < 2**26 for _, _, n in jobs)
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
    info = describe_machine()
    plan = plan_measurement(array_bytes=array_bytes, threads=threads, budget=budget, machine=info)
    names = list(streams) if isinstance(streams, Sequence) and not isinstance(streams, str) else [streams]
    if not names or any(name not in STREAMS for name in names):
        raise RooflineInputError("streams", "a non-empty list of " + ", ".join(STREAMS), streams)
    repeats = _check_repeats(repeats)
    schedule = Schedule(plan.budget if budget is not None else None, len(names))
    arena = Arena.allocate(plan.array_bytes, plan.threads)
    try:
        jobs = [(name, plan.threads, None) for name in names]
        return tuple(_time_streams(jobs, arena, repeats, schedule, "streams"))
    finally:
        arena.close()


def measure_matmul(
    sizes: Sequence[int], dtype: str = "fp32", *, repeats: int = 5, budget: float | None = None
) -> tuple[MatmulResult, ...]:
    """Time ``np.matmul`` of square ``dtype`` (fp32 or fp64) matrices of each size, interleaved.

    >>> [m.n for m in measure_matmul([32, 64], "fp32", repeats=2)]
    [32, 64]
    """
    checked = _check_sizes("sizes", sizes, MAX_MATMUL_SIZE)
    if dtype not in NUMPY_DTYPES:
        raise RooflineInputError("dtype", "one of " + ", ".join(NUMPY_DTYPES), dtype)
    repeats = _check_repeats(repeats)
    schedule = Schedule(check_budget(budget) if budget is not None else None, len(checked))
    timings = _time_kernels([square_matmul_kernel(n, dtype) for n in checked], repeats, schedule, "matmuls")
    return tuple(MatmulResult(dtype, n, t) for n, t in zip(checked, timings, strict=True))


def machine_chip(
    bandwidth: float, peaks: dict[str, float], machine: MachineInfo, *, chip_id: str = "this-machine",
    name: str | None = None, notes: Sequence[str] = (),
) -> Chip:
    """A catalog-style chip from measured figures.

    A single machine has no inter-chip link: ``link_bandwidth`` is a placeholder of 1 B/s
    (as in ``custom_chip``), so do not use this chip for network rooflines.

    >>> from rooflinekit._machine import describe_machine
    >>> c = machine_chip(2e10, {"fp32": 2e11, "fp64": 1e11}, describe_machine())
    >>> c.id, c.critical_intensity("fp32")
    ('this-machine', 10.0)
    """
    return Chip(
        id=chip_id,
        name=name or f"this machine ({machine.cpu}, {machine.cpus} CPUs)",
        vendor="measured",
        dense_flops=peaks,
        hbm_bandwidth=bandwidth,
        hbm_bytes=machine.memory_bytes,
        link_bandwidth=1.0,
        link_name="none (one machine; placeholder figure)",
        sources=(SOURCE,),
        notes=(
            "hbm_bandwidth is the best STREAM kernel's counted bytes per second over arrays far "
            "larger than the last-level cache (DRAM, not HBM); write-allocate traffic is not counted.",
            "Peaks are the best median numpy matmul FLOP/s over the sizes measured.",
            *notes,
        ),
    )


def _place(kernel: Kernel, timing: Timing, chip: Chip) -> KernelResult:
    return KernelResult(
        kernel.name, kernel.compute, kernel.cost, timing, analyze(kernel.cost, chip, compute=kernel.compute),
        kernel.note,
    )


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

    ``quick`` runs in at most :data:`QUICK_BUDGET` seconds (by default) with smaller arrays,
    fewer sizes and fewer repeats. Each measurement gets a warm-up and at least one timed
    repeat whatever the budget, so a budget below that minimum is overrun by it.
    ``progress``: ``None`` shows a bar on stderr only when stderr is a terminal.
    ``gpu``: also measure a GPU through torch or jax where one is installed and sees one.

    A tiny run (small arrays that fit in cache, one small matmul size) takes about a second:

    >>> tiny = measure_machine(quick=True, array_bytes=2**22, matmul_sizes=[64], budget=2.0, gpu=False)
    >>> tiny.chip.id, sorted(tiny.peaks), tiny.kernel("np.dot(b, c)").bound
    ('this-machine', ['fp32', 'fp64'], 'memory')
    >>> print(format_report(tiny.to_dict()).splitlines()[0])  # doctest: +ELLIPSIS
    this machine (...): measured in ... s (quick mode, budget 2 s)

    The real one:

    >>> m = measure_machine(quick=True)  # doctest: +SKIP
    """
    from rooflinekit import _gpu  # the GPU part imports this module's result types

    start = time.perf_counter()
    info = describe_machine()
    plan = plan_measurement(
        quick=quick, budget=budget, array_bytes=array_bytes, matmul_sizes=matmul_sizes, threads=threads,
        machine=info,
    )
    if not (progress is None or isinstance(progress, bool)):
        accepted = "True, False or None (a bar only when stderr is a terminal)"
        raise RooflineInputError("progress", accepted, progress)
    backend, skipped = _gpu.find_backend() if gpu else (None, ("not asked for",))
    gpu_tasks = _gpu.task_count(quick) if backend is not None else 0
    bar = Progress(plan.tasks + gpu_tasks, plan.budget, progress_stream(progress))
    # Aim at 85% of the budget: the last round of each group may run past its share, and
    # releasing the arrays takes a moment after the last measurement.
    aim = TARGET_FRACTION * plan.budget - (time.perf_counter() - start)
    schedule = Schedule(max(aim, 0.0), plan.tasks + gpu_tasks, bar)
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
        peaks = {d: max(m.flops_per_second for m in matmuls if m.dtype == d) for d in MEASURED_DTYPES}
        chip = machine_chip(max(s.bandwidth for s in streams), peaks, info)
        placed = [_place(k, t, chip) for k, t in zip(square, timings, strict=True)]
        del square  # the matrices go before the kernels' arrays are made
        kernels = memory_kernels(arena) + skinny_matmul_kernels(arena, plan.batches)
        timings = _time_kernels(kernels, repeats, schedule, "kernels")
        placed += [_place(k, t, chip) for k, t in zip(kernels, timings, strict=True)]
        del kernels
    finally:
        arena.close()
        del arena
    gpu_report = GpuReport(ran=False, skipped=skipped)
    if backend is not None:
        try:
            gpu_report = _gpu.measure_gpu(backend, skipped, quick=quick, schedule=schedule, repeats=repeats)
        except Exception as error:  # out of GPU memory, a driver error: the CPU results still stand
            reason = f"{backend.name} failed on {backend.device}: {type(error).__name__}: {error}"
            gpu_report = GpuReport(ran=False, skipped=(*skipped, reason))
    bar.close()
    placed.sort(key=lambda k: k.intensity)
    return Measurement(
        chip=chip,
        machine=info,
        plan=plan,
        streams=tuple(streams),
        cache_sweep=tuple(sweep),
        matmuls=tuple(matmuls),
        kernels=tuple(placed),
        gpu=gpu_report,
        elapsed=time.perf_counter() - start,
    )


# --- reporting -------------------------------------------------------------------------------------

def _table(headings: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headings)]
    lines = ["  " + "  ".join(h.ljust(w) for h, w in zip(headings, widths, strict=True)).rstrip()]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return lines


def format_report(data: dict[str, Any]) -> str:
    """The text report of a measurement, from :meth:`Measurement.to_dict` (or its JSON)."""
    chip, machine = data["chip"], data["machine"]
    mode = "quick" if data["quick"] else "full"
    arrays, cache = si(data["array_bytes"], "B"), si(machine["last_level_cache_bytes"], "B")
    best = data["best_stream"]
    on = f"{best['threads']} thread{'s' if best['threads'] != 1 else ''}"
    lines = [
        f"{chip['name']}: measured in {data['elapsed']:.1f} s ({mode} mode, budget {data['budget']:g} s)",
        f"  memory bandwidth   {si(data['bandwidth'], 'B/s')}  (best STREAM kernel: {best['name']} on {on};"
        f" arrays of {arrays}, last-level cache {cache})",
    ]
    for dtype, peak in data["peaks"].items():
        lines.append(
            f"  peak {dtype:<13} {si(peak, 'FLOP/s')}  (best numpy matmul; critical intensity"
            f" {data['critical_intensity'][dtype]:.3g} FLOP/B)"
        )
    lines += ["", "STREAM bandwidth (bytes counted: arrays read + arrays written, no write-allocate)"]
    lines += _table(
        ("kernel", "formula", "threads", "array", "bandwidth", "median", "repeats"),
        [
            (s["name"], s["formula"], str(s["threads"]), si(s["array_bytes"], "B"), si(s["bandwidth"], "B/s"),
             si(s["seconds"], "s"), str(s["repeats"]))
            for s in data["streams"] + data["cache_sweep"]
        ],
    )
    lines += ["", "numpy matmul throughput"]
    lines += _table(
        ("dtype", "n", "FLOP/s", "median", "repeats"),
        [
            (m["dtype"], str(m["n"]), si(m["flops_per_second"], "FLOP/s"), si(m["seconds"], "s"),
             str(m["repeats"]))
            for m in data["matmuls"]
        ],
    )
    lines += ["", "kernels on the measured roofline (FLOPs and bytes from rooflinekit's cost models)"]
    lines += _table(
        ("kernel", "intensity", "achieved", "roof", "efficiency", "bound"),
        [
            (k["name"], f"{k['intensity']:.3g}", si(k["achieved_flops_per_second"], "FLOP/s"),
             si(k["attainable_flops_per_second"], "FLOP/s"), f"{k['efficiency']:.0%}", k["bound"])
            for k in data["kernels"]
        ],
    )
    lines += ["", data["gpu"]["message"]]
    return "\n".join(lines)
