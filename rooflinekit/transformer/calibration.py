"""Named sets of figures for a step: the datasheet's ideal, or figures calibrated from the catalog.

Every step of :mod:`rooflinekit.transformer` is costed at the datasheet's figures by default
(``"ideal"``: 100 % of the peak, of the HBM bandwidth and of the link's line rate, collectives that
cost only their bytes): the roofline's lower bound. ``"calibrated"`` puts in what the catalog
knows real systems reach, each figure with its source:

- **matmuls** at the low end of the share of the peak the vendor's chips typically reach
  (:func:`rooflinekit.catalog.achievable`: 80 % for NVIDIA GPUs, 95 % for TPUs);
- **collectives** at the bus bandwidth NCCL's all-reduce reaches on an eight-GPU H100 server, over
  NVLink's line rate (``rk.FIGURES["h100_all_reduce_bus_bandwidth"]``, about 82 %), for the
  NVIDIA GPUs (measured on H100; H200 has the same NVLink, B200 a faster one whose share is
  taken to be the same); TPUs keep their line rate, the catalog having no measurement for them;
- a **latency** of :data:`EXAMPLE_COLLECTIVE_LATENCY` a collective, an example of the order NCCL's
  small all-reduces take within a server, not a datasheet figure;
- **memory** at the datasheet's bandwidth: the catalog has no measured share of it.

>>> c = calibration("h100-sxm")
>>> c.efficiency.compute, round(c.efficiency.network, 3), c.efficiency.memory, c.collective_latency
(0.8, 0.822, 1.0, 1e-05)
>>> calibration("h100-sxm", "ideal").settings()
{'efficiency': Efficiency(compute=1.0, memory=1.0, network=1.0), 'collective_latency': 0.0}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rooflinekit.catalog import FIGURES, Chip, achievable, chip
from rooflinekit.errors import RooflineInputError
from rooflinekit.transformer.efficiency import Efficiency
from rooflinekit.words import message

FIGURE_SETS = ("ideal", "calibrated")
"""The named sets of figures a step can be costed at."""

EXAMPLE_COLLECTIVE_LATENCY = 10e-6
"""Seconds a collective costs before its bytes in ``"calibrated"``: an example, not a measurement."""

_MEASURED_ON = "h100-sxm"


@dataclass(frozen=True)
class Calibration:
    """A named set of figures: the efficiencies and the latency a step is costed with, and why."""

    name: str
    efficiency: Efficiency
    collective_latency: float
    reasons: tuple[str, ...] = field(default=())

    def settings(self) -> dict[str, Any]:
        """The settings of :func:`~rooflinekit.transformer.step.transformer_step` it stands for."""
        return {"efficiency": self.efficiency, "collective_latency": self.collective_latency}

    def to_dict(self) -> dict[str, Any]:
        e = self.efficiency
        return {"name": self.name, "compute": e.compute, "memory": e.memory, "network": e.network,
                "collective_latency": self.collective_latency, "reasons": list(self.reasons)}


def calibration(on: str | Chip, name: str = "calibrated") -> Calibration:
    """The set of figures called ``name`` (one of :data:`FIGURE_SETS`) for a catalog chip.

    >>> calibration("tpu-v5e").efficiency
    Efficiency(compute=0.95, memory=1.0, network=1.0)
    """
    if name not in FIGURE_SETS:
        raise RooflineInputError("figures", "one of " + ", ".join(FIGURE_SETS), name)
    found = chip(on)
    if name == "ideal":
        return Calibration(name, Efficiency(), 0.0, (message("the datasheet's figures"),))
    return Calibration(name, _efficiency(found), EXAMPLE_COLLECTIVE_LATENCY, _reasons(found))


def _efficiency(found: Chip) -> Efficiency:
    network = 1.0
    if found.vendor == chip(_MEASURED_ON).vendor:
        network = FIGURES["h100_all_reduce_bus_bandwidth"].value / chip(_MEASURED_ON).link_bandwidth
    return Efficiency(compute=achievable(found).low, network=network)


def _reasons(found: Chip) -> tuple[str, ...]:
    """Why each figure is what it is, as messages (the Korean edition shows them in Korean)."""
    e = _efficiency(found)
    reasons = [message("matmuls at {share} of the peak, the low end of what {vendor}'s chips reach",
                       share=f"{e.compute:.0%}", vendor=found.vendor)]
    if e.network < 1.0:
        reasons.append(message("collectives at NCCL's all-reduce bus bandwidth on 8 x H100, {share} of "
                               "NVLink's line rate", share=f"{e.network:.0%}"))
    else:
        reasons.append(message("collectives at the line rate (no measured share in the catalog)"))
    example = f"{EXAMPLE_COLLECTIVE_LATENCY * 1e6:g} µs"
    reasons += [message("{latency} a collective (an example)", latency=example),
                message("memory at the datasheet's bandwidth (no measured share in the catalog)")]
    return tuple(reasons)

