"""The run's progress, as students are done: a bar in a terminal, a line per student always.

In a terminal (standard error is a TTY) a progress bar (tqdm's) stays at the bottom: students
done of the class, how many were retried (graded again after a worker was lost) and how many are
failing (a notebook that could not be graded), the rate and the estimated time left. Each
finished student's line (:func:`roofline_grading.autograde.report.progress_line`) is printed
above it on ``out``, as it is without a terminal (a log, CI, a test reading the output): there
each line also says how long the rest should take.

>>> import io
>>> from roofline_grading.autograde.results import StudentResult
>>> out = io.StringIO()
>>> with Progress(2, out, bar_file=io.StringIO()) as progress:
...     progress.update(StudentResult("alice", []), retried=True)
>>> out.getvalue().startswith("[1/2] alice: 0/0  (0.0 s; 1 retried so far; about ")
True
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any, TextIO

from roofline_grading.autograde.report import progress_line
from roofline_grading.autograde.results import StudentResult

__all__ = ["Progress"]


class Progress:
    """The progress of a run of ``total`` students (see the module's docstring); ``bar_file``:
    where the bar goes (default: standard error), only if it is a terminal."""

    def __init__(self, total: int, out: TextIO, bar_file: TextIO | None = None) -> None:
        from tqdm import tqdm

        self.total, self.out = total, out
        self.tally = {"flagged": 0, "failed": 0, "retried": 0}
        self.done = 0
        self.started = time.monotonic()
        stream = bar_file if bar_file is not None else sys.stderr
        self.bar: Any = tqdm(
            total=total,
            unit="student",
            file=stream,
            disable=not stream.isatty(),
            dynamic_ncols=True,
            smoothing=0.05,  # mostly the run's own average: students differ, machines join and leave
        )

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.bar.close()

    def update(self, result: StudentResult, *, retried: bool) -> None:
        """One more student done: their line, and the bar moved on."""
        self.done += 1
        self.tally["flagged"] += result.status == "flagged"
        self.tally["failed"] += result.status == "failed"
        self.tally["retried"] += retried
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done) if self.done < self.total else None
        if self.bar.disable:  # no bar: each line says how long the rest should take
            line = progress_line(self.done, self.total, result, left=left, **self.tally)
            print(line, file=self.out, flush=True)
            return
        self.bar.write(progress_line(self.done, self.total, result, **self.tally), file=self.out)
        counts = f"retried {self.tally['retried']}, failing {self.tally['failed']}"
        self.bar.set_postfix_str(counts, refresh=False)
        self.bar.update(1)
