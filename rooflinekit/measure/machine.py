"""What this machine says about itself: CPU, cores, caches, memory and numpy's BLAS.

Everything is read from Linux's ``/proc`` and ``/sys`` where they exist, with safe
fallbacks elsewhere, so measuring never fails for want of a description.

>>> info = describe_machine()
>>> info.cpus >= 1 and info.last_level_cache_bytes > 0 and info.memory_bytes > 0
True
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

CACHE_DIR = Path("/sys/devices/system/cpu/cpu0/cache")
FALLBACK_LLC_BYTES = 32 * 2**20
"""Assumed last-level cache where the OS does not say (a generous figure for a desktop CPU)."""


@dataclass(frozen=True)
class MachineInfo:
    """A description of the machine a measurement ran on."""

    cpu: str
    cpus: int
    caches: tuple[tuple[str, int], ...]
    last_level_cache_bytes: int
    memory_bytes: int
    available_memory_bytes: int
    numpy_version: str
    blas: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "cpu": self.cpu,
            "cpus": self.cpus,
            "caches": {name: size for name, size in self.caches},
            "last_level_cache_bytes": self.last_level_cache_bytes,
            "memory_bytes": self.memory_bytes,
            "available_memory_bytes": self.available_memory_bytes,
            "numpy_version": self.numpy_version,
            "blas": self.blas,
        }


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _size(text: str) -> int:
    """``"48K"`` -> 49152; sysfs writes cache sizes with a K or M suffix."""
    text = text.strip().upper()
    scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
    return int(text.rstrip("KMG")) * scale


def _caches() -> tuple[tuple[str, int], ...]:
    """Data and unified caches of CPU 0, e.g. ``(("L1d", 49152), ("L2", 2097152), ...)``."""
    found = []
    for index in sorted(CACHE_DIR.glob("index*")):
        try:
            kind = (index / "type").read_text().strip()
            level = (index / "level").read_text().strip()
            size = _size((index / "size").read_text())
        except (OSError, ValueError):
            continue
        if kind == "Instruction":
            continue
        found.append((f"L{level}{'d' if kind == 'Data' else ''}", size))
    return tuple(found)


def _memory() -> tuple[int, int]:
    """Total and available RAM in bytes."""
    total = available = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("MemTotal", "MemAvailable"):
                kib = int(value.split()[0]) * 1024
                total, available = (kib, available) if key == "MemTotal" else (total, kib)
    except (OSError, ValueError, IndexError):
        pass
    if not total:
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            total = 8 * 2**30
    return total, available or total // 2


def _blas() -> str:
    try:
        config: Any = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas['version']}"
    except (AttributeError, KeyError, TypeError, ValueError):
        return "unknown"


def describe_machine() -> MachineInfo:
    """Read the machine's description (cheap: no measuring)."""
    caches = _caches()
    total, available = _memory()
    return MachineInfo(
        cpu=_cpu_name(),
        cpus=usable_cpus(),
        caches=caches,
        last_level_cache_bytes=max((size for _, size in caches), default=FALLBACK_LLC_BYTES),
        memory_bytes=total,
        available_memory_bytes=available,
        numpy_version=np.__version__,
        blas=_blas(),
    )
