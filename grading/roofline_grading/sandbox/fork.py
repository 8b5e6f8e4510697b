"""Start a warm kernel: ``python -I -S fork.py SETTINGS`` (what Jupyter starts for it).

The cold kernel's launcher (:mod:`roofline_grading.sandbox.launch`) replaces itself with
bubblewrap; this one asks the worker's template (:mod:`roofline_recorder.warm`) to fork a kernel,
and stands for that kernel towards Jupyter for as long as it runs. It

- points standard input at ``/dev/null`` and output and error at the kernel's log, and asks to
  be killed when the grader's worker dies (the cold launcher's :func:`~launch.detach`);
- listens in the kernel's runtime folder, asks the template to fork, and takes the child's
  connection: the kernel learns its process id from it (``SO_PEERCRED``), puts that process in
  the notebook's process-tree limits (each cgroup's ``cgroup.procs``), then hands it its settings
  and descriptors (the log, the keeper's channel, the copies' channels, at the numbers the
  session names);
- then waits: when the kernel's sandbox ends, it ends; when it is stopped (the grader stops the
  kernel), its end of the connection closes and the kernel's first process ends, taking every
  process of the notebook with it.

It uses only the standard library and the cold launcher's start (``launch.py``, beside it).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING or __spec__ is not None:
    from roofline_grading.sandbox.launch import detach
else:  # run as a script with -I -S: no package on the path, the cold launcher is beside this file
    sys.path.insert(0, os.path.dirname(__file__))
    sys.dont_write_bytecode = True  # a round writes nothing into the checkout the guide does not name
    from launch import detach

ACCEPT_SECONDS = 60


def main(argv: list[str]) -> None:
    (settings_path,) = argv
    with open(settings_path) as handle:
        settings = json.load(handle)
    detach(settings)
    handed = sorted(int(fd) for fd in settings["handed"])
    kernel = _fork(settings)
    pid = struct.unpack("3i", kernel.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0]
    for procs in settings.get("cgroup_procs", []):
        with open(procs, "w") as handle:
            handle.write(str(pid))
    numbers = [1, *handed]
    message = {**settings["kernel"], "numbers": numbers}
    socket.send_fds(kernel, [json.dumps(message).encode()], numbers)
    for fd in handed:
        os.close(fd)  # the kernel holds them now
    while kernel.recv(4096):
        pass
    sys.exit(0)


def _fork(settings: dict[str, object]) -> socket.socket:
    """Ask the template to fork a kernel, and take that kernel's connection."""
    path = f"{settings['runtime']}/fork.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(1)
    listener.settimeout(ACCEPT_SECONDS)
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as template:
        template.connect(str(settings["template"]))
        template.send(json.dumps({"fork": path}).encode())
    kernel, _ = listener.accept()
    listener.close()
    os.unlink(path)
    kernel.settimeout(None)
    return kernel


if __name__ == "__main__":
    main(sys.argv[1:])
