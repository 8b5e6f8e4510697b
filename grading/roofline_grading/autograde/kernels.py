"""Sandboxed kernels for the notebooks of one student, each started before its turn.

:func:`prepare` sets up everything one notebook's kernel needs, outside and inside the sandbox:
its run directory, the session file (the notebook's questions and their public inputs, never an
answer nor a hidden input), the process-tree group, the two event channels (the audit hook's,
from inside the kernel, and its keeper's, from outside), the channel of each question's copy
(:mod:`roofline_grading.autograde.hidden`), the launcher's settings and a kernelspec, and starts
the kernel, handing it the descriptors of its keeper's channel and of the copies' channels.
Starting a kernel takes about a second cold (most of it Python importing IPython), a third of
that warm; :func:`take` hands a notebook its kernel and starts the next notebook's at once, and
after a student's last notebook the first notebook's of whoever the worker grades next, so that
the start overlaps with the work on this one (a class that hands in one notebook waited for each
kernel's start). Each kernel is still fresh, sandboxed and used for one notebook only.

The kernel's Unix sockets (Jupyter's channels) and its audit channel live in a runtime
folder of their own with a short path (:func:`runtime_folder`): the path of a Unix socket may not
exceed 107 bytes, and a course's or a scratch folder's path can be longer than that.

>>> Kernel.__dataclass_fields__.keys() >= {"name", "km", "group", "channel", "watch", "copies", "runtime"}
True
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from typing import Any

import zmq
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from traitlets import Unicode

from roofline_grading.autograde import scratch, templates
from roofline_grading.autograde.events import EventChannel
from roofline_grading.autograde.hidden import Copies
from roofline_grading.questions import FunctionQuestion
from roofline_grading.sandbox import bwrap, fork, launch, limits
from roofline_grading.session import issue, spec
from roofline_recorder import audit

__all__ = [
    "EXITED",
    "KERNEL_NAME",
    "GradingKernelManager",
    "Kernel",
    "NoShortFolder",
    "check_start",
    "discard_next",
    "discard_waiting",
    "runtime_folder",
    "startup_failure",
    "take",
    "until_ready",
]

KERNEL_NAME = "roofline-grading"
EXITED = "kernel.exited"
"""The file in a kernel's runtime directory its keeper writes when the kernel ends."""
HISTORY = "--HistoryManager.hist_file=:memory:"
RECONNECT_MS = 5
"""How often a client tries again to reach a kernel that is not listening yet. A client connects
as soon as the kernel's process is started, before the kernel has opened its sockets, and zmq
tries again after 100 ms by default: a warm kernel that was not started ahead of its notebook
then sat idle for about that long before its first request came (measured: 96 ms from the
kernel's start to its first reply, every thread of it waiting). Each try is one failed
``connect`` to a Unix socket. The same interval holds after a kernel dies: its client tries again
a few hundred times a second until nbclient, which looks every second whether the kernel lives,
stops it."""
SOCKET_PATH_BYTES = 107
"""The longest path a Unix socket may be bound at (Linux's ``sun_path`` holds 108 bytes, a NUL last)."""
IDLE_RETRY_SECONDS = 0.05
"""How long :func:`until_ready` waits for a request's ``idle`` status before asking again."""
SOCKET_NAME_BYTES = 24
"""Room kept for the names of the sockets in a runtime folder (``hidden.sock``, ``kernel-ipc-1``...)."""


class NoShortFolder(RuntimeError):
    """No writable folder has a path short enough for the kernel's Unix sockets."""


@dataclass
class Kernel:
    """One notebook's sandboxed kernel, with what watches it and where its hidden tests' copies wait."""

    name: str
    run: Path
    channel: EventChannel
    """The audit hook's events, from inside the kernel."""
    watch: EventChannel
    """The keeper's events, seen from outside the kernel."""
    group: limits.Group
    km: AsyncKernelManager
    copies: Copies
    runtime: Path
    """Its sockets, event channel and connection file (:func:`runtime_folder`)."""
    spare: bool = False
    """Started for the worker's next student: its run folder is in a folder of its own, outside
    any student's (see :func:`take`)."""

    @property
    def folder(self) -> Path:
        """The folder its run folder is in, when that one is its own and goes with it."""
        return self.run.parent if self.spare else self.run

    def discard(self) -> None:
        """Stop the kernel and everything it started, and remove its run and runtime folders."""
        run_sync(self.km.shutdown_kernel)(now=True)
        self.group.close()
        self.channel.close()
        self.watch.close()
        self.copies.close()
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.rmtree(self.runtime, ignore_errors=True)


class GradingKernelManager(AsyncKernelManager):
    """jupyter_client's manager, for which the kernel is dead once the keeper has written its exit
    (:mod:`roofline_recorder.kernel`): the sandbox itself stays up, for the hidden tests' copies."""

    exited_file = Unicode("", help="The file the kernel's keeper writes when the kernel ends")

    async def _async_is_alive(self) -> bool:
        if self.exited_file and os.path.exists(self.exited_file):
            return False
        return bool(await super()._async_is_alive())

    is_alive = _async_is_alive  # what the manager's callers use; its clients call the one above

    def client(self, **kwargs: Any) -> Any:
        """A client whose sockets try again every :data:`RECONNECT_MS` to reach a kernel that is
        not listening yet (see there)."""
        client = super().client(**kwargs)
        client.context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)  # for every socket it makes
        return client


_WAITING: dict[str, Kernel] = {}
"""Kernels started ahead of their notebook's turn, by notebook name."""
_NEXT: dict[str, tuple[str, Kernel]] = {}
"""Kernels started for the worker's next student (whoever that is), by notebook name: the run's
tag and the kernel."""


def take(
    name: str, upcoming: list[str], settings: dict[str, Any], run_root: Path, following: Path | None = None
) -> Kernel:
    """The kernel of notebook ``name`` (started earlier, or now), after starting the kernel of
    the notebook that follows it in ``upcoming``; after the last one, with ``following`` (the
    folder of a notebook the worker's next student hands in, ``<folder>/<notebook>``), that
    notebook's kernel. A kernel holds nothing of a student before its notebook's turn (its
    session is the notebook's, its hidden inputs are drawn from the code it then runs), so one
    started for whoever comes next is the kernel that student's notebook would start."""
    kernel = _WAITING.pop(name, None) or _next(name, settings) or prepare(name, settings, run_root)
    later = upcoming[upcoming.index(name) + 1 :] if name in upcoming else []
    if later and later[0] not in _WAITING:
        _WAITING[later[0]] = prepare(later[0], settings, run_root)
    elif not later and following is not None and following.name not in _NEXT:
        started = prepare(following.name, settings, following.parent / secrets.token_hex(4))
        started.spare = True
        _NEXT[following.name] = (str(settings.get("tag", "")), started)
    return kernel


def _next(name: str, settings: dict[str, Any]) -> Kernel | None:
    """The kernel started for notebook ``name`` of whoever came next in this run, if any."""
    tag, kernel = _NEXT.pop(name, ("", None))
    if kernel is not None and tag != str(settings.get("tag", "")):  # another run's (a Dask worker's)
        kernel.discard()
        return None
    return kernel


async def until_ready(client: Any, manager: Any, timeout: float) -> None:
    """Wait until the kernel answers on its shell channel and its output channel is connected:
    the reply to a ``kernel_info`` request, then the ``idle`` status the kernel publishes for a
    request it was asked. (jupyter_client's ``wait_for_ready`` waits as well until no output has
    come for 0.2 s, a pause at every kernel start.)

    The output channel subscribes while the kernel starts, and a status the kernel published
    before the subscription reached it is lost: then the request is asked again at once, each
    :data:`IDLE_RETRY_SECONDS`, rather than after a long wait (half a second lost at about one
    kernel start in two)."""
    deadline = time.monotonic() + timeout
    asked: set[str] = set()
    idle: set[str] = set()
    replied: dict[str, Any] | None = None
    while True:
        asked.add(client.kernel_info())
        if replied is None:
            try:
                reply = await client.shell_channel.get_msg(timeout=1)
            except Empty:
                reply = None
            if reply is not None and reply["parent_header"].get("msg_id") in asked:
                replied = reply
        retry = time.monotonic() + IDLE_RETRY_SECONDS
        if replied is not None and await _idle_after(client, asked, retry, idle):
            client._handle_kernel_info_reply(replied)
            return
        if not await manager.is_alive():
            raise RuntimeError("Kernel died before replying to kernel_info")
        if time.monotonic() > deadline:
            raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")


async def _idle_after(client: Any, asked: set[str], until: float, idle: set[str]) -> bool:
    """Whether the kernel's ``idle`` status for one of the ``asked`` requests has arrived on the
    output channel, or arrives before ``until``; ``idle`` collects the requests seen idle so far."""
    while not asked & idle:
        left = until - time.monotonic()
        if left <= 0:
            return False
        try:
            message = await client.iopub_channel.get_msg(timeout=left)
        except Empty:
            return False
        if message["msg_type"] == "status" and message["content"].get("execution_state") == "idle":
            idle.add(message["parent_header"].get("msg_id"))
    return True


def startup_failure(kernel: Kernel, error: BaseException) -> str:
    """Why ``kernel`` did not start, in a line: the error and the end of what it wrote."""
    try:
        log = (kernel.run / "kernel.log").read_text(errors="replace").strip().splitlines()
    except OSError:
        log = []
    said = " | ".join(line.strip() for line in log[-3:] if line.strip())[:400]
    return f"the grading kernel did not start ({type(error).__name__}: {error})" + (
        f"; it said: {said}" if said else ""
    )


def check_start(settings: dict[str, Any], notebook: str, run_root: Path, timeout: float = 120) -> str | None:
    """Start one sandboxed kernel as grading would and stop it: None if it answered, else why not."""
    try:
        kernel = prepare(notebook, settings, run_root)
    except NoShortFolder as error:
        return f"the grading kernel cannot start: {error}"
    client = kernel.km.client()
    try:
        client.start_channels()
        run_sync(until_ready)(client, kernel.km, timeout)
        return None
    except Exception as error:  # whatever stopped it, the instructor needs the reason
        return startup_failure(kernel, error)
    finally:
        client.stop_channels()
        kernel.discard()


def discard_next(tag: str) -> None:
    """Stop the kernels started for the next student of the run tagged ``tag`` (the run is over)."""
    for name, (owner, kernel) in list(_NEXT.items()):
        if owner == tag and _NEXT.pop(name, None) is not None:
            kernel.discard()


def discard_waiting(*, keep_next: bool = False) -> None:
    """Stop kernels started for notebooks that were not graded after all; with ``keep_next``,
    not those started for the worker's next student."""
    while _WAITING:
        _, kernel = _WAITING.popitem()
        kernel.discard()
    while _NEXT and not keep_next:
        _, (_, kernel) = _NEXT.popitem()
        kernel.discard()


def prepare(name: str, settings: dict[str, Any], run_root: Path) -> Kernel:
    """Set up and start the sandboxed kernel of notebook ``name`` (see the module's docstring)."""
    run = run_root / name
    shutil.rmtree(run, ignore_errors=True)
    run.mkdir(parents=True)
    template = templates.current(settings)
    runtime = runtime_folder((str(template.root),)) if template is not None else runtime_folder()
    try:
        return _start(name, settings, run, runtime, template)
    except BaseException:
        shutil.rmtree(runtime, ignore_errors=True)  # outside the run's scratch: nobody else removes it
        raise


def _start(
    name: str, settings: dict[str, Any], run: Path, runtime: Path, template: templates.Template | None
) -> Kernel:
    """Start the kernel of notebook ``name``, its files in ``run`` and its sockets in ``runtime``:
    forked from ``template`` (a warm kernel), else in a sandbox of its own."""
    functions = [
        qid for qid, item in issue(name, None).items() if isinstance(item.question, FunctionQuestion)
    ]
    copies = Copies(functions)
    channel = EventChannel.fifo(runtime / "events")
    watch, watch_end = EventChannel.pipe()
    memory_limit = limits.Limits(
        memory_bytes=int(settings.get("memory_bytes", limits.Limits.memory_bytes)),
        processes=int(settings.get("processes", limits.Limits.processes)),
    )
    group = limits.open_group(
        f"{settings.get('tag', 'run')}-{name}", memory_limit, settings.get("group", "auto")
    )
    mode = settings.get("mode", "bwrap")
    command, environment = _command(settings, name, run, runtime, watch_end, copies.descriptors())
    launcher = {
        "cgroup_procs": group.procs_files(),
        "parent": os.getpid(),
        "rlimits": memory_limit.rlimits(memory=not group.kind.startswith("cgroup")),
        "log": str(run / "kernel.log"),
        "environment": environment,
    }
    handed = (watch_end, *copies.descriptors().values())
    cold = [sys.executable, "-I", "-S", launch.__file__, str(run / "launch.json"), "--", *command]
    warm = template is not None and group.kind.startswith("cgroup")  # the launcher moves it there
    argv, arguments = (
        (_warm(launcher, run, runtime, template, handed), []) if warm and template else (cold, [HISTORY])
    )
    (run / "launch.json").write_text(json.dumps(launcher))
    _kernelspec(run, argv)
    km = GradingKernelManager(
        kernel_name=KERNEL_NAME,
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(run / "kernels")]),
        transport="ipc",
        connection_file=str(runtime / "kernel.json"),
        exited_file=str(runtime / EXITED),
    )
    try:
        run_sync(km.start_kernel)(
            cwd=str(runtime if mode == "bwrap" else run), extra_arguments=arguments, pass_fds=handed
        )
    finally:
        os.close(watch_end)  # the keeper holds the only other end
        copies.handed_over()
    process = getattr(getattr(km, "provisioner", None), "process", None)
    if process is not None:
        group.watch(process.pid)
    return Kernel(name, run, channel, watch, group, km, copies, runtime)


def _kernelspec(run: Path, argv: list[str]) -> None:
    """The kernelspec Jupyter starts the kernel from (``argv``), in ``run``."""
    kernel_dir = run / "kernels" / KERNEL_NAME
    kernel_dir.mkdir(parents=True)
    kernelspec = {
        "argv": argv,
        "display_name": "roofline grading",
        "language": "python",
        "interrupt_mode": "message",
        "metadata": {"debugger": False},
    }
    (kernel_dir / "kernel.json").write_text(json.dumps(kernelspec))


def _warm(
    launcher: dict[str, Any], run: Path, runtime: Path, template: templates.Template, handed: tuple[int, ...]
) -> list[str]:
    """The command that forks the kernel from ``template`` (:mod:`roofline_grading.sandbox.fork`),
    with what it needs added to ``launcher``: the child reads its session from the runtime folder
    and mounts it where a cold kernel's is."""
    shutil.copyfile(run / "session.json", runtime / "session.json")
    launcher.update(
        {
            "handed": list(handed),
            "runtime": str(runtime),
            "template": str(template.socket),
            "kernel": {
                "rlimits": launcher.pop("rlimits"),
                "runtime": str(runtime),
                "session": f"{bwrap.GRADING}/session.json",
                "arguments": ["-f", str(runtime / "kernel.json"), HISTORY],
                "home_bytes": bwrap.Layout.home_bytes,
                "tmp_bytes": bwrap.Layout.tmp_bytes,
            },
        }
    )
    return [sys.executable, "-I", "-S", fork.__file__, str(run / "launch.json")]


def runtime_folder(candidates: tuple[str, ...] | None = None) -> Path:
    """A new private folder (mode 0700) for one kernel's sockets, in the first of ``candidates``
    (default: ``/dev/shm``, the temp dir, ``/tmp``) that is writable and short enough for every
    socket in it to fit in :data:`SOCKET_PATH_BYTES`; :class:`NoShortFolder` if none is.

    >>> folder = runtime_folder()
    >>> len(os.fsencode(folder / "kernel-ipc-1")) <= SOCKET_PATH_BYTES, oct(folder.stat().st_mode)[-3:]
    (True, '700')
    >>> folder.rmdir()
    >>> runtime_folder(("/no/such/folder",))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    roofline_grading.autograde.kernels.NoShortFolder: ...: /no/such/folder is ... such as /tmp
    """
    if candidates is None:
        candidates = ("/dev/shm", tempfile.gettempdir(), "/tmp")
    longest = SOCKET_PATH_BYTES - SOCKET_NAME_BYTES - len("/rk-12345678/")
    for root in dict.fromkeys(candidates):
        if len(os.fsencode(root)) <= longest and os.path.isdir(root) and os.access(root, os.W_OK | os.X_OK):
            return scratch.folder("rk-", root)  # removed when its process stops, however it stops
    raise NoShortFolder(
        f"no folder to hold the grading kernel's sockets: {', '.join(dict.fromkeys(candidates))} "
        f"{'is' if len(set(candidates)) == 1 else 'are'} longer than {longest} bytes or not writable "
        f"(a Unix socket's path takes at most {SOCKET_PATH_BYTES} bytes); set TMPDIR to a short "
        "writable folder, such as /tmp"
    )


def _command(
    settings: dict[str, Any], name: str, run: Path, runtime: Path, watch: int, hidden: dict[str, int]
) -> tuple[list[str], dict[str, str]]:
    """The session file, and the command (and its environment) the launcher starts; ``watch``: the
    file descriptor the keeper writes what it sees to; ``hidden``: each function question's
    channel to its copy."""
    session_file = run / "session.json"
    sandboxed = settings.get("mode", "bwrap") == "bwrap"
    layout = bwrap.layout_from(
        settings,
        python=bwrap.python_executable() if sandboxed else sys.executable,
        runtime=str(runtime),
        session=str(session_file),
    )
    session = {
        "questions": {qid: spec(item) for qid, item in issue(name, None).items()},  # public cases only
        "hidden": hidden,
        "exited": str(runtime / EXITED),
        "events": str(runtime / "events"),
        "watch": watch,
        "own": bwrap.own_code(layout) if sandboxed else {},
        "readable": list(bwrap.readable(layout)),
        "writable": list(bwrap.writable(layout)),
        "library": list(bwrap.library(layout)),
        "protected": [audit.hashed(settings.get("salt", ""), p) for p in settings.get("protected", ())],
        "exposed": list(bwrap.exposed(layout)),
        "salt": settings.get("salt", ""),
    }
    session_file.write_text(json.dumps(session))
    if sandboxed:
        return bwrap.command(layout), {"PATH": os.defpath}
    # no sandbox: the kernel runs as the grader, with the recorder on its path
    kernel = [
        sys.executable,
        "-P",
        "-m",
        "roofline_recorder.kernel",
        str(session_file),
        "-f",
        "{connection_file}",
    ]
    environment = {
        **bwrap.environment(layout),
        "PYTHONPATH": str(Path(layout.recorder).parent),
        "HOME": str(runtime),
        "MPLCONFIGDIR": str(runtime / ".matplotlib"),
    }
    return kernel, environment
