"""``rooflinekit levels``: a chip's memory levels, one roof each, the smallest compute-bound tile from
each, and the ceilings below the roof.

>>> from rooflinekit.catalog import chip
>>> data = run(argparse.Namespace(chip=chip("h100-sxm"), compute="bf16")).data
>>> data["levels"][0]["id"]
'hbm'
"""

from __future__ import annotations

import argparse
from typing import Any

from rooflinekit.catalog import CHIPS, Chip
from rooflinekit.cli import values
from rooflinekit.cli.output import Output
from rooflinekit.errors import RooflineInputError
from rooflinekit.fmt import Table, num
from rooflinekit.hierarchy import ceilings, levels, smallest_compute_bound_tiles

NAME = "levels"


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    levels_command = commands.add_parser(
        NAME, help="a chip's memory levels: one roof each, the smallest compute-bound tile, ceilings"
    )
    on = levels_command.add_mutually_exclusive_group(required=True)
    on.add_argument("--chip", type=values.chip_id, metavar="ID", help=f"one of {', '.join(CHIPS)}")
    on.add_argument("--chip-file", type=values.chip_file, dest="chip", metavar="FILE",
                    help="a chip of your own, from a TOML file with [levels] (see rooflinekit.chipformat)")
    levels_command.add_argument(
        "--compute", type=values.dtype_name, default="bf16", metavar="DT",
        help="dtype of the math (default bf16)",
    )
    levels_command.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> Output:
    """The chip's memory levels, outermost first: figures, roofs, the smallest compute-bound tile
    from each and whether it fits where it is held; then the ceilings below the roof."""
    on: Chip = args.chip
    if args.compute not in on.dense_flops:
        accepted = f"a dtype {on.id} has a dense peak for ({', '.join(on.dense_flops)})"
        raise RooflineInputError("--compute", accepted, args.compute)
    tiles = {fit.level: fit for fit in smallest_compute_bound_tiles(on, compute=args.compute)}
    found = [_level_row(lv, tiles.get(lv.id), on.id) for lv in levels(on)]
    limits = [c._asdict() for c in ceilings(on, compute=args.compute)]
    data = {"chip": on.id, "compute": args.compute, "levels": found, "ceilings": limits}
    return Output(data, _levels_text(on, data))


def _level_row(lv: Any, fit: Any, chip_id: str) -> dict[str, Any]:
    """One memory level as plain data: its figures, its roof's ridge and the smallest tile from it.
    An on-chip level's ``units`` is ``None`` where no source gives how many the chip has."""
    units = lv.units if lv.id == "hbm" or "units" in lv.provenance else None
    return {
        "id": lv.id, "name": lv.name, "capacity": lv.capacity, "units": units, "bandwidth": lv.bandwidth,
        "critical_intensity": fit and fit.critical_intensity, "smallest_compute_bound_tile": fit and fit.tile,
        "tile_bytes": fit and fit.held_bytes, "tile_held_in": fit and fit.holder,
        "tile_fits": fit.fits if fit else None, "kinds": dict(lv.kinds), "missing": lv.missing(chip_id),
        "sources": {name: p.source.title for name, p in lv.provenance.items()},
    }


def _shown(value: Any) -> str:
    """A figure, a yes or no, or a dash for none."""
    if value is None:
        return "-"
    return ("yes" if value else "no") if isinstance(value, bool) else num(value, 4)


def _levels_text(on: Chip, data: dict[str, Any]) -> str:
    """The levels as a table, a line for each figure no source gives, then the ceilings."""
    keys = ("capacity", "units", "bandwidth", "critical_intensity", "smallest_compute_bound_tile")
    rows = [[lv["id"], lv["name"], *(_shown(lv[key]) for key in keys), lv["tile_held_in"] or "-",
             _shown(lv["tile_fits"]), ", ".join(sorted(set(lv["kinds"].values()))) or "-"]
            for lv in data["levels"]]
    headings = ["level", "name", "bytes", "units", "B/s", "crit. int.", "tile b", "held in", "fits", "kinds"]
    title = f"memory levels of {on.name}, {data['compute']} compute (outermost first; bytes: one unit's)"
    lines = [title, "", Table(headings, rows, align="llrrrrrlll").to_text("  ")]
    lines += [f"  {lv['missing']}" for lv in data["levels"] if lv["missing"]]
    if len(data["levels"]) == 1:
        lines.append(f"  {on.id}: no on-chip memory has figures in the catalog (no source gives them)")
    lines += ["", "ceilings:"]
    for c in data["ceilings"]:
        unit = "FLOP/s" if c["kind"] == "compute" else "B/s"
        lines.append(f"  {c['label']:<32} {num(c['value'], 4)} {unit}")
    return "\n".join(lines)
