"""The program: its parser, built from every command's module, and :func:`main`, which runs one.

A command is a module of this package with ``NAME``, ``add(commands)`` (its parser, added to
argparse's subparsers) and ``run(args)`` (its :class:`~rooflinekit.cli.output.Output`); adding
one is its module and a line in :data:`COMMANDS`.

>>> [command.NAME for command in COMMANDS][:3]
['chips', 'matmul', 'dot']
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, Protocol

from rooflinekit import __version__
from rooflinekit.cli import (
    chips,
    colocate,
    dot,
    latency_throughput,
    levels,
    matmul,
    measure,
    models,
    slo_search,
    speculate,
    transformer,
)
from rooflinekit.cli.output import Output
from rooflinekit.errors import RooflineInputError

EXIT_USAGE = 2


class Command(Protocol):
    """What a command's module holds."""

    NAME: str

    def add(self, commands: Any) -> None: ...

    def run(self, args: argparse.Namespace) -> Output: ...


COMMANDS: tuple[Command, ...] = (
    chips, matmul, dot, measure, models, transformer, latency_throughput, slo_search, colocate, speculate,
    levels,
)
"""Every command, in the order ``rooflinekit --help`` lists them."""


class _OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser, exposed for documentation tools and tests."""
    parser = _OneLineParser(
        prog="rooflinekit",
        description="Roofline analysis: is an operation limited by math, memory or network?",
    )
    parser.add_argument("--version", action="version", version=f"rooflinekit {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    run = {command.NAME: command.run for command in COMMANDS}[args.command]
    try:
        output = run(args)
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
