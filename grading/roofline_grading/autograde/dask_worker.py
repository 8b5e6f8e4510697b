"""What each worker process of the course's grading cluster runs as it starts and as it stops.

``roofline-grading cluster worker`` hands this module to ``dask worker --preload``, which calls
:func:`dask_setup` in every worker process it starts (again after a worker process was killed
and its nanny started another) and :func:`dask_teardown` when one stops:

- at the start, the run folders of grading processes on this machine that were killed (nothing
  runs in a process killed outright) are removed, and SIGTERM made to remove this process's own
  (:mod:`roofline_grading.autograde.scratch`);
- at the stop, every run this process still holds is forgotten: its kernels stopped, its folders
  removed (:func:`roofline_grading.autograde.machine.finish_all`).

>>> dask_teardown(None)  # a process that graded nothing holds nothing
"""

from __future__ import annotations

from typing import Any

from roofline_grading.autograde import machine, scratch

__all__ = ["dask_setup", "dask_teardown"]


def dask_setup(worker: Any) -> None:
    """A worker process starts: remove what killed ones left; SIGTERM removes this one's folders."""
    scratch.sweep()
    scratch.on_termination()


def dask_teardown(worker: Any) -> None:
    """A worker process stops: its runs' kernels stopped, their folders removed."""
    machine.finish_all()
