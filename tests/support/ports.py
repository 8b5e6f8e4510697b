"""Free TCP ports on loopback for the servers the tests start, chosen where nothing else lands.

A port the kernel hands out for ``bind(("127.0.0.1", 0))`` comes from the ephemeral range
(``/proc/sys/net/ipv4/ip_local_port_range``, 32768-60999 on Linux), the same range every outgoing
connection and every kernel's ZeroMQ socket draws from. Free when a test probes it, such a port
can be taken by anything else on a busy machine before the server the test starts binds it: a
hub's proxy, started a minute after its port was chosen, then fails to listen on its API port.
So the ports here come from below that range, where the system never assigns one by itself, at
random so that two test workers rarely try the same one, and each is checked free.

>>> port = free_port(following=2)
>>> port < ephemeral_range()[0] and all(is_free(port + i) for i in range(3))
True
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

LOWEST = 10_000  # below lie the well-known and registered ports local services use
PORT_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def ephemeral_range() -> tuple[int, int]:
    """The ports the system assigns by itself, as ``(first, last)``; Linux's default elsewhere."""
    try:
        first, last = PORT_RANGE.read_text().split()
        return int(first), int(last)
    except (OSError, ValueError):
        return 32768, 60999


def free_port(following: int = 0) -> int:
    """A free port on loopback outside the ephemeral range, with the ``following`` next ports
    free as well (a hub takes three in a row: its proxy, the proxy's API, itself)."""
    highest = ephemeral_range()[0] - 1 - following
    for _ in range(1000):
        port = random.randint(LOWEST, highest)
        if all(is_free(port + i) for i in range(following + 1)):
            return port
    raise RuntimeError(f"no {following + 1} free ports in a row between {LOWEST} and {highest}")


def is_free(port: int) -> bool:
    """Whether nothing on loopback holds ``port`` now."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
