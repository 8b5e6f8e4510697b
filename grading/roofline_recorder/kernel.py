"""The grading kernel, as it starts inside the sandbox.

``python -P -m roofline_recorder.kernel SESSION -f CONNECTION_FILE`` (the grading driver
writes ``SESSION``, a JSON file: the notebook's questions and their public inputs, where the
kernel may read and write, the event channels, the hidden tests' descriptors, and the file that
tells the driver the kernel has ended). It imports what every kernel needs, then splits in two:

- the *keeper*, the sandbox's first process, runs no student code and cannot be signalled or read
  from inside the sandbox. It watches the kernel's system calls from outside its interpreter and
  tells the grader what they try, on a pipe only it holds (:mod:`roofline_recorder.watch`); writes
  the kernel's exit status into the session's ``exited`` file when it ends; and stays (collecting
  orphans, as their subreaper) until the driver stops it. So the copies a hidden test left behind
  (:mod:`roofline_recorder.snapshot`) outlive a kernel that dies, and still answer the hidden
  inputs of the parts graded before; and the sandbox, which ends with its first process, ends
  only when the driver says so;
- the *kernel*, which, before any student code runs,

  - loads the watch's system-call filter and hands it to the keeper (or tells it why it cannot);
  - adds the audit hook that reports what the code tries, with the cell and line
    (:mod:`roofline_recorder.audit`);
  - loads the session, so that ``record`` knows each question's public inputs;
  - keeps its working directory off ``sys.path`` (a ``numpy.py`` the code writes shadows
    nothing) and ignores warnings (they would reach stderr and cost a right answer its points);

  then tells the keeper it starts, and runs an ordinary IPython kernel.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import socket
import sys
import warnings
from pathlib import Path
from typing import Any

import roofline_recorder
from roofline_recorder import audit, seccomp, snapshot, watch
from roofline_recorder.places import Places, directory

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    preload()
    run(argv[0], argv[1:])


def run(session_path: str, kernel_arguments: list[str], tether: int | None = None) -> None:
    """Everything after the imports (see the module's docstring): split, watch, start the kernel.
    ``tether``: a descriptor whose other end closing ends the keeper, and with it the kernel (a
    warm kernel's launcher: :mod:`roofline_recorder.warm`)."""
    session = json.loads(Path(session_path).read_text())
    control = _split(session, tether) if session.get("exited") else None
    channel = os.open(session["events"], os.O_WRONLY | os.O_CLOEXEC) if session.get("events") else -1
    monitor = audit.install(
        channel,
        readable=tuple(session["readable"]),
        writable=tuple(session["writable"]),
        library=tuple(session["library"]),
        protected=frozenset(session.get("protected", ())),
        exposed=tuple(session.get("exposed", ())),
        salt=str(session.get("salt", "")),
        trusted=(roofline_recorder.__file__, snapshot.__file__),
        path=session.get("events"),
    )
    roofline_recorder.SEAL = monitor.seal  # for the grader's seal after the last cell
    roofline_recorder.start_session(session_path, keep=(channel,) if channel >= 0 else ())

    app = _kernel_app().instance()
    app.initialize(kernel_arguments)
    app.until_connected()
    monitor.attach(app.shell)
    roofline_recorder.follow_cells(app.shell)
    cwd = Path.cwd().resolve()
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and Path(p).resolve() != cwd]
    warnings.simplefilter("ignore")
    _forget_internals()
    if control is not None:  # from here on, what the kernel asks of the system is the notebook's
        control.send(b"start")
        control.close()
    app.start()


CONNECT_SECONDS = 10.0
"""How long the kernel waits for its own connection to its shell socket before it starts anyway."""


def _kernel_app() -> Any:
    """IPython's kernel application, which connects its own socket to its shell socket before it
    tells the keeper it starts.

    ipykernel connects a socket of its own (``debug_shell_socket``) to its shell socket while it
    initializes; zmq makes that ``connect`` later, from its own thread. On a busy machine it came
    after the kernel had told its keeper it starts, and the keeper, rightly, reported a connection
    the audit hook (which sees only Python) could not: a flag on a notebook that did nothing. So
    the kernel watches that socket from before it connects and waits for the connection."""
    import zmq
    from ipykernel.kernelapp import IPKernelApp

    class GradingKernelApp(IPKernelApp):
        connecting: Any = None

        def _apply_curve_client_options(self, socket: Any) -> None:
            super()._apply_curve_client_options(socket)  # called just before that connect
            if self.connecting is None:
                self.connecting = socket.get_monitor_socket(zmq.EVENT_CONNECTED)

        def until_connected(self) -> None:
            """Return once the connection is made (or after :data:`CONNECT_SECONDS`)."""
            if self.connecting is None:
                return
            with contextlib.suppress(zmq.ZMQError):
                if self.connecting.poll(int(CONNECT_SECONDS * 1000)):
                    self.connecting.recv_multipart()
                self.debug_shell_socket.disable_monitor()
            self.connecting.close(linger=0)

    return GradingKernelApp


INTERNALS = ("audit", "watch", "seccomp", "places", "kernel", "warm")
"""The recorder's own modules that no hidden test needs."""


def _forget_internals() -> None:
    """Forget the recorder's own modules by name (a hidden test needs only the package, its
    copies and its record format): a notebook that imports one loads it afresh from its file,
    which the keeper sees and reports, and gets a module that watches nothing."""
    for name in INTERNALS:
        sys.modules.pop(f"roofline_recorder.{name}", None)
        vars(roofline_recorder).pop(name, None)


STARTUP = (
    "pdb",
    "sqlite3",
    "faulthandler",
    "IPython.core.completerlib",
    "IPython.core.debugger",
    "IPython.core.logger",
    "IPython.core.oinspect",
    "IPython.extensions.storemagic",
    "IPython.utils.wildcard",
    "tornado.platform.asyncio",
)
"""What IPython's kernel imports as it initializes and runs its first cell (measured: the modules
new in ``sys.modules`` after ``initialize`` and after the first cell): after the split every file
an import opens is a system call the keeper looks at."""


def preload(*, figures: bool = False) -> None:
    """Import what every kernel imports before the process splits (so the kernel starts without
    the keeper looking at each file of it), and keep the recorder's source in memory: a traceback
    through the recorder then opens none of its files, which only a notebook's code would. With
    ``figures`` (a warm kernels' template, :mod:`roofline_recorder.warm`), what a notebook with
    figures imports too: a forked kernel then finds them imported, as if it had, and starts at once."""
    import importlib
    import linecache

    import numpy  # noqa: F401  (students load it first anyway)
    from ipykernel import ipkernel, kernelapp, zmqshell  # noqa: F401
    from IPython import display  # noqa: F401  (what recording an answer shows it with)

    _without_debugger()
    for name in STARTUP:
        importlib.import_module(name)

    if figures:
        import matplotlib.figure
        import matplotlib.pyplot  # noqa: F401  (no backend chosen yet: the kernel's shell chooses it)

    for source in Path(roofline_recorder.__file__).parent.glob("*.py"):
        linecache.getlines(str(source))
    _freeze()


def _freeze() -> None:
    """Keep what was imported out of the cyclic garbage collector's sight (``gc.freeze``): those
    objects live as long as the kernel, yet each full collection went through all of them (about
    90,000), and in a kernel forked from a template touched every page they lie on, each then
    copied (measured: a forked child's first collection and 200,000 allocations took 265 ms of CPU
    without, 70 ms with). Cold and warm kernels alike."""
    import gc

    gc.collect()
    gc.freeze()


_ABSENT = object()
"""What :func:`_without_debugger` finds where ``sys.modules`` holds no debugpy (None is a value there)."""


def _without_debugger() -> None:
    """Import ipykernel's debugger module as if debugpy were not installed: a grading kernel has
    no debugger (its kernelspec says so), yet ipykernel imports debugpy as it makes every kernel,
    60 % of a kernel's start, and debugpy runs ``uname -p`` as it loads: a process that took a
    process id in a cold kernel's sandbox and not in a warm one's. A notebook that imports
    debugpy itself still can, and a process that held debugpy before keeps it."""
    held = sys.modules.pop("debugpy", _ABSENT)
    sys.modules["debugpy"] = None  # type: ignore[assignment]
    # (None in sys.modules: an import of it fails at once)
    try:
        from ipykernel import debugger  # noqa: F401
    finally:
        del sys.modules["debugpy"]
        if held is not _ABSENT:
            sys.modules["debugpy"] = held  # type: ignore[assignment]


def _split(session: dict[str, Any], tether: int | None = None) -> socket.socket:
    """Fork: the child returns, the kernel, watched from outside (:mod:`roofline_recorder.watch`),
    with the socket on which it tells its keeper that it starts; this process becomes the keeper
    (see the module's docstring) and never returns."""
    report = session.get("watch")
    keeper_end, kernel_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    kernel = os.fork()
    if kernel == 0:  # the kernel ends with its keeper, sandboxed or not (a fork does not inherit this)
        keeper_end.close()
        for mine in (report, tether):  # the keeper's alone
            if isinstance(mine, int):
                with contextlib.suppress(OSError):
                    os.close(mine)
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        _watch_me(kernel_end)
        return kernel_end
    kernel_end.close()
    for channel in dict(session.get("hidden", {})).values():  # the kernel's and its copies' alone
        with contextlib.suppress(OSError):
            os.close(int(channel))
    places = Places(
        readable=tuple(session["readable"]),
        writable=tuple(session["writable"]),
        protected=frozenset(session.get("protected", ())),
        salt=str(session.get("salt", "")),
        exposed=tuple(session.get("exposed", ())),
    )
    if not isinstance(report, int):
        report = os.open(os.devnull, os.O_WRONLY)
    own = {directory(str(path)): str(words) for path, words in dict(session.get("own", {})).items()}
    watch.keep(kernel, str(session["exited"]), keeper_end, watch.Watched(places, own, report), tether)


def _watch_me(keeper: socket.socket) -> None:
    """In the kernel, still with one thread: load the watch's filter and hand its listener to the
    keeper, or tell the keeper why it cannot be watched."""
    why = seccomp.available()
    if why is None:
        try:
            listener = watch.install()
        except OSError as error:
            why = f"the system-call filter could not be loaded ({error})"
        else:
            socket.send_fds(keeper, [b"listener"], [listener])
            os.close(listener)
            return
    keeper.send(f"unavailable: {why}".encode()[:500])


if __name__ == "__main__":
    main()
