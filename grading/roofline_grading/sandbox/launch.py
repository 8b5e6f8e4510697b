"""Start a sandboxed kernel with nothing of the grader's: ``python -I -S launch.py SETTINGS -- COMMAND...``.

Runs between the grader and bubblewrap, and replaces itself with ``COMMAND`` after it has

- joined the process-tree limits (it writes its own process id into each cgroup's
  ``cgroup.procs`` listed in ``SETTINGS``, so everything it starts is counted);
- applied per-process resource limits (address space, file size, open files, no core dumps);
- asked to be killed when the grader's worker dies (``PR_SET_PDEATHSIG``);
- pointed standard input at ``/dev/null`` and standard output and error at a log file, so that
  nothing the kernel writes reaches the grader's console;
- dropped the whole environment for the few variables in ``SETTINGS``: no token, password or
  path of the grader's reaches the kernel, nor the sandbox's own first process (whose
  ``/proc/1/environ`` the kernel could read).

It uses only the standard library and is run with ``-I -S``, so it starts in milliseconds and
imports nothing from the course.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys
from typing import Any

_PR_SET_PDEATHSIG = 1
_LIMITS = {
    "address_space": resource.RLIMIT_AS,
    "file_size": resource.RLIMIT_FSIZE,
    "open_files": resource.RLIMIT_NOFILE,
    "core": resource.RLIMIT_CORE,
}


def main(argv: list[str]) -> None:
    settings_path, separator, *command = argv
    if separator != "--" or not command:
        raise SystemExit("usage: launch.py SETTINGS -- COMMAND...")
    with open(settings_path) as handle:
        settings = json.load(handle)
    for procs in settings.get("cgroup_procs", []):
        with open(procs, "w") as handle:
            handle.write(str(os.getpid()))
    for name, value in settings.get("rlimits", {}).items():
        resource.setrlimit(_LIMITS[name], (value, value))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the file size limit fails, not kills
    detach(settings)
    os.execvpe(command[0], command, dict(settings.get("environment", {})))


def detach(settings: dict[str, Any]) -> None:
    """Die with the grader's worker (``PR_SET_PDEATHSIG``; refuse to start if it is already gone),
    even where no sandbox's own first process would see to it; standard input from ``/dev/null``,
    output and error into the kernel's log. The warm launcher (``fork.py``) starts the same way."""
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != settings.get("parent", os.getppid()):
        raise SystemExit("the grader is gone")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    log = os.open(settings["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)


if __name__ == "__main__":
    main(sys.argv[1:])
