"""The ``rooflinekit`` command line: quick roofline questions answered in a terminal.

    rooflinekit chips [--json]
    rooflinekit matmul B D F --chip ID [--x DT] [--w DT] [--out DT] [--compute DT]
                       [--batched] [--peak FLOPS] [--bandwidth BPS] [--json]
    rooflinekit dot N --chip ID [--dtype DT] [--peak FLOPS] [--bandwidth BPS] [--json]
    rooflinekit measure [--quick] [--budget SECONDS] [--progress | --no-progress] [--json]

``--json`` prints one JSON object and nothing else. Bad input exits with status 2 and one
line naming the argument and what is accepted.

>>> main(["dot", "1000000", "--chip", "h100-sxm", "--json"])  # doctest: +ELLIPSIS
{"flops": 1999999.0, ..., "bound": "memory"}
0
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from rooflinekit import __version__
from rooflinekit._validate import check_figure, check_size
from rooflinekit.analysis import Roofline, analyze
from rooflinekit.catalog import CHIPS, chip
from rooflinekit.costs import batched_matmul_cost, dot_cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch, matmul_critical_batch_approx
from rooflinekit.dtypes import DTYPES, dtype
from rooflinekit.errors import RooflineInputError
from rooflinekit.fmt import Table, num, seconds

EXIT_USAGE = 2


class _OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _checked(
    check: Callable[[str, Any], Any], convert: Callable[[str], Any], accepted: str
) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = convert(text)
            check("value", value)
            return value
        except (ValueError, RooflineInputError) as error:
            raise argparse.ArgumentTypeError(f"must be {accepted} (got {text!r})") from error

    return parse


_size = _checked(check_size, int, "a positive integer")
_figure = _checked(check_figure, float, "a positive, finite number")
_seconds = _checked(check_figure, float, "a positive, finite number of seconds")


def _chip_id(text: str) -> str:
    try:
        return chip(text).id
    except RooflineInputError as error:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(CHIPS)} (got {text!r})") from error


def _dtype_name(text: str) -> str:
    try:
        return dtype(text).name
    except RooflineInputError as error:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(DTYPES)} (got {text!r})") from error


def build_parser() -> argparse.ArgumentParser:
    """The parser, exposed for documentation tools and tests."""
    parser = _OneLineParser(
        prog="rooflinekit",
        description="Roofline analysis: is an operation limited by math, memory or network?",
    )
    parser.add_argument("--version", action="version", version=f"rooflinekit {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    chips = commands.add_parser("chips", help="list the hardware catalog")
    chips.add_argument("--json", action="store_true", help="print one JSON object")

    matmul = commands.add_parser("matmul", help="x[B,D] . w[D,F] -> out[B,F] on a chip")
    for name in ("B", "D", "F"):
        matmul.add_argument(name, type=_size, help="a positive integer")
    _add_chip_options(matmul)
    for flag, what in (
        ("--x", "activations"),
        ("--w", "weights"),
        ("--out", "output"),
        ("--compute", "the math"),
    ):
        matmul.add_argument(
            flag, type=_dtype_name, default="bf16", metavar="DT", help=f"dtype of {what} (default bf16)"
        )
    matmul.add_argument(
        "--batched", action="store_true", help="each example has its own weight matrix: w[B,D,F]"
    )

    dot = commands.add_parser("dot", help="dot product of two length-N vectors on a chip")
    dot.add_argument("N", type=_size, help="a positive integer")
    _add_chip_options(dot)
    dot.add_argument(
        "--dtype", type=_dtype_name, default="bf16", metavar="DT", help="dtype of the vectors (default bf16)"
    )

    measure = commands.add_parser(
        "measure", help="measure this machine: memory bandwidth, peak FLOP/s and kernels on its roofline"
    )
    measure.add_argument("--quick", action="store_true", help="smaller arrays, fewer sizes, a shorter budget")
    measure.add_argument(
        "--budget", type=_seconds, metavar="SECONDS", help="time budget (default: the quick or full mode's)"
    )
    measure.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: only when stderr is a terminal)",
    )
    measure.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _add_chip_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--chip", type=_chip_id, required=True, metavar="ID", help=f"one of {', '.join(CHIPS)}"
    )
    command.add_argument(
        "--peak", type=_figure, metavar="FLOPS", help="override the chip's peak FLOP/s for the compute dtype"
    )
    command.add_argument(
        "--bandwidth", type=_figure, metavar="BPS", help="override the chip's HBM bandwidth in B/s"
    )
    command.add_argument("--json", action="store_true", help="print one JSON object")


def _roofline_fields(result: Roofline) -> dict[str, Any]:
    return {
        "flops": result.flops,
        "bytes_read": result.bytes_read,
        "bytes_written": result.bytes_written,
        "intensity": result.intensity,
        "critical_intensity": result.critical_intensity,
        "t_math": result.t_math,
        "t_comms": result.t_comms,
        "t_lower": result.t_lower,
        "t_upper": result.t_upper,
        "bound": result.bound,
    }


def _check_compute(flag: str, chip_id: str, compute: str, peak: float | None) -> None:
    """Without ``--peak`` the chip must have a dense peak for the compute dtype; name the flag if not."""
    peaks = chip(chip_id).dense_flops
    if peak is None and compute not in peaks:
        accepted = f"a dtype {chip_id} has a dense peak for ({', '.join(peaks)}), or any dtype with --peak"
        raise RooflineInputError(flag, accepted, compute)


def _matmul(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    _check_compute("--compute", args.chip, args.compute, args.peak)
    dtypes = {"x": args.x, "w": args.w, "out": args.out}
    figures = {"compute": args.compute, "peak": args.peak, "bandwidth": args.bandwidth}
    cost_model = batched_matmul_cost if args.batched else matmul_cost
    result = analyze(cost_model(args.B, args.D, args.F, **dtypes), args.chip, **figures)
    fields = _roofline_fields(result)
    if args.batched:  # both times grow linearly with B: no batch changes the bound
        fields["critical_batch"] = None
        fields["critical_batch_approx"] = None
    else:
        fields["critical_batch"] = matmul_critical_batch(args.D, args.F, args.chip, **dtypes, **figures)
        fields["critical_batch_approx"] = matmul_critical_batch_approx(args.chip, w=args.w, **figures)
    weights = f"{args.w}[{f'{args.B},' if args.batched else ''}{args.D},{args.F}]"
    title = (
        f"{args.x}[{args.B},{args.D}] . {weights} -> {args.out}[{args.B},{args.F}]"
        f" on {chip(args.chip).name}, {args.compute} compute"
    )
    return title, fields


def _dot(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    _check_compute("--dtype", args.chip, args.dtype, args.peak)
    result = analyze(
        dot_cost(args.N, args.dtype), args.chip, compute=args.dtype, peak=args.peak, bandwidth=args.bandwidth
    )
    return f"dot product of two {args.dtype}[{args.N}] vectors on {chip(args.chip).name}", _roofline_fields(
        result
    )


def _measure(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    from rooflinekit import measure  # loads the measuring code only for this command

    result = measure.measure_machine(quick=args.quick, budget=args.budget, progress=args.progress)
    return result.chip.name, result.to_dict()


def _chips() -> tuple[str, dict[str, Any]]:
    return "hardware catalog", {"chips": [c.to_dict() for c in CHIPS.values()]}


def _json_ready(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # no crossover exists: JSON has no infinity
    return value


_UNITS = {
    "flops": "FLOP",
    "bytes_read": "B",
    "bytes_written": "B",
    "intensity": "FLOP/B",
    "critical_intensity": "FLOP/B",
    "critical_batch": "tokens",
    "critical_batch_approx": "tokens",
}


def _format_value(key: str, value: Any) -> str:
    if value is None:  # a batched matmul: its intensity, hence its bound, is the same for every B
        return "none (the bound does not depend on B)"
    if isinstance(value, float) and math.isinf(value):
        return "none (never compute-bound)"
    if isinstance(value, str):
        return value
    if key.startswith("t_"):
        return seconds(value, 4)
    return f"{num(value, 4)} {_UNITS[key]}"


def _print_text(title: str, fields: dict[str, Any]) -> None:
    if "kernels" in fields:  # a measurement of this machine
        from rooflinekit.measure import format_report

        print(format_report(fields))
        return
    if "chips" in fields:
        rows = [
            [c["id"], c["name"], num(c["dense_flops"]["bf16"], 4), num(c["hbm_bandwidth"], 4),
             num(c["hbm_bytes"], 4), num(c["link_bandwidth"], 4), num(c["critical_intensity_bf16"], 4)]
            for c in fields["chips"]
        ]
        headings = ["id", "name", "bf16 FLOP/s", "HBM B/s", "HBM bytes", "link B/s", "crit. int."]
        print(Table(headings, rows, align="llrrrrr").to_text())
        return
    print(title)
    for key, value in fields.items():
        print(f"  {key:<22} {_format_value(key, value)}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {
        "chips": lambda: _chips(),
        "matmul": lambda: _matmul(args),
        "dot": lambda: _dot(args),
        "measure": lambda: _measure(args),
    }
    try:
        title, fields = handlers[args.command]()
    except RooflineInputError as error:  # e.g. --compute naming a dtype the chip has no peak for
        print(f"rooflinekit {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.json:
            print(json.dumps({key: _json_ready(value) for key, value in fields.items()}, allow_nan=False))
        else:
            _print_text(title, fields)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left early (`rooflinekit chips | head -1`): no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush is quiet
        return 1
    return 0
