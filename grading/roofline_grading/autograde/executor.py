"""What grades the students of a run: the interface the driver's executors share.

The driver (:mod:`roofline_grading.autograde.driver`) hands an :class:`Executor` the run
(a :class:`~roofline_grading.autograde.jobs.Portable`), the students and how to read each one's
submission; the executor grades them wherever it grades (worker processes on this machine:
:mod:`roofline_grading.autograde.local_pool`; the workers of a Dask scheduler on any number of
machines: :mod:`roofline_grading.autograde.dask_pool`) and calls ``done`` in the driver's process
once per student, with the student's result, or with a result naming why the student could not be
graded. The driver alone writes the gradebook, from ``done``: a student is committed exactly once
however often a lost worker made the executor grade them again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from roofline_grading.autograde.jobs import Graded, Job, Portable

__all__ = ["Done", "Executor", "JobOf"]

Done = Callable[[Graded], None]
JobOf = Callable[[str], Job]


class Executor(Protocol):
    """Grades students somewhere; see the module's docstring."""

    def describe(self) -> str:
        """Where it grades, for the run's first line (``2 workers``, ``Dask scheduler ...: 4 workers``)."""
        ...

    def warm_up(self, sandbox: dict[str, Any]) -> None:
        """Start what the workers need before their first student (their warm kernels' templates,
        as ``sandbox`` says), without waiting: the driver checks the run meanwhile."""
        ...

    def preflight(self, portable: Portable, checked: Mapping[str, Any] | None = None) -> None:
        """Refuse the run (a :class:`~roofline_grading.autograde.gradebook.CourseError`) when its
        workers cannot grade it, before anyone is graded. ``checked``: the sandbox settings a
        kernel has just started with in this process (the driver's warm check), if one has; an
        executor whose workers start their kernels on this machine with the same settings need
        not start another to know that they can."""
        ...

    def grade(self, portable: Portable, students: Sequence[str], job_of: JobOf, done: Done) -> None:
        """Grade ``students`` (``job_of(student)`` reads one's submission when it is sent); call
        ``done`` once for each, in this process, in the order they finish."""
        ...

    def close(self) -> None:
        """Stop what it started (its worker processes, its connection to a scheduler)."""
        ...
