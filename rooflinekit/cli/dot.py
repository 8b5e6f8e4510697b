"""``rooflinekit dot N``: the dot product of two length-N vectors on a chip.

>>> from rooflinekit.catalog import chip
>>> args = argparse.Namespace(N=1_000_000, chip=chip("h100-sxm"), dtype="bf16", peak=None, bandwidth=None)
>>> run(args).data["bound"]
'memory'
"""

from __future__ import annotations

import argparse
from typing import Any

from rooflinekit.analysis import analyze
from rooflinekit.cli import values
from rooflinekit.cli.chip_options import add_chip_options, resolve
from rooflinekit.cli.output import Output
from rooflinekit.cli.roofline_answer import answer
from rooflinekit.costs import dot_cost

NAME = "dot"


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    dot = commands.add_parser(NAME, help="dot product of two length-N vectors on a chip")
    dot.add_argument("N", type=values.size, help="a positive integer")
    add_chip_options(dot)
    dot.add_argument(
        "--dtype", type=values.dtype_name, default="bf16", metavar="DT",
        help="dtype of the vectors (default bf16)",
    )


def run(args: argparse.Namespace) -> Output:
    """The dot product's roofline."""
    hw = resolve(args.chip, args.dtype, "--dtype", args.peak, args.bandwidth)
    result = analyze(dot_cost(args.N, args.dtype), peak=hw.peak, bandwidth=hw.bandwidth)
    return answer(f"dot product of two {args.dtype}[{args.N}] vectors on {args.chip.name}", result, {})
