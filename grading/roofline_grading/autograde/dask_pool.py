"""The distributed executor: students graded by the workers of a Dask scheduler, on any machines.

Dask distributed (https://distributed.dask.org) runs a scheduler and workers as ordinary
processes on any number of machines, which the course starts closed to whoever lacks its
certificates (:mod:`roofline_grading.autograde.cluster`); a worker needs only the course's
environment, its certificates and bubblewrap (book/instructor-guide.md, "Grading a large class").
The driver connects with the course's ``driver`` certificate, over TLS only: a ``tcp://``
scheduler, which anyone who reaches it could run code through, is refused, and so is a worker
that does not speak TLS. Each student is one task
(:func:`roofline_grading.autograde.machine.grade_remote`) carrying the submission's bytes and
the run's settings; its result comes back to the driver, which alone writes the gradebook.

Faults are the scheduler's to handle: when a worker dies or its machine disappears, the scheduler
gives the tasks it held to other workers, and a task whose workers died ``allowed-failures`` times
(the scheduler's ``distributed.scheduler.allowed-failures``, default 3) fails with ``KilledWorker``;
that student is then reported as not graded. A retried student's result says how many times the
worker it was sent to was lost (the scheduler's count) and where it was graded in the end. If no
worker is left for ``patience`` seconds, the students not yet graded are named as not graded and
the run ends. Before anyone is graded, every worker connected checks that it can grade the run
(:func:`roofline_grading.autograde.machine.preflight`: the driver's grading code, a sandboxed
kernel); one that cannot refuses the run, named by its address. A worker that joins later and
cannot stops the run at its first student: the students graded are saved, and the error names
the worker and the students not graded yet. When the run ends, however it ends, every worker
forgets it: its kernels stopped, its folder removed (:func:`roofline_grading.autograde.machine.finish`).

>>> ADDRESS.fullmatch("tcp://grader1:8786")["port"], ADDRESS.fullmatch("grader1") is None
('8786', True)
"""

from __future__ import annotations

import contextlib
import re
import socket
import time
import uuid
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from roofline_grading.autograde import credentials, machine
from roofline_grading.autograde.executor import Done, JobOf
from roofline_grading.autograde.gradebook import CourseError
from roofline_grading.autograde.jobs import Graded, Portable, not_graded
from roofline_grading.inert import plain

__all__ = ["DaskExecutor"]

PATIENCE = 300.0
"""Seconds the run waits for a worker when the scheduler has none."""


ADDRESS = re.compile(r"(?:(?:tcp|tls)://)?(?P<host>[^\s/]+):(?P<port>\d{1,5})")
"""A scheduler's address: ``tcp://host:port`` (or ``tls://``, or ``host:port``)."""


def _probe(address: str) -> None:
    """Connect to the scheduler's port once: an OSError (or ValueError, for no address) if nothing answers."""
    found = ADDRESS.fullmatch(address)
    if found is None:
        raise ValueError("not an address like tcp://grader1:8786")
    host = found["host"].strip("[]")
    with socket.create_connection((host, int(found["port"])), timeout=10):
        pass


class DaskExecutor:
    """The workers of the Dask scheduler at ``address`` (see the module's docstring), reached with
    the course's certificates in ``certs``."""

    def __init__(self, address: str, certs: Path, patience: float = PATIENCE) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise CourseError(
                "--scheduler needs Dask distributed in this environment (pip install distributed, "
                "or make venv: the course's lock has it)"
            ) from None
        try:
            security = credentials.security(certs, "driver")
        except credentials.CredentialsError as error:
            raise CourseError(f"--scheduler {address}: {error}") from None
        try:
            _probe(address)  # a Client that cannot connect spends a minute closing itself
            self.client: Any = Client(address, security=security, timeout="30s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise CourseError(
                f"no Dask scheduler of the course answered at {address} ({error}); start one with "
                "`make cluster-scheduler HOST=...` and give the address its first line says; it must "
                f"have the certificates of {certs}"
            ) from None
        self.address, self.patience = address, patience
        self._run_id: str | None = None

    def describe(self) -> str:
        workers = self.client.scheduler_info()["workers"].values()
        threads = sum(int(w["nthreads"]) for w in workers)
        return f"the Dask scheduler at {self.address} ({len(workers)} workers, {threads} threads now; TLS)"

    def warm_up(self, sandbox: dict[str, Any]) -> None:
        pass  # each worker starts its template in the preflight, as it makes the run's settings its own

    def preflight(self, portable: Portable, checked: Mapping[str, Any] | None = None) -> None:
        self._run_id = portable.run_id  # (what the driver checked here says nothing of the workers)
        if not self.client.scheduler_info()["workers"]:
            self.client.wait_for_workers(1, timeout=self.patience)
        plain = [a for a in self.client.scheduler_info()["workers"] if not str(a).startswith("tls://")]
        if plain:
            raise CourseError(
                f"a worker listens without TLS ({', '.join(plain)}): start workers with "
                "`make cluster-worker`. Nothing was graded."
            )
        answers = self.client.run(machine.preflight, portable)  # each worker's, by its address
        refused = [f"{address}: {why}" for address, why in sorted(answers.items()) if why]
        if refused:
            raise CourseError("a worker cannot grade: " + "; ".join(refused) + ". Nothing was graded.")

    def grade(self, portable: Portable, students: Sequence[str], job_of: JobOf, done: Done) -> None:
        waiting = deque(students)
        running: dict[Any, str] = {}
        tag = uuid.uuid4().hex[:8]  # the run's keys: each student is one task of the scheduler
        self._alone_since: float | None = None
        self._workers: dict[str, Any] = self.client.scheduler_info()["workers"]
        finished: set[str] = set()
        while waiting or running:
            while waiting and len(running) < self._window():
                student = waiting.popleft()
                key = f"grade-{tag}-{student}"
                running[
                    self.client.submit(machine.grade_remote, portable, job_of(student), key=key, pure=False)
                ] = student
            ready = self._wait(running)
            if ready is None:  # no worker left
                self._give_up(portable, [*running.values(), *waiting], done)
                self.client.cancel(list(running))
                return
            lost = self._lost(ready)
            for future in ready:
                try:
                    graded = self._collect(portable, future, running[future], lost.get(future.key, 0))
                except machine.CannotGrade as error:  # a worker that joined after the preflight
                    self.client.cancel(list(running))
                    left = [s for s in students if s not in finished]
                    raise CourseError(_stopped(error, left, len(finished), self.address)) from None
                done(graded)
                finished.add(running.pop(future))
                future.release()

    def _wait(self, running: dict[Any, str]) -> set[Any] | None:
        """The tasks done after a few seconds' wait (perhaps none); None when no worker was
        connected for ``patience`` seconds."""
        from distributed import wait

        try:
            with self.client.as_current():  # wait() takes the current client
                ready: set[Any] = wait(list(running), timeout=5, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            ready = set()
        self._workers = self.client.scheduler_info()["workers"]  # once a round: each asks the scheduler
        if ready or self._workers:
            self._alone_since = None
        elif self._alone_since is None:
            self._alone_since = time.monotonic()
        elif time.monotonic() - self._alone_since > self.patience:
            return None
        return ready

    def _window(self) -> int:
        """Students in the scheduler's hands at once: twice its workers' threads (at least 2), as
        the scheduler last told them."""
        return max(2, 2 * sum(int(w["nthreads"]) for w in self._workers.values()))

    def _lost(self, futures: Any) -> dict[str, int]:
        """How many times the workers grading each of ``futures`` were lost (the scheduler's count)."""
        if not futures:
            return {}

        def suspicious(dask_scheduler: Any, keys: list[str]) -> dict[str, int]:
            tasks = dask_scheduler.tasks
            return {k: int(tasks[k].suspicious) for k in keys if k in tasks}

        counts: dict[str, int] = self.client.run_on_scheduler(suspicious, keys=[f.key for f in futures])
        return counts

    def _collect(self, portable: Portable, future: Any, student: str, lost: int) -> Graded:
        """The result of one student's task, or a result naming why they could not be graded."""
        from distributed.scheduler import KilledWorker

        times = f"{lost} time{'s' if lost != 1 else ''}"
        retries = [f"the worker it was sent to was lost ({times})"] if lost else []
        try:
            graded: Graded = future.result()
        except machine.CannotGrade:
            raise
        except KilledWorker:
            why = (
                f"not graded: the workers it was sent to died ({times}), more than the scheduler's "
                "allowed-failures: its code may kill processes, or those machines ran out of memory"
            )
            return Graded(not_graded(portable.settings, student, why), retries)
        except Exception as error:  # a bug of ours met a submission it did not expect, on a worker
            why = f"grading failed ({type(error).__name__}: {error})"
            return Graded(not_graded(portable.settings, student, why), retries)
        if retries:
            retries[0] += f"; graded again on {graded.worker}"
        graded.retries = retries + graded.retries
        return graded

    def _give_up(self, portable: Portable, students: list[str], done: Done) -> None:
        why = f"not graded: no Dask worker was connected for {self.patience:g} s"
        for student in students:
            done(Graded(not_graded(portable.settings, student, why)))

    def close(self) -> None:
        if self._run_id is not None:  # every worker forgets the run: its kernels, its folders
            with contextlib.suppress(Exception):  # one it cannot reach does so when it stops
                self.client.run(machine.finish, self._run_id, on_error="return")
        self.client.close()


def _stopped(error: machine.CannotGrade, left: list[str], saved: int, address: str) -> str:
    """Why the run stopped at a worker that joined it and cannot grade, how many students are
    saved, who is not graded yet, and how to grade them through the scheduler at ``address``.

    >>> print(_stopped(machine.CannotGrade("tls://10.0.0.3:40127: no bubblewrap"), ["carol", "dave"], 3,
    ...                "tls://10.0.0.1:8786"))  # doctest: +NORMALIZE_WHITESPACE
    a worker cannot grade: tls://10.0.0.3:40127: no bubblewrap. The run stopped; the 3 students graded
    so far are saved. Not graded (2): carol, dave. Stop that worker, or put it right and start it again,
    then grade them: make autograde SCHEDULER=tls://10.0.0.1:8786
    AUTOGRADE_OPTIONS="--student carol --student dave"
    """
    names = sorted(plain(s, 100) for s in left)  # by name, to be found: not the order handed out
    options = " ".join(f"--student {s}" for s in names)
    return (
        f"a worker cannot grade: {error}. The run stopped; the {saved} students graded so far are saved. "
        f"Not graded ({len(names)}): {', '.join(names)}. Stop that worker, or put it right and start it "
        f'again, then grade them: make autograde SCHEDULER={address} AUTOGRADE_OPTIONS="{options}"'
    )
