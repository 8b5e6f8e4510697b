"""What a grading machine does with a job: on the driver's machine or on any other.

:func:`grade_job` writes the job's submission into the run's scratch folder and grades it there
(:func:`roofline_grading.autograde.worker.grade_student`). On another machine
(:func:`grade_remote`, what a Dask worker runs) the run's settings are first made this machine's
own, once per process and run (:func:`localize`): its own scratch folder, the course's
``nbgrader_config.py`` written there, and how this machine confines a kernel (its Python, its
recorder, its fonts: :func:`sandbox_settings`), checked by starting one sandboxed kernel.

A process grades one student at a time: the kernels started ahead for a student's next notebook
are the process's own (:mod:`roofline_grading.autograde.kernels`), so a Dask worker with several
threads still grades one student at a time.

A run's folder on this machine is a scratch folder of this process
(:mod:`roofline_grading.autograde.scratch`), and so is the folder of the template its warm
kernels fork from (:mod:`roofline_grading.autograde.templates`): :func:`finish` stops the
template and every kernel still running for the run and removes both folders when the driver
ends the run, however it ends (the driver asks every worker), so a worker keeps nothing of a run
into the next; :func:`finish_all` when the worker stops; the next start of a worker or a driver
on this machine removes them when its process was killed.

>>> scratch_root() in ("/dev/shm", None)
True
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from roofline_grading.autograde import grading_code, kernels, scratch, templates, worker
from roofline_grading.autograde.jobs import Graded, Job, Portable
from roofline_grading.autograde.settings import Settings
from roofline_grading.sandbox import bwrap, limits

__all__ = [
    "SAME_CODE",
    "CannotGrade",
    "finish",
    "finish_all",
    "grade_job",
    "grade_remote",
    "localize",
    "preflight",
    "sandbox_settings",
    "scratch_root",
    "stop_kernels",
]

SAME_CODE = (
    "every machine must grade with the driver's commit and no uncommitted edit: on each, git status "
    "shows none under grading/ or rooflinekit/ (commit or undo them) and git rev-parse HEAD the same "
    "commit; check that commit out on this worker's machine, run make venv there, then start this "
    "worker again (make cluster-worker)"
)
"""What to do about a worker whose grading code is not the driver's (a worker reads its code once,
as it starts: it must start again)."""
_LOCK = threading.Lock()
_LOCALIZED: dict[str, Settings] = {}


def scratch_root() -> str | None:
    """Where a run's scratch files go (each kernel's run directory: its sockets, session file and
    report): memory (/dev/shm) where the machine has it, since they are small and short-lived;
    else the temp dir."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) else None


def sandbox_settings(
    mode: str,
    memory_bytes: int,
    processes: int,
    protected: list[str],
    run_dir: Path,
    salt: str,
    kernels: str = "cold",
) -> dict[str, object]:
    """How every kernel of the run is confined on this machine (see :class:`Settings`);
    ``protected``: the grader's places the kernel's audit hook watches for (it gets salted
    hashes, not paths); ``kernels``: how they start (``auto`` is warm here: a worker whose
    template cannot start grades cold, :mod:`roofline_grading.autograde.templates`)."""
    import roofline_recorder

    prefixes = bwrap.python_prefixes()
    stub = bwrap.write_stub(run_dir / "unavailable")
    return {
        "mode": mode,
        "recorder": str(Path(roofline_recorder.__file__).resolve().parent),
        "prefixes": list(prefixes),
        "masks": [list(m) for m in bwrap.masks(prefixes, str(stub))],
        "fontlist": _fontlist(),
        "stub": str(stub),
        "memory_bytes": memory_bytes,
        "processes": processes,
        "tag": run_dir.name,
        "protected": [*protected, str(run_dir), str(Path.home())],
        "salt": salt,
        "kernels": "cold" if kernels == "cold" else "warm",
    }


def _fontlist() -> str | None:
    """matplotlib's font cache, built here once so that no kernel spends a second building it."""
    try:
        import matplotlib
        from matplotlib import font_manager
    except ImportError:
        return None
    path = Path(matplotlib.get_cachedir()) / f"fontlist-v{font_manager.FontManager.__version__}.json"
    return str(path) if path.is_file() else None


def grade_job(settings: Settings, job: Job) -> Graded:
    """Grade one student's submission with ``settings`` (this machine's)."""
    with _LOCK:
        folder = Path(tempfile.mkdtemp(prefix="submitted-", dir=settings.scratch))
        try:
            job.materialize(folder / job.student / settings.assignment)
            result = worker.grade_student(replace(settings, submitted=folder), job.student)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return Graded(result, worker=socket.gethostname())


class CannotGrade(RuntimeError):
    """A worker that joined the run after its start cannot grade it (the message: the worker's
    address, then why: :func:`localize`'s reason); the driver stops the run."""


def grade_remote(portable: Portable, job: Job) -> Graded:
    """Grade one student on this machine, the run's settings made its own first (a
    :class:`CannotGrade` naming this worker when they cannot be)."""
    try:
        settings = localize(portable)
    except RuntimeError as error:
        raise CannotGrade(f"{_worker_name()}: {error}") from None
    graded = grade_job(settings, job)
    graded.worker = _worker_name()
    return graded


def preflight(portable: Portable) -> str | None:
    """Whether this machine can grade the run: None, or why not (its grading code is not the
    driver's, its sandbox cannot start a kernel). The caller knows which worker it asked."""
    try:
        localize(portable)
    except RuntimeError as error:
        return str(error)
    return None


def localize(portable: Portable) -> Settings:
    """The run's settings for this machine, made once per process (see the module's docstring);
    a RuntimeError when this machine cannot start a sandboxed kernel."""
    with _LOCK:
        if portable.run_id not in _LOCALIZED:
            _LOCALIZED[portable.run_id] = _localized(portable)
        return _LOCALIZED[portable.run_id]


def _localized(portable: Portable) -> Settings:
    differs = grading_code.differences(grading_code.identity(), portable.code)
    if differs:
        raise grading_code.ForeignCode(
            f"its grading code is not the driver's ({'; '.join(differs)}): {SAME_CODE}"
        )
    worker.start_worker()
    if portable.sandbox_mode == "bwrap" and (why := bwrap.available()) is not None:
        raise RuntimeError(f"cannot confine the students' kernels: {why} (install bubblewrap)")
    run_dir = scratch.folder(f"roofline-worker-{portable.run_id[-8:]}-", scratch_root(), stop_kernels)
    try:
        return _settings_in(portable, run_dir)
    except BaseException:
        scratch.remove(run_dir)  # a machine that cannot grade the run keeps nothing of it
        raise


def _settings_in(portable: Portable, run_dir: Path) -> Settings:
    """The run's settings on this machine, ``run_dir`` its folder here, once a sandboxed kernel
    started there (a RuntimeError if none could)."""
    config_file = None
    if portable.config_text is not None:
        config_file = run_dir / "nbgrader_config.py"
        config_file.write_text(portable.config_text)
    sandbox = sandbox_settings(
        portable.sandbox_mode,
        portable.memory_bytes,
        portable.processes,
        list(portable.protected),
        run_dir,
        portable.salt,
        portable.kernels,
    )
    settings = replace(portable.settings, config_file=config_file, scratch=run_dir, sandbox=sandbox)
    refused = kernels.check_start(sandbox, sorted(settings.structures)[0], run_dir / "preflight")
    if refused is not None:
        raise RuntimeError(refused)
    return settings


def finish(run_id: str) -> None:
    """Forget run ``run_id`` in this process: stop its kernels and its warm kernels' template,
    remove their folders. It never waits
    for the student being graded (a Dask worker runs it beside its grading thread, whose kernel
    it stops)."""
    settings = _LOCALIZED.pop(run_id, None)
    if settings is not None:
        kernels.discard_next(str(settings.sandbox.get("tag", "")))
        templates.stop(settings.sandbox)  # the warm kernels' template is the run's too
        scratch.remove(settings.scratch)


def finish_all() -> None:
    """Forget every run of this process (a worker that stops)."""
    for run_id in list(_LOCALIZED):
        finish(run_id)


def stop_kernels(run_dir: Path) -> None:
    """Kill every kernel (and all it started) still running for the run whose folder is ``run_dir``."""
    limits.sweep(run_dir.name)


def _worker_name() -> str:
    """The address of the Dask worker running the current task, or this machine's name outside a
    task (``client.run`` has no worker to name: its caller has the address)."""
    try:
        from distributed import get_worker

        address: Any = get_worker().address
        return str(address)
    except (ImportError, ValueError):
        return socket.gethostname()
