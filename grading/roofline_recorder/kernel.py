"""The grading kernel, as it starts inside the sandbox.

``python -P -m roofline_recorder.kernel SESSION -f CONNECTION_FILE`` (the grading driver
writes ``SESSION``, a JSON file: the notebook's questions and the inputs chosen for each,
where the kernel may read and write, and the event channel). Before any student code runs it

- adds the audit hook that reports what the code tries (:mod:`roofline_recorder.audit`);
- loads the session, so that ``record`` knows each question's inputs;
- keeps its working directory off ``sys.path`` (a ``numpy.py`` the code writes shadows nothing)
  and ignores warnings (they would reach stderr and cost a right answer its points);

then runs an ordinary IPython kernel.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import roofline_recorder
from roofline_recorder import audit


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    session_path, kernel_arguments = argv[0], argv[1:]
    session = json.loads(Path(session_path).read_text())
    channel = os.open(session["events"], os.O_WRONLY | os.O_CLOEXEC) if session.get("events") else -1
    monitor = audit.install(
        channel,
        readable=tuple(session["readable"]),
        writable=tuple(session["writable"]),
        library=tuple(session["library"]),
        protected=frozenset(session.get("protected", ())),
        salt=str(session.get("salt", "")),
    )
    roofline_recorder.start_session(session_path)

    import numpy  # noqa: F401  (loaded before any student code, as students load it first anyway)
    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance()
    app.initialize(kernel_arguments)
    monitor.attach(app.shell)
    cwd = Path.cwd().resolve()
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and Path(p).resolve() != cwd]
    warnings.simplefilter("ignore")
    app.start()


if __name__ == "__main__":
    main()
