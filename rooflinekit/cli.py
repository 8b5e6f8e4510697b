"""The ``rooflinekit`` command line: quick roofline questions answered in a terminal.

    rooflinekit chips [--chip-file FILE] [--json]
    rooflinekit matmul B D F (--chip ID | --chip-file FILE) [--x DT] [--w DT] [--out DT]
                       [--compute DT] [--batched] [--peak FLOPS] [--bandwidth BPS] [--json]
    rooflinekit dot N (--chip ID | --chip-file FILE) [--dtype DT] [--peak FLOPS]
                    [--bandwidth BPS] [--json]
    rooflinekit measure [--quick] [--budget SECONDS] [--progress | --no-progress] [--levels] [--json]
    rooflinekit models [--json]
    rooflinekit levels (--chip ID | --chip-file FILE) [--compute DT] [--json]
    rooflinekit transformer MODEL (--chip ID | --chip-file FILE) [--chips N] [--batch B]
                        [--context L] [--phase decode|prefill] [--weights DT] [--kv-cache DT]
                        [--compute DT] [--collective-latency SECONDS] [--peak FLOPS]
                        [--bandwidth BPS] [--json]

``--chip-file`` reads a chip of your own from a small TOML file (:mod:`rooflinekit.chipfile`).
``--json`` prints one JSON object and nothing else. Bad input exits with status 2 and one
line naming the argument and what is accepted.

Each command resolves its chip and dtypes once (argparse turns ``--chip`` into a
:class:`~rooflinekit.catalog.Chip`; :func:`resolve` finds the peak and bandwidth) and
returns an :class:`Output`: the data ``--json`` prints and the text printed otherwise.

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
from typing import Any, NamedTuple, NoReturn

from rooflinekit import __version__
from rooflinekit._validate import check_figure, check_size
from rooflinekit.analysis import Hardware, Roofline, analyze
from rooflinekit.catalog import CHIPS, Chip, chip
from rooflinekit.collectives import check_latency
from rooflinekit.costs import Cost, batched_matmul_cost, dot_cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch, matmul_critical_batch_approx
from rooflinekit.dtypes import DTYPES, dtype
from rooflinekit.errors import RooflineInputError, UnknownNameError
from rooflinekit.fmt import Table, num, seconds
from rooflinekit.hierarchy import ceilings, levels, smallest_compute_bound_tiles
from rooflinekit.models import TRANSFORMERS, TransformerShape, transformer_shape
from rooflinekit.transformer.report import operations_table, shapes_table, step_summary, step_title
from rooflinekit.transformer.setup import PHASES
from rooflinekit.transformer.step import TransformerStep, transformer_step

EXIT_USAGE = 2
LEVELS_BUDGET = 10.0
"""Seconds ``rooflinekit measure --levels`` gives the cache levels, beyond the measurement's budget."""


class Output(NamedTuple):
    """What a command answers: ``data`` for ``--json``, ``text`` for people."""

    data: dict[str, Any]
    text: str


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
_latency = _checked(lambda name, value: check_latency(value, name), float, "a number of seconds, 0 or more")


def _chip(text: str) -> Chip:
    try:
        return chip(text)
    except RooflineInputError as error:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(CHIPS)} (got {text!r})") from error


def _chip_file(text: str) -> Chip:
    from rooflinekit.chipfile import load_chip  # tomllib loads only for this option

    try:
        return load_chip(text)
    except RooflineInputError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _model(text: str) -> TransformerShape:
    try:
        return transformer_shape(text)
    except RooflineInputError as error:
        known = ", ".join(TRANSFORMERS)
        raise argparse.ArgumentTypeError(f"must be one of {known} (got {text!r})") from error


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
    chips.add_argument(
        "--chip-file", type=_chip_file, metavar="FILE", help="also list a chip of your own (TOML)"
    )
    chips.add_argument("--json", action="store_true", help="print one JSON object")

    matmul = commands.add_parser("matmul", help="x[B,D] . w[D,F] -> out[B,F] on a chip")
    for name in ("B", "D", "F"):
        matmul.add_argument(name, type=_size, help="a positive integer")
    _add_chip_options(matmul)
    dtype_flags = (("--x", "activations"), ("--w", "weights"), ("--out", "output"), ("--compute", "the math"))
    for flag, what in dtype_flags:
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
    measure.add_argument(
        "--levels", action="store_true",
        help="also the copy bandwidth inside each cache level the machine reports, and DRAM (10 s more)",
    )
    measure.add_argument("--json", action="store_true", help="print one JSON object")

    models = commands.add_parser("models", help="list the transformer models (their ids, shapes and sizes)")
    models.add_argument("--json", action="store_true", help="print one JSON object")

    _add_transformer(commands)
    _add_levels(commands)
    return parser


def _add_levels(commands: Any) -> None:
    levels_command = commands.add_parser(
        "levels", help="a chip's memory levels: one roof each, the smallest compute-bound tile, ceilings"
    )
    on = levels_command.add_mutually_exclusive_group(required=True)
    on.add_argument("--chip", type=_chip, metavar="ID", help=f"one of {', '.join(CHIPS)}")
    on.add_argument("--chip-file", type=_chip_file, dest="chip", metavar="FILE",
                    help="a chip of your own, from a TOML file with [levels] (see rooflinekit.chipformat)")
    levels_command.add_argument(
        "--compute", type=_dtype_name, default="bf16", metavar="DT", help="dtype of the math (default bf16)"
    )
    levels_command.add_argument("--json", action="store_true", help="print one JSON object")


def _add_transformer(commands: Any) -> None:
    transformer = commands.add_parser(
        "transformer", help="one decode step or one prefill of a model, every operation on the roofline"
    )
    transformer.add_argument(
        "model", type=_model, metavar="MODEL",
        help=f"one of {', '.join(TRANSFORMERS)} (see `rooflinekit models`)",
    )
    _add_chip_options(transformer)
    transformer.add_argument(
        "--chips", type=_size, default=1, metavar="N", help="chips the model is split over (default 1)"
    )
    transformer.add_argument("--batch", type=_size, default=1, metavar="B", help="sequences (default 1)")
    transformer.add_argument(
        "--context", type=_size, default=2048, metavar="L",
        help="tokens already in the cache (decode) or the prompt's length (prefill); default 2048",
    )
    transformer.add_argument(
        "--phase", choices=PHASES, default="decode", help="decode (one new token) or prefill (default decode)"
    )
    transformer.add_argument(
        "--weights", type=_dtype_name, default="bf16", metavar="DT",
        help="dtype of the weights (default bf16)",
    )
    transformer.add_argument(
        "--kv-cache", type=_dtype_name, metavar="DT", help="dtype of the KV cache (default: the weights')"
    )
    transformer.add_argument(
        "--compute", type=_dtype_name, default="bf16", metavar="DT", help="dtype of the math (default bf16)"
    )
    transformer.add_argument(
        "--collective-latency", type=_latency, default=0.0, metavar="SECONDS",
        help="seconds added to each collective (default 0: the lower bound)",
    )


def _add_chip_options(command: argparse.ArgumentParser) -> None:
    on = command.add_mutually_exclusive_group(required=True)
    on.add_argument("--chip", type=_chip, metavar="ID", help=f"one of {', '.join(CHIPS)}")
    on.add_argument("--chip-file", type=_chip_file, dest="chip", metavar="FILE",
                    help="a chip of your own, from a TOML file (see rooflinekit.chipfile)")
    command.add_argument(
        "--peak", type=_figure, metavar="FLOPS", help="override the chip's peak FLOP/s for the compute dtype"
    )
    command.add_argument(
        "--bandwidth", type=_figure, metavar="BPS", help="override the chip's HBM bandwidth in B/s"
    )
    command.add_argument("--json", action="store_true", help="print one JSON object")


def resolve(on: Chip, compute: str, flag: str, peak: float | None, bandwidth: float | None) -> Hardware:
    """The peak and bandwidth a command uses: the chip's, or the ``--peak``/``--bandwidth`` given.

    Without ``--peak`` the chip needs a dense peak for ``compute``; if it has none, the error
    names ``flag`` (the option that chose the dtype).

    >>> resolve(chip("tpu-v5e"), "int8", "--compute", None, 8.1e11)
    Hardware(peak=394000000000000.0, bandwidth=810000000000.0)
    """
    try:
        resolved_peak = peak if peak is not None else on.peak(compute)
    except UnknownNameError as error:
        has = ", ".join(error.known)
        accepted = f"a dtype {on.id} has a dense peak for ({has}), or any dtype with --peak"
        raise RooflineInputError(flag, accepted, compute) from error
    return Hardware(resolved_peak, bandwidth if bandwidth is not None else on.hbm_bandwidth)


_UNITS = {
    "flops": "FLOP",
    "bytes_read": "B",
    "bytes_written": "B",
    "intensity": "FLOP/B",
    "critical_intensity": "FLOP/B",
}


def _batch_text(batch: float | None) -> str:
    if batch is None:  # a batched matmul: its intensity, hence its bound, is the same for every B
        return "none (the bound does not depend on B)"
    if math.isinf(batch):
        return "none (never compute-bound)"
    return f"{num(batch, 4)} tokens"


def _answer(title: str, result: Roofline, batches: dict[str, float | None]) -> Output:
    """A roofline answer: the analysis's figures, then the critical batches (where they apply)."""
    data: dict[str, Any] = {
        key: getattr(result, key)
        for key in ("flops", "bytes_read", "bytes_written", "intensity", "critical_intensity", "t_math",
                    "t_comms", "t_lower", "t_upper", "bound")
    }
    lines = [title]
    for key, value in data.items():
        shown = seconds(value, 4) if key.startswith("t_") else value if key == "bound" else num(value, 4)
        lines.append(f"  {key:<22} {shown} {_UNITS.get(key, '')}".rstrip())
    for key, batch in batches.items():
        lines.append(f"  {key:<22} {_batch_text(batch)}")
        data[key] = None if batch is None or math.isinf(batch) else batch  # JSON has no infinity
    return Output(data, "\n".join(lines))


def _matmul(args: argparse.Namespace) -> Output:
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
    return _answer(title, analyze(cost, peak=hw.peak, bandwidth=hw.bandwidth), batches)


def _dot(args: argparse.Namespace) -> Output:
    hw = resolve(args.chip, args.dtype, "--dtype", args.peak, args.bandwidth)
    result = analyze(dot_cost(args.N, args.dtype), peak=hw.peak, bandwidth=hw.bandwidth)
    return _answer(f"dot product of two {args.dtype}[{args.N}] vectors on {args.chip.name}", result, {})


def _chips(args: argparse.Namespace) -> Output:
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


def _measure(args: argparse.Namespace) -> Output:
    from rooflinekit import measure  # loads the measuring code only for this command

    data = measure.measure_machine(quick=args.quick, budget=args.budget, progress=args.progress).to_dict()
    if args.levels:
        levels = measure.measure_cache_levels(budget=LEVELS_BUDGET, progress=args.progress)
        data["cache_levels"] = [level.to_dict() for level in levels]
    return Output(data, measure.format_report(data))


def _models(args: argparse.Namespace) -> Output:
    shapes = list(TRANSFORMERS.values())
    return Output({"models": [s.to_dict() for s in shapes]}, shapes_table(shapes).to_text())


_FLAGS = {"n_chips": "--chips", "batch": "--batch", "context": "--context"}
"""The command line's names for the settings the library refuses by their own name."""


def _transformer(args: argparse.Namespace) -> Output:
    hw = resolve(args.chip, args.compute, "--compute", args.peak, args.bandwidth)
    on: Chip = args.chip
    if args.peak is not None or args.bandwidth is not None:
        on = on.derive(peaks={args.compute: hw.peak}, hbm_bandwidth=hw.bandwidth)
    try:
        step = transformer_step(
            args.model, on, n_chips=args.chips, phase=args.phase, batch=args.batch, context=args.context,
            weights=args.weights, kv_cache=args.kv_cache, compute=args.compute,
            collective_latency=args.collective_latency,
        )
    except RooflineInputError as error:  # a model, context or batch that does not fit
        if error.argument not in _FLAGS:
            raise
        raise RooflineInputError(_FLAGS[error.argument], error.accepted, error.got) from error
    return Output(step.to_dict(), _step_text(step))


def _step_text(step: TransformerStep) -> str:
    """The step as chapter 9 shows it: what it runs, the operations' table, then the totals."""
    lines = [step_title(step.model, step.setup), "", operations_table(step).to_text("  "), ""]
    lines += [f"  {line.label:<24} {line.text}" for line in step_summary(step)]
    return "\n".join(lines)


def _level_row(lv: Any, fit: Any, chip_id: str) -> dict[str, Any]:
    """One memory level as plain data: its figures, its roof's ridge and the smallest tile from it."""
    return {
        "id": lv.id, "name": lv.name, "capacity": lv.capacity, "units": lv.units, "bandwidth": lv.bandwidth,
        "critical_intensity": fit and fit.critical_intensity, "smallest_compute_bound_tile": fit and fit.tile,
        "tile_bytes": fit and fit.held_bytes, "tile_held_in": fit and fit.holder,
        "tile_fits": fit.fits if fit else None, "kinds": dict(lv.kinds), "missing": lv.missing(chip_id),
        "sources": {name: p.source.title for name, p in lv.provenance.items()},
    }


def _levels(args: argparse.Namespace) -> Output:
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


COMMANDS: dict[str, Callable[[argparse.Namespace], Output]] = {
    "chips": _chips,
    "matmul": _matmul,
    "dot": _dot,
    "measure": _measure,
    "models": _models,
    "transformer": _transformer,
    "levels": _levels,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        output = COMMANDS[args.command](args)
    except RooflineInputError as error:  # e.g. --compute naming a dtype the chip has no peak for
        print(f"rooflinekit {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        print(json.dumps(output.data, allow_nan=False) if args.json else output.text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left early (`rooflinekit chips | head -1`): no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush is quiet
        return 1
    return 0
