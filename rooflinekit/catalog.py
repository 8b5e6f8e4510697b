"""The hardware catalog: accelerators with their peaks, memory and links, and where each figure comes from.

Figures are the ones the course's sources use. Each has a provenance: the page it comes from
(a vendor's datasheet or product page, or the course's source text), the day it was last
checked, and a note where the course's figure differs from the vendor's. Dense and sparse
(2:4 structured sparsity) peaks are kept apart: the roofline model always uses the dense ones.

The figures are data: one TOML file a chip in ``rooflinekit/data/chips/``, in the format of a
chip file of your own (:mod:`rooflinekit.chipformat` reads both), the pages they cite once each
in ``data/sources.toml``, the chips' order and the figures of no one chip in ``data/catalog.toml``.
They are read the first time the catalog is used, not when ``rooflinekit`` is imported.

>>> v5e = chip("tpu-v5e")
>>> v5e.peak("bf16")
197000000000000.0
>>> round(v5e.critical_intensity("bf16"))
240
>>> where = v5e.provenance["hbm_bandwidth"]
>>> where.source.kind, where.checked
('paper', '2026-11-22')
>>> print(where.note)
Google gives 819 GB/s; the course uses its source text's rounding, 8.2e11 B/s (exercise 1 states 8.1e11).
>>> slow = v5e.derive(hbm_bandwidth=8.1e11)
>>> round(slow.critical_intensity("int8") / 2, 1)
243.2
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from rooflinekit._validate import check_figure, check_fraction
from rooflinekit.chips import KINDS, Chip, Provenance, Source
from rooflinekit.dtypes import dtype
from rooflinekit.errors import RooflineInputError, UnknownNameError

if TYPE_CHECKING:  # the reader loads with the data, on first use: `import rooflinekit` stays cheap
    from rooflinekit.chipformat import Context, Defaults

__all__ = [
    "ACHIEVABLE", "CHIPS", "FIGURES", "KINDS", "SOURCES", "VMEM_OVER_HBM", "Achievable", "Chip", "Provenance",
    "Source",
    "SourcedFigure", "achievable", "chip", "custom_chip",
]


def custom_chip(peak: float, hbm_bandwidth: float, compute: str = "bf16", name: str = "custom") -> Chip:
    """A chip known only by one peak and one bandwidth, as on the explorer's sliders.

    >>> custom_chip(1e14, 1e12).critical_intensity("bf16")
    100.0
    """
    return Chip(
        id=name,
        name=name,
        vendor="(custom)",
        dense_flops={dtype(compute, "compute").name: peak},
        hbm_bandwidth=hbm_bandwidth,
        hbm_bytes=1.0,
        link_bandwidth=1.0,
        link_name="link",
        notes=("figures given by the user",),
    )


class Achievable(NamedTuple):
    """The share of the advertised peak FLOP/s that real matmul kernels typically reach: a
    range from ``low`` to ``high``, and where it comes from."""

    low: float
    high: float
    provenance: Provenance


class SourcedFigure(NamedTuple):
    """A figure that belongs to no one chip of the catalog, and where it comes from."""

    value: float
    provenance: Provenance


class _Data(NamedTuple):
    """Everything the catalog's data files hold, read and checked."""

    sources: Mapping[str, Source]
    chips: Mapping[str, Chip]
    achievable: Mapping[str, Achievable]
    vmem_over_hbm: SourcedFigure
    figures: Mapping[str, SourcedFigure]


_DATA = os.path.join(os.path.dirname(__file__), "data")
"""The catalog's data files: package data, beside this module in a wheel as in a checkout."""


def _read(name: str) -> dict[str, Any]:
    """The data of one of the package's data files (``name`` relative to ``rooflinekit/data``)."""
    from rooflinekit.chipformat import parse_toml

    with open(os.path.join(_DATA, *name.split("/")), encoding="utf-8") as file:
        return parse_toml(file.read(), name)


def _chips(listed: Any, sources: Mapping[str, Source]) -> dict[str, Chip]:
    """The chips catalog.toml lists, in its order, each from its file, complete and sourced."""
    from rooflinekit.chipformat import chip_from_data

    present = sorted(name[:-5] for name in os.listdir(os.path.join(_DATA, "chips")) if name.endswith(".toml"))
    if not (isinstance(listed, list) and sorted(listed) == present):
        accepted = "the ids of the files in chips/: " + ", ".join(present)
        raise RooflineInputError("catalog.toml: chips", accepted, listed)
    found = {}
    for chip_id in listed:
        label = f"chips/{chip_id}.toml"
        found[chip_id] = chip_from_data(_read(label), label, sources=sources, complete=True)
        if found[chip_id].id != chip_id:
            raise RooflineInputError(f"{label}: id", f"the file's name, {chip_id!r}", found[chip_id].id)
    return found


def _sourced(table: Any, where: str, keys: tuple[str, ...], ctx: Context, inherited: Defaults) -> Provenance:
    """Where one of catalog.toml's own figures comes from; its source is required."""
    from rooflinekit.chipformat import check_keys, cited

    if not isinstance(table, Mapping):
        raise ctx.error(where, "a table with " + ", ".join(keys), table)
    check_keys(table, (*keys, "source", "checked", "note"), f"catalog.toml: {where} key")
    given = cited(table, where, ctx, inherited)
    if given.source is None:
        raise ctx.error(f"{where}.source", "a key of sources.toml", None)
    return Provenance(given.source, given.checked, given.note)


@functools.cache
def _data() -> _Data:
    """The catalog's data files, read and checked once."""
    from rooflinekit.chipformat import Context, Defaults, check_keys, iso_date, read_sources

    sources = read_sources(_read("sources.toml"), "sources.toml")
    index = _read("catalog.toml")
    check_keys(index, ("chips", "checked", "achievable", "vmem_over_hbm", "figures"), "catalog.toml: field")
    ctx = Context("catalog.toml", sources, {})
    inherited = Defaults(checked=iso_date(index.get("checked", ""), "catalog.toml: checked"))
    shares = {
        vendor: Achievable(
            check_fraction(f"catalog.toml: achievable.{vendor}.low", table.get("low")),
            check_fraction(f"catalog.toml: achievable.{vendor}.high", table.get("high")),
            _sourced(table, f"achievable.{vendor}", ("low", "high"), ctx, inherited),
        )
        for vendor, table in index.get("achievable", {}).items()
    }
    vmem = index.get("vmem_over_hbm")
    vmem_over_hbm = SourcedFigure(
        check_figure("catalog.toml: vmem_over_hbm.value", (vmem or {}).get("value")),
        _sourced(vmem, "vmem_over_hbm", ("value",), ctx, inherited),
    )
    figures = {
        name: SourcedFigure(check_figure(f"catalog.toml: figures.{name}.value", (table or {}).get("value")),
                            _sourced(table, f"figures.{name}", ("value",), ctx, inherited))
        for name, table in index.get("figures", {}).items()
    }
    chips = _chips(index.get("chips"), sources)
    return _Data(MappingProxyType(sources), MappingProxyType(chips), MappingProxyType(shares), vmem_over_hbm,
                 MappingProxyType(figures))


_T = TypeVar("_T")


class _OnFirstUse(Mapping[str, _T]):
    """A read-only mapping of the catalog's data, read from its files when first used."""

    def __init__(self, part: Callable[[_Data], Mapping[str, _T]]) -> None:
        self._part = part

    def _mapping(self) -> Mapping[str, _T]:
        return self._part(_data())

    def __getitem__(self, key: str) -> _T:
        return self._mapping()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self._mapping())

    def __repr__(self) -> str:
        return repr(dict(self._mapping()))


CHIPS: Mapping[str, Chip] = _OnFirstUse(lambda data: data.chips)
"""The catalog's chips by id, in the order the course lists them."""

SOURCES: Mapping[str, Source] = _OnFirstUse(lambda data: data.sources)
"""The pages the catalog's figures cite, by the key a chip file names them with (data/sources.toml)."""

ACHIEVABLE: Mapping[str, Achievable] = _OnFirstUse(lambda data: data.achievable)
"""By vendor: how much of the datasheet's peak FLOP/s real kernels reach, as the course's source
reports it. Use it with ``rk.hardware(chip, achieved=...)`` to see the roofline they live under."""

FIGURES: Mapping[str, SourcedFigure] = _OnFirstUse(lambda data: data.figures)
"""Figures of systems built from the catalog's chips rather than of one chip, by name, each with its
source: ``"h100_node_gpus"``, the GPUs one NVLink server (an HGX H100) joins, and
``"h100_all_reduce_bus_bandwidth"``, the bus bandwidth NCCL's all-reduce reaches among them (B/s), and
``"h100_reported_memory"``, the bytes of memory an H100 80GB reports (its ``hbm_bytes`` reads "80 GB"
as 8e10 bytes, the course's convention)."""

VMEM_OVER_HBM: SourcedFigure  # read from catalog.toml on first use (__getattr__)
"""How many times the HBM bandwidth a TPU's matrix unit reads from VMEM, its on-chip vector memory,
as the course's source estimates it: ``rk.hardware(chip, bandwidth=chip.hbm_bandwidth *
VMEM_OVER_HBM.value)`` is the roof of parameters kept in VMEM."""


def __getattr__(name: str) -> Any:
    """``VMEM_OVER_HBM``, read from the catalog's data on first use."""
    if name == "VMEM_OVER_HBM":
        return _data().vmem_over_hbm
    raise AttributeError(f"module 'rooflinekit.catalog' has no attribute {name!r}")


def chip(chip_id: str | Chip, argument: str = "chip") -> Chip:
    """Look up a chip by id (case-insensitive); a ``Chip`` passes through.

    >>> chip("H100-SXM").name
    'NVIDIA H100 SXM'
    >>> try:
    ...     chip("h100")
    ... except KeyError as error:
    ...     print(error)
    chip must be one of tpu-v5e, tpu-v5p, tpu-v6e, h100-sxm, h200-sxm, b200 (got 'h100')
    """
    if isinstance(chip_id, Chip):
        return chip_id
    if isinstance(chip_id, str) and chip_id.lower() in CHIPS:
        return CHIPS[chip_id.lower()]
    raise UnknownNameError(argument, list(CHIPS), chip_id)


def achievable(on: str | Chip) -> Achievable:
    """The typical achievable share of a catalog chip's peak, by its vendor.

    >>> achievable("h100-sxm")[:2], achievable("tpu-v5e")[:2]
    ((0.8, 0.85), (0.95, 0.95))
    """
    found = chip(on)
    if found.vendor not in ACHIEVABLE:
        raise UnknownNameError(f"vendor of {found.id} (for achievable peaks)", list(ACHIEVABLE), found.vendor)
    return ACHIEVABLE[found.vendor]
