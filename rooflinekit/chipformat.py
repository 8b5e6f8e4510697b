'''One chip format: a chip from a TOML chip file's data, every figure with its unit and its source.

The catalog's chips (one file each in ``rooflinekit/data/chips/``, read by :mod:`rooflinekit.catalog`)
and a chip of your own (``--chip-file``, :mod:`rooflinekit.chipfile`) are read by this module:
one schema, one set of checks, one kind of error. ``tomllib`` reads the text; this module checks
what it holds (a small typed validator: units, cross-references and the house's one-line errors
are beyond a JSON Schema) and converts every figure to SI units, exactly as written in decimal.

A figure is a number in SI units (FLOP/s, B/s, bytes), or a table giving its unit and where it
comes from::

    id = "x1"
    name = "ACME X1"
    hbm_bandwidth = 2.0e12                 # B/s
    hbm_bytes = { value = 48, unit = "GB" }

    [link_bandwidth]
    value = 100
    unit = "GB/s"                          # B/s, kB/s, MB/s, GB/s or TB/s
    source = "acme"                        # a key of [sources] (or of the catalog's sources.toml)
    checked = 2026-11-20                   # the day it was last compared with its source
    note = "ACME gives {link} in both directions together; one way is half of it."

    [dense_flops]                          # peaks by dtype; unit, source, checked and note
    unit = "TFLOP/s"                       #   here are the defaults of the table's entries
    source = "acme"
    bf16 = 400
    int8 = { value = 800, unit = "TOP/s" }

    [vendor_figures]                       # a vendor's figures as its pages write them, quoted
    link = "200 GB/s"                      #   by notes as {link}: typed once

    [levels.sram]                          # on-chip memories, outermost first (optional)
    name = "SRAM"
    units = { value = 64, note = "one per core" }      # how many; capacity is one unit's
    capacity = { value = 256, unit = "KiB", kind = "vendor figure" }
    bandwidth = { value = 20, unit = "TB/s", kind = "estimate", note = "how it was derived" }
    # or bandwidth_over_hbm = { value = 22, kind = "estimate" }: that many times hbm_bandwidth

    [sources.acme]
    title = "ACME X1 datasheet"
    url = "https://example.com/x1"
    kind = "datasheet"                     # datasheet, product page, paper, course, user or measured

A figure with no ``source`` of its own takes its table's, then the file's: ``source = "acme"``
at the top, or a ``[source]`` table (the one-source form: ``title``, ``url``, ``kind`` and
``checked``). ``checked`` goes the same way. The chip's ``notes`` (a list of texts), each
figure's ``note`` and each memory level's ``name`` become messages (:mod:`rooflinekit.words`)
that the book's Korean edition translates; a brace that quotes no vendor figure is written
twice, ``{{``.

>>> data = {"id": "x1", "name": "X1", "hbm_bandwidth": {"value": 2, "unit": "TB/s"},
...         "dense_flops": {"bf16": 4e14}}
>>> x1 = chip_from_data(data, "x1.toml")
>>> x1.hbm_bandwidth, x1.critical_intensity("bf16")
(2000000000000.0, 200.0)
>>> chip_from_data({**data, "hbm_bandwidth": {"value": 2, "unit": "TB"}}, "x1")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rooflinekit.errors.RooflineInputError: x1: hbm_bandwidth.unit must be one of B/s, kB/s, MB/s, GB/s, TB/s ...
'''

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from rooflinekit._validate import check_figure
from rooflinekit.chips import (
    FIGURE_KINDS,
    KIND_OF_SOURCE,
    KINDS,
    OPTIONAL_FIGURES,
    Chip,
    MemoryLevel,
    Provenance,
    Source,
)
from rooflinekit.dtypes import DTYPES, dtype
from rooflinekit.errors import RooflineInputError, Shown
from rooflinekit.words import Message, placeholders

FIELDS = {
    "id": "a short name for the chip",
    "name": "the chip's full name",
    "vendor": "who makes it",
    "hbm_bandwidth": "the HBM bandwidth in B/s",
    "hbm_bytes": "the HBM capacity in bytes",
    "link_bandwidth": "one direction of one inter-chip link in B/s",
    "link_name": "the link's name",
    "vector_flops": "the vector unit's peak FLOP/s",
    "pcie_bandwidth": "one direction of the PCIe link to the host in B/s",
    "dcn_bandwidth": "the chip's share of the data-center network, one way, in B/s",
    "dense_flops": "a table of peak FLOP/s by dtype",
    "sparse_flops": "a table of peak FLOP/s with 2:4 sparsity by dtype",
    "notes": "a list of remarks",
    "source": "where the figures come from: a key of [sources], or a table",
    "sources": "tables of the pages the figures cite, by key",
    "checked": "the day the figures were last compared with their sources",
    "vendor_figures": "a table of the vendor's figures as its pages write them, quoted by notes",
    "levels": "tables of the on-chip memories by id, outermost first: name, capacity, units, bandwidth",
}
"""The fields a chip file may have, and what each holds."""

REQUIRED = ("id", "name", "hbm_bandwidth", "dense_flops")
"""The fields every chip file gives; a chip without ``hbm_bytes`` or ``link_bandwidth`` gets a
placeholder of 1, as :func:`~rooflinekit.catalog.custom_chip` does."""

CATALOG_REQUIRED = (*REQUIRED, "vendor", "hbm_bytes", "link_bandwidth", "link_name")
"""The fields a catalog chip gives (with a source for every figure): ``complete=True``."""

UNITS: dict[str, dict[str, int]] = {
    "FLOP/s": {"FLOP/s": 1, "GFLOP/s": 10**9, "TFLOP/s": 10**12, "PFLOP/s": 10**15,
               "OP/s": 1, "GOP/s": 10**9, "TOP/s": 10**12, "POP/s": 10**15},
    "B/s": {"B/s": 1, "kB/s": 10**3, "MB/s": 10**6, "GB/s": 10**9, "TB/s": 10**12},
    "B": {"B": 1, "kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
          "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40},
    "x": {"x": 1},
    "units": {"units": 1},
}
"""The units a figure may be written in, by the SI unit it converts to (OP/s for integer math)."""

FIGURE_UNITS = {"hbm_bandwidth": "B/s", "hbm_bytes": "B", "link_bandwidth": "B/s", "vector_flops": "FLOP/s",
                "pcie_bandwidth": "B/s", "dcn_bandwidth": "B/s", "dense_flops": "FLOP/s",
                "sparse_flops": "FLOP/s"}
"""Each figure's SI unit (the peaks' tables: every entry's)."""

FIGURE_KEYS = ("value", "unit", "source", "checked", "note")
"""The keys of a figure written as a table."""

DEFAULT_KEYS = ("unit", "source", "checked", "note")
"""The keys of a peaks table that are its entries' defaults, not dtypes."""

LEVEL_KEYS = ("name", "capacity", "units", "bandwidth", "bandwidth_over_hbm", "note")
"""The keys of a memory level's table (``[levels.<id>]``)."""

LEVEL_UNITS = {"capacity": "B", "units": "units", "bandwidth": "B/s", "bandwidth_over_hbm": "x"}
"""Each level figure's SI unit (``bandwidth_over_hbm`` is a ratio: that many times the HBM's)."""

SOURCE_KEYS = ("title", "url", "kind")
"""The keys of a source's table (the file's one ``[source]`` may also say ``checked``)."""


class Defaults(NamedTuple):
    """What a figure takes from its table or its file when it does not say it itself."""

    source: Source | None = None
    checked: str = ""
    note: str = ""
    unit: str | None = None


@dataclass(frozen=True)
class Context:
    """What the figures of one file may refer to: the file's name (``label``, for errors), the
    sources known by key and the vendor's figures that notes quote."""

    label: str
    sources: Mapping[str, Source]
    quoted: Mapping[str, str]

    def error(self, where: str, accepted: str, got: Any) -> RooflineInputError:
        """One line naming the file, the field and what it accepts."""
        return RooflineInputError(f"{self.label}: {where}", accepted, got)


def check_keys(table: Mapping[str, Any], known: tuple[str, ...] | Mapping[str, Any], argument: str) -> None:
    """Refuse a key ``known`` does not list, naming it (as ``argument``) and the accepted ones.

    >>> try:
    ...     check_keys({"value": 1, "units": "GB"}, FIGURE_KEYS, "hbm_bytes key")
    ... except RooflineInputError as error:
    ...     print(error)
    hbm_bytes key must be one of value, unit, source, checked, note (got 'units')
    """
    for key in table:
        if key not in known:
            raise RooflineInputError(argument, "one of " + ", ".join(known), key)


def convert(value: Any, unit: str, si_unit: str, where: str) -> float:
    """``value`` in ``unit`` (one of ``UNITS[si_unit]``) as a float in ``si_unit``: the float
    nearest the exact decimal product, as the value is written.

    >>> convert(1.1, "PFLOP/s", "FLOP/s", "peak"), 1.1 * 1e15
    (1100000000000000.0, 1100000000000000.1)
    """
    from decimal import Decimal  # only here: `import rooflinekit` stays cheap

    number = check_figure(where, value)
    factor = UNITS[si_unit][unit]
    return number if factor == 1 else float(Decimal(repr(number)) * factor)


def check_unit(unit: Any, si_unit: str, where: str, ctx: Context) -> str:
    """``unit`` if a figure in ``si_unit`` may be written in it."""
    if unit not in UNITS[si_unit]:
        raise ctx.error(where, "one of " + ", ".join(UNITS[si_unit]), unit)
    return str(unit)


def iso_date(value: Any, where: str) -> str:
    """A TOML date (or its text, ``YYYY-MM-DD``) as ISO text; ``""`` for none.

    >>> iso_date(datetime.date(2026, 11, 22), "checked"), iso_date("", "checked")
    ('2026-11-22', '')
    """
    try:
        text = value.isoformat() if isinstance(value, datetime.date) else value
        if text:
            datetime.date.fromisoformat(text)
        return str(text)
    except (TypeError, ValueError, AttributeError) as error:
        raise RooflineInputError(where, "a date, YYYY-MM-DD", value) from error


def template(text: Any, where: str, ctx: Context) -> Message:
    """A note as a message whose ``{name}`` quote the file's vendor figures.

    >>> ctx = Context("x1", {}, {"hbm": "819 GB/s"})
    >>> template("Google gives {hbm}.", "note", ctx)
    'Google gives 819 GB/s.'
    >>> try:
    ...     template("Google gives {hmb}.", "note", ctx)
    ... except RooflineInputError as error:
    ...     print(error)
    x1: note placeholder must be one of the [vendor_figures]: hbm (got 'hmb')
    """
    accepted = "text whose {name} quote [vendor_figures] (a brace of its own written {{ or }})"
    if not isinstance(text, str):
        raise ctx.error(where, "text", text)
    try:
        names = placeholders(text)
    except RooflineInputError as error:
        raise ctx.error(where, accepted, text) from error
    for name in names:
        if name not in ctx.quoted:
            listed = ", ".join(ctx.quoted) or "none given"
            raise ctx.error(f"{where} placeholder", f"one of the [vendor_figures]: {listed}", name)
    return Message(text, {name: ctx.quoted[name] for name in names})


def source_table(table: Any, where: str, ctx: Context, title: str, extra: tuple[str, ...] = ()) -> Source:
    """A source given as a table (``title``, ``url``, ``kind``; ``kind`` is ``user`` unless said)."""
    if not isinstance(table, Mapping):
        raise ctx.error(where, "a table with " + ", ".join(SOURCE_KEYS), table)
    check_keys(table, (*SOURCE_KEYS, *extra), f"{ctx.label}: {where} key")
    for key in ("title", "url"):
        if not isinstance(table.get(key, ""), str):
            raise ctx.error(f"{where}.{key}", "a string", table[key])
    kind = table.get("kind", "user")
    if kind not in KINDS:
        raise ctx.error(f"{where}.kind", "one of " + ", ".join(KINDS), kind)
    return Source(table.get("title", title), table.get("url", ""), kind)


def read_sources(table: Any, label: str) -> dict[str, Source]:
    """Sources by key, from a ``[sources]`` table (or the catalog's sources.toml).

    >>> read_sources({"acme": {"title": "ACME X1", "url": "https://example.com", "kind": "datasheet"}}, "x")
    {'acme': Source(title='ACME X1', url='https://example.com', kind='datasheet')}
    """
    ctx = Context(label, {}, {})
    if not isinstance(table, Mapping):
        raise ctx.error("sources", "tables of sources by key", table)
    return {key: source_table(page, f"sources.{key}", ctx, key) for key, page in table.items()}


def source_of(value: Any, where: str, ctx: Context) -> Source:
    """A figure's ``source``: a key of the known sources, or a table."""
    if isinstance(value, str):
        if value not in ctx.sources:
            raise ctx.error(where, "a key of [sources]: " + (", ".join(ctx.sources) or "none given"), value)
        return ctx.sources[value]
    return source_table(value, where, ctx, ctx.label)


def cited(table: Mapping[str, Any], where: str, ctx: Context, inherited: Defaults) -> Defaults:
    """What a table says of where its figures come from (``source``, ``checked``, ``note``), the
    rest ``inherited``."""
    source = source_of(table["source"], f"{where}.source", ctx) if "source" in table else inherited.source
    checked = inherited.checked
    if "checked" in table:
        checked = iso_date(table["checked"], f"{ctx.label}: {where}.checked")
    note = template(table["note"], f"{where}.note", ctx) if "note" in table else inherited.note
    return Defaults(source, checked, note, inherited.unit)


def defaults(
    table: Mapping[str, Any], where: str, si_unit: str, ctx: Context, inherited: Defaults
) -> Defaults:
    """What a table says for itself or its entries (where they come from, and ``unit``), the
    rest ``inherited``."""
    given = cited(table, where, ctx, inherited)
    if "unit" in table:
        return given._replace(unit=check_unit(table["unit"], si_unit, f"{where}.unit", ctx))
    return given


def figure(
    value: Any, where: str, si_unit: str, ctx: Context, inherited: Defaults
) -> tuple[float, Provenance | None]:
    """One figure in SI units, and where it comes from (``None`` when no source is given).

    >>> ctx = Context("x1.toml", {"acme": Source("ACME X1", "https://example.com")}, {})
    >>> figure({"value": 48, "unit": "GB", "source": "acme"}, "hbm_bytes", "B", ctx, Defaults())
    (48000000000.0, Provenance(source=Source(title='ACME X1', url='https://example.com', kind='datasheet'), \
checked='', note=''))
    """
    given = inherited
    if isinstance(value, Mapping):
        check_keys(value, FIGURE_KEYS, f"{ctx.label}: {where} key")
        if "value" not in value:
            raise ctx.error(f"{where}.value", f"given: the figure, in {si_unit} unless a unit is given",
                            Shown("nothing"))
        given = defaults(value, where, si_unit, ctx, inherited)
        value, where = value["value"], f"{where}.value"
    number = convert(value, given.unit or si_unit, si_unit, f"{ctx.label}: {where}")
    if given.source is None:
        if given.note or given.checked:
            raise ctx.error(f"{where.removesuffix('.value')}.source",
                            "given with a note or a checked day (its own, its table's or the file's)",
                            Shown("nothing"))
        return number, None
    return number, Provenance(given.source, given.checked, given.note)


def peaks(
    table: Any, name: str, ctx: Context, inherited: Defaults
) -> tuple[dict[str, float], dict[str, Provenance]]:
    """A table of peaks by dtype (``dense_flops``, ``sparse_flops``), in the order of
    :data:`~rooflinekit.dtypes.DTYPES`, and where each comes from."""
    if not isinstance(table, Mapping):
        raise ctx.error(name, FIELDS[name], table)
    found: dict[str, float] = {}
    sourced: dict[str, Provenance] = {}
    given = defaults(table, name, FIGURE_UNITS[name], ctx, inherited)
    for key, value in table.items():
        if key in DEFAULT_KEYS:
            continue
        if not isinstance(key, str) or key.lower() not in _DTYPE_NAMES:
            raise ctx.error(f"{name} key", "one of " + ", ".join([*DTYPES, *DEFAULT_KEYS]), key)
        dtype_name = dtype(key).name
        found[dtype_name], where = figure(value, f"{name}.{key}", FIGURE_UNITS[name], ctx, given)
        if where is not None:
            sourced[f"{name}.{dtype_name}"] = where
    order = list(DTYPES)  # the dtypes' own order, whatever the file's layout
    return dict(sorted(found.items(), key=lambda item: order.index(item[0]))), sourced


_DTYPE_NAMES = frozenset(alias for d in DTYPES.values() for alias in (d.name, *d.aliases))


def vendor_figures(table: Any, label: str) -> dict[str, str]:
    """The ``[vendor_figures]`` table: names to the texts notes quote."""
    if table is None:
        return {}
    if not (isinstance(table, Mapping) and all(isinstance(k, str) and k.isidentifier() and isinstance(v, str)
                                               for k, v in table.items())):
        raise RooflineInputError(f"{label}: vendor_figures", "a table of names to texts, such as "
                                 'hbm = "819 GB/s"', table)
    return dict(table)


def file_defaults(data: Mapping[str, Any], ctx: Context) -> Defaults:
    """The file's own ``source`` (a key, or the one-source form's ``[source]`` table) and ``checked``."""
    source, checked = data.get("source"), ""
    if isinstance(source, Mapping):
        checked = iso_date(source.get("checked", ""), f"{ctx.label}: source.checked")
        page: Source | None = source_table(source, "source", ctx, ctx.label, extra=("checked",))
    else:
        page = None if source is None else source_of(source, "source", ctx)
    if "checked" in data:
        checked = iso_date(data["checked"], f"{ctx.label}: checked")
    return Defaults(page, checked)


def notes(data: Mapping[str, Any], ctx: Context) -> tuple[Message, ...]:
    """The chip's notes, as messages quoting the vendor's figures."""
    given = data.get("notes", [])
    if not isinstance(given, list):
        raise ctx.error("notes", "a list of strings", given)
    return tuple(template(note, f"notes[{i}]", ctx) for i, note in enumerate(given))


def check_fields(data: Mapping[str, Any], label: str, required: tuple[str, ...]) -> None:
    """Known fields only, the required ones there, names as non-empty strings."""
    check_keys(data, FIELDS, f"{label}: field")
    for field in required:
        if field not in data:
            raise RooflineInputError(f"{label}: {field}", f"given: {FIELDS[field]}", Shown("nothing"))
    for field in ("id", "name", "vendor", "link_name"):
        if field in data and not (isinstance(data[field], str) and data[field].strip()):
            raise RooflineInputError(f"{label}: {field}", "a non-empty string", data[field])


def chip_from_data(
    data: Mapping[str, Any],
    label: str,
    *,
    sources: Mapping[str, Source] | None = None,
    complete: bool = False,
) -> Chip:
    """The chip a chip file's data describes; errors name ``label`` (the file's name).

    ``sources`` are the sources known by key besides the file's own ``[sources]``. With
    ``complete`` (the catalog's chips), every field of :data:`CATALOG_REQUIRED` must be given and
    every figure must say where it comes from.
    """
    check_fields(data, label, CATALOG_REQUIRED if complete else REQUIRED)
    own = read_sources(data.get("sources", {}), label)
    ctx = Context(label, {**(sources or {}), **own}, vendor_figures(data.get("vendor_figures"), label))
    inherited = file_defaults(data, ctx)
    figures: dict[str, Any] = {}
    sourced: dict[str, Provenance] = {}
    for name in ("dense_flops", "sparse_flops"):
        if name in data:
            figures[name], found = peaks(data[name], name, ctx, inherited)
            sourced |= found
    for name in ("hbm_bandwidth", "hbm_bytes", "link_bandwidth", "vector_flops", "pcie_bandwidth",
                 "dcn_bandwidth"):
        if name in data:
            figures[name], where = figure(data[name], name, FIGURE_UNITS[name], ctx, inherited)
            sourced |= {name: where} if where is not None else {}
    figures["levels"] = levels(data.get("levels", {}), figures["hbm_bandwidth"], ctx, inherited, complete)
    chip = _chip(data, label, figures, sourced, notes(data, ctx))
    if complete:
        for name in chip.figures():
            if name not in chip.provenance:
                raise ctx.error(f"{name}.source", "given for every figure of the catalog's chips",
                                Shown("nothing"))
    return chip


def level_figure(
    value: Any, where: str, si_unit: str, ctx: Context, inherited: Defaults, complete: bool
) -> tuple[float, Provenance | None, str | None]:
    """One figure of a memory level, where it comes from and its kind (:data:`FIGURE_KINDS`; the
    source's kind unless it says). The catalog's (``complete``) all name a source.

    >>> ctx = Context("x1.toml", {"acme": Source("ACME X1", "https://example.com")}, {})
    >>> level_figure({"value": 2, "unit": "MiB", "source": "acme"}, "levels.sram.capacity", "B", ctx,
    ...              Defaults(), True)[::2]
    (2097152.0, 'vendor figure')
    """
    kind = None
    if isinstance(value, Mapping):
        kind = value.get("kind")
        if kind is not None and kind not in FIGURE_KINDS:
            raise ctx.error(f"{where}.kind", "one of " + ", ".join(FIGURE_KINDS), kind)
        value = {key: given for key, given in value.items() if key != "kind"}
    number, provenance = figure(value, where, si_unit, ctx, inherited)
    if provenance is None and (complete or kind is not None):
        raise ctx.error(f"{where}.source", "given for every figure of a memory level with a kind, and of the "
                        "catalog's chips", Shown("nothing"))
    if provenance is not None and kind is None:
        kind = KIND_OF_SOURCE[provenance.source.kind]
    return number, provenance, kind


def memory_level(level_id: Any, table: Any, hbm_bandwidth: float, ctx: Context, inherited: Defaults,
                 complete: bool) -> MemoryLevel:
    """One ``[levels.<id>]`` table as a :class:`MemoryLevel`; ``bandwidth_over_hbm`` is resolved
    against the chip's ``hbm_bandwidth``."""
    where = f"levels.{level_id}"
    if not isinstance(table, Mapping):
        raise ctx.error(where, "a table with " + ", ".join(LEVEL_KEYS), table)
    check_keys(table, LEVEL_KEYS, f"{ctx.label}: {where} key")
    if "bandwidth" in table and "bandwidth_over_hbm" in table:
        raise ctx.error(where, "one of bandwidth or bandwidth_over_hbm, not both", Shown("both"))
    given = table.get("name", level_id)
    if not (isinstance(given, str) and given.strip()):
        raise ctx.error(f"{where}.name", "a non-empty string", given)
    name = template(given, f"{where}.name", ctx)
    found: dict[str, Any] = {}
    provenance: dict[str, Provenance] = {}
    kinds: dict[str, str] = {}
    for key in ("capacity", "units", "bandwidth", "bandwidth_over_hbm"):
        if key in table:
            value, source, kind = level_figure(table[key], f"{where}.{key}", LEVEL_UNITS[key], ctx, inherited,
                                               complete)
            name_of = "bandwidth" if key == "bandwidth_over_hbm" else key
            found[name_of] = value * hbm_bandwidth if key == "bandwidth_over_hbm" else value
            provenance |= {name_of: source} if source is not None else {}
            kinds |= {name_of: kind} if kind is not None else {}
    units = found.pop("units", 1.0)
    if not float(units).is_integer():
        raise ctx.error(f"{where}.units", "a positive integer", units)
    note = template(table["note"], f"{where}.note", ctx) if "note" in table else ""
    return MemoryLevel(str(level_id), name, units=int(units), provenance=provenance, kinds=kinds, note=note,
                       **found)


def levels(table: Any, hbm_bandwidth: float, ctx: Context, inherited: Defaults,
           complete: bool) -> tuple[MemoryLevel, ...]:
    """The ``[levels]`` table: the chip's on-chip memories in the file's order, outermost first."""
    if not isinstance(table, Mapping):
        raise ctx.error("levels", FIELDS["levels"], table)
    return tuple(memory_level(key, value, hbm_bandwidth, ctx, inherited, complete)
                 for key, value in table.items())


def _chip(data: Mapping[str, Any], label: str, figures: Mapping[str, Any], sourced: Mapping[str, Provenance],
          remarks: tuple[Message, ...]) -> Chip:
    """The chip, its provenance in the order of :meth:`Chip.figures` (peaks first, by dtype); the
    checks every chip gets said of the file."""
    tables = ("dense_flops", "sparse_flops")
    order = [f"{table}.{name}" for table in tables for name in figures.get(table, {})]
    order += ["hbm_bandwidth", "hbm_bytes", "link_bandwidth", *OPTIONAL_FIGURES]
    try:
        return Chip(id=data["id"], name=data["name"], vendor=data.get("vendor", "(user)"),
                    link_name=data.get("link_name", "link"), notes=remarks,
                    provenance={name: sourced[name] for name in order if name in sourced},
                    **{"hbm_bytes": 1.0, "link_bandwidth": 1.0, **figures})
    except RooflineInputError as error:
        raise RooflineInputError(f"{label}: {error.argument}", error.accepted, error.got) from error


def parse_toml(text: str, label: str) -> dict[str, Any]:
    """The data of a TOML text; a syntax error is one line naming the file and the line.

    >>> try:
    ...     parse_toml("hbm_bytes 48e9", "x1.toml")
    ... except RooflineInputError as error:
    ...     print(error)
    x1.toml must be valid TOML (Expected '=' after a key in a key/value pair) (got line 1: 'hbm_bytes 48e9')
    """
    import tomllib  # only here: reading a chip file is rare, and `import rooflinekit` stays cheap

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        where = re.search(r"\(at line (\d+), column \d+\)", message)
        reason = message[: where.start()].strip() if where else message
        line = int(where.group(1)) if where else 0
        lines = text.splitlines()
        shown = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        raise RooflineInputError(label, f"valid TOML ({reason})", Shown(f"line {line}: {shown!r}")) from error
