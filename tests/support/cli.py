"""The ``rooflinekit`` command line run in this process, as ``python -m rooflinekit`` runs it.

Its ``main`` returns the exit status, and argparse's usage errors raise ``SystemExit`` with it:
both become ``returncode``, and what the command prints to stdout and stderr is captured as the
process's would be. One test per suite starts the installed console script itself
(tests/rooflinekit/test_cli.py: test_console_script_is_installed, and the closed-pipe cases).
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from typing import NamedTuple

from rooflinekit.cli import main


class Done(NamedTuple):
    """What a run of the command left: its exit status and what it wrote."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str) -> Done:
    """``rooflinekit ARGS``: the exit status and what it printed to stdout and to stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exit:  # argparse: --help, and usage errors (status 2)
            status = exit.code if isinstance(exit.code, int) else 0 if exit.code is None else 1
    return Done(status, out.getvalue(), err.getvalue())
