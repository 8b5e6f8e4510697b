"""The command line of the grading driver (``make autograde`` calls it).

    python -m roofline_grading.autograde roofline [--course DIR] [--jobs N] [--student ID ...]
        [--timeout S] [--notebook-budget S] [--sandbox on|off] [--memory-gb G] [--processes N]
        [--scheduler tls://HOST:8786 [--certs DIR]]

Exit status: 0 when every submission was handled (graded, or reported as not gradable), 1 when
grades could not be saved or a submitted file changed, 2 when the course is not ready (the
message says what to do). SIGTERM stops a run as Ctrl-C does: the students graded so far are
saved, and the run's folders removed, on this machine and on every worker.

>>> parser().parse_args(["roofline", "--jobs", "2"]).jobs
2
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from roofline_grading.autograde import credentials
from roofline_grading.autograde.dask_pool import ADDRESS
from roofline_grading.autograde.driver import Options, run
from roofline_grading.autograde.gradebook import CourseError
from roofline_grading.autograde.templates import KERNELS

__all__ = ["main", "parser"]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m roofline_grading.autograde",
        description="Autograde every collected submission with nbgrader, in parallel and sandboxed.",
    )
    p.add_argument("assignment", help="the assignment to grade, e.g. roofline")
    p.add_argument(
        "--course", type=Path, default=Path("."), help="the nbgrader course directory (default: .)"
    )
    p.add_argument(
        "--jobs", type=_count, default=0, help="students graded at once (default, or 0: one per core)"
    )
    p.add_argument("--student", action="append", default=[], help="grade only this student (repeatable)")
    p.add_argument("--timeout", type=_seconds, help="seconds a cell may run (default: nbgrader_config's)")
    p.add_argument(
        "--notebook-budget", type=_seconds, help="seconds a notebook may run (default: 10 x timeout)"
    )
    p.add_argument(
        "--sandbox",
        choices=("on", "off"),
        default="on",
        help="confine each kernel with bubblewrap (on, the default: refuse to grade without it) or not "
        "(off: student code runs with your permissions)",
    )
    p.add_argument(
        "--kernels", choices=KERNELS, default="auto",
        help="how kernels start: each in a new sandbox (cold), forked from a template each worker keeps, "
        "with a sandbox of its own (warm: refuse if it cannot fork here), or warm where it can and cold "
        "otherwise (auto, the default); the run's first line says which",
    )
    p.add_argument(
        "--memory-gb",
        type=_gigabytes,
        default=4.0,
        help="memory a kernel and everything it starts may use together (default 4)",
    )
    p.add_argument(
        "--processes",
        type=_tasks,
        default=128,
        help="processes and threads a kernel and everything it starts may run at once (default 128; at "
        "least 32: the kernel itself needs about 15, and each hidden test leaves a copy of it waiting)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        type=_address,
        help="grade on the workers of this Dask scheduler, on any number of machines (e.g. "
        "tls://grader1:8786; book/instructor-guide.md, 'Grading a large class'); default: worker "
        "processes on this machine (--jobs)",
    )
    p.add_argument(
        "--certs",
        type=Path,
        default=credentials.FOLDER,
        help="with --scheduler: the folder of the grading cluster's certificates "
        f"(default {credentials.FOLDER})",
    )
    return p


def _number(convert: Callable[[str], float], what: str, low: float, high: float) -> Callable[[str], Any]:
    """An argparse type: ``convert`` the text, and accept it from ``low`` to ``high``."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"should be {what}, not {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"should be from {low:g} to {high:g}, not {value:g}")
        return value

    return parse


def _address(text: str) -> str:
    """A Dask scheduler's address, as ``dask scheduler`` prints it; TLS only (the course's cluster)."""
    if ADDRESS.fullmatch(text) is None:
        raise argparse.ArgumentTypeError(
            f"should be a Dask scheduler's address, e.g. tls://grader1:8786, not {text!r}"
        )
    if not text.startswith("tls://"):
        raise argparse.ArgumentTypeError(
            f"{text} is not a TLS address: grading takes a cluster that lets in only the course's "
            "certificates, started with `make cluster-scheduler HOST=...` (tls://HOST:8786; "
            "book/instructor-guide.md, 'Grading a large class')"
        )
    return text


_count = _number(int, "a whole number", 0, 10**6)
_seconds = _number(int, "a whole number of seconds", 1, 10**6)
_tasks = _number(int, "a whole number", 32, 10**5)
_gigabytes = _number(float, "a number of gigabytes", 0.25, 1024)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    options = Options(
        course=args.course,
        assignment=args.assignment,
        jobs=args.jobs,
        students=tuple(args.student),
        timeout=args.timeout,
        notebook_budget=args.notebook_budget,
        sandbox=args.sandbox,
        kernels=args.kernels,
        memory_gb=args.memory_gb,
        processes=args.processes,
        scheduler=args.scheduler,
        certs=args.certs,
    )
    signal.signal(signal.SIGTERM, _stop)
    try:
        return run(options).exit_code
    except CourseError as error:
        print(f"autograde: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autograde: stopped; the students graded so far are saved in the gradebook", file=sys.stderr)
        return 130


def _stop(signum: int, frame: FrameType | None) -> None:
    """SIGTERM: leave the run as Ctrl-C does, through its cleanup."""
    signal.signal(signum, signal.SIG_DFL)  # a second one ends it at once
    raise KeyboardInterrupt
