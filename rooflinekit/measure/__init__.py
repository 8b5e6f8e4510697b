"""Measure this machine: an empirical roofline, and where real numpy kernels land under it.

:func:`measure_machine` times STREAM kernels over arrays far larger than the last-level
cache (memory bandwidth, bytes counted as :mod:`rooflinekit.measure.kernels` explains) and
numpy matmuls in float32 and float64 over several sizes (peak FLOP/s), then returns a
:class:`Measurement` whose ``chip`` is a :class:`~rooflinekit.catalog.Chip` like the
catalog's (id ``"this-machine"``, peaks for fp32 and fp64, ``hbm_bandwidth`` = the measured
DRAM bandwidth), usable with ``analyze``, the critical-batch functions and the plots. It also
times kernels of many intensities (elementwise, dot, matmuls) and places each on that roof.

Every figure is the median over repeats after a warm-up; the whole run shares a time
budget (:data:`QUICK_BUDGET` seconds in quick mode). A progress bar goes to stderr when
stderr is a terminal or when asked, never otherwise. Where torch or jax is installed and
sees a GPU, the same measurement runs there (:class:`GpuReport`); otherwise it says why not.

One module a job:

- :mod:`~rooflinekit.measure.machine`: what the machine says about itself (CPU, caches, memory);
- :mod:`~rooflinekit.measure.timing`: warm-up, repeats and medians within a budget;
- :mod:`~rooflinekit.measure.kernels`: the numpy operations timed, and their costs;
- :mod:`~rooflinekit.measure.planning`: the sizes and budget of a measurement, checked;
- :mod:`~rooflinekit.measure.records`: the results, and the chip they add up to;
- :mod:`~rooflinekit.measure.gpu`: the same measurement through torch or jax;
- :mod:`~rooflinekit.measure.run`: running it all;
- :mod:`~rooflinekit.measure.report`: the text report.

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

from rooflinekit.measure.planning import (
    FULL_BUDGET,
    MIN_ARRAY_BYTES,
    QUICK_BUDGET,
    Plan,
    check_budget,
    plan_measurement,
)
from rooflinekit.measure.records import (
    SOURCE,
    CacheLevelResult,
    GpuReport,
    KernelOnLevel,
    KernelResult,
    LevelCheck,
    MatmulResult,
    Measurement,
    StreamResult,
    check_levels,
    kernels_on_levels,
    level_holding,
    machine_chip,
    with_levels,
)
from rooflinekit.measure.report import format_report
from rooflinekit.measure.run import (
    cache_level_plan,
    measure_bandwidth,
    measure_cache_levels,
    measure_machine,
    measure_matmul,
)

__all__ = [
    "FULL_BUDGET",
    "MIN_ARRAY_BYTES",
    "QUICK_BUDGET",
    "SOURCE",
    "CacheLevelResult",
    "GpuReport",
    "KernelOnLevel",
    "KernelResult",
    "LevelCheck",
    "MatmulResult",
    "Measurement",
    "Plan",
    "StreamResult",
    "cache_level_plan",
    "check_budget",
    "check_levels",
    "format_report",
    "kernels_on_levels",
    "level_holding",
    "machine_chip",
    "measure_bandwidth",
    "measure_cache_levels",
    "measure_machine",
    "measure_matmul",
    "plan_measurement",
    "with_levels",
]
