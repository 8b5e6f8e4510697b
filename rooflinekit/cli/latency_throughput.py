"""``rooflinekit latency-throughput MODEL``: decode tokens/s per request and in total against the
batch, with the knee and the plateau.

>>> from rooflinekit.catalog import chip
>>> from rooflinekit.models import transformer_shape
>>> args = argparse.Namespace(model=transformer_shape("llama-3.1-8b"), chip=chip("h100-sxm"), peak=None,
...     bandwidth=None, chips=1, context=2048, batches=[1, 8], knee_fraction=0.9, weights="bf16",
...     kv_cache=None, compute="bf16", collective_latency=0.0)
>>> run(args).text.splitlines()[0]  # doctest: +ELLIPSIS
'llama-3.1-8b on 1 x NVIDIA H100 SXM, decode with a 2048-token cache...'
"""

from __future__ import annotations

import argparse
from typing import Any

from rooflinekit.cli import values
from rooflinekit.cli.model_options import add_model, add_step_options, chip_of, flagged, step_settings
from rooflinekit.cli.output import Output
from rooflinekit.errors import RooflineInputError
from rooflinekit.fmt import Table, num, seconds
from rooflinekit.transformer.decisions import LatencyThroughput, latency_throughput

NAME = "latency-throughput"


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    curve = commands.add_parser(
        NAME,
        help="decode tokens/s per request and in total against the batch, with the knee and the plateau",
    )
    add_model(curve)
    curve.add_argument(
        "--chips", type=values.size, default=1, metavar="N", help="chips the model is split over (default 1)"
    )
    curve.add_argument(
        "--context", type=values.size, default=2048, metavar="L",
        help="tokens in each sequence's cache (default 2048)",
    )
    curve.add_argument(
        "--batches", type=values.sizes, metavar="B,B,...",
        help="batches to show (default: about 40 up to what fits)",
    )
    curve.add_argument(
        "--knee-fraction", type=values.fraction, default=0.9, metavar="F",
        help="the knee: the largest batch whose requests keep this share of a lone request's tokens/s "
        "(default 0.9)",
    )
    add_step_options(curve)


def run(args: argparse.Namespace) -> Output:
    """The curve, its knee and its plateau."""
    try:
        curve = latency_throughput(args.model, chip_of(args), batches=args.batches,
                                   knee_fraction=args.knee_fraction, n_chips=args.chips, context=args.context,
                                   **step_settings(args))
    except RooflineInputError as error:
        raise flagged(error) from error
    return Output(curve.to_dict(), curve_text(curve))


def curve_text(curve: LatencyThroughput) -> str:
    """The curve as a table, then its knee and plateau in words."""
    headings = ["batch", "TPOT, no overlap", "TPOT, full overlap", "per request tok/s", "total tok/s",
                "compute-bound weights"]
    rows = [[p.batch, seconds(p.time("none"), 4), seconds(p.time("full"), 4), num(p.per_request(), 4),
             num(p.total(), 4), f"{p.compute_bound_weights:.0%}"] for p in curve.points]
    title = (f"{curve.model.name} on {curve.n_chips} x {curve.chip.name}, decode with a "
             f"{curve.context}-token cache (tokens/s with no overlap of collectives and the other "
             "operations)")
    plateau = ("none before memory runs out" if curve.plateau is None else
               f"batch {curve.plateau}: the compute-bound weight matmuls hold half the weights; past it "
               "a doubling of the batch adds at most a third to the total")
    lines = [title, "", Table(headings, rows, align="rrrrrr").to_text("  "), "",
             f"  knee      batch {curve.knee}: the largest whose requests keep {curve.knee_fraction:.0%} "
             "of a lone request's tokens/s",
             f"  plateau   {plateau}",
             f"  largest batch that fits  {curve.max_batch}"]
    return "\n".join(lines)
