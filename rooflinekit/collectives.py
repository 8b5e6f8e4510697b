"""The course's one model of collectives: the ring.

``n`` chips in a ring each hold a ``payload`` of bytes. An **all-reduce** (every chip ends
with the sum of all payloads) is a reduce-scatter followed by an all-gather; each of the
two phases takes ``n - 1`` steps in which every chip sends ``payload / n`` bytes to its
neighbour while it receives as much from the other. So each chip sends

- ``2 (n - 1) / n * payload`` bytes for an all-reduce,
- ``(n - 1) / n * payload`` bytes for an all-gather (``payload`` is the gathered result).

Both directions of a link work at once, so the time is the bytes sent over the one-way
link bandwidth.

An **all-to-all** (each chip holds a ``payload`` cut into ``n`` parts and sends part ``j`` to chip
``j``, as a mixture of experts sends tokens to their experts' chips and back) is not a sum: every
byte has one destination. On the same one-way ring, the part for the chip ``j`` steps ahead takes
``j`` hops, so the ``n`` links carry ``payload / n * (1 + 2 + ... + (n - 1))`` bytes each:

- ``(n - 1) / 2 * payload`` bytes a link for an all-to-all on a ring, half of an all-gather of
  the ``n * payload`` bytes all chips hold, as *How to Scale Your Model* finds for a one-way ring
  (a quarter on a ring used both ways);
- ``(n - 1) / n * payload`` bytes for an all-to-all where every chip reaches every other directly
  (a switch, such as NVSwitch): each chip sends what it does not keep, once.

A collective also pays a fixed cost to start and synchronise, which the bytes do not show;
:func:`collective_time` takes it as a labelled ``latency`` (default 0, the bandwidth-only lower
bound).

>>> ring_all_reduce_bytes(2 * 8192, n_chips=8)     # one token's bf16 activations, 8 GPUs
28672.0
>>> ring_all_reduce_bytes(1000.0, n_chips=1)       # nothing to exchange on one chip
0.0
>>> all_to_all_bytes(8000.0, n_chips=8), all_to_all_bytes(8000.0, n_chips=8, topology="direct")
(28000.0, 7000.0)
"""

from __future__ import annotations

import math
from typing import Any

from rooflinekit._validate import check_count, check_figure
from rooflinekit.errors import RooflineInputError

COLLECTIVES = ("all-reduce", "all-gather", "all-to-all")
TOPOLOGIES = ("ring", "direct")
"""How an all-to-all's chips are linked: the course's ring, or every chip to every other (a switch)."""

SCALING_BOOK_COLLECTIVES = (
    "How to Scale Your Model (Austin et al., 2025), Part 3, Sharded Matrices and How to Multiply "
    "Them: the cost of an AllToAll",
    "https://jax-ml.github.io/scaling-book/sharding/",
)
"""The source of the all-to-all's cost on a ring: (title, address)."""


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


def all_to_all_bytes(payload_bytes: Any, n_chips: int, topology: str = "ring") -> Any:
    """Bytes on each link to all-to-all the ``payload_bytes`` every chip holds over ``n_chips``.

    ``topology`` is ``"ring"`` (the course's one-way ring: ``(n - 1) / 2 * payload``) or
    ``"direct"`` (every chip linked to every other: ``(n - 1) / n * payload``); see the module's
    docstring. On two chips both send half their payload.

    >>> all_to_all_bytes(4096.0, n_chips=2), all_to_all_bytes(4096.0, n_chips=2, topology="direct")
    (2048.0, 2048.0)
    >>> all_to_all_bytes(4096.0, n_chips=4) == ring_all_gather_bytes(4 * 4096.0, 4) / 2
    True
    """
    n = check_count("n_chips", n_chips)
    if topology not in TOPOLOGIES:
        raise RooflineInputError("topology", "one of " + ", ".join(TOPOLOGIES), topology)
    share = (n - 1) / 2 if topology == "ring" else (n - 1) / n
    return share * _check_payload(payload_bytes)


def collective_bytes(kind: str, payload_bytes: Any, n_chips: int) -> Any:
    """Bytes each chip sends for a collective named ``kind`` (one of :data:`COLLECTIVES`), on the ring.

    >>> collective_bytes("all-reduce", 4096.0, 4) == 2 * collective_bytes("all-gather", 4096.0, 4)
    True
    """
    if kind == "all-reduce":
        return ring_all_reduce_bytes(payload_bytes, n_chips)
    if kind == "all-gather":
        return ring_all_gather_bytes(payload_bytes, n_chips)
    if kind == "all-to-all":
        return all_to_all_bytes(payload_bytes, n_chips)
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
