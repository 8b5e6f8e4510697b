"""The grading kernel: an IPython kernel that confines itself before it runs student code.

The grading driver runs every submitted notebook in this kernel (kernelspec
``rooflinekit-sandbox``, written by :func:`write_kernelspec`). Before the kernel starts, it

- imports numpy and the grading helpers, so the hidden tests use copies loaded before any
  student code ran;
- applies resource limits (memory, file size);
- confines itself with Landlock (:mod:`rooflinekit.autograde.sandbox`): it may read Python,
  the installed packages and system files, and write only its own run directory (its working
  directory, which holds nothing else); it cannot read the course (solutions, gradebook, other
  submissions), open a TCP connection or signal the grader;
- keeps its working directory off ``sys.path``, so a file the notebook writes cannot shadow
  a module;
- ignores warnings, which would otherwise reach stderr and cost a right answer its points;
- writes its own log messages to ``.kernel.log`` in the run directory, not to the console.

What to allow comes from the environment the driver gives the kernel:
``ROOFLINEKIT_SANDBOX`` (``landlock`` or ``off``), ``ROOFLINEKIT_SANDBOX_READ`` (extra readable
paths, separated by ``os.pathsep``) and ``ROOFLINEKIT_SANDBOX_MEMORY`` (bytes).

>>> spec = kernelspec()
>>> spec["argv"][1:4], spec["language"]
(['-P', '-m', 'rooflinekit.autograde.kernel'], 'python')
"""

from __future__ import annotations

import json
import os
import site
import sys
import sysconfig
import warnings
from pathlib import Path
from typing import Any

from rooflinekit.autograde import sandbox

__all__ = ["KERNEL_NAME", "kernelspec", "main", "readable_paths", "write_kernelspec"]

KERNEL_NAME = "rooflinekit-sandbox"
MODE = "ROOFLINEKIT_SANDBOX"
READ = "ROOFLINEKIT_SANDBOX_READ"
MEMORY = "ROOFLINEKIT_SANDBOX_MEMORY"
PROTECT = "ROOFLINEKIT_SANDBOX_PROTECT"
SYSTEM_PATHS = (
    "/usr",
    "/lib",
    "/lib64",
    "/bin",
    "/etc",
    "/proc",
    "/sys/devices/system/cpu",
    "/dev/null",
    "/dev/zero",
    "/dev/urandom",
    "/dev/random",
)


def kernelspec() -> dict[str, Any]:
    """The kernelspec: this interpreter, ``-P`` (no working directory on ``sys.path``), this module."""
    return {
        "argv": [
            sys.executable,
            "-P",
            "-m",
            "rooflinekit.autograde.kernel",
            "-f",
            "{connection_file}",
            "--HistoryManager.hist_file=:memory:",
        ],
        "display_name": "rooflinekit grading (sandboxed)",
        "language": "python",
        "metadata": {"debugger": False},
    }


def write_kernelspec(data_dir: Path) -> Path:
    """Write the kernelspec under ``data_dir`` (put ``data_dir`` on ``JUPYTER_PATH``)."""
    directory = data_dir / "kernels" / KERNEL_NAME
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "kernel.json").write_text(json.dumps(kernelspec(), indent=1))
    return directory


def readable_paths(extra: list[str], protect: list[str] | None = None) -> list[str]:
    """What a grading kernel may read: system directories, this Python and its packages, the
    directory rooflinekit is loaded from, and ``extra``; never a directory that holds one of
    ``protect`` (default: ``$ROOFLINEKIT_SANDBOX_PROTECT``, the course), since Landlock cannot
    take back part of a directory it allows (a ``PYTHONPATH`` of the course would open it all)."""
    import rooflinekit

    if protect is None:
        protect = [p for p in os.environ.get(PROTECT, "").split(os.pathsep) if p]
    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    paths += [sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")]
    paths += site.getsitepackages()
    paths.append(str(Path(rooflinekit.__file__).resolve().parent))
    paths += [p for p in sys.path if p and Path(p).is_dir() and Path(p).resolve() != Path.cwd().resolve()]
    guarded = [Path(p).resolve() for p in protect]
    allowed = [p for p in dict.fromkeys([*SYSTEM_PATHS, *paths, *extra]) if not _holds(Path(p), guarded)]
    return allowed


def _holds(path: Path, guarded: list[Path]) -> bool:
    resolved = path.resolve()
    return any(g == resolved or resolved in g.parents for g in guarded)


def main(argv: list[str] | None = None) -> None:
    """Confine this process as the environment says, then run an IPython kernel."""
    argv = sys.argv[1:] if argv is None else argv
    run_dir = Path.cwd()
    tmp = run_dir / ".tmp"
    tmp.mkdir(exist_ok=True)
    # The kernel's own messages (not the cells' output, which ipykernel captures itself) go to a
    # log beside it rather than to the grader's console.
    log = os.open(run_dir / ".kernel.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 2)
    os.close(log)
    os.environ["TMPDIR"] = str(tmp)
    os.environ["IPYTHONDIR"] = str(run_dir / ".ipython")

    import numpy  # noqa: F401  (loaded before any student code runs)

    import rooflinekit.answer_key
    import rooflinekit.grading  # noqa: F401

    memory = os.environ.get(MEMORY)
    sandbox.apply_limits(sandbox.Limits(memory_bytes=int(memory) if memory else None))
    mode = os.environ.get(MODE, "landlock")
    if mode == "landlock":
        extra = [p for p in os.environ.get(READ, "").split(os.pathsep) if p]
        connection = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "-f"]
        ports = [
            int(v)
            for f in connection
            for k, v in json.loads(Path(f).read_text()).items()
            if k.endswith("_port")
        ]
        sandbox.confine(read=readable_paths(extra) + connection, write=[str(run_dir)], bind_ports=ports)
    elif mode != "off":
        raise SystemExit(f"{MODE} should be 'landlock' or 'off', not {mode!r}")

    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance()
    app.initialize(argv)
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and Path(p).resolve() != run_dir.resolve()]
    warnings.simplefilter("ignore")
    app.start()


if __name__ == "__main__":
    main()
