"""The bubblewrap sandbox a grading kernel runs in: what it can see, and nothing more.

`bubblewrap <https://github.com/containers/bubblewrap>`_ (``bwrap``, Debian's package
``bubblewrap``, the sandbox Flatpak is built on) starts the kernel in new user, PID, mount,
network, IPC and UTS namespaces, killed with its parent. Inside, the kernel sees:

- read-only: ``/usr`` and the system libraries, a handful of files from ``/etc`` (the dynamic
  linker's cache, the time zone), the Python installation and the environment it runs in, with
  the course's own packages (``rooflinekit``, ``roofline_grading``) masked wherever they are
  installed there, and ``/grading``: the recorder and this notebook's session file (its
  questions and inputs, never an answer);
- writable: a small in-memory home (its working directory) and ``/tmp``, both gone when it ends;
- its own ``/proc`` (only its own processes), a minimal ``/dev``, no network at all;
- the directory of its connection file, where its Jupyter sockets and event channel live.

So the course directory, the solutions, the gradebook, other students' work, the grader's
home and other processes are not there to be read, and the environment is the few variables
given here. Paths inside are the same as outside, except ``HOME`` and ``/grading``.

>>> argv = command(Layout(python="/usr/bin/python3", prefixes=("/usr",), runtime="/run/r",
...                       recorder="/src/roofline_recorder", session="/run/r/session.json"))
>>> argv[0], "--unshare-all" in argv, argv[-6:]
('bwrap', True, ['-P', '-m', 'roofline_recorder.kernel', '/grading/session.json', '-f', '{connection_file}'])
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roofline_recorder.audit import HIDDEN_PACKAGES

__all__ = [
    "GRADING",
    "HIDDEN_PACKAGES",
    "HOME",
    "Layout",
    "available",
    "command",
    "exposed",
    "own_code",
    "python_executable",
    "python_prefixes",
]

HOME = "/home/student"
"""The kernel's home and working directory inside the sandbox (in memory)."""
GRADING = "/grading"
"""Where the recorder and the session file are, inside the sandbox."""
SYSTEM_DIRECTORIES = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/fonts",
)
UID = 1000
"""The kernel's user id inside the sandbox (the grader's own user id outside)."""


@dataclass(frozen=True)
class Layout:
    """Everything one sandboxed kernel is given, by its path outside the sandbox."""

    python: str
    prefixes: tuple[str, ...]
    """The Python installation and environment (read-only, same path inside)."""
    runtime: str
    """The kernel's connection file, Jupyter sockets and event channel (read-write)."""
    recorder: str
    """The ``roofline_recorder`` package, seen at ``/grading/roofline_recorder``."""
    session: str
    """This notebook's session file, seen at ``/grading/session.json``."""
    masks: tuple[tuple[str, str], ...] = ()
    """(stub, path): a course package installed under a prefix, and what it is replaced with."""
    fontlist: str | None = None
    """matplotlib's font cache, copied in so no kernel spends a second rebuilding it."""
    stub: str | None = None
    """A package whose import fails (:func:`write_stub`), put on the kernel's path under the name of
    each course package: an import of one, however it is asked for, opens it, which the kernel's
    keeper sees (:func:`own_code`)."""
    home_bytes: int = 256 * 2**20
    tmp_bytes: int = 256 * 2**20
    environment: dict[str, str] = field(default_factory=dict)


def layout_from(settings: Mapping[str, Any], *, python: str, runtime: str, session: str) -> Layout:
    """The layout a run's ``settings`` give a sandbox (its Python's prefixes, the recorder, the
    masked course packages, the font cache, the stub), with this sandbox's own ``python``,
    ``runtime`` folder and ``session`` file: a cold kernel's and a warm kernels' template alike.

    >>> layout = layout_from({"prefixes": ["/usr"], "recorder": "/r"}, python="/usr/bin/python3",
    ...                      runtime="/run/k", session="/run/k/session.json")
    >>> layout.prefixes, layout.masks, layout.stub
    (('/usr',), (), None)
    """
    return Layout(
        python=python,
        prefixes=tuple(settings.get("prefixes", python_prefixes())),
        runtime=runtime,
        recorder=str(settings["recorder"]),
        session=session,
        masks=tuple((str(stub), str(path)) for stub, path in settings.get("masks", ())),
        fontlist=settings.get("fontlist"),
        stub=settings.get("stub"),
    )


def python_executable() -> str:
    """This Python, by a path that exists inside the sandbox: its directory resolved (a virtual
    environment reached through a symbolic link is mounted where the link points), its own name
    kept (a venv's ``bin/python`` must be started by that name to find its ``pyvenv.cfg``)."""
    return os.path.join(os.path.realpath(os.path.dirname(sys.executable)), os.path.basename(sys.executable))


def python_prefixes() -> tuple[str, ...]:
    """The directories this Python and its environment live in (resolved, without repeats)."""
    found = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    found += [sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")]
    resolved: list[str] = []
    for path in found:
        real = os.path.realpath(path)
        if not any(real == p or real.startswith(p + os.sep) for p in resolved):
            resolved = [p for p in resolved if not p.startswith(real + os.sep)] + [real]
    return tuple(resolved)


def masks(
    prefixes: Iterable[str], stub: str, names: Iterable[str] = HIDDEN_PACKAGES
) -> tuple[tuple[str, str], ...]:
    """(``stub``, location) for each of ``names`` installed under one of ``prefixes``: a
    package installed there (not as an editable link to the course) is replaced by ``stub``,
    a package whose import says it is not available when grading; and the hooks of editable
    installs, emptied (:func:`editable_hooks`)."""
    found = []
    roots = [os.path.realpath(p) + os.sep for p in prefixes]
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        for location in spec.submodule_search_locations or []:
            real = os.path.realpath(location)
            if any(real.startswith(root) for root in roots):
                found.append((stub, real))
    return tuple(found) + editable_hooks(prefixes)


EDITABLE_HOOKS = ("__editable__*.pth", "_editable_impl_*.pth")
"""The start-up files of editable installs, as setuptools and hatchling (editables) name them."""


def editable_hooks(prefixes: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """(``/dev/null``, hook) for each editable install's start-up file in the environment's
    site-packages under ``prefixes``: an editable install points into a working tree (the course's,
    when the instructor's environment has rooflinekit and the grader editable), which a grading
    kernel must neither import from nor list. Emptied, the hook does nothing, and an import of
    such a package fails as for any package not installed.

    >>> editable_hooks(["/nonexistent"])
    ()
    """
    roots = [os.path.realpath(p) + os.sep for p in prefixes]
    sites = {os.path.realpath(sysconfig.get_path(name)) for name in ("purelib", "platlib")}
    hooks = sorted(
        str(path)
        for site in sites
        if any((site + os.sep).startswith(root) for root in roots)
        for pattern in EDITABLE_HOOKS
        for path in Path(site).glob(pattern)
    )
    return tuple(("/dev/null", hook) for hook in hooks)


def write_stub(directory: Path) -> Path:
    """A package directory whose import fails with a clear message (what masks a course package)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "__init__.py").write_text(
        "raise ImportError('the course packages are not available when grading: answers may use "
        "numpy, math and matplotlib')\n"
    )
    return directory


def command(layout: Layout, run: list[str] | None = None) -> list[str]:
    """The ``bwrap`` command line that starts the grading kernel (``{connection_file}`` is
    filled in by Jupyter), or ``run`` instead of the kernel."""
    argv = [
        "bwrap",
        "--unshare-all",
        "--unshare-user",
        "--uid",
        str(UID),
        "--gid",
        str(UID),
        "--disable-userns",
        "--die-with-parent",
        # The kernel's keeper (roofline_recorder.kernel) is the sandbox's first process: signals the
        # notebook's code sends it are ignored, so it cannot end the sandbox early.
        "--as-pid-1",
        "--new-session",
        "--hostname",
        "grading",
        # The fresh /proc, /dev, /tmp and home first: a course or venv that lives under /tmp is
        # bound on top of the private /tmp below, not hidden by it.
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(layout.tmp_bytes),
        "--tmpfs",
        "/tmp",
        "--size",
        str(layout.home_bytes),
        "--tmpfs",
        HOME,
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    argv += _system(layout)
    if layout.fontlist:
        argv += ["--ro-bind", layout.fontlist, f"{HOME}/.matplotlib/{os.path.basename(layout.fontlist)}"]
    argv += ["--ro-bind", layout.recorder, f"{GRADING}/roofline_recorder"]
    argv += ["--ro-bind", layout.session, f"{GRADING}/session.json"]
    argv += ["--bind", layout.runtime, layout.runtime, "--chdir", HOME, "--clearenv"]
    for name, value in {**environment(layout), **layout.environment}.items():
        argv += ["--setenv", name, value]
    kernel = [layout.python, "-P", "-m", "roofline_recorder.kernel", f"{GRADING}/session.json"]
    return [*argv, "--", *(run or [*kernel, "-f", "{connection_file}"])]


def _system(layout: Layout) -> list[str]:
    """The mounts of the system, of the Python environment (its course packages masked) and of the
    stubs that stand for the course packages on the kernel's path."""
    argv = []
    for path in SYSTEM_DIRECTORIES:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    for path in SYSTEM_FILES:
        argv += ["--ro-bind-try", path, path]
    for prefix in layout.prefixes:
        if not (prefix == "/usr" or prefix.startswith("/usr/")):
            argv += ["--ro-bind", prefix, prefix]
    for stub, path in layout.masks:
        argv += ["--ro-bind", stub, path]
    if layout.stub:
        for name in sorted(HIDDEN_PACKAGES):
            argv += ["--ro-bind", layout.stub, f"{GRADING}/{name}"]
    return argv


def own_code(layout: Layout) -> dict[str, str]:
    """Where, inside the sandbox, a file opened is a course package's, and what the report says of
    it: where a package is masked, and where its stub stands on the kernel's path. Only an import
    of the package opens those files. (The recorder's own files are opened by tracebacks too: an
    import of one of its modules is the audit hook's to report, which knows imports from reads.)

    >>> own_code(Layout("/usr/bin/python3", ("/usr",), "/run/r", "/src/roofline_recorder", "/run/r/s.json",
    ...                 stub="/run/stub"))["/grading/rooflinekit"]
    'imports rooflinekit (not available when grading)'
    """
    masked = [path for stub, path in layout.masks if stub != "/dev/null"]
    names = [*(f"{GRADING}/{name}" for name in HIDDEN_PACKAGES), *masked] if layout.stub else masked
    return {path: f"imports {os.path.basename(path)} (not available when grading)" for path in names}


def environment(layout: Layout) -> dict[str, str]:
    """The kernel's whole environment: nothing of the grader's."""
    bin_directory = os.path.dirname(layout.python)
    return {
        "HOME": HOME,
        "PATH": f"{bin_directory}:/usr/bin:/bin",
        "PYTHONPATH": GRADING,
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLCONFIGDIR": f"{HOME}/.matplotlib",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",  # one core per student: parallel workers share the rest
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def readable(layout: Layout) -> tuple[str, ...]:
    """What the kernel may read, as its audit hook checks it (everything else is not there)."""
    return (
        "/usr",
        *SYSTEM_DIRECTORIES,
        *SYSTEM_FILES,
        *layout.prefixes,
        GRADING,
        "/dev/urandom",
        "/dev/random",
        "/dev/zero",
        "/proc/cpuinfo",
        "/proc/meminfo",
        "/sys/devices/system/cpu",
        "/sys/fs/cgroup",
        layout.runtime,
    )


def exposed(layout: Layout) -> tuple[str, ...]:
    """What the sandbox mounts from the grader's machine at the same path: the Python installation
    and environment and the kernel's runtime directory. Reading there is never reading the
    grader's files, even where they lie inside the course or under ``/tmp``."""
    return (*layout.prefixes, layout.runtime)


def library(layout: Layout) -> tuple[str, ...]:
    """Where the installation's code lives: events caused by it alone are the kernel's own."""
    return ("/usr", *layout.prefixes, GRADING, layout.recorder)


def writable(layout: Layout) -> tuple[str, ...]:
    """Where the kernel may write, as its audit hook checks it."""
    return (HOME, "/tmp", "/dev/null", "/dev/shm", layout.runtime)


def available(bwrap: str = "bwrap") -> str | None:
    """None if bubblewrap runs here; otherwise why not, in one line."""
    if shutil.which(bwrap) is None:
        return "bubblewrap (bwrap) is not installed (Debian and Ubuntu: apt-get install bubblewrap)"
    try:
        done = subprocess.run(
            [bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--ro-bind", "/", "/", "true"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not start ({error})"
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"bubblewrap cannot create its namespaces here ({why}); user namespaces may be disabled"
    return None
