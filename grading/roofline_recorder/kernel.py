"""The grading kernel, as it starts inside the sandbox.

``python -P -m roofline_recorder.kernel SESSION -f CONNECTION_FILE`` (the grading driver
writes ``SESSION``, a JSON file: the notebook's questions and their public inputs, where the
kernel may read and write, the event channel, the socket where the hidden tests' copies wait,
and the file that tells the driver the kernel has ended). The process first splits in two:

- the *keeper* starts nothing and runs no student code: it waits for the kernel, writes its
  exit status into the session's ``exited`` file when it ends, and stays (collecting orphans,
  as their subreaper) until the driver stops it. So the copies a hidden test left behind
  (:mod:`roofline_recorder.snapshot`) outlive a kernel that dies, and still answer the hidden
  inputs of the parts graded before; and the sandbox, which ends with its first process, ends
  only when the driver says so;
- the *kernel*, which, before any student code runs,

  - adds the audit hook that reports what the code tries (:mod:`roofline_recorder.audit`);
  - loads the session, so that ``record`` knows each question's public inputs;
  - keeps its working directory off ``sys.path`` (a ``numpy.py`` the code writes shadows
    nothing) and ignores warnings (they would reach stderr and cost a right answer its points);

  then runs an ordinary IPython kernel.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import warnings
from pathlib import Path

import roofline_recorder
from roofline_recorder import audit, snapshot

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    session_path, kernel_arguments = argv[0], argv[1:]
    session = json.loads(Path(session_path).read_text())
    if session.get("exited"):
        _split(str(session["exited"]))
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
    audit.MONITOR = monitor  # for the grader's seal after the last cell
    roofline_recorder.start_session(session_path, keep=(channel,) if channel >= 0 else ())

    import numpy  # noqa: F401  (loaded before any student code, as students load it first anyway)
    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance()
    app.initialize(kernel_arguments)
    monitor.attach(app.shell)
    roofline_recorder.follow_cells(app.shell)
    cwd = Path.cwd().resolve()
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and Path(p).resolve() != cwd]
    warnings.simplefilter("ignore")
    app.start()


def _split(exited: str) -> None:
    """Fork: the child returns and becomes the kernel; this process becomes the keeper (see the
    module's docstring) and never returns."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    kernel = os.fork()
    if kernel == 0:  # the kernel ends with its keeper, sandboxed or not (a fork does not inherit this)
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        return
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:  # nothing left to wait for: the kernel and every copy are gone
            os._exit(0)
        except InterruptedError:
            continue
        if pid == kernel:
            with contextlib.suppress(OSError):
                Path(exited).write_text(str(os.waitstatus_to_exitcode(status)))


if __name__ == "__main__":
    main()
