"""What a measurement found: results of each kind, and the chip they add up to.

Plain records: each holds what was timed and the :class:`~rooflinekit.measure.timing.Timing`
of it, derives its figure (bandwidth, FLOP/s, efficiency) from the two, and has a
``to_dict`` for JSON. :func:`measured_chip` turns measured figures into a
:class:`~rooflinekit.catalog.Chip` like the catalog's.

>>> from rooflinekit.measure.timing import Timing
>>> copy = StreamResult("copy", threads=1, array_bytes=2**20, timing=Timing((1e-4, 2e-4, 3e-4)))
>>> copy.bytes_counted, round(copy.bandwidth / 1e9, 2)
(2097152, 10.49)
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rooflinekit.analysis import Roofline, analyze
from rooflinekit.catalog import Chip, Provenance, Source
from rooflinekit.costs import Cost, matmul_cost
from rooflinekit.errors import RooflineInputError
from rooflinekit.fmt import si
from rooflinekit.hierarchy import Level, MeasuredPoint, levels
from rooflinekit.measure.kernels import STREAMS, StreamSpec
from rooflinekit.measure.machine import MachineInfo
from rooflinekit.measure.planning import Plan
from rooflinekit.measure.timing import Timing
from rooflinekit.words import Message, message

NOT_ASKED = message("not asked for")
"""Why the GPU was not measured when the caller did not ask for it."""

SOURCE = Source(
    "Measured on this machine by rooflinekit.measure (STREAM kernels and numpy matmul)",
    "https://www.cs.virginia.edu/stream/",
    "measured",
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
class CacheLevelResult:
    """Copy bandwidth measured at a working set that lives in one level of this machine's memory:
    a cache (its reported size) or DRAM (``cache_bytes`` is ``None``). One timed call copies the
    working set's first half onto its second ``passes`` times, so that the timer's own overhead
    does not hide a small cache's speed; every pass counts its bytes read and written.

    >>> from rooflinekit.measure.timing import Timing
    >>> r = CacheLevelResult("L1d", 49152, 24576, 100, Timing((1e-5, 2e-5, 3e-5)))
    >>> round(r.bandwidth / 1e9, 1)
    122.9
    """

    level: str
    cache_bytes: int | None
    working_set_bytes: int
    passes: int
    timing: Timing
    call_seconds: float = 0.0
    """What one numpy copy call costs on its own (a copy of a few bytes), 0 when not measured."""

    @property
    def bandwidth(self) -> float:
        """Counted bytes (the working set, read half and written half, each pass) per second."""
        return self.working_set_bytes * self.passes / self.timing.median

    @property
    def copy_seconds(self) -> float:
        """Seconds of one copy of the working set (the timed call over its passes)."""
        return self.timing.median / self.passes

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "cache_bytes": self.cache_bytes,
                "working_set_bytes": self.working_set_bytes, "passes": self.passes,
                "bandwidth": self.bandwidth, "seconds": self.timing.median, "repeats": self.timing.repeats,
                "call_seconds": self.call_seconds}


CALL_SHARE = 0.5
"""A cache's copy is the call's, not the cache's, when numpy's call alone takes this share of it."""
THREADS_SLACK = 1.5
"""The DRAM roof (all threads) may exceed ``threads`` times one thread's copy by this much before
the two are said to disagree (STREAM kernels count their bytes differently from a copy)."""


@dataclass(frozen=True)
class LevelCheck:
    """One measured level of :func:`check_levels`: whether it comes out faster than the next level
    out (``outer``, at ``outer_bandwidth``), as an inner level of a hierarchy must, and if not why.

    ``reason`` is ``None`` for a level in order, ``"call"`` when numpy's call alone takes most of a
    copy of the level's working set (the call, not the cache, set the figure), ``"slower"`` when
    the copy is simply no faster (a cache shared with other work or other machines, a busy
    machine), and for DRAM ``"roof"`` when one thread's copy and the all-thread roof disagree by
    more than the threads explain.
    """

    level: CacheLevelResult
    outer: str | None
    outer_bandwidth: float | None
    reason: str | None = None

    @property
    def resolved(self) -> bool:
        """Whether the hierarchical roofline draws this level's roof (a cache in order)."""
        return self.reason is None or self.level.cache_bytes is None

    def note(self) -> Message | None:
        """Why the level is out of order, in words, or ``None``."""
        lv = self.level
        shown = {"level": lv.level, "bandwidth": si(lv.bandwidth, "B/s"), "outer": self.outer or "",
                 "outer_bandwidth": si(self.outer_bandwidth or 0.0, "B/s")}
        if self.reason == "call":
            return message(
                "{level} left out: its copy ({bandwidth}) is no faster than {outer}'s ({outer_bandwidth}). "
                "One copy of its working set takes {copy}, and numpy's call alone about {call}: the "
                "call, not the cache, sets this figure",
                copy=si(lv.copy_seconds, "s"), call=si(lv.call_seconds, "s"), **shown)
        if self.reason == "slower":
            return message(
                "{level} left out: its copy ({bandwidth}) is no faster than {outer}'s ({outer_bandwidth}). "
                "The cache the machine reports is not all this thread's (shared with other cores, other "
                "work, or a virtual machine's host), or the machine was busy", **shown)
        if self.reason == "roof":
            return message(
                "{level}: one thread's copy ({bandwidth}) and the DRAM roof, the best STREAM kernel "
                "on every thread ({outer_bandwidth}), disagree by more than the threads explain: other "
                "work on this machine changed between the two. The roofline uses the roof",
                level=lv.level, bandwidth=shown["bandwidth"], outer_bandwidth=shown["outer_bandwidth"])
        return None

    def to_dict(self) -> dict[str, Any]:
        note = self.note()
        shown = None if note is None else str(note)
        return {**self.level.to_dict(), "in_order": self.reason is None, "note": shown}


def check_levels(measured: Sequence[CacheLevelResult], dram_roof: float | None = None,
                 threads: int = 1) -> tuple[LevelCheck, ...]:
    """Each level of ``measured`` (smallest first, DRAM last, as
    :func:`~rooflinekit.measure.run.measure_cache_levels` gives them) checked against the next level
    out, from DRAM inward: a cache is in order when its copy is faster than every level outside it
    (and than ``dram_roof``, the DRAM roof the hierarchical roofline draws, on ``threads`` threads).

    >>> from rooflinekit.measure.timing import Timing
    >>> l1 = CacheLevelResult("L1d", 49152, 24576, 341, Timing((1.4e-4,)), call_seconds=3e-7)
    >>> l2 = CacheLevelResult("L2", 2**21, 2**20, 8, Timing((1.05e-4,)))
    >>> dram = CacheLevelResult("DRAM", None, 2**31, 1, Timing((0.1,)))
    >>> [(c.level.level, c.reason) for c in check_levels([l1, l2, dram], dram_roof=2.8e10, threads=2)]
    [('L1d', 'call'), ('L2', None), ('DRAM', None)]
    """
    caches = sorted((lv for lv in measured if lv.cache_bytes is not None),
                    key=lambda lv: lv.cache_bytes or 0)
    checks, outer, outer_bandwidth = [], "DRAM", dram_roof or 0.0
    for dram in (lv for lv in measured if lv.cache_bytes is None):
        most = THREADS_SLACK * threads * dram.bandwidth
        off = dram_roof is not None and not dram.bandwidth <= dram_roof <= most
        checks.append(LevelCheck(dram, "DRAM roof" if off else None, dram_roof if off else None,
                                 "roof" if off else None))
        outer_bandwidth = max(dram.bandwidth, outer_bandwidth)
    for lv in reversed(caches):
        if lv.bandwidth > outer_bandwidth:
            checks.append(LevelCheck(lv, outer, outer_bandwidth))
            outer, outer_bandwidth = lv.level, lv.bandwidth
            continue
        by_call = lv.call_seconds >= CALL_SHARE * lv.copy_seconds
        checks.append(LevelCheck(lv, outer, outer_bandwidth, "call" if by_call else "slower"))
    return (*reversed(checks[len(measured) - len(caches):]), *checks[: len(measured) - len(caches)])


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
    def message(self) -> Message:
        """One sentence for people (a message: the book's Korean edition shows it in Korean).

        >>> GpuReport(ran=False, skipped=("torch is not installed",)).message
        'GPU measurement skipped: torch is not installed.'
        """
        if self.ran:
            return message("GPU measured: {device} through {backend}.", device=str(self.device),
                           backend=str(self.backend))
        return message("GPU measurement skipped: {reasons}.", reasons=list(self.skipped or (NOT_ASKED,)))

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


def best_flops(matmuls: Sequence[MatmulResult]) -> dict[str, float]:
    """The best FLOP/s each dtype reached over the sizes measured: the chip's peaks."""
    peaks: dict[str, float] = {}
    for m in matmuls:
        peaks[m.dtype] = max(peaks.get(m.dtype, 0.0), m.flops_per_second)
    return peaks


def measured_chip(
    chip_id: str, name: str, peaks: dict[str, float], bandwidth: float, memory_bytes: float,
    notes: Sequence[str],
) -> Chip:
    """A catalog-style chip from measured peaks and bandwidth.

    Nothing measures an inter-chip link: ``link_bandwidth`` is a placeholder of 1 B/s (as in
    ``custom_chip``), so do not use such a chip for network rooflines.

    >>> measured_chip("cpu", "a CPU", {"fp32": 2e11}, 2e10, 2**34, ()).critical_intensity("fp32")
    10.0
    """
    measured = Provenance(SOURCE, datetime.date.today().isoformat())
    return Chip(
        id=chip_id,
        name=name,
        vendor="measured",
        dense_flops=peaks,
        hbm_bandwidth=bandwidth,
        hbm_bytes=memory_bytes or 1.0,
        link_bandwidth=1.0,
        link_name="none (not measured; placeholder figure)",
        provenance={f"dense_flops.{d}": measured for d in peaks} | {"hbm_bandwidth": measured},
        notes=tuple(notes),
    )


def machine_chip(
    bandwidth: float, peaks: dict[str, float], machine: MachineInfo, *, chip_id: str = "this-machine",
    name: str | None = None, notes: Sequence[str] = (),
) -> Chip:
    """The chip a CPU measurement adds up to: its DRAM bandwidth and matmul peaks.

    >>> from rooflinekit.measure.machine import describe_machine
    >>> c = machine_chip(2e10, {"fp32": 2e11, "fp64": 1e11}, describe_machine())
    >>> c.id, c.critical_intensity("fp32")
    ('this-machine', 10.0)
    """
    return measured_chip(
        chip_id,
        name or message("this machine ({cpu}, {cpus} CPUs)", cpu=machine.cpu, cpus=machine.cpus),
        peaks,
        bandwidth,
        machine.memory_bytes,
        (
            "hbm_bandwidth is the best STREAM kernel's counted bytes per second over arrays far "
            "larger than the last-level cache (DRAM, not HBM); write-allocate traffic is not counted.",
            "Peaks are the best median numpy matmul FLOP/s over the sizes measured.",
            *notes,
        ),
    )


def with_levels(chip: Chip, levels: Sequence[CacheLevelResult]) -> Chip:
    """``chip`` (a measured machine's) with its caches as memory levels, outermost first, each with
    its reported size and the copy bandwidth measured inside it (kind ``"measured"``), so that
    :mod:`rooflinekit.hierarchy` and :func:`rooflinekit.plot.hierarchical_roofline` take it.
    The caches' bandwidths are one thread's; the chip's DRAM bandwidth is the best STREAM kernel's.
    A cache whose copy is no faster than a level outside it (:func:`check_levels`) is left out: a
    hierarchy's inner level is never drawn slower than an outer one.

    >>> from rooflinekit.measure.machine import describe_machine
    >>> from rooflinekit.measure.timing import Timing
    >>> c = machine_chip(2e10, {"fp32": 2e11}, describe_machine())
    >>> l2 = CacheLevelResult("L2", 2**21, 2**20, 8, Timing((1e-4,)))
    >>> [(lv.id, lv.kinds["bandwidth"]) for lv in with_levels(c, [l2]).levels]
    [('l2', 'measured')]
    """
    from dataclasses import replace

    from rooflinekit.chips import MemoryLevel

    checked = datetime.date.today().isoformat()
    kept = [c.level for c in check_levels(levels, chip.hbm_bandwidth) if c.resolved]
    caches = sorted((lv for lv in kept if lv.cache_bytes), key=lambda lv: -(lv.cache_bytes or 0))
    copy = "copy on one thread at a working set of half the cache"
    where = {"capacity": Provenance(SOURCE, checked, "the size the operating system reports"),
             "bandwidth": Provenance(SOURCE, checked, copy)}
    found = tuple(
        MemoryLevel(lv.level.lower(), lv.level, capacity=float(lv.cache_bytes or 1), bandwidth=lv.bandwidth,
                    provenance=where, kinds={"capacity": "measured", "bandwidth": "measured"})
        for lv in caches
    )
    return replace(chip, levels=found)


@dataclass(frozen=True)
class KernelOnLevel:
    """A timed kernel on the hierarchical roofline of the machine that ran it: the memory level its
    working set lives in (the smallest cache whose reported size holds the bytes the cost model
    credits it with, DRAM when none does) and its achieved FLOP/s against that level's roof,
    ``min(peak, intensity x level bandwidth)``. The caches' roofs are one thread's copy bandwidth,
    DRAM's the best STREAM kernel's (the chip's), as :func:`with_levels` makes them.

    >>> from rooflinekit.costs import dot_cost
    >>> from rooflinekit.hierarchy import Level
    >>> from rooflinekit.measure.machine import describe_machine
    >>> from rooflinekit.measure.timing import Timing
    >>> chip = machine_chip(1e10, {"fp32": 1e11}, describe_machine())
    >>> dot = dot_cost(1000, "fp32")  # 2000 FLOPs on 8004 bytes: about a quarter FLOP a byte
    >>> k = KernelResult("dot", "fp32", dot, Timing((1e-6,)), analyze(dot, chip, compute="fp32"))
    >>> on = KernelOnLevel(k, Level("l2", "L2", 1e11, 2.0**20), 1e11)
    >>> round(on.roof / 1e9, 2), round(on.efficiency, 3), on.bound
    (24.98, 0.08, 'memory')
    """

    kernel: KernelResult
    level: Level
    peak: float

    @property
    def working_set_bytes(self) -> float:
        """The bytes the cost model credits the kernel with: what it reads and writes."""
        return float(self.kernel.cost.bytes)

    @property
    def roof(self) -> float:
        """FLOP/s the level's roof allows at the kernel's intensity."""
        return min(self.peak, self.kernel.intensity * float(self.level.bandwidth or 0.0))

    @property
    def efficiency(self) -> float:
        """Achieved FLOP/s over the level's roof."""
        return self.kernel.achieved / self.roof

    @property
    def bound(self) -> str:
        """``"compute"`` or ``"memory"``: which side of the level's ridge the kernel is on."""
        ridge = self.peak / float(self.level.bandwidth or 1.0)
        return "compute" if self.kernel.intensity >= ridge else "memory"

    @property
    def point(self) -> MeasuredPoint:
        """The kernel's point for :func:`rooflinekit.plot.hierarchical_roofline` (``measured=``)."""
        return MeasuredPoint(self.kernel.name, self.level.id, self.kernel.intensity, self.kernel.achieved)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.kernel.name, "compute": self.kernel.compute,
                "working_set_bytes": self.working_set_bytes, "level": self.level.name,
                "level_capacity_bytes": self.level.capacity, "level_bandwidth": self.level.bandwidth,
                "intensity": self.kernel.intensity, "achieved_flops_per_second": self.kernel.achieved,
                "roof_flops_per_second": self.roof, "efficiency": self.efficiency, "bound": self.bound}


def level_holding(nbytes: float, chain: Sequence[Level]) -> Level:
    """The smallest level of ``chain`` (outermost first, as :func:`rooflinekit.hierarchy.levels`
    gives them) whose capacity holds ``nbytes``; the outermost when none of the inner ones does.

    >>> from rooflinekit.hierarchy import Level
    >>> chain = [Level("hbm", "DRAM", 1e10, 2.0**34), Level("l2", "L2", 5e10, 2.0**21),
    ...          Level("l1d", "L1d", 1e11, 49152.0)]
    >>> [level_holding(n, chain).name for n in (1e3, 1e5, 1e7)]
    ['L1d', 'L2', 'DRAM']
    """
    holding = [lv for lv in chain[1:] if lv.capacity is not None and nbytes <= lv.capacity]
    return min(holding, key=lambda lv: float(lv.capacity or 0.0)) if holding else chain[0]


def kernels_on_levels(
    kernels: Sequence[KernelResult], chip: Chip, caches: Sequence[CacheLevelResult],
) -> tuple[KernelOnLevel, ...]:
    """Each kernel of a measurement on the hierarchical roofline of ``chip`` with ``caches`` (from
    :func:`~rooflinekit.measure.run.measure_cache_levels`) as its levels: the level its working set
    lives in, and its point against that level's roof in its own dtype's peak.

    >>> from rooflinekit.costs import dot_cost
    >>> from rooflinekit.measure.machine import describe_machine
    >>> from rooflinekit.measure.timing import Timing
    >>> chip = machine_chip(1e10, {"fp32": 1e11}, describe_machine())
    >>> caches = [CacheLevelResult("L1d", 49152, 24576, 100, Timing((1e-5,))),
    ...           CacheLevelResult("DRAM", None, 2**28, 1, Timing((1e-2,)))]
    >>> dots = [KernelResult(f"dot {n}", "fp32", dot_cost(n, "fp32"), Timing((1e-5,)),
    ...                      analyze(dot_cost(n, "fp32"), chip, compute="fp32")) for n in (1000, 10**6)]
    >>> [(k.kernel.name, k.level.name) for k in kernels_on_levels(dots, chip, caches)]
    [('dot 1000', 'L1d'), ('dot 1000000', 'DRAM')]
    """
    chain = levels(with_levels(chip, caches))
    return tuple(KernelOnLevel(k, level_holding(float(k.cost.bytes), chain), chip.peak(k.compute))
                 for k in kernels)
