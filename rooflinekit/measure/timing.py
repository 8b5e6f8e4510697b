"""Timing for measuring this machine: warm-up, repeats and medians inside a time budget.

A :class:`Schedule` splits a budget between the measurements it runs: each one gets its
share of the time that is left, so time a fast measurement did not need goes to the ones
after it. :func:`time_interleaved` warms each call up, then takes one sample of each in
turn, round after round, until it has ``repeats`` rounds or its share is spent; it always
keeps at least one round. Interleaving matters on a shared machine: a few hundred
milliseconds when a neighbour takes the CPU or the memory bus then cost every call one
sample, instead of all the samples of whichever call was running.

>>> fast, slow = time_interleaved([lambda: None, lambda: sum(range(10**6))], repeats=5)
>>> fast.repeats >= 5, slow.repeats, fast.median < slow.median, slow.best <= slow.median
(True, 5, True, True)
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from rooflinekit.errors import RooflineInputError


@dataclass(frozen=True)
class Timing:
    """Seconds per call of one measurement, one sample per timed repeat.

    A sample of a very short call times ``calls_per_sample`` calls in a row and divides,
    so the timer's own cost and resolution do not dominate.
    """

    samples: tuple[float, ...]
    calls_per_sample: int = 1

    def __post_init__(self) -> None:
        if not self.samples or not all(math.isfinite(s) and s > 0 for s in self.samples):
            raise RooflineInputError("samples", "at least one positive, finite time in seconds", self.samples)

    @property
    def median(self) -> float:
        """The median seconds per call: the figure every result uses."""
        return float(statistics.median(self.samples))

    @property
    def best(self) -> float:
        """The fastest sample's seconds per call."""
        return min(self.samples)

    @property
    def repeats(self) -> int:
        """How many timed samples the median is taken over (short calls take several a round)."""
        return len(self.samples)


def _sample(fn: Callable[[], object], calls: int, rewarm: bool = False) -> float:
    if rewarm:
        fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return max(time.perf_counter() - start, 1e-9) / calls


MIN_SAMPLE_SECONDS = 2e-5
"""Calls shorter than this are looped within a sample, so the timer's cost does not count."""
ROUND_SECONDS = 2e-3
"""A short call takes several samples a round, about this long in all, up to
:data:`MAX_SAMPLES_PER_ROUND`: many single-call samples make the median robust to the
stalls of a shared machine (a few milliseconds now and then while a virtual CPU waits for
its host), where one long sample would absorb every stall."""
MAX_SAMPLES_PER_ROUND = 200
RETIME_BELOW_SECONDS = 0.05
"""A first call shorter than this is timed twice more and the best kept: a stall of a few
milliseconds on a loaded machine must not make a call of nanoseconds look slow (and be sampled
once a round), while a call that truly takes long is not run again for nothing."""


def time_interleaved(
    fns: Sequence[Callable[[], object]],
    *,
    repeats: int,
    deadline: float | None = None,
    on_round: Callable[[], object] | None = None,
    rewarm: bool = False,
) -> list[Timing]:
    """Time each of ``fns``: one warm-up call each, then up to ``repeats`` rounds of samples.

    In each round every call is sampled in turn (once, or several times if it is short; see
    :data:`ROUND_SECONDS`). ``deadline`` is a ``time.perf_counter()`` value: no new round
    starts when the last one says it would end after it (the first round always runs). With
    ``rewarm``, an untimed call precedes each sample, so data the other calls evicted from
    the caches is back in them.

    >>> [t.calls_per_sample > 1 for t in time_interleaved([lambda: None], repeats=3)]
    [True]
    """
    if repeats < 1:
        raise RooflineInputError("repeats", "an integer of at least 1", repeats)
    calls, per_round = [], []
    for fn in fns:
        warm = _sample(fn, 1)
        for _ in range(2):  # a short call's first run may have met a stall: take the best of three
            if warm < RETIME_BELOW_SECONDS:
                warm = min(warm, _sample(fn, 1))
        count = max(1, min(1_000_000, math.ceil(MIN_SAMPLE_SECONDS / warm)))
        calls.append(count)
        per_round.append(max(1, min(MAX_SAMPLES_PER_ROUND, int(ROUND_SECONDS / (warm * count)))))
    samples: list[list[float]] = [[] for _ in fns]
    last_round = 0.0
    for done in range(repeats):
        if done and deadline is not None and time.perf_counter() + last_round > deadline:
            break
        start = time.perf_counter()
        for fn, count, rounds, taken in zip(fns, calls, per_round, samples, strict=True):
            taken.extend(_sample(fn, count, rewarm) for _ in range(rounds))
        last_round = time.perf_counter() - start
        if on_round is not None:
            on_round()
    return [Timing(tuple(taken), count) for taken, count in zip(samples, calls, strict=True)]


def time_call(fn: Callable[[], object], *, repeats: int, deadline: float | None = None) -> Timing:
    """Time one call the way :func:`time_interleaved` times several.

    >>> t = time_call(lambda: sum(range(10**5)), repeats=3)
    >>> t.repeats >= 3
    True
    """
    return time_interleaved([fn], repeats=repeats, deadline=deadline)[0]


class Progress:
    r"""A one-line text progress bar on a stream (stderr in practice); silent without one.

    It shows the measurements finished out of those planned, and the seconds spent out of
    the budget.

    >>> import io
    >>> out = io.StringIO()
    >>> bar = Progress(total=2, budget=20.0, stream=out)
    >>> bar.show("copy", done=1, elapsed=3.0); bar.show("triad", done=2, elapsed=6.5); bar.close()
    >>> out.getvalue().split("\r")[-1].rstrip()
    'measuring [########################] 2/2  6.5 s of 20 s  triad'
    """

    def __init__(self, total: int, budget: float | None, stream: TextIO | None, width: int = 24) -> None:
        self.total = max(total, 1)
        self.budget = budget
        self.stream = stream
        self.width = width
        self._last = 0

    def show(self, label: str, done: int, elapsed: float) -> None:
        """Redraw the bar in place."""
        if self.stream is None:
            return
        filled = round(self.width * min(done, self.total) / self.total)
        budget = f" of {self.budget:.0f} s" if self.budget is not None else ""
        line = (
            f"measuring [{'#' * filled}{'.' * (self.width - filled)}] {min(done, self.total)}/{self.total}"
            f" {elapsed:4.1f} s{budget}  {label}"
        )
        self.stream.write("\r" + line.ljust(self._last))
        self.stream.flush()
        self._last = len(line)

    def close(self) -> None:
        """End the bar's line, so what follows starts on a fresh one."""
        if self.stream is not None and self._last:
            self.stream.write("\n")
            self.stream.flush()
            self._last = 0


def progress_stream(progress: bool | None) -> TextIO | None:
    """Where a progress bar goes: stderr when asked, or by default when stderr is a terminal."""
    if progress is None:
        progress = sys.stderr.isatty()
    return sys.stderr if progress else None


class Schedule:
    """A time budget shared by a known number of measurements.

    Tasks may weigh more than one (a group of interleaved measurements weighs as many as
    it has members); a task's share of the time left is its weight over the weight left.

    >>> s = Schedule(10.0, tasks=4)
    >>> 4.9 < s.next_deadline(weight=2) - s.start < 5.1
    True
    >>> s.finish("two", weight=2); s.tasks_left, s.done
    (2, 2)
    """

    def __init__(self, budget: float | None, tasks: int, progress: Progress | None = None) -> None:
        self.start = time.perf_counter()
        self.budget = budget
        self.tasks_left = max(tasks, 1)
        self.done = 0
        self.progress = progress if progress is not None else Progress(tasks, budget, None)

    @property
    def deadline(self) -> float | None:
        return None if self.budget is None else self.start + self.budget

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def next_deadline(self, weight: int = 1) -> float | None:
        """When the next measurement should stop repeating: its share of what is left."""
        if self.deadline is None:
            return None
        now = time.perf_counter()
        return now + max(self.deadline - now, 0.0) * min(weight / self.tasks_left, 1.0)

    def tick(self, label: str) -> None:
        """Redraw the progress bar (between rounds of a measurement)."""
        self.progress.show(label, self.done, self.elapsed())

    def finish(self, label: str, weight: int = 1) -> None:
        """Mark a measurement of ``weight`` tasks done."""
        self.tasks_left = max(self.tasks_left - weight, 1)
        self.done += weight
        self.tick(label)
