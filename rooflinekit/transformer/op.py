"""One operation of a step, costed on one chip: the unit :mod:`rooflinekit.transformer.step` places.

>>> from rooflinekit.costs import matmul_cost
>>> Op("up", "matmul", matmul_cost(1, 4096, 4096), count=32).intensity > 0.9
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rooflinekit.costs import Cost


@dataclass(frozen=True)
class Op:
    """One operation of a step, costed on one chip, and how many times the step runs it.

    ``cost`` counts FLOPs and HBM bytes; a collective does no math and moves no HBM bytes
    here, only ``link_bytes`` over the chip's link. ``weight_bytes`` are the HBM bytes of
    weights a matmul reads in one run (part of ``cost``'s bytes; 0 for other operations).
    """

    name: str
    kind: str
    cost: Cost
    count: int = 1
    link_bytes: float = 0.0
    collective: str | None = None
    weight_bytes: float = 0.0

    @property
    def flops(self) -> float:
        return float(self.cost.flops)

    @property
    def bytes(self) -> float:
        """HBM bytes, or for a collective the bytes it sends over the link."""
        return self.link_bytes if self.collective else float(self.cost.bytes)

    @property
    def intensity(self) -> float:
        """FLOPs per byte moved (per HBM byte, or per link byte for a collective)."""
        return self.flops / self.bytes if self.bytes else math.inf
