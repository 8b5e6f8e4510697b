"""The nbgrader preprocessor that puts a submitted notebook's structure right before it runs.

:class:`RestoreCells` (sanitizing, in place of nbgrader's ``OverwriteCells``) gives every known
cell its nbgrader metadata back and every locked cell its source (test cells with their hidden
tests; from the release the student worked in, English or a translation), strips ids that
are unknown or duplicated, and puts deleted cells back, as
:func:`roofline_grading.autograde.structure.plan` decides, from the gradebook's copy of each
cell the driver read once. nbgrader's ``OverwriteCells`` would give up on a test cell whose flags
were changed ("Inconsistent checksums"), query the gradebook cell by cell, and not re-insert a
deleted test cell next to a deleted answer cell.
"""

from __future__ import annotations

from typing import Any

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Dict

from roofline_grading.autograde.structure import NotebookStructure, apply_plan, plan
from roofline_grading.i18n import language_of

__all__ = ["RestoreCells"]


class RestoreCells(NbGraderPreprocessor):  # type: ignore[misc]
    """Restore the submitted notebook's nbgrader structure (see the module's docstring)."""

    structures = Dict(help="Notebook name -> NotebookStructure.to_json(), from the gradebook").tag(
        config=True
    )

    def preprocess(self, nb: Any, resources: Any) -> tuple[Any, Any]:
        name = resources["nbgrader"]["notebook"]
        if name not in self.structures:
            raise ValueError(f"RestoreCells has no structure for notebook {name!r}")
        known = NotebookStructure.from_json(self.structures[name]).in_language(language_of(nb.metadata))
        the_plan = plan(nb.cells, known)
        for problem in the_plan.problems:
            self.log.info("RestoreCells: %s", problem)
        apply_plan(nb, the_plan)
        resources["roofline_plan"] = the_plan  # what was put right, for the student's notes
        return nb, resources
