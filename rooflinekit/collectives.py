"""The course's one model of collectives: the ring.

``n`` chips in a ring each hold a ``payload`` of bytes. An **all-reduce** (every chip ends
with the sum of all payloads) is a reduce-scatter followed by an all-gather; each of the
two phases takes ``n - 1`` steps in which every chip sends ``payload / n`` bytes to its
neighbour while it receives as much from the other. So each chip sends

- ``2 (n - 1) / n * payload`` bytes for an all-reduce,
- ``(n - 1) / n * payload`` bytes for an all-gather (``payload`` is the gathered result).

Both directions of a link work at once, so the time is the bytes sent over the one-way
link bandwidth. A collective also pays a fixed cost to start and synchronise, which the
bytes do not show; :func:`collective_time` takes it as a labelled ``latency`` (default 0,
the bandwidth-only lower bound).

>>> ring_all_reduce_bytes(2 * 8192, n_chips=8)     # one token's bf16 activations, 8 GPUs
28672.0
>>> ring_all_reduce_bytes(1000.0, n_chips=1)       # nothing to exchange on one chip
0.0
"""

from __future__ import annotations

import math
from typing import Any

from rooflinekit._validate import check_count, check_figure
from rooflinekit.errors import RooflineInputError

COLLECTIVES = ("all-reduce", "all-gather")


def _check_payload(payload_bytes: Any) -> Any:
    return check_figure("payload_bytes", payload_bytes, allow_array=True)


def ring_all_reduce_bytes(payload_bytes: Any, n_chips: int) -> Any:
    """Bytes each chip sends to all-reduce ``payload_bytes`` over ``n_chips`` in a ring.

    For two chips this is the whole payload: each sends its partial sum to the other.

    >>> ring_all_reduce_bytes(4096.0, n_chips=2)
    4096.0
    """
    n = check_count("n_chips", n_chips)
    return 2 * (n - 1) / n * _check_payload(payload_bytes)


def ring_all_gather_bytes(payload_bytes: Any, n_chips: int) -> Any:
    """Bytes each chip sends to all-gather a ``payload_bytes`` result from ``n_chips`` shards.

    >>> ring_all_gather_bytes(4096.0, n_chips=4)
    3072.0
    """
    n = check_count("n_chips", n_chips)
    return (n - 1) / n * _check_payload(payload_bytes)


def collective_bytes(kind: str, payload_bytes: Any, n_chips: int) -> Any:
    """Bytes each chip sends for a collective named ``kind`` (one of :data:`COLLECTIVES`).

    >>> collective_bytes("all-reduce", 4096.0, 4) == 2 * collective_bytes("all-gather", 4096.0, 4)
    True
    """
    if kind == "all-reduce":
        return ring_all_reduce_bytes(payload_bytes, n_chips)
    if kind == "all-gather":
        return ring_all_gather_bytes(payload_bytes, n_chips)
    raise RooflineInputError("collective", "one of " + ", ".join(COLLECTIVES), kind)


def collective_time(bytes_sent: Any, link_bandwidth: float, latency: float = 0.0) -> Any:
    """Seconds for a collective whose chips each send ``bytes_sent``: ``latency + bytes / link``.

    ``latency`` is the labelled fixed cost of one collective (launch and synchronisation),
    to be set from a measurement; 0 gives the bandwidth-only lower bound.

    >>> collective_time(9e5, 4.5e11)
    2e-06
    >>> collective_time(9e5, 4.5e11, latency=1e-5)
    1.2e-05
    """
    link = check_figure("link_bandwidth", link_bandwidth)
    return check_latency(latency) + bytes_sent / link



def check_latency(value: Any, name: str = "latency") -> float:
    """``value`` as seconds if it is a finite number, 0 or more.

    >>> check_latency(2e-5)
    2e-05
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RooflineInputError(name, "a number of seconds, 0 or more", value)
    if not (math.isfinite(value) and value >= 0):
        raise RooflineInputError(name, "a number of seconds, 0 or more", value)
    return float(value)
