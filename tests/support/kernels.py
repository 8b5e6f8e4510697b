"""Run a notebook in a Python kernel whose channels are Unix sockets, not TCP ports.

jupyter_client picks five TCP ports that are free when it looks and hands them to the kernel it
starts; on a machine where other tests start kernels, servers and browsers at the same moment,
one of them can be taken before the kernel binds it, and the kernel dies ("Address already in
use"). Sockets in a folder of the test's own cannot be taken. The folder is under ``/tmp``, so
that every socket's path stays within the 107 bytes Linux allows, whatever ``TMPDIR`` is.

>>> import nbformat
>>> notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
>>> execute(notebook).cells[0].outputs[0]["text"]
'42\\n'
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

__all__ = ["execute"]


def execute(
    notebook: nbformat.NotebookNode,
    *,
    cwd: Path | None = None,
    timeout: int = 120,
    allow_errors: bool = False,
    kernel_name: str = "python3",
) -> nbformat.NotebookNode:
    """Run every cell of ``notebook`` in place (in ``cwd``, else the current folder), as nbclient
    does, with the kernel's channels on Unix sockets; returns the notebook. An error in a cell
    raises nbclient's ``CellExecutionError`` unless ``allow_errors``."""
    with tempfile.TemporaryDirectory(prefix="nb-", dir="/tmp") as sockets:
        channels = {"transport": "ipc", "ip": os.path.join(sockets, "kernel")}
        NotebookClient(
            notebook,
            timeout=timeout,
            allow_errors=allow_errors,
            kernel_name=kernel_name,
            resources={"metadata": {"path": str(cwd or Path.cwd())}},
            config=Config({"KernelManager": channels}),
        ).execute()
    return notebook
