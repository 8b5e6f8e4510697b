"""Planning a measurement: the sizes, threads, repeats and budget it will use, all checked.

:func:`plan_measurement` fills in defaults for this machine: arrays large enough that the
caches do not count, matmul sizes, batches and how many repeats each measurement may take.

>>> p = plan_measurement(quick=True)
>>> p.budget, p.matmul_sizes, p.sweep_bytes[-1] == p.array_bytes, p.threads >= 1
(20.0, (128, 512, 2048), True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rooflinekit._validate import check_count, check_figure, is_integer
from rooflinekit.errors import RooflineInputError
from rooflinekit.measure.kernels import STREAMS
from rooflinekit.measure.machine import MachineInfo, describe_machine

QUICK_BUDGET = 20.0
"""Seconds a quick measurement may take (the book runs one per build)."""
FULL_BUDGET = 120.0
"""Seconds a full measurement may take by default."""
MIN_ARRAY_BYTES = 2**20
SWEEP_START_BYTES = 2**13
"""The cache sweep's smallest array: two of them fit in any L1 data cache."""
MAX_MATMUL_SIZE = 16384
MEASURED_DTYPES = ("fp32", "fp64")
MEMORY_KERNELS = 3
"""How many low-intensity kernels a measurement times (see ``kernels.memory_kernels``)."""


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
        """How many measurements the plan makes (for the schedule and the progress bar)."""
        return (
            len(STREAMS)
            + len(self.single_thread_streams)
            + len(self.sweep_bytes)
            + len(MEASURED_DTYPES) * len(self.matmul_sizes)
            + MEMORY_KERNELS
            + len(self.batches)
        )


def check_budget(budget: Any) -> float:
    """A budget is a positive, finite number of seconds.

    >>> check_budget(20)
    20.0
    """
    return float(check_figure("budget", budget, unit="seconds"))


def check_repeats(repeats: Any) -> int:
    """Repeats are an integer from 1 to 1000."""
    return check_count("repeats", repeats, 1, 1000)


def check_sizes(name: str, values: Any, largest: int = MAX_MATMUL_SIZE) -> tuple[int, ...]:
    """A non-empty list of integers from 1 to ``largest``.

    >>> check_sizes("matmul_sizes", [0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: matmul_sizes must be a non-empty list of integers ... (got [0])
    """
    accepted = f"a non-empty list of integers from 1 to {largest}"
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise RooflineInputError(name, accepted, values)
    if not all(is_integer(v) and 1 <= int(v) <= largest for v in values):
        raise RooflineInputError(name, accepted, values)
    return tuple(int(v) for v in values)


def _check_array_bytes(value: Any, machine: MachineInfo) -> int:
    limit = max(MIN_ARRAY_BYTES, machine.available_memory_bytes // 6)
    accepted = (
        f"an integer number of bytes from {MIN_ARRAY_BYTES} to {limit} (a sixth of this machine's"
        " available memory: three arrays plus two temporaries must fit)"
    )
    if not is_integer(value) or not MIN_ARRAY_BYTES <= int(value) <= limit:
        raise RooflineInputError("array_bytes", accepted, value)
    return int(value)


def _default_array_bytes(quick: bool, machine: MachineInfo) -> int:
    """2x (quick) or 4x (full) the last-level cache, at least 256 MiB, at most an eighth of memory."""
    wanted = max((2 if quick else 4) * machine.last_level_cache_bytes, 2**28)
    return max(MIN_ARRAY_BYTES, min(wanted, machine.available_memory_bytes // 8))


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
    """
    info = machine if machine is not None else describe_machine()
    if not isinstance(quick, bool):
        raise RooflineInputError("quick", "True or False", quick)
    checked_budget = check_budget(budget) if budget is not None else (QUICK_BUDGET if quick else FULL_BUDGET)
    if matmul_sizes is None:
        matmul_sizes = (128, 512, 2048) if quick else (64, 128, 256, 512, 1024, 2048, 4096)
    checked_bytes = (
        _default_array_bytes(quick, info) if array_bytes is None else _check_array_bytes(array_bytes, info)
    )
    return Plan(
        quick=quick,
        budget=checked_budget,
        array_bytes=checked_bytes,
        threads=check_count("threads", threads, 1, 1024) if threads is not None else info.cpus,
        matmul_sizes=check_sizes("matmul_sizes", matmul_sizes),
        batches=(1, 8, 64) if quick else (1, 4, 16, 64, 256),
        max_repeats=9 if quick else 21,
        single_thread_streams=("copy",) if quick else tuple(STREAMS),
        sweep_bytes=_sweep(checked_bytes, 8 if quick else 4),
    )
