"""Two nbgrader preprocessors the grading driver puts into nbgrader's autograde steps.

- :class:`RestoreCells` (sanitizing, before nbgrader's own ``OverwriteCells``): gives every
  known cell its nbgrader metadata back, strips ids that are unknown or duplicated, and puts
  deleted cells back, as :func:`rooflinekit.autograde.structure.plan` decides. nbgrader alone
  would give up on a test cell whose flags were changed ("Inconsistent checksums") and would
  not re-insert a deleted test cell next to a deleted answer cell.
- :class:`SandboxedExecute` (nbgrader's ``Execute``): runs the kernel in a fresh run directory
  (so the kernel's working directory holds nothing but what it writes) with the notebook's seed
  for random sizes in its environment, stops running cells
  once the notebook's time budget is spent, and when the kernel dies or cannot be interrupted,
  marks the cell it was running and every later code cell with an error, so that the parts
  graded before keep their scores and the rest score 0, instead of nbgrader dropping the
  whole notebook.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from traitlets import Dict, Integer, Unicode

from rooflinekit import records
from rooflinekit.autograde.structure import NotebookStructure, apply_plan, plan

__all__ = ["KERNEL_DIED", "NOT_RUN", "RestoreCells", "SandboxedExecute"]

KERNEL_DIED = "KernelDied"
"""``ename`` of the error added to the cell the kernel died in (or could not be interrupted in)."""
NOT_RUN = "NotRun"
"""``ename`` of the error added to code cells that did not run."""


class RestoreCells(NbGraderPreprocessor):  # type: ignore[misc]
    """Restore the submitted notebook's nbgrader structure (see the module's docstring)."""

    structures = Dict(help="Notebook name -> NotebookStructure.to_json(), from the gradebook").tag(
        config=True
    )

    def preprocess(self, nb: Any, resources: Any) -> tuple[Any, Any]:
        name = resources["nbgrader"]["notebook"]
        if name not in self.structures:
            raise ValueError(f"RestoreCells has no structure for notebook {name!r}")
        known = NotebookStructure.from_json(self.structures[name])
        the_plan = plan(nb.cells, known)
        for problem in the_plan.problems:
            self.log.info("RestoreCells: %s", problem)
        apply_plan(nb, the_plan)
        return nb, resources


class SandboxedExecute(Execute):  # type: ignore[misc]
    """nbgrader's ``Execute`` with a fresh run directory, a time budget and kernel deaths handled."""

    run_root = Unicode("", help="The kernel runs in <run_root>/<notebook>, created empty").tag(config=True)
    notebook_budget = Integer(0, help="Seconds the whole notebook may run (0: no limit)").tag(config=True)
    seeds = Dict(help="Notebook name -> seed of its random sizes, given to the kernel").tag(config=True)

    def preprocess(self, nb: Any, resources: Any = None, km: Any = None) -> tuple[Any, Any]:
        name = resources.get("nbgrader", {}).get("notebook", "notebook")
        if self.run_root:
            run_directory = Path(self.run_root) / name
            run_directory.mkdir(parents=True, exist_ok=True)
            resources.setdefault("metadata", {})["path"] = str(run_directory)
        if name in self.seeds:
            os.environ[records.SEED] = self.seeds[name]  # the kernel starts with this environment
        self._deadline = time.monotonic() + self.notebook_budget if self.notebook_budget else None
        self._running = 0
        try:
            return super().preprocess(nb, resources, km)  # type: ignore[no-any-return]
        except (DeadKernelError, CellTimeoutError) as error:
            why = (
                "the kernel died while running this cell"
                if isinstance(error, DeadKernelError)
                else "this cell ran past the time limit and the kernel could not be interrupted"
            )
            self.log.warning("%s (cell %d)", why, self._running + 1)
            cell = nb.cells[self._running]
            if cell.cell_type == "code":
                cell.outputs.append(_error(KERNEL_DIED, why))
            self._skip(nb, self._running + 1, "not run: the kernel was lost in an earlier cell")
            return nb, resources

    def preprocess_cell(self, cell: Any, resources: Any, index: int) -> tuple[Any, Any]:
        self._running = index
        if self._deadline is not None and time.monotonic() > self._deadline:
            if cell.cell_type == "code":
                cell.outputs = [
                    _error(NOT_RUN, f"not run: the notebook used up its {self.notebook_budget} s")
                ]
            return cell, resources
        return super().preprocess_cell(cell, resources, index)  # type: ignore[no-any-return]

    def _skip(self, nb: Any, start: int, why: str) -> None:
        for cell in nb.cells[start:]:
            if cell.cell_type == "code":
                cell.outputs = [_error(NOT_RUN, why)]


def _error(name: str, value: str) -> Any:
    return new_output("error", ename=name, evalue=value, traceback=[f"{name}: {value}"])
