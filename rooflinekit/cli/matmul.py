"""``rooflinekit matmul B D F``: ``x[B,D] . w[D,F] -> out[B,F]`` on a chip, with its critical batch.

>>> from rooflinekit.catalog import chip
>>> args = argparse.Namespace(B=8, D=4096, F=4096, chip=chip("h100-sxm"), peak=None, bandwidth=None,
...                           x="bf16", w="bf16", out="bf16", compute="bf16", batched=False)
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
from rooflinekit.costs import Cost, batched_matmul_cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch, matmul_critical_batch_approx

NAME = "matmul"


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    matmul = commands.add_parser(NAME, help="x[B,D] . w[D,F] -> out[B,F] on a chip")
    for name in ("B", "D", "F"):
        matmul.add_argument(name, type=values.size, help="a positive integer")
    add_chip_options(matmul)
    dtype_flags = (("--x", "activations"), ("--w", "weights"), ("--out", "output"), ("--compute", "the math"))
    for flag, what in dtype_flags:
        matmul.add_argument(
            flag, type=values.dtype_name, default="bf16", metavar="DT", help=f"dtype of {what} (default bf16)"
        )
    matmul.add_argument(
        "--batched", action="store_true", help="each example has its own weight matrix: w[B,D,F]"
    )


def run(args: argparse.Namespace) -> Output:
    """The matmul's roofline, and its critical batch (none for a batched matmul)."""
    hw = resolve(args.chip, args.compute, "--compute", args.peak, args.bandwidth)
    dtypes = {"x": args.x, "w": args.w, "out": args.out}
    cost: Cost = (batched_matmul_cost if args.batched else matmul_cost)(args.B, args.D, args.F, **dtypes)
    batches: dict[str, float | None]
    if args.batched:  # both times grow linearly with B: no batch changes the bound
        batches = {"critical_batch": None, "critical_batch_approx": None}
    else:
        exact = matmul_critical_batch(args.D, args.F, **dtypes, peak=hw.peak, bandwidth=hw.bandwidth)
        approx = matmul_critical_batch_approx(w=args.w, peak=hw.peak, bandwidth=hw.bandwidth)
        batches = {"critical_batch": exact, "critical_batch_approx": approx}
    weights = f"{args.w}[{f'{args.B},' if args.batched else ''}{args.D},{args.F}]"
    title = (
        f"{args.x}[{args.B},{args.D}] . {weights} -> {args.out}[{args.B},{args.F}]"
        f" on {args.chip.name}, {args.compute} compute"
    )
    return answer(title, analyze(cost, peak=hw.peak, bandwidth=hw.bandwidth), batches)
