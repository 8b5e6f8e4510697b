"""The template a grading worker forks its warm kernels from (:mod:`roofline_recorder.warm`).

One per worker process, started the first time a warm kernel is asked for, in a sandbox set up as
a cold kernel's (:mod:`roofline_grading.sandbox.bwrap`) but for two things its children need to
make sandboxes of their own: it may create user namespaces (each child creates two and then
forbids more), and its ``/proc`` is the system's rather than bubblewrap's (a child can mount a
``/proc`` of its own only where one is fully visible; bubblewrap covers parts of its own). The
template never runs a line of a student's code, and each child mounts its own ``/proc`` over
that one before anything of a notebook runs.

If the template cannot start, or has ended, :func:`current` says so once (:data:`ENDED`) and the
worker's kernels start cold from then on.

>>> KERNELS
('cold', 'warm', 'auto')
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roofline_grading.autograde import scratch
from roofline_grading.sandbox import bwrap, launch

__all__ = ["KERNELS", "Template", "current", "failure", "lost", "start", "stop"]

KERNELS = ("cold", "warm", "auto")
"""How kernels start: each in a new sandboxed process (``cold``), forked from a template
(``warm``), or warm where this machine allows it and cold otherwise (``auto``)."""
READY_SECONDS = 120.0
MOUNTED = ("recorder", "prefixes", "masks", "fontlist", "stub")
"""The settings a template's sandbox is made from: a run whose settings differ gets a template of its own."""


@dataclass
class Template:
    """A worker's template: its process, its folder (the children's runtime folders live in it)
    and the socket it listens on."""

    process: subprocess.Popen[bytes]
    root: Path
    socket: Path
    log: Path

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """End the process (its forks end with it, in its process namespace) and remove its folder."""
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.wait()
        scratch.remove(self.root)


_STATE: dict[str, Any] = {}
"""This worker's template, or why it has none."""


def current(settings: dict[str, Any]) -> Template | None:
    """This worker's template, started now if need be; None if its kernels start cold (``kernels``
    is not ``warm`` in ``settings``, or the template could not start or has ended: said once on
    standard error)."""
    if settings.get("kernels") != "warm" or settings.get("mode", "bwrap") != "bwrap":
        return None
    key = _key(settings)
    if _STATE.get("key") != key:  # another run's (a Dask worker grades many): its mounts are not this one's
        stop()
        _STATE["key"] = key
    if "failed" in _STATE:
        return None
    template: Template | None = _STATE.get("template")
    if template is not None and template.alive():
        return template
    if template is not None:
        _fail(f"the warm kernels' template ended ({_said(template)})")
        return None
    try:
        template = _start(settings)
    except (OSError, RuntimeError) as error:
        _fail(f"the warm kernels' template did not start ({error})")
        return None
    _STATE["template"] = template
    return template


def start(settings: dict[str, Any]) -> None:
    """Start this worker's template now, if its kernels are warm (what :func:`current` would do
    at its first kernel): a task a worker runs before its first student, so that the template
    starts while the driver still prepares the run."""
    current(settings)


def stop(settings: dict[str, Any] | None = None) -> None:
    """Stop this worker's template (if any; with ``settings``, only one started for a run with
    those settings), remove its folder, and forget why it had none."""
    if settings is not None and _STATE.get("key") != _key(settings):
        return
    _STATE.pop("failed", None)
    template = _STATE.pop("template", None)
    if template is not None:
        template.stop()


def lost() -> bool:
    """Whether this worker's template has ended since it last started a kernel (said once, as
    :func:`current` says it): the kernels forked from it ended with it (they live in its process
    namespace), so whatever they were grading must be graded again, cold."""
    template: Template | None = _STATE.get("template")
    if template is None or template.alive():
        return False
    _fail(f"the warm kernels' template ended ({_said(template)})")
    return True


def failure() -> str | None:
    """Why this worker's kernels start cold though warm ones were asked for, if they do."""
    return _STATE.get("failed")


def _key(settings: dict[str, Any]) -> str:
    return json.dumps({name: settings.get(name) for name in MOUNTED}, sort_keys=True)


def _fail(why: str) -> None:
    stop()
    _STATE["failed"] = why
    print(f"{why}; its kernels start cold from now on", file=sys.stderr, flush=True)


def _said(template: Template) -> str:
    try:
        lines = template.log.read_text(errors="replace").strip().splitlines()
    except OSError:
        lines = []
    code = template.process.poll()
    return " | ".join([f"exit status {code}", *lines[-2:]])[:400]


def _start(settings: dict[str, Any]) -> Template:
    """Start the template and wait until it listens."""
    root = scratch.folder("rk-", "/dev/shm" if os.access("/dev/shm", os.W_OK) else "/tmp")
    placeholder = root / "session.json"
    placeholder.write_text("{}")
    socket_path = root / "template.sock"
    log = root / "template.log"
    layout = bwrap.layout_from(
        settings, python=bwrap.python_executable(), runtime=str(root), session=str(placeholder)
    )
    command = template_command(layout, str(socket_path))
    (root / "launch.json").write_text(
        json.dumps({"parent": os.getpid(), "log": str(log), "environment": {"PATH": os.defpath}})
    )
    argv = [sys.executable, "-I", "-S", launch.__file__, str(root / "launch.json"), "--", *command]
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, close_fds=True)
    template = Template(process, root, socket_path, log)
    deadline = time.monotonic() + READY_SECONDS
    while not socket_path.exists():
        if not template.alive() or time.monotonic() > deadline:
            said = _said(template)
            template.stop()
            raise RuntimeError(said)
        time.sleep(0.02)
    return template


def template_command(layout: bwrap.Layout, socket_path: str) -> list[str]:
    """The template's bubblewrap command: a cold kernel's, with user namespaces allowed and the
    system's ``/proc`` (see the module's docstring).

    >>> layout = bwrap.Layout("/usr/bin/python3", ("/usr",), "/run/r", "/src/rr", "/run/r/s")
    >>> argv = template_command(layout, "/run/r/t")
    >>> "--disable-userns" in argv, argv[argv.index("/proc") - 1], argv[-4:]
    (False, '--bind', ['-P', '-m', 'roofline_recorder.warm', '/run/r/t'])
    """
    argv = bwrap.command(layout, run=[layout.python, "-P", "-m", "roofline_recorder.warm", socket_path])
    argv.remove("--disable-userns")
    at = argv.index("--proc")
    argv[at : at + 2] = ["--bind", "/proc", "/proc"]
    return argv
