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
    rooflinekit latency-throughput MODEL (--chip ID | --chip-file FILE) [--chips N] [--context L]
                        [--batches B,B,...] [--knee-fraction F] [dtypes, latency, figures] [--json]
    rooflinekit slo-search MODEL (--chip ID | --chip-file FILE) --ttft SECONDS --tpot SECONDS
                        --prompt N --output N [--chip-counts N,N,...] [--overlap none|full]
                        [--price-per-chip-hour PRICE] [dtypes, latency, figures] [--json]

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
from rooflinekit._validate import check_figure, check_fraction, check_size
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
from rooflinekit.transformer.decisions import (
    OVERLAPS,
    SCHEDULING,
    LatencyThroughput,
    ServingSearch,
    latency_throughput,
    serving_search,
)
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
_fraction = _checked(check_fraction, float, "a fraction in (0, 1]")


def _sizes(text: str) -> list[int]:
    """A comma-separated list of positive integers: ``1,2,4,8``."""
    try:
        values = [int(part) for part in text.split(",")]
        for value in values:
            check_size("value", value)
    except (ValueError, RooflineInputError) as error:
        raise argparse.ArgumentTypeError(
            f"must be positive integers separated by commas, such as 1,2,4,8 (got {text!r})"
        ) from error
    return values


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

    _add_measure(commands)

    models = commands.add_parser("models", help="list the transformer models (their ids, shapes and sizes)")
    models.add_argument("--json", action="store_true", help="print one JSON object")

    _add_transformer(commands)
    _add_latency_throughput(commands)
    _add_slo_search(commands)
    _add_levels(commands)
    return parser


def _add_measure(commands: Any) -> None:
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
        help="also the copy bandwidth inside each cache level the machine reports, and DRAM (10 s more), and"
             " each kernel against the roof of the level its working set lives in",
    )
    measure.add_argument("--json", action="store_true", help="print one JSON object")


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


def _add_model(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "model", type=_model, metavar="MODEL",
        help=f"one of {', '.join(TRANSFORMERS)} (see `rooflinekit models`)",
    )
    _add_chip_options(command)


def _add_transformer(commands: Any) -> None:
    transformer = commands.add_parser(
        "transformer", help="one decode step or one prefill of a model, every operation on the roofline"
    )
    _add_model(transformer)
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
    _add_step_options(transformer)


def _add_latency_throughput(commands: Any) -> None:
    curve = commands.add_parser(
        "latency-throughput",
        help="decode tokens/s per request and in total against the batch, with the knee and the plateau",
    )
    _add_model(curve)
    curve.add_argument(
        "--chips", type=_size, default=1, metavar="N", help="chips the model is split over (default 1)"
    )
    curve.add_argument(
        "--context", type=_size, default=2048, metavar="L",
        help="tokens in each sequence's cache (default 2048)",
    )
    curve.add_argument(
        "--batches", type=_sizes, metavar="B,B,...",
        help="batches to show (default: about 40 up to what fits)",
    )
    curve.add_argument(
        "--knee-fraction", type=_fraction, default=0.9, metavar="F",
        help="the knee: the largest batch whose requests keep this share of a lone request's tokens/s "
        "(default 0.9)",
    )
    _add_step_options(curve)


def _add_slo_search(commands: Any) -> None:
    search = commands.add_parser(
        "slo-search",
        help="batches and chip counts that meet a time-to-first-token and a time-per-output-token target, "
        "and the cheapest",
    )
    _add_model(search)
    search.add_argument("--ttft", type=_seconds, required=True, metavar="SECONDS",
                        help="target time to the first token")
    search.add_argument("--tpot", type=_seconds, required=True, metavar="SECONDS",
                        help="target time per output token")
    search.add_argument("--prompt", type=_size, required=True, metavar="N", help="prompt tokens per request")
    search.add_argument("--output", type=_size, required=True, metavar="N", help="output tokens per request")
    search.add_argument(
        "--chip-counts", type=_sizes, default=[1, 2, 4, 8], metavar="N,N,...",
        help="chip counts to try for prefill and for decode (default 1,2,4,8)",
    )
    search.add_argument(
        "--overlap", choices=OVERLAPS, default="none",
        help="collectives and the other operations: none overlapped (default) or every collective hidden",
    )
    search.add_argument(
        "--price-per-chip-hour", type=_figure, metavar="PRICE",
        help="your price of one chip for an hour, in any currency: adds the cost per million output tokens",
    )
    _add_step_options(search)


def _add_step_options(transformer: argparse.ArgumentParser) -> None:
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

    found = measure.measure_machine(quick=args.quick, budget=args.budget, progress=args.progress)
    data = found.to_dict()
    if args.levels:
        levels = measure.measure_cache_levels(budget=LEVELS_BUDGET, progress=args.progress)
        checks = measure.check_levels(levels, found.chip.hbm_bandwidth, found.plan.threads)
        data["cache_levels"] = [check.to_dict() for check in checks]
        placed = measure.kernels_on_levels(found.kernels, found.chip, levels)
        data["kernel_levels"] = [k.to_dict() for k in placed]
    return Output(data, measure.format_report(data))


def _models(args: argparse.Namespace) -> Output:
    shapes = list(TRANSFORMERS.values())
    return Output({"models": [s.to_dict() for s in shapes]}, shapes_table(shapes).to_text())


_FLAGS = {
    "n_chips": "--chips",
    "batch": "--batch",
    "context": "--context",
    "batches": "--batches",
    "knee_fraction": "--knee-fraction",
    "chip_counts": "--chip-counts",
    "prompt": "--prompt",
    "output": "--output",
}
"""The command line's names for the settings the library refuses by their own name."""


def _on(args: argparse.Namespace) -> Chip:
    """The chip of a model's command, with ``--peak`` and ``--bandwidth`` applied."""
    hw = resolve(args.chip, args.compute, "--compute", args.peak, args.bandwidth)
    on: Chip = args.chip
    if args.peak is not None or args.bandwidth is not None:
        on = on.derive(peaks={args.compute: hw.peak}, hbm_bandwidth=hw.bandwidth)
    return on


def _step_settings(args: argparse.Namespace) -> dict[str, Any]:
    return {"weights": args.weights, "kv_cache": args.kv_cache, "compute": args.compute,
            "collective_latency": args.collective_latency}


def _flagged(error: RooflineInputError) -> RooflineInputError:
    """The library's refusal, naming the command line's option in place of the library's argument."""
    if error.argument not in _FLAGS:
        return error
    return RooflineInputError(_FLAGS[error.argument], error.accepted, error.got)


def _transformer(args: argparse.Namespace) -> Output:
    on = _on(args)
    try:
        step = transformer_step(
            args.model, on, n_chips=args.chips, phase=args.phase, batch=args.batch, context=args.context,
            **_step_settings(args),
        )
    except RooflineInputError as error:  # a model, context or batch that does not fit
        raise _flagged(error) from error
    return Output(step.to_dict(), _step_text(step))


def _latency_throughput(args: argparse.Namespace) -> Output:
    try:
        curve = latency_throughput(args.model, _on(args), batches=args.batches,
                                   knee_fraction=args.knee_fraction, n_chips=args.chips, context=args.context,
                                   **_step_settings(args))
    except RooflineInputError as error:
        raise _flagged(error) from error
    return Output(curve.to_dict(), _curve_text(curve))


def _curve_text(curve: LatencyThroughput) -> str:
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


def _slo_search(args: argparse.Namespace) -> Output:
    try:
        found = serving_search(args.model, _on(args), ttft=args.ttft, tpot=args.tpot, prompt=args.prompt,
                               output=args.output, chip_counts=args.chip_counts, overlap=args.overlap,
                               **_step_settings(args))
    except RooflineInputError as error:
        raise _flagged(error) from error
    return Output(found.to_dict(args.price_per_chip_hour), _search_text(found, args.price_per_chip_hour))


def _search_text(found: ServingSearch, price: float | None) -> str:
    """For each pair of prefill and decode chip counts, its largest batch that meets the targets."""
    best: dict[tuple[int, int], Any] = {}
    for c in found.configs:
        key = (c.prefill_chips, c.decode_chips)
        if key not in best or c.batch > best[key].batch:
            best[key] = c
    headings = ["prefill chips", "decode chips", "batch", "TTFT", "TPOT", "tok/s", "chips",
                "chip-h / M tokens", *(["cost / M tokens"] if price is not None else [])]
    rows = [[c.prefill_chips, c.decode_chips, c.batch, seconds(c.ttft, 3), seconds(c.tpot, 3),
             num(c.tokens_per_second, 4), num(c.chips, 3), num(c.chip_hours_per_million_tokens, 3),
             *([num(c.chip_hours_per_million_tokens * price, 3)] if price is not None else [])]
            for c in best.values()]
    lines = [f"{found.model.name} on {found.chip.name}: TTFT <= {seconds(found.ttft_target, 3)}, "
             f"TPOT <= {seconds(found.tpot_target, 3)}, {found.prompt} tokens in, {found.output} out, "
             f"communication overlapped: {found.overlap}",
             f"  scheduling: {SCHEDULING}", ""]
    if not rows:
        return "\n".join([*lines, "  no configuration meets both targets"])
    cheapest = found.cheapest
    assert cheapest is not None
    lines += [Table(headings, rows, align="r" * len(headings)).to_text("  "), "",
              f"  cheapest  {cheapest.prefill_chips} prefill and {cheapest.decode_chips} decode chips at "
              f"batch {cheapest.batch} (each pair's largest batch shown; --json lists every configuration)"]
    return "\n".join(lines)


def _step_text(step: TransformerStep) -> str:
    """The step as chapter 9 shows it: what it runs, the operations' table, then the totals."""
    lines = [step_title(step.model, step.setup), "", operations_table(step).to_text("  "), ""]
    lines += [f"  {line.label:<24} {line.text}" for line in step_summary(step)]
    return "\n".join(lines)


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
    "latency-throughput": _latency_throughput,
    "slo-search": _slo_search,
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
