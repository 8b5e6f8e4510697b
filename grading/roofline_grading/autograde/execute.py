"""nbgrader's ``Execute``, with the notebook run in the sandbox and its output kept small.

:class:`SandboxedExecute` takes the place of nbgrader's ``Execute`` in the autograde steps.
For each notebook it

1. takes the notebook's sandboxed kernel from :mod:`roofline_grading.autograde.kernels`
   (started while nbgrader worked on the previous notebook): in the bubblewrap sandbox, in a
   group with memory and process limits for its whole process tree, talking over Unix sockets,
   with the inputs each question is asked at (drawn from the student's secret seed) in its
   session file;
2. runs the cells with a time limit per cell and per notebook; a kernel that dies or cannot be
   interrupted costs the cell it was running and the ones after, nothing before;
3. keeps at most ``cell_chars`` characters of output per cell and ``notebook_chars`` per
   notebook (records of answers aside), with a note where output was cut;
4. when the notebook is done, kills whatever the kernel left running and writes what happened
   (limits hit, output cut, the audit events) to ``grading.json`` beside the run, for the
   worker's report, and the issued cases to the resources, for :class:`JudgeAnswers`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Dict, Integer, List, Unicode

from roofline_grading.autograde import kernels
from roofline_grading.autograde.events import clauses, describe_cells
from roofline_recorder import MIMETYPE

__all__ = ["KERNEL_DIED", "NOT_RUN", "OUTPUT_CUT", "REPORT", "SandboxedExecute"]

KERNEL_DIED = "KernelDied"
"""``ename`` of the error added to the cell the kernel died in (or could not be interrupted in)."""
NOT_RUN = "NotRun"
"""``ename`` of the error added to code cells that did not run."""
OUTPUT_CUT = "[output cut: {} more than {:,} characters]"
REPORT = "grading.json"
"""What happened while a notebook ran, written beside its run for the worker."""
RECORD_CHARS = 20_000_000
"""Characters of answer records kept per notebook (far more than the five exercises need)."""
ERROR_CHARS = 2_000
"""Characters kept of an error's message and of each line of its traceback."""


class SandboxedExecute(Execute):  # type: ignore[misc]
    """nbgrader's ``Execute`` in the sandbox, with limits (see the module's docstring)."""

    run_root = Unicode("", help="Each notebook runs in <run_root>/<notebook>, created empty").tag(config=True)
    notebook_budget = Integer(0, help="Seconds the whole notebook may run (0: no limit)").tag(config=True)
    seeds = Dict(help="Notebook name -> seed of its random inputs").tag(config=True)
    sandbox = Dict(help="How to confine the kernel (see roofline_grading.autograde.worker.Settings)").tag(
        config=True
    )
    upcoming = List(
        Unicode(), help="The notebooks to grade, in order: the next one's kernel starts early"
    ).tag(config=True)
    cell_chars = Integer(100_000, help="Characters of output kept per cell").tag(config=True)
    notebook_chars = Integer(1_000_000, help="Characters of output kept per notebook").tag(config=True)

    def preprocess(self, nb: Any, resources: Any = None, km: Any = None) -> tuple[Any, Any]:
        name = resources.get("nbgrader", {}).get("notebook", "notebook")
        run_root = Path(self.run_root or "/tmp")
        self._kernel = kernels.take(name, list(self.upcoming), dict(self.sandbox), dict(self.seeds), run_root)
        resources["roofline_issued"] = self._kernel.issued
        self._deadline = time.monotonic() + self.notebook_budget if self.notebook_budget else None
        self._running = 0
        self._cut: set[int] = set()
        self._sizes: dict[int, int] = {}
        self._total = 0
        self._record_total = 0
        events: list[str] = []
        try:
            try:
                super().preprocess(nb, resources, km)
            except (DeadKernelError, CellTimeoutError) as error:
                self._lost(nb, error)
        finally:
            events += self._kernel.group.close()
            audit = self._kernel.channel.close()
        events += (
            [f"output cut in {len(self._cut)} cell{'s' if len(self._cut) > 1 else ''}"] if self._cut else []
        )
        report = {
            "limits": events,
            "attempts": clauses(audit, describe_cells(nb.cells)),
            "sandbox": self.sandbox.get("mode", "bwrap"),
            "group": self._kernel.group.kind,
        }
        (self._kernel.run / REPORT).write_text(json.dumps(report))
        return nb, resources

    def create_kernel_manager(self) -> Any:
        self.km = self._kernel.km  # already started (see roofline_grading.autograde.kernels)
        return self.km

    # --- Running cells ---------------------------------------------------------------------

    def preprocess_cell(self, cell: Any, resources: Any, index: int) -> tuple[Any, Any]:
        self._running = index
        if self._deadline is not None and time.monotonic() > self._deadline:
            if cell.cell_type == "code":
                cell.outputs = [
                    _error(NOT_RUN, f"not run: the notebook used up its {self.notebook_budget} s")
                ]
            return cell, resources
        return super().preprocess_cell(cell, resources, index)  # type: ignore[no-any-return]

    def output(self, outs: list[Any], msg: dict[str, Any], display_id: str | None, cell_index: int) -> Any:
        """Keep the output unless its cell or the notebook has had its share (an error is always
        kept, shortened: it decides the cell's score)."""
        content = msg.get("content") or {}
        size = _size(content)
        if MIMETYPE in (content.get("data") or {}) and self._record_total + size <= RECORD_CHARS:
            self._record_total += size
            return super().output(outs, msg, display_id, cell_index)
        if msg.get("msg_type") == "error":
            content["evalue"] = str(content.get("evalue", ""))[:ERROR_CHARS]
            content["traceback"] = [str(line)[:ERROR_CHARS] for line in content.get("traceback", [])[-20:]]
            return super().output(outs, msg, display_id, cell_index)
        used = self._sizes.get(cell_index, 0) + size
        if used > self.cell_chars or self._total + size > self.notebook_chars:
            if cell_index not in self._cut:
                self._cut.add(cell_index)
                over_cell = used > self.cell_chars
                where = "this cell printed" if over_cell else "the notebook printed"
                limit = self.cell_chars if over_cell else self.notebook_chars
                outs.append(new_output("stream", name="stdout", text=OUTPUT_CUT.format(where, limit) + "\n"))
            return None
        self._sizes[cell_index] = used
        self._total += size
        return super().output(outs, msg, display_id, cell_index)

    def _lost(self, nb: Any, error: Exception) -> None:
        why = (
            "the kernel died while running this cell"
            if isinstance(error, DeadKernelError)
            else "this cell ran past the time limit and the kernel could not be interrupted"
        )
        self.log.warning("%s (cell %d)", why, self._running + 1)
        cell = nb.cells[self._running]
        if cell.cell_type == "code":
            cell.outputs.append(_error(KERNEL_DIED, why))
        for later in nb.cells[self._running + 1 :]:
            if later.cell_type == "code":
                later.outputs = [_error(NOT_RUN, "not run: the kernel was lost in an earlier cell")]


def _size(value: Any, depth: int = 0) -> int:
    """Characters in a message's content (strings counted, structure ignored)."""
    if isinstance(value, str):
        return len(value)
    if depth > 6:
        return 0
    if isinstance(value, dict):
        return sum(_size(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return sum(_size(v, depth + 1) for v in value)
    return 0


def _error(name: str, value: str) -> Any:
    return new_output("error", ename=name, evalue=value, traceback=[f"{name}: {value}"])
