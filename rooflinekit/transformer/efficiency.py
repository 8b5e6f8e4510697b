"""The fractions of a chip's datasheet figures that real kernels reach, for a step's costs.

>>> Efficiency(memory=0.9)
Efficiency(compute=1.0, memory=0.9, network=1.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from rooflinekit._validate import check_fraction


@dataclass(frozen=True)
class Efficiency:
    """Fractions of the datasheet's figures that real kernels reach, each in (0, 1].

    The default, 1, is the datasheet: the roofline's lower bound. Set them from a
    measurement (GPUs reach roughly 80 % of their peak on large matmuls).

    >>> Efficiency(compute=0.8).compute
    0.8
    """

    compute: float = 1.0
    memory: float = 1.0
    network: float = 1.0

    def __post_init__(self) -> None:
        for name in ("compute", "memory", "network"):
            object.__setattr__(self, name, check_fraction(f"efficiency.{name}", getattr(self, name)))
