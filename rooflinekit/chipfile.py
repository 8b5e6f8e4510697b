'''Your own chip from a small TOML file, checked like the catalog's chips.

Figures are in SI units; only ``id``, ``name``, ``hbm_bandwidth`` and ``[dense_flops]`` are
required (a chip without ``hbm_bytes`` or ``link_bandwidth`` gets a placeholder of 1, as
:func:`~rooflinekit.catalog.custom_chip` does: do not use it for serving or network rooflines)::

    id = "x1"
    name = "ACME X1"
    vendor = "ACME"
    hbm_bandwidth = 2.0e12          # B/s
    hbm_bytes = 48e9                # bytes
    link_bandwidth = 1e11           # B/s, one way
    link_name = "XLink"

    [dense_flops]                   # peak FLOP/s (OP/s for integers) by dtype
    bf16 = 4.0e14
    int8 = 8.0e14

    [source]                        # where the figures come from (all optional)
    title = "ACME X1 datasheet"
    url = "https://example.com/x1"
    kind = "datasheet"              # datasheet, product page, paper, course, user or measured
    checked = 2026-11-20

A mistake is one error naming the file, the field and what it accepts:

>>> text = 'id = "x1"\\nname = "X1"\\nhbm_bandwidth = 2e12\\n[dense_flops]\\nbf16 = 4e14\\n'
>>> chip_from_toml(text).critical_intensity("bf16")
200.0
>>> chip_from_toml(text.replace("2e12", '"fast"'), "x1.toml")
Traceback (most recent call last):
...
rooflinekit.errors.RooflineInputError: x1.toml: hbm_bandwidth must be a positive, finite number (got 'fast')
'''

from __future__ import annotations

import datetime
import os
import re
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from rooflinekit.catalog import CHIPS, KINDS, Chip, Provenance, Source
from rooflinekit.errors import RooflineInputError, Shown

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
    "source": "a table saying where the figures come from",
}
"""The fields a chip file may have, and what each holds."""
REQUIRED = ("id", "name", "hbm_bandwidth", "dense_flops")
SOURCE_FIELDS = ("title", "url", "kind", "checked")


def load_chip(path: str | os.PathLike[str]) -> Chip:
    """Read a chip from a TOML file (see the module's documentation for its fields).

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     file = pathlib.Path(folder) / "x1.toml"
    ...     _ = file.write_text(
    ...         'id = "x1"\\nname = "X1"\\nhbm_bandwidth = 2e12\\n[dense_flops]\\nbf16 = 4e14')
    ...     load_chip(file).peak("bf16")
    400000000000000.0
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RooflineInputError("chip file", "a readable TOML file", str(path)) from error
    return chip_from_toml(text, file.name)


def chip_from_toml(text: str, label: str = "chip file") -> Chip:
    """A chip from the text of a chip file; errors name ``label`` (the file's name)."""
    data = _parse(text, label)
    _check_fields(data, label)
    source = _source(data.get("source"), label)
    try:
        chip = Chip(
            id=data["id"],
            name=data["name"],
            vendor=data.get("vendor", "(user)"),
            dense_flops=data["dense_flops"],
            sparse_flops=data.get("sparse_flops", {}),
            hbm_bandwidth=data["hbm_bandwidth"],
            hbm_bytes=data.get("hbm_bytes", 1.0),
            link_bandwidth=data.get("link_bandwidth", 1.0),
            link_name=data.get("link_name", "link"),
            vector_flops=data.get("vector_flops"),
            pcie_bandwidth=data.get("pcie_bandwidth"),
            dcn_bandwidth=data.get("dcn_bandwidth"),
            notes=(*data.get("notes", []), f"from the chip file {label}"),
        )
    except RooflineInputError as error:  # the checks every chip gets, said of this file
        raise RooflineInputError(f"{label}: {error.argument}", error.accepted, error.got) from error
    if source is None:
        return chip
    given = [figure for figure in chip.figures() if figure.split(".")[0] in data]  # not the placeholders
    return replace(chip, provenance={figure: source for figure in given})


def _check_fields(data: dict[str, Any], label: str) -> None:
    """Known fields only, the required ones there, names and notes as strings."""
    for field in data:
        if field not in FIELDS:
            raise RooflineInputError(f"{label}: field", "one of " + ", ".join(FIELDS), field)
    for field in REQUIRED:
        if field not in data:
            raise RooflineInputError(f"{label}: {field}", f"given: {FIELDS[field]}", Shown("nothing"))
    for field in ("id", "name", "vendor", "link_name"):
        if field in data and not (isinstance(data[field], str) and data[field].strip()):
            raise RooflineInputError(f"{label}: {field}", "a non-empty string", data[field])
    if data["id"].lower() in CHIPS:
        accepted = "a name not in the catalog (" + ", ".join(CHIPS) + ")"
        raise RooflineInputError(f"{label}: id", accepted, data["id"])
    notes = data.get("notes", [])
    if not (isinstance(notes, list) and all(isinstance(note, str) for note in notes)):
        raise RooflineInputError(f"{label}: notes", "a list of strings", notes)


def _parse(text: str, label: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        where = re.search(r"\(at line (\d+), column \d+\)", message)
        reason = message[: where.start()].strip() if where else message
        line = int(where.group(1)) if where else 0
        shown = text.splitlines()[line - 1].strip() if 0 < line <= len(text.splitlines()) else ""
        raise RooflineInputError(label, f"valid TOML ({reason})", Shown(f"line {line}: {shown!r}")) from error


def _source(table: Any, label: str) -> Provenance | None:
    if table is None:
        return None
    if not isinstance(table, dict):
        raise RooflineInputError(f"{label}: source", "a table with " + ", ".join(SOURCE_FIELDS), table)
    for field in table:
        if field not in SOURCE_FIELDS:
            raise RooflineInputError(f"{label}: source field", "one of " + ", ".join(SOURCE_FIELDS), field)
    kind = table.get("kind", "user")
    if kind not in KINDS:
        raise RooflineInputError(f"{label}: source.kind", "one of " + ", ".join(KINDS), kind)
    for field in ("title", "url"):
        if not isinstance(table.get(field, ""), str):
            raise RooflineInputError(f"{label}: source.{field}", "a string", table[field])
    checked = table.get("checked", "")
    try:
        checked = checked.isoformat() if isinstance(checked, datetime.date) else checked
        if checked:
            datetime.date.fromisoformat(checked)
    except (TypeError, ValueError) as error:
        raise RooflineInputError(f"{label}: source.checked", "a date, YYYY-MM-DD", checked) from error
    page = Source(table.get("title", label), table.get("url", ""), kind)
    return Provenance(page, checked)
