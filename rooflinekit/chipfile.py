'''Your own chip from a small TOML file, in the catalog's own format and checked like its chips.

The format is :mod:`rooflinekit.chipformat`'s, the one the catalog's files
(``rooflinekit/data/chips/``) are written in. Figures are in SI units unless a unit is given;
only ``id``, ``name``, ``hbm_bandwidth`` and ``[dense_flops]`` are required (a chip without
``hbm_bytes`` or ``link_bandwidth`` gets a placeholder of 1, as
:func:`~rooflinekit.catalog.custom_chip` does: do not use it for serving or network rooflines).
One source for the whole file::

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

or one for each figure, with its unit and a note, citing the file's ``[sources]`` or the
catalog's (``rooflinekit.catalog.SOURCES``, e.g. ``"scaling-book-tpus"``)::

    [hbm_bandwidth]
    value = 2
    unit = "TB/s"
    source = "acme"
    checked = 2026-11-20
    note = "ACME's page rounds it to 2 TB/s."

    [sources.acme]
    title = "ACME X1 datasheet"
    url = "https://example.com/x1"
    kind = "datasheet"

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

import os
from dataclasses import replace
from pathlib import Path

from rooflinekit.catalog import CHIPS, SOURCES, Chip
from rooflinekit.chipformat import FIELDS, REQUIRED, chip_from_data, parse_toml
from rooflinekit.errors import RooflineInputError

__all__ = ["FIELDS", "REQUIRED", "chip_from_toml", "load_chip"]


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
    """A chip from the text of a chip file; errors name ``label`` (the file's name). Its figures
    may cite the catalog's sources by key; its id may not be a catalog chip's."""
    data = parse_toml(text, label)
    chip = chip_from_data(data, label, sources=SOURCES)
    if chip.id.lower() in CHIPS:
        accepted = "a name not in the catalog (" + ", ".join(CHIPS) + ")"
        raise RooflineInputError(f"{label}: id", accepted, chip.id)
    return replace(chip, notes=(*chip.notes, f"from the chip file {label}"))
