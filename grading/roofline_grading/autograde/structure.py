"""What a graded notebook must look like, and how a submission differs from it.

A :class:`NotebookStructure` lists the cells nbgrader knows for one notebook (answer cells, test
cells, locked cells), in the order of the released notebook, as the gradebook stores them.
:func:`plan` compares a submitted notebook with it and decides, before anything runs, which cell
plays which part: for each grade id the *last* cell that carries it keeps it (as nbgrader's
``DeduplicateIds`` does), cells with unknown or duplicate ids lose their nbgrader metadata,
known cells get their metadata back, deleted cells are put back, and a test cell moved above a
cell that precedes it in the release (its answer, or a helper it needs) is put back after it, so
that it runs when the release meant it to. :func:`apply_plan` does that to the notebook (the
sanitizing step of grading); the worker reports the plan's problems.

>>> test = SourceCell("t", "code", locked=True, grade=True, solution=False, task=False, points=2.0,
...                   source="assert x == 1", released="assert x == 1")
>>> answer = SourceCell("a", "code", locked=False, grade=False, solution=True, task=False,
...                     points=None, source="x = ...", released="x = ...")
>>> structure = NotebookStructure("ex", (answer, test), kernelspec=None)
>>> cells = [{"cell_type": "code", "source": "x = 1", "metadata": {"nbgrader": answer.metadata()}}]
>>> p = plan(cells, structure)
>>> p.missing, p.problems
(('t',), ("test cell 't' was deleted (put back)",))
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

__all__ = ["NotebookStructure", "Plan", "SourceCell", "apply_plan", "plan"]


@dataclass(frozen=True)
class SourceCell:
    """One cell nbgrader knows: its grade id, type, role flags, points, the source nbgrader
    restores (with hidden tests) and the source students received."""

    grade_id: str
    cell_type: str
    locked: bool
    grade: bool
    solution: bool
    task: bool
    points: float | None
    source: str
    released: str
    checksum: str | None = None
    """nbgrader's checksum of the cell as released (what ``nbgrader validate`` compares)."""
    translations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Language -> ``source``, ``released`` and ``checksum`` of this cell in that language's
    release (the same grade id, role and points; only the words differ)."""

    @property
    def role(self) -> str:
        """``answer cell``, ``test cell``, ``task cell`` or ``locked cell`` (for messages)."""
        if self.solution:
            return "answer cell"
        if self.grade:
            return "test cell"
        if self.task:
            return "task cell"
        return "locked cell"

    def metadata(self) -> dict[str, Any]:
        """The nbgrader metadata this cell must carry."""
        meta: dict[str, Any] = {
            "grade": self.grade,
            "grade_id": self.grade_id,
            "locked": self.locked,
            "schema_version": 3,
            "solution": self.solution,
            "task": self.task,
        }
        if self.points is not None and (self.grade or self.task):
            meta["points"] = self.points
        if self.checksum is not None:
            meta["checksum"] = self.checksum
        return meta


@dataclass(frozen=True)
class NotebookStructure:
    """The cells nbgrader knows for one notebook, in the released order."""

    name: str
    cells: tuple[SourceCell, ...]
    kernelspec: dict[str, Any] | None

    def cell(self, grade_id: str) -> SourceCell:
        return next(c for c in self.cells if c.grade_id == grade_id)

    def in_language(self, language: str) -> NotebookStructure:
        """The notebook as released in ``language``: each cell with its translated source where it
        has one (a Korean submission is restored from the Korean release, and judged the same)."""
        cells = tuple(
            replace(c, **dict(c.translations[language]), translations={}) if language in c.translations else c
            for c in self.cells
        )
        return replace(self, cells=cells)

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(c.grade_id for c in self.cells)

    def to_json(self) -> dict[str, Any]:
        """Plain data (for nbgrader's configuration and for worker processes)."""
        return {"name": self.name, "cells": [asdict(c) for c in self.cells], "kernelspec": self.kernelspec}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> NotebookStructure:
        return cls(str(data["name"]), tuple(SourceCell(**c) for c in data["cells"]), data["kernelspec"])


@dataclass(frozen=True)
class Plan:
    """What sanitizing does to one submitted notebook (indices refer to the submitted cells)."""

    kept: Mapping[int, str]
    """Cell index -> the grade id that cell keeps."""
    stripped: tuple[int, ...]
    """Cells whose nbgrader metadata is dropped (unknown or duplicate ids)."""
    missing: tuple[str, ...]
    """Grade ids no cell carries: those cells are put back."""
    problems: tuple[str, ...] = field(default=())
    """What differs from the released notebook, one short sentence each."""
    structure: NotebookStructure | None = None
    moved: tuple[str, ...] = field(default=())
    """Grade ids of test cells moved above a cell that precedes them in the release (put back)."""
    changed: tuple[tuple[str, str], ...] = field(default=())
    """(grade id, ``"edited"`` or ``"role"``): known cells whose source, type, flags or points were
    changed (restored)."""
    ignored: int = 0
    """Cells that claimed an unknown grade id, or one a later cell claims too (their role dropped)."""


def _nbgrader_meta(cell: Mapping[str, Any]) -> Any:
    metadata = cell.get("metadata")
    return metadata.get("nbgrader") if isinstance(metadata, Mapping) else None


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def plan(cells: Sequence[Mapping[str, Any]], structure: NotebookStructure) -> Plan:
    """Decide which submitted cell plays which known cell, and what was changed."""
    problems: list[str] = []
    claims: dict[str, list[int]] = {}
    stripped: list[int] = []
    ignored = 0
    for index, cell in enumerate(cells):
        metadata = cell.get("metadata")
        if not isinstance(metadata, Mapping) or "nbgrader" not in metadata:
            continue
        meta = metadata["nbgrader"]
        if not meta:  # an empty entry (nbgrader leaves them too): dropped without a word
            stripped.append(index)
            continue
        grade_id = meta.get("grade_id") if isinstance(meta, Mapping) else None
        if not isinstance(grade_id, str) or grade_id not in structure.ids:
            stripped.append(index)
            ignored += 1
            shown = repr(grade_id) if isinstance(grade_id, str) else "none"
            problems.append(
                f"cell {index + 1} carries nbgrader metadata for an unknown part ({shown}; ignored)"
            )
            continue
        claims.setdefault(grade_id, []).append(index)
    kept: dict[int, str] = {}
    for grade_id, indices in claims.items():
        *earlier, last = indices
        kept[last] = grade_id
        stripped += earlier
        ignored += len(earlier)
        if earlier:
            problems.append(
                f"{len(indices)} cells carry the id of {structure.cell(grade_id).role} {grade_id!r} "
                "(only the last one keeps it)"
            )
    changed: list[tuple[str, str]] = []
    for index, grade_id in sorted(kept.items()):
        for kind, said in _differences(cells[index], structure.cell(grade_id)):
            problems.append(said)
            changed.append((grade_id, kind))
    missing = tuple(c.grade_id for c in structure.cells if c.grade_id not in claims)
    for grade_id in missing:
        known = structure.cell(grade_id)
        what = "put back, empty" if known.solution else "put back"
        problems.append(f"{known.role} {grade_id!r} was deleted ({what})")
    moved = _moved_tests(kept, structure)
    for grade_id, above in moved:
        role = structure.cell(above).role
        problems.append(f"test cell {grade_id!r} was moved above {role} {above!r} (put back after it)")
    return Plan(
        kept,
        tuple(sorted(stripped)),
        missing,
        tuple(problems),
        structure,
        tuple(g for g, _ in moved),
        tuple(dict.fromkeys(changed)),
        ignored,
    )


def _moved_tests(kept: Mapping[int, str], structure: NotebookStructure) -> list[tuple[str, str]]:
    """Each test cell that sits above a known cell the release puts before it, with the last such
    cell."""
    position = {grade_id: index for index, grade_id in kept.items()}
    moved = []
    for order, known in enumerate(structure.cells):
        if not known.grade or known.solution or known.grade_id not in position:
            continue
        later = [
            c.grade_id
            for c in structure.cells[:order]
            if position.get(c.grade_id, -1) > position[known.grade_id]
        ]
        if later:
            moved.append((known.grade_id, max(later, key=lambda g: position[g])))
    return moved


def _differences(cell: Mapping[str, Any], known: SourceCell) -> list[tuple[str, str]]:
    """What differs between a submitted cell and the known one: (``"edited"`` or ``"role"``, the
    report's words) each."""
    found = []
    meta = _nbgrader_meta(cell)
    if cell.get("cell_type") != known.cell_type:
        said = f"{known.role} {known.grade_id!r} was turned into a {cell.get('cell_type')} cell (restored)"
        found.append(("edited", said))
    flags = {name: bool(meta.get(name, False)) for name in ("grade", "solution", "locked", "task")}
    expected = {"grade": known.grade, "solution": known.solution, "locked": known.locked, "task": known.task}
    changed = sorted(name for name in flags if flags[name] != expected[name])
    if changed:
        said = (
            f"{known.role} {known.grade_id!r} had its nbgrader flags changed ({', '.join(changed)}; restored)"
        )
        found.append(("role", said))
    if known.grade or known.task:
        points = meta.get("points")
        try:
            same = points is not None and float(points) == known.points
        except (TypeError, ValueError):
            same = False
        if not same:
            found.append(
                ("role", f"{known.role} {known.grade_id!r} had its points changed to {points!r} (restored)")
            )
    if known.locked and cell.get("cell_type") == known.cell_type and _source(cell) != known.released:
        found.append(("edited", f"{known.role} {known.grade_id!r} was edited (restored)"))
    return found


def apply_plan(nb: Any, the_plan: Plan) -> None:
    """Sanitize the notebook ``nb`` (an ``nbformat.NotebookNode``) as ``the_plan`` says: strip,
    restore the known cells' type and metadata, the locked cells' source (test cells with their
    hidden tests; what nbgrader's ``OverwriteCells`` does, without a query per cell), and put
    deleted cells back after the nearest known cell that precedes them in the released notebook."""
    structure = the_plan.structure
    assert structure is not None
    for index in the_plan.stripped:
        del nb.cells[index].metadata["nbgrader"]
    for index, grade_id in the_plan.kept.items():
        known = structure.cell(grade_id)
        cell = nb.cells[index]
        _set_type(cell, known.cell_type)
        cell.metadata["nbgrader"] = _node(known.metadata())
        if known.locked:
            cell.source = known.source
    position = {grade_id: index for index, grade_id in the_plan.kept.items()}
    cells = list(nb.cells)
    anchors: dict[str, Any] = {grade_id: cells[index] for grade_id, index in position.items()}
    previous: Any = None
    for known in structure.cells:
        if known.grade_id in the_plan.missing:
            restored = _new_cell(known)
            at = 0 if previous is None else cells.index(previous) + 1
            cells.insert(at, restored)
            anchors[known.grade_id] = restored
        previous = anchors[known.grade_id]
    for order, known in enumerate(structure.cells):  # moved test cells back, in the release's order
        if known.grade_id in the_plan.moved:
            test = anchors[known.grade_id]
            cells.remove(test)
            before = [
                cells.index(anchors[c.grade_id]) for c in structure.cells[:order] if c.grade_id in anchors
            ]
            cells.insert(max(before) + 1, test)
    nb.cells = cells


def _node(data: Any) -> Any:
    from nbformat import from_dict

    return from_dict(data)


def _set_type(cell: Any, cell_type: str) -> None:
    if cell.cell_type == cell_type:
        return
    cell.cell_type = cell_type
    if cell_type == "code":
        cell.outputs = []
        cell.execution_count = None
    else:
        cell.pop("outputs", None)
        cell.pop("execution_count", None)


def _new_cell(known: SourceCell) -> Any:
    from nbformat.v4 import new_code_cell, new_markdown_cell

    make = new_code_cell if known.cell_type == "code" else new_markdown_cell
    cell = make(source=known.source if known.locked else known.released)
    cell.id = f"restored-{uuid.uuid4().hex[:16]}"
    cell.metadata["nbgrader"] = _node(known.metadata())
    return cell
