"""What a published tool answered to the questions of chapter 9, recorded where it ran.

The peers (GenZ, ``genz-llm``) are not dependencies of the course: ``make compare-peers`` installs
one in an environment of its own and runs ``benchmarks/compare_peers.py``, which with ``--record``
writes its answers, with the tool's version and the chip figures it was given, to
``rooflinekit/data/peers/<tool>.json``. A chapter reads them here and sets them beside the step the
library computes now; :meth:`PeerRecord.stale_figures` names the catalog figures that changed since
the tool ran (the record must then be made again).

>>> genz = recorded_peer("genz")
>>> genz.tool, genz.case("mixtral decode").chip
('GenZ', 'h200-sxm')
>>> genz.stale_figures()
[]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from rooflinekit.catalog import chip
from rooflinekit.errors import RooflineInputError

FIGURES = ("peak_bf16", "hbm_bandwidth", "hbm_bytes", "link_bandwidth")
"""The chip figures a record names, as the catalog held them when the tool ran."""


def chip_figures(chip_id: str) -> dict[str, float]:
    """The catalog's figures a tool is given for ``chip_id`` (as a record stores them).

    >>> chip_figures("h100-sxm")["hbm_bandwidth"]
    3350000000000.0
    """
    c = chip(chip_id)
    return {"peak_bf16": c.peak("bf16"), "hbm_bandwidth": c.hbm_bandwidth, "hbm_bytes": c.hbm_bytes,
            "link_bandwidth": c.link_bandwidth}


@dataclass(frozen=True)
class PeerCase:
    """One question put to the tool: ``model`` on ``n_chips`` ``chip``s with ``context`` tokens of
    cache, a decode step (or a round of speculative decoding) at each batch of ``seconds`` (the
    tool's time for it); ``extra`` holds its other answers by name (tokens a round, cache bytes)."""

    name: str
    model: str
    chip: str
    n_chips: int
    context: int
    phase: str
    seconds: dict[int, float]
    figures: dict[str, float]
    note: str
    extra: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class PeerRecord:
    """A tool's recorded answers: its name, package and version, and its cases by name."""

    tool: str
    package: str
    version: str
    written_by: str
    cases: tuple[PeerCase, ...]

    def case(self, name: str) -> PeerCase:
        """The case called ``name``."""
        for found in self.cases:
            if found.name == name:
                return found
        raise RooflineInputError("case", "one of " + ", ".join(c.name for c in self.cases), name)

    def stale_figures(self) -> list[str]:
        """``chip.figure`` for every figure a case was given that the catalog no longer holds."""
        return [f"{c.chip}.{name}" for c in self.cases for name, value in c.figures.items()
                if chip_figures(c.chip).get(name) != value]


def _case(data: dict[str, Any]) -> PeerCase:
    return PeerCase(str(data["name"]), str(data["model"]), str(data["chip"]), int(data["n_chips"]),
                    int(data["context"]), str(data["phase"]),
                    {int(batch): float(s) for batch, s in data["seconds"].items()},
                    {str(k): float(v) for k, v in data["figures"].items()}, str(data.get("note", "")),
                    {str(k): float(v) for k, v in data.get("extra", {}).items()})


def recorded_peer(tool: str) -> PeerRecord:
    """The record ``benchmarks/compare_peers.py --record`` wrote for ``tool`` (``"genz"``)."""
    name = f"{tool}.json"
    folder = resources.files("rooflinekit").joinpath("data", "peers")
    if not folder.joinpath(name).is_file():
        known = sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))
        raise RooflineInputError("tool", "one of " + ", ".join(known), tool)
    data = json.loads(folder.joinpath(name).read_text(encoding="utf-8"))
    return PeerRecord(str(data["tool"]), str(data["package"]), str(data["version"]), str(data["written_by"]),
                      tuple(_case(c) for c in data["cases"]))
