"""``rooflinekit measure``: this machine's memory bandwidth, peak FLOP/s and kernels on its roofline.

The measuring code (:mod:`rooflinekit.measure`) loads only when the command runs.

>>> LEVELS_BUDGET
10.0
"""

from __future__ import annotations

import argparse
from typing import Any

from rooflinekit.cli import values
from rooflinekit.cli.output import Output

NAME = "measure"
LEVELS_BUDGET = 10.0
"""Seconds ``rooflinekit measure --levels`` gives the cache levels, beyond the measurement's budget."""


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    measure = commands.add_parser(
        NAME, help="measure this machine: memory bandwidth, peak FLOP/s and kernels on its roofline"
    )
    measure.add_argument("--quick", action="store_true", help="smaller arrays, fewer sizes, a shorter budget")
    measure.add_argument(
        "--budget", type=values.duration, metavar="SECONDS",
        help="time budget (default: the quick or full mode's)",
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


def run(args: argparse.Namespace) -> Output:
    """The measurement (and with ``--levels`` the cache levels and each kernel's level)."""
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
