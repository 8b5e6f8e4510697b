"""An exercise's notebooks run as their readers run them: the instructor's full marks, the released zero.

The instructor's notebook (``solutions/roofline/<name>.ipynb``) runs in this environment's kernel,
where each hidden test judges its answer on the spot (:mod:`roofline_grading.local`): every graded
test cell must pass. The released notebook runs as a student first opens it, every answer still
``not_answered()``: every graded test cell must fail, or it gives points for nothing.

>>> released(Path("course"), "ex9_memory_hierarchy", "ko").as_posix()
'course/exercises/ko/roofline/ex9_memory_hierarchy.ipynb'
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

from roofline_grading.authoring import Exercise

__all__ = ["channels", "graded_cells", "released", "run_problems", "words"]

TIMEOUT = 300
"""Seconds a cell may take (a hidden test judges its answer at many inputs)."""
SOCKET_PATH_BYTES = 107
"""The longest path a Unix socket may have on Linux."""


def released(course: Path, notebook: str, language: str) -> Path:
    """Where ``make exercises`` releases ``notebook`` in ``language``."""
    folder = course / "exercises" / ("" if language == "en" else language) / "roofline"
    return folder / f"{notebook}.ipynb"


def words(path: Path) -> str:
    """The notebook's Markdown, one space between words."""
    cells = nbformat.read(path, as_version=4).cells
    return " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")


def graded_cells(notebook: Any) -> Iterator[tuple[str, bool]]:
    """Each graded test cell of a run notebook: its grade id, and whether it ran without an error."""
    for cell in notebook.cells:
        grading = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and grading.get("grade"):
            failed = any(output.get("output_type") == "error" for output in cell.get("outputs", []))
            yield grading["grade_id"], not failed


def channels(scratch: str) -> dict[str, str]:
    """How the kernel run in ``scratch`` talks to this process: Unix sockets in that folder when
    their paths fit (no other process can take them, as it can take a free TCP port before the
    kernel binds it), else TCP ports on loopback (a long ``TMPDIR``).

    >>> channels("/tmp/roofline-check-x")
    {'transport': 'ipc', 'ip': '/tmp/roofline-check-x/.kernel'}
    >>> channels("/" + "d" * 100)
    {'transport': 'tcp', 'ip': '127.0.0.1'}
    """
    socket = f"{scratch}/.kernel"
    if len(os.fsencode(f"{socket}-65535")) <= SOCKET_PATH_BYTES:
        return {"transport": "ipc", "ip": socket}
    return {"transport": "tcp", "ip": "127.0.0.1"}


def _run(path: Path) -> Any:
    """The notebook at ``path``, run in a scratch copy of its folder."""
    notebook = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="roofline-check-") as scratch:
        shutil.copy(path, Path(scratch) / path.name)
        client = NotebookClient(
            notebook, timeout=TIMEOUT, allow_errors=True, kernel_name="python3",
            resources={"metadata": {"path": scratch}}, config=Config({"KernelManager": channels(scratch)}),
        )
        client.execute(stderr=subprocess.DEVNULL)  # the kernel's own warnings are not the exercise's
    return notebook


def run_problems(exercise: Exercise, course: Path) -> Iterator[str]:
    """A line for each graded cell of the instructor's notebook that fails, and each of the
    released one that passes with no answer."""
    solution = course / "solutions" / "roofline" / f"{exercise.notebook}.ipynb"
    student = released(course, exercise.notebook, "en")
    if solution.is_file():
        for grade_id, passed in graded_cells(_run(solution)):
            if not passed:
                yield f"the model answers: {grade_id} fails in solutions/roofline/{solution.name}"
    if student.is_file():
        for grade_id, passed in graded_cells(_run(student)):
            if passed:
                yield f"the released notebook: {grade_id} passes with no answer (points for nothing)"
