"""The local executor (roofline_grading.autograde.local_pool) when a worker process dies: the
students it had are graded again one at a time, each named as retried, and the one that kills a
worker again is reported not graded; everyone else is graded as usual.

A worker process cannot be made to die on cue here in well under a second, so the pool is a
stand-in with the interface the executor uses (``submit``, a context manager), whose future for
one student raises what a dead worker raises, ``BrokenProcessPool``. A real pool and a real
killing submission: tests/e2e/test_autograde_hardening.py.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest

from roofline_grading.autograde import local_pool
from roofline_grading.autograde.jobs import Graded, Job, Portable
from roofline_grading.autograde.local_pool import KILLER, LOST, LocalExecutor
from roofline_grading.autograde.results import StudentResult
from roofline_grading.autograde.settings import Settings
from tests.support.nbgrader_cells import NAME, STRUCTURE

KILLS = "mallory"


class Pool:
    """A pool whose worker dies while it grades ``KILLS``, taking the students it holds with it."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def submit(self, function: Callable[..., Graded], settings: Settings, job: Job) -> Future[Graded]:
        future: Future[Graded] = Future()
        if job.student == KILLS:
            future.set_exception(BrokenProcessPool("a worker died"))
        else:
            future.set_result(Graded(StudentResult(job.student, [])))
        return future

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


def run(students: list[str], jobs: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, Graded]:
    monkeypatch.setattr(local_pool, "_start_pool", Pool)
    monkeypatch.setattr(local_pool, "_end_workers", lambda: None)
    settings = Settings(None, Path("s"), "a", {NAME: STRUCTURE.to_json()}, Path("t"), b"k", 30, 300)
    portable = Portable(settings, None, "off", 2**30, 64, (), "salt", "run")
    done: dict[str, Graded] = {}
    executor = LocalExecutor(jobs)
    executor.grade(portable, students, lambda s: Job(s, {}), lambda g: done.setdefault(g.result.student, g))
    return done


@pytest.mark.parametrize("jobs", [1, 2])  # a lone worker too holds two students: it never waits for a save
def test_a_submission_that_kills_its_worker_twice_is_not_graded_and_the_others_are(
    jobs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = run(["alice", KILLS, "bob", "carol"], jobs, monkeypatch)
    assert sorted(done) == ["alice", "bob", "carol", KILLS]
    assert done[KILLS].result.problems == [KILLER]
    assert done[KILLS].result.notebooks[0].grades["check"].needs_manual_grade
    assert not done["alice"].result.problems


def test_the_students_lost_with_a_worker_are_named_as_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    done = run(["alice", KILLS, "bob", "carol"], 2, monkeypatch)
    assert LOST in done[KILLS].retries
    assert all(done[s].retries in ([], [LOST]) for s in ("alice", "bob", "carol"))


def test_it_says_how_many_workers_grade(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_pool, "_start_pool", Pool)
    assert (LocalExecutor(1).describe(), LocalExecutor(3).describe()) == ("1 worker", "3 workers")
