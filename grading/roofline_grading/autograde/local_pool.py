"""The local executor: students graded in worker processes on this machine (the default).

``jobs`` worker processes start as soon as the executor is made (each loads nbgrader's steps once
while the driver prepares the run); at most twice as many students as workers are in their hands
at once, so a class's submissions are read as they are sent, never all at once, and a worker
starts its next student while the driver saves the last one (a lone worker too: it would otherwise
wait for every save). If a worker
process dies (possible without the sandbox, e.g. a student's code killing it), the students it
had not finished are graded again one at a time, each named as retried, and the one that kills a
worker again is reported as not graded; everyone else is graded as usual.

Its preflight starts one sandboxed kernel in the driver's process, as the workers will start
theirs, unless the driver's warm check has just started one there with the same settings: a warm
run checks one kernel before its first student, not two. (When that check fell back to cold
kernels, the settings differ, and the preflight starts a cold one.)
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from roofline_grading.autograde import kernels, machine, scratch, templates, worker
from roofline_grading.autograde.executor import Done, JobOf
from roofline_grading.autograde.gradebook import CourseError
from roofline_grading.autograde.jobs import Graded, Portable, not_graded

__all__ = ["LocalExecutor"]

LOST = "a grading process died while this submission was sent to the pool; graded again alone"
KILLER = "the grading process died while grading this submission (twice): its code may kill processes"


class LocalExecutor:
    """``jobs`` worker processes on this machine (see the module's docstring)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = _start_pool(jobs)

    def describe(self) -> str:
        return f"{self.jobs} worker{'s' if self.jobs != 1 else ''}"

    def warm_up(self, sandbox: dict[str, Any]) -> None:
        if self._pool is not None:  # each worker's template starts while the driver checks the run
            for _ in range(self.jobs):
                self._pool.submit(templates.start, dict(sandbox))

    def preflight(self, portable: Portable, checked: Mapping[str, Any] | None = None) -> None:
        settings = portable.settings
        if checked is not None and dict(checked) == settings.sandbox:
            return  # a kernel started with these very settings on this machine: the workers' will
        first = sorted(settings.structures)[0]
        refused = kernels.check_start(settings.sandbox, first, settings.scratch / "preflight")
        if refused is not None:
            raise CourseError(f"{refused}. Nothing was graded.")

    def grade(self, portable: Portable, students: Sequence[str], job_of: JobOf, done: Done) -> None:
        remaining = list(students)
        parallel, in_hand = self.jobs, 2 * self.jobs
        retried: dict[str, list[str]] = {}
        while remaining:
            pool = self._pool or _start_pool(parallel)
            self._pool = None
            with pool:
                finished, sent = _round(pool, in_hand, portable, remaining, job_of, done, retried)
            broken = bool(sent - finished)
            remaining = [s for s in remaining if s not in finished]
            for student in sent - finished:
                retried.setdefault(student, []).append(LOST)
            if broken and in_hand == 1 and remaining:
                culprit = remaining.pop(0)
                done(Graded(not_graded(portable.settings, culprit, KILLER), retried.pop(culprit, [])))
            parallel, in_hand = (1, 1) if broken else (parallel, in_hand)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def _round(
    pool: ProcessPoolExecutor,
    in_hand: int,
    portable: Portable,
    students: list[str],
    job_of: JobOf,
    done: Done,
    retried: dict[str, list[str]],
) -> tuple[set[str], set[str]]:
    """Grade ``students`` with ``pool``, at most ``in_hand`` in its hands at once (one after a
    worker died: the one that may kill its worker): who finished, and who was sent (all who were
    sent finished unless a worker process died)."""
    waiting = deque(students)
    running: dict[Future[Graded], str] = {}
    finished: set[str] = set()
    sent: set[str] = set()
    broken = False
    while waiting or running:
        while waiting and len(running) < in_hand and not broken:
            student = waiting.popleft()
            sent.add(student)
            running[pool.submit(machine.grade_job, portable.settings, job_of(student))] = student
        if not running:
            break
        ready, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in ready:
            student = running.pop(future)
            try:
                graded = future.result()
            except BrokenProcessPool:
                if not broken:
                    _end_workers()
                broken = True
                continue
            except Exception as error:  # a bug of ours met a submission it did not expect
                why = f"grading failed ({type(error).__name__}: {error})"
                graded = Graded(not_graded(portable.settings, student, why))
            graded.retries = retried.pop(student, []) + graded.retries
            finished.add(student)
            done(graded)
    return finished, sent


def _start_pool(jobs: int) -> ProcessPoolExecutor:
    """``jobs`` worker processes, started now (each loads the grading steps once)."""
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_start)
    for _ in range(jobs):  # the pool starts a process for each task it cannot hand to an idle one
        pool.submit(worker.ready)
    return pool


def _start() -> None:
    """A worker process starts: a signal that stops it (Ctrl-C, SIGTERM) first removes its
    folders (its kernels' runtime folders); it loads the grading steps."""
    scratch.on_termination()
    worker.start_worker()


def _end_workers() -> None:
    """End the pool's other workers once one has died: their grading is lost with the pool, and
    Python 3.11's pool, on leaving, waits for an idle worker that no task will ever wake."""
    for child in multiprocessing.active_children():
        child.terminate()
