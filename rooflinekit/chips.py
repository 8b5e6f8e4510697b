"""What a chip is: its figures, checked, and where each figure comes from.

A :class:`Chip` holds an accelerator's peaks, memory and link in SI units. Each figure may
carry a :class:`Provenance`: the :class:`Source` it comes from (a page and what kind of page),
the date it was last checked against that source, and a note where the figure used differs
from the vendor's. The catalog's chips (:mod:`rooflinekit.catalog`) give one for every figure.

>>> page = Source("ACME X1 datasheet", "https://example.com/x1", "datasheet")
>>> x1 = Chip(id="x1", name="ACME X1", vendor="ACME", dense_flops={"bf16": 4e14},
...           hbm_bandwidth=2e12, hbm_bytes=48e9, link_bandwidth=1e11, link_name="link",
...           provenance={"hbm_bandwidth": Provenance(page, "2026-11-20")})
>>> x1.critical_intensity("bf16"), [s.title for s in x1.sources]
(200.0, ['ACME X1 datasheet'])
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, NamedTuple

from rooflinekit._validate import check_figure
from rooflinekit.dtypes import DType, dtype
from rooflinekit.errors import RooflineInputError, UnknownNameError
from rooflinekit.words import Message, message

KINDS = ("datasheet", "product page", "paper", "course", "user", "measured", "vendor document")
"""Kinds of source: a vendor's datasheet or product page, a paper or book, the course's own
choice, a user's own figures, a measurement, or a vendor's other documents (an architecture
whitepaper, a programming guide)."""

FIGURE_KINDS = ("vendor figure", "paper", "microbenchmark", "estimate", "user", "measured")
"""Kinds of a memory level's figure (:class:`MemoryLevel`): a vendor's own figure, a paper's, a
published microbenchmark's, an estimate (derived from other figures; its note says how), a
user's own, or a measurement."""

KIND_OF_SOURCE = {"datasheet": "vendor figure", "product page": "vendor figure",
                  "vendor document": "vendor figure", "paper": "paper", "course": "estimate", "user": "user",
                  "measured": "measured"}
"""The kind a level's figure has when it does not say: its source's."""

KIND_NAMES: Mapping[str, Message] = MappingProxyType({
    # Translators: kinds of source a hardware figure comes from (the catalog's "kind" column)
    "datasheet": message("datasheet"),
    "product page": message("product page"),
    "paper": message("paper"),
    # Translators: the course's own choice of a figure, as a kind of source
    "course": message("course"),
    "user": message("user"),
    "measured": message("measured"),
    "vendor document": message("vendor document"),
    # Translators: kinds of a memory level's figure
    "vendor figure": message("vendor figure"),
    "microbenchmark": message("microbenchmark"),
    "estimate": message("estimate"),
})
"""The kinds of :data:`KINDS` and :data:`FIGURE_KINDS` for people, as messages (the catalog's pages
show them in each edition's language): ``KIND_NAMES[source.kind]``.

>>> sorted(set(KINDS) | set(FIGURE_KINDS)) == sorted(KIND_NAMES)
True
"""

LEVEL_FIGURES = ("capacity", "units", "bandwidth")
"""A memory level's figures, each absent (``None``) when no source gives it."""


OPTIONAL_FIGURES = ("vector_flops", "pcie_bandwidth", "dcn_bandwidth")
"""Figures a chip may lack, ``None`` when no source gives them."""


class Source(NamedTuple):
    """A page figures come from: its title, its address and its kind (one of :data:`KINDS`)."""

    title: str
    url: str
    kind: str = "datasheet"


class Provenance(NamedTuple):
    """Where one figure comes from: its source, the day it was last checked against it (ISO
    ``YYYY-MM-DD``, or ``""`` when unknown), and a note where it differs from the vendor's."""

    source: Source
    checked: str
    note: str = ""


def _check_provenance(figure: str, value: Any) -> None:
    """Refuse anything but a :class:`Provenance` of a known kind, checked on a real day."""
    where = f"provenance.{figure}"
    if not isinstance(value, Provenance) or not isinstance(value.source, Source):
        raise RooflineInputError(where, "a Provenance(Source(...), checked, note)", value)
    if value.source.kind not in KINDS:
        raise RooflineInputError(f"{where} kind", "one of " + ", ".join(KINDS), value.source.kind)
    try:
        if value.checked:
            datetime.date.fromisoformat(value.checked)
    except (TypeError, ValueError) as error:
        raise RooflineInputError(f"{where} checked", "a date, YYYY-MM-DD", value.checked) from error


@dataclass(frozen=True)
class MemoryLevel:
    """An on-chip memory a kernel can stage data in (a TPU's VMEM, a GPU's shared memory or L2).

    ``capacity`` is what one of its ``units`` holds, in bytes (one shared memory per SM: 132
    units on an H100); ``bandwidth`` is the whole chip's, in B/s, between it and the compute
    units. A figure no source gives is ``None``, never guessed. ``provenance`` and ``kinds``
    (one of :data:`FIGURE_KINDS`) are keyed by figure name (:data:`LEVEL_FIGURES`).

    >>> page = Source("ACME X1 datasheet", "https://example.com/x1")
    >>> sram = MemoryLevel("sram", "SRAM", capacity=2**20, provenance={"capacity": Provenance(page, "")},
    ...                    kinds={"capacity": "vendor figure"})
    >>> sram.capacity, sram.bandwidth, sram.units
    (1048576.0, None, 1)
    """

    id: str
    name: str
    capacity: float | None = None
    bandwidth: float | None = None
    units: int = 1
    provenance: Mapping[str, Provenance] = field(default_factory=dict)
    kinds: Mapping[str, str] = field(default_factory=dict)
    note: str = ""

    def __post_init__(self) -> None:
        where = f"levels.{self.id}"
        for figure in ("capacity", "bandwidth"):
            if getattr(self, figure) is not None:
                object.__setattr__(self, figure, check_figure(f"{where}.{figure}", getattr(self, figure)))
        if isinstance(self.units, bool) or not isinstance(self.units, int) or self.units < 1:
            raise RooflineInputError(f"{where}.units", "a positive integer", self.units)
        for figure, value in self.provenance.items():
            if figure not in LEVEL_FIGURES:
                accepted = "one of " + ", ".join(LEVEL_FIGURES)
                raise RooflineInputError(f"{where} provenance key", accepted, figure)
            _check_provenance(f"{where}.{figure}", value)
        for figure, kind in self.kinds.items():
            if kind not in FIGURE_KINDS:
                raise RooflineInputError(f"{where}.{figure}.kind", "one of " + ", ".join(FIGURE_KINDS), kind)
        object.__setattr__(self, "provenance", MappingProxyType(dict(self.provenance)))
        object.__setattr__(self, "kinds", MappingProxyType(dict(self.kinds)))

    def figures(self) -> dict[str, float]:
        """The level's figures that a source gives, by name (``units`` only when one is given).

        >>> MemoryLevel("l2", "L2", capacity=5e7).figures()
        {'capacity': 50000000.0}
        """
        found = {"capacity": self.capacity, "bandwidth": self.bandwidth}
        found["units"] = float(self.units) if "units" in self.provenance else None
        return {name: value for name, value in found.items() if value is not None}

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON output: figures, and where each comes from and what kind it is."""
        return {
            "id": self.id, "name": self.name, "capacity": self.capacity, "units": self.units,
            "bandwidth": self.bandwidth, "note": self.note,
            "provenance": {
                figure: {**p.source._asdict(), "checked": p.checked, "note": p.note,
                         "figure_kind": self.kinds.get(figure, KIND_OF_SOURCE[p.source.kind])}
                for figure, p in self.provenance.items()
            },
        }


@dataclass(frozen=True)
class Chip:
    """One accelerator, with figures in SI units (FLOP/s, B/s, bytes).

    ``dense_flops`` and ``sparse_flops`` map a dtype name to the peak throughput for
    matrix math in that dtype. ``link_bandwidth`` is one direction of one chip's
    inter-chip link (ICI on TPUs, NVLink on GPUs). ``pcie_bandwidth`` is one direction of
    the chip's PCIe link to its host, and ``dcn_bandwidth`` the chip's share, one direction,
    of the data-center network that joins hosts beyond the ICI or NVLink domain (``None``
    where no source gives one). ``vector_flops`` is the peak of the unit that does
    elementwise work, where it differs from the matrix unit's.
    ``provenance`` maps figure names (those of :meth:`figures`) to where they come from;
    ``notes`` are remarks about the chip as a whole. ``levels`` are its on-chip memories
    (:class:`MemoryLevel`), outermost first, as far as sources give them.
    """

    id: str
    name: str
    vendor: str
    dense_flops: Mapping[str, float]
    hbm_bandwidth: float
    hbm_bytes: float
    link_bandwidth: float
    link_name: str
    sparse_flops: Mapping[str, float] = field(default_factory=dict)
    vector_flops: float | None = None
    pcie_bandwidth: float | None = None
    dcn_bandwidth: float | None = None
    provenance: Mapping[str, Provenance] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    levels: tuple[MemoryLevel, ...] = ()

    def __post_init__(self) -> None:
        if not all(isinstance(level, MemoryLevel) for level in self.levels):
            raise RooflineInputError("levels", "a tuple of MemoryLevel", self.levels)
        object.__setattr__(self, "levels", tuple(self.levels))
        for figure in ("hbm_bandwidth", "hbm_bytes", "link_bandwidth"):
            object.__setattr__(self, figure, check_figure(figure, getattr(self, figure)))
        for figure in OPTIONAL_FIGURES:
            if getattr(self, figure) is not None:
                object.__setattr__(self, figure, check_figure(figure, getattr(self, figure)))
        for table in ("dense_flops", "sparse_flops"):
            if not isinstance(getattr(self, table), Mapping):
                raise RooflineInputError(table, "a table of dtype name to FLOP/s", getattr(self, table))
            checked = {
                dtype(name, f"{table} key").name: check_figure(f"{table}.{name}", value)
                for name, value in getattr(self, table).items()
            }
            object.__setattr__(self, table, MappingProxyType(checked))
        if not self.dense_flops:
            raise RooflineInputError("dense_flops", "at least one dtype's peak FLOP/s", {})
        known = self.figures()
        for figure, value in self.provenance.items():
            if figure not in known:
                accepted = "one of the chip's figures, " + ", ".join(known)
                raise RooflineInputError("provenance key", accepted, figure)
            _check_provenance(figure, value)
        object.__setattr__(self, "provenance", MappingProxyType(dict(self.provenance)))

    def figures(self) -> dict[str, float]:
        """Every figure by name, peaks as ``dense_flops.bf16``: what ``provenance`` is keyed by.

        >>> list(Chip("c", "c", "v", {"bf16": 1e14}, 1e12, 1e9, 1e9, "link").figures())
        ['dense_flops.bf16', 'hbm_bandwidth', 'hbm_bytes', 'link_bandwidth']
        """
        found = {f"dense_flops.{name}": value for name, value in self.dense_flops.items()}
        found |= {f"sparse_flops.{name}": value for name, value in self.sparse_flops.items()}
        found |= {"hbm_bandwidth": self.hbm_bandwidth, "hbm_bytes": self.hbm_bytes}
        found["link_bandwidth"] = self.link_bandwidth
        optional = {figure: getattr(self, figure) for figure in OPTIONAL_FIGURES}
        found |= {figure: value for figure, value in optional.items() if value is not None}
        return found

    @property
    def sources(self) -> tuple[Source, ...]:
        """The pages the figures come from (the memory levels' last), each once, in the order the
        figures cite them."""
        cited = [p.source for p in self.provenance.values()]
        cited += [p.source for level in self.levels for p in level.provenance.values()]
        return tuple(dict.fromkeys(cited))

    def peak(self, compute: str | DType = "bf16", *, sparse: bool = False) -> float:
        """Peak FLOP/s (or OP/s for integers) of matrix math in ``compute``.

        >>> from rooflinekit.catalog import chip
        >>> chip("h100-sxm").peak("bf16"), chip("h100-sxm").peak("bf16", sparse=True)
        (989000000000000.0, 1979000000000000.0)
        """
        table = self.sparse_flops if sparse else self.dense_flops
        name = dtype(compute, "compute").name
        if name not in table:
            kind = "sparse" if sparse else "dense"
            raise UnknownNameError(f"compute dtype for {self.id} ({kind})", list(table), name)
        return table[name]

    def critical_intensity(self, compute: str | DType = "bf16", *, sparse: bool = False) -> float:
        """Peak FLOP/s over HBM bandwidth: the intensity above which work is compute-bound.

        >>> from rooflinekit.catalog import chip
        >>> round(chip("h100-sxm").critical_intensity("bf16"), 1)
        295.2
        """
        return self.peak(compute, sparse=sparse) / self.hbm_bandwidth

    @property
    def vector_critical_intensity(self) -> float | None:
        """The vector unit's peak over the HBM bandwidth: the critical intensity of
        elementwise work, or ``None`` for a chip without a separate vector figure.

        >>> from rooflinekit.catalog import chip
        >>> round(chip("tpu-v5p").vector_critical_intensity, 2), chip("h100-sxm").vector_critical_intensity
        (2.5, None)
        """
        return None if self.vector_flops is None else self.vector_flops / self.hbm_bandwidth

    def derive(
        self,
        *,
        id: str | None = None,
        name: str | None = None,
        peaks: Mapping[str, float] | None = None,
        hbm_bandwidth: float | None = None,
        hbm_bytes: float | None = None,
        link_bandwidth: float | None = None,
    ) -> Chip:
        """A copy with some figures overridden, as an exercise states its own figures.

        ``peaks`` replaces or adds dense peaks per dtype; the sparse ones are dropped
        when any peak changes, since they no longer follow from the datasheet. Overridden
        figures lose their provenance; a note says what changed.

        >>> from rooflinekit.catalog import chip
        >>> slow = chip("tpu-v5e").derive(hbm_bandwidth=8.1e11)
        >>> slow.hbm_bandwidth, slow.notes[-1], "hbm_bandwidth" in slow.provenance
        (810000000000.0, 'derived from tpu-v5e: hbm_bandwidth=8.1e11', False)
        """
        from rooflinekit.fmt import sci  # only here: keeps `import rooflinekit` from loading fmt's tables

        changes: dict[str, Any] = {}
        overridden: dict[str, float] = {}  # by figure name, as provenance is keyed
        for figure, value in (("hbm_bandwidth", hbm_bandwidth), ("hbm_bytes", hbm_bytes),
                              ("link_bandwidth", link_bandwidth)):
            if value is not None:
                changes[figure] = overridden[figure] = check_figure(figure, value)
        if peaks is not None:
            if not isinstance(peaks, Mapping):
                raise RooflineInputError("peaks", "a mapping of dtype name to FLOP/s", peaks)
            dense = dict(self.dense_flops)
            for key, value in peaks.items():
                key_name = dtype(key, "peaks key").name
                dense[key_name] = overridden[f"dense_flops.{key_name}"] = check_figure(f"peaks.{key}", value)
            changes["dense_flops"] = dense
            changes["sparse_flops"] = {}
        kept = {
            figure: where for figure, where in self.provenance.items()
            if figure not in overridden and not (peaks is not None and figure.startswith("sparse_flops."))
        }
        described = ", ".join(f"{figure}={sci(value)}" for figure, value in overridden.items())
        return replace(
            self,
            id=id or f"{self.id}-custom",
            name=name or f"{self.name} (custom)",
            provenance=kept,
            notes=(*self.notes, f"derived from {self.id}: {described or 'no changes'}"),
            **changes,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON output.

        >>> from rooflinekit.catalog import chip
        >>> chip("b200").to_dict()["provenance"]["hbm_bytes"]["kind"]
        'product page'
        """
        return {
            "id": self.id,
            "name": self.name,
            "vendor": self.vendor,
            "dense_flops": dict(self.dense_flops),
            "sparse_flops": dict(self.sparse_flops),
            "hbm_bandwidth": self.hbm_bandwidth,
            "hbm_bytes": self.hbm_bytes,
            "link_bandwidth": self.link_bandwidth,
            "link_name": self.link_name,
            "vector_flops": self.vector_flops,
            "pcie_bandwidth": self.pcie_bandwidth,
            "dcn_bandwidth": self.dcn_bandwidth,
            "critical_intensity_bf16": (  # None for a chip without bf16, e.g. a measured CPU
                self.critical_intensity("bf16") if "bf16" in self.dense_flops else None
            ),
            "sources": [s._asdict() for s in self.sources],
            "provenance": {
                figure: {**p.source._asdict(), "checked": p.checked, "note": p.note}
                for figure, p in self.provenance.items()
            },
            "notes": list(self.notes),
            "levels": [level.to_dict() for level in self.levels],
        }
