"""Time bounds: how long work takes when several resources must each do their part.

Each resource (the math units, memory, the network) needs some seconds for its share of
one piece of work. If they overlap perfectly the work takes as long as the slowest one,
``t_lower``; if they do not overlap at all it takes the sum, ``t_upper``. The slowest one
names what limits the work: its ``bound``.

A single-chip roofline has two terms (``memory`` and ``compute``), the sharded matmul
two (``network`` and ``compute``), a serving step three. Times may be numpy arrays (work
of many sizes at once); the bounds are then arrays too.

>>> step = Bounds({"memory": 2.0, "compute": 3.0, "network": 1.0})
>>> step.t_lower, step.t_upper, step.bound
(3.0, 6.0, 'compute')
>>> import numpy as np
>>> Bounds({"memory": 1.0, "compute": np.array([0.5, 1.0, 2.0])}).bound
array(['memory', 'memory', 'compute'], dtype='<U7')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rooflinekit._arrays import plain
from rooflinekit.errors import RooflineInputError


@dataclass(frozen=True)
class Bounds:
    """The seconds each resource needs for one piece of work, and the bounds they give.

    ``times`` maps a resource's name to its time, in order. A tie goes to the earlier
    name: list data movement before compute, so that work counts as compute-bound only
    when its math takes strictly longer.
    """

    times: Mapping[str, Any]

    def __post_init__(self) -> None:
        if not isinstance(self.times, Mapping) or not self.times:
            raise RooflineInputError("times", "a mapping of resource names to seconds", self.times)

    @property
    def t_math(self) -> Any:
        """Seconds of math: the ``compute`` term (every time model here has one)."""
        return self.times["compute"]

    @property
    def t_lower(self) -> Any:
        """Runtime with every resource working at once, perfectly overlapped: the longest time."""
        longest = np.maximum.reduce(np.broadcast_arrays(*self.times.values()))
        return plain(longest)

    @property
    def t_upper(self) -> Any:
        """Runtime with no overlap at all: the sum; at most ``len(times)`` times ``t_lower``."""
        return sum(self.times.values())

    @property
    def bound(self) -> Any:
        """The name of the resource that takes longest (an array of names for array times)."""
        names = np.array(list(self.times))
        longest = np.argmax(np.stack(np.broadcast_arrays(*self.times.values())), axis=0)
        return plain(names[longest])
