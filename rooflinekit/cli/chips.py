"""``rooflinekit chips [--chip-file FILE] [--json]``: the hardware catalog, and a chip of your own.

>>> run(argparse.Namespace(chip_file=None)).data["chips"][0]["id"]
'tpu-v5e'
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rooflinekit.catalog import CHIPS, Chip
from rooflinekit.cli import values
from rooflinekit.cli.output import Output
from rooflinekit.fmt import Table, num

NAME = "chips"


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    chips = commands.add_parser(NAME, help="list the hardware catalog")
    chips.add_argument(
        "--chip-file", type=values.chip_file, metavar="FILE", help="also list a chip of your own (TOML)"
    )
    chips.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> Output:
    """The catalog's chips (and yours): their ids, names and headline figures."""
    chips = [*CHIPS.values(), *([args.chip_file] if args.chip_file is not None else [])]

    def bf16(figure: Callable[[str], float], c: Chip) -> str:
        return num(figure("bf16"), 4) if "bf16" in c.dense_flops else "-"

    rows = [
        [c.id, c.name, bf16(c.peak, c), num(c.hbm_bandwidth, 4), num(c.hbm_bytes, 4),
         num(c.link_bandwidth, 4), bf16(c.critical_intensity, c)]
        for c in chips
    ]
    headings = ["id", "name", "bf16 FLOP/s", "HBM B/s", "HBM bytes", "link B/s", "crit. int."]
    return Output({"chips": [c.to_dict() for c in chips]}, Table(headings, rows, align="llrrrrr").to_text())
