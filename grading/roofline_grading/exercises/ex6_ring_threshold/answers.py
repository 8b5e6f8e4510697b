"""Exercise 6's model answers, one function per graded part: what its key calls right.

Each is computed by ``rooflinekit``'s general functions (a ring all-reduce's bytes, the network's
critical width), never typed in; those that take figures default to the exercise's own (:mod:`.given`).

>>> round(critical_d()), round(two_chip_critical_d()), round(nodes_critical_d())
(30769, 4396, 39560)
"""

from __future__ import annotations

from typing import Any

from rooflinekit.collectives import ring_all_reduce_bytes
from rooflinekit.network import network_critical_d

from .given import CHIP, GPUS, NIC_GIGABITS, NVLINK_BOTH_WAYS_GB

__all__ = [
    "BITS_PER_BYTE",
    "GIGA",
    "all_reduce_bytes",
    "critical_d",
    "link_bandwidth",
    "nic_bandwidth",
    "nodes_critical_d",
    "two_chip_critical_d",
]

GIGA = 1e9
"""A datasheet's giga: 10**9."""
BITS_PER_BYTE = 8


def link_bandwidth(both_ways_gigabytes_per_second: float = NVLINK_BOTH_WAYS_GB) -> float:
    """One way of a link, in B/s, from a datasheet's GB/s for both directions together."""
    return both_ways_gigabytes_per_second * GIGA / 2


def nic_bandwidth(gigabits_per_second: float = NIC_GIGABITS) -> float:
    """A network card's B/s from its Gb/s: 8 bits to a byte."""
    return gigabits_per_second * GIGA / BITS_PER_BYTE


def all_reduce_bytes(payload_bytes: Any, n_chips: int) -> Any:
    """Bytes each chip sends in a ring all-reduce: ``2 (n - 1) / n`` times the payload."""
    return ring_all_reduce_bytes(payload_bytes, n_chips)


def critical_d(
    n_chips: int = GPUS,
    peak: float = CHIP.peak("bf16"),
    link_bandwidth: float = CHIP.link_bandwidth,
) -> float:
    """The ``D`` above which a bf16 matmul split along ``D`` over ``n_chips`` is compute-bound."""
    return network_critical_d(n_chips=n_chips, peak=peak, link_bandwidth=link_bandwidth)


def two_chip_critical_d(
    peak: float = CHIP.peak("bf16"), link_bandwidth: float = CHIP.link_bandwidth
) -> float:
    """That ``D`` for two chips."""
    return critical_d(2, peak, link_bandwidth)


def nodes_critical_d(
    n_nodes: int = 2, peak: float = CHIP.peak("bf16"), gigabits_per_second: float = NIC_GIGABITS
) -> float:
    """The same threshold over ``n_nodes`` GPUs in different nodes, each summing over its NIC."""
    return critical_d(n_nodes, peak, nic_bandwidth(gigabits_per_second))
