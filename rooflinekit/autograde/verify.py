"""Judge the answers of passed tests again, outside the student's kernel.

For each test cell that scored in the kernel, the hidden test's source (the instructor's copy,
from the gradebook) says which checks it runs, e.g. ``assert_function(bytes_read,
EX1.bytes_read)``. Each passing check left a record of the plain values it judged
(:mod:`rooflinekit.records`); here the same ``check_*`` of :mod:`rooflinekit.grading` runs on
those values with this process's own, untouched answer key, and for functions the sizes must
be exactly the fixed ones plus the random ones drawn with this student's seed. A test whose
check left no record, or whose record does not check out, did not earn its points.

>>> hidden_checks("assert_value(critical_batch, EX1.critical_batch)")
[('value', 'EX1', 'critical_batch')]
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from rooflinekit import answer_key, grading, records
from rooflinekit.autograde.structure import NotebookStructure

__all__ = ["CHECKS", "hidden_checks", "verify_notebook", "verify_records"]

CHECKS = {
    "assert_value": "value",
    "assert_function": "function",
    "assert_choice": "choice",
    "assert_curves": "curves",
    "assert_curve_labels": "curve_labels",
    "assert_axis_labels": "axis_labels",
}
"""The grading helpers a hidden test may call, and the kind of record each leaves."""
_HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.DOTALL)


def hidden_checks(source: str) -> list[tuple[str, str, str]]:
    """``(kind, exercise, question)`` of each check the hidden part of a test cell calls."""
    regions = _HIDDEN.findall(source) or [source]
    found = []
    for region in regions:
        try:
            tree = ast.parse(region)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in CHECKS
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Attribute)
                and isinstance(node.args[1].value, ast.Name)
            ):
                found.append((CHECKS[node.func.id], node.args[1].value.id, node.args[1].attr))
    return found


def verify_notebook(
    nb: Any, structure: NotebookStructure, scores: Mapping[str, float | None], seed: str | None
) -> dict[str, str]:
    """Grade id -> why, for each test cell that scored in the kernel but does not check out here."""
    failed = {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if cell.cell_type != "code" or grade_id not in structure.ids or not scores.get(grade_id):
            continue
        known = structure.cell(grade_id)
        if not known.grade or known.solution:
            continue
        found = [
            output["data"][records.MIMETYPE]
            for output in cell.get("outputs", [])
            if output.get("output_type") == "display_data" and records.MIMETYPE in output.get("data", {})
        ]
        why = verify_records(hidden_checks(known.source), found, seed)
        if why:
            failed[grade_id] = why
    return failed


def verify_records(checks: list[tuple[str, str, str]], found: list[Any], seed: str | None) -> str | None:
    """None if every check has a record and every record of it checks out; otherwise why not."""
    for kind, exercise, name in checks:
        question = getattr(getattr(answer_key, exercise, None), name, None)
        if question is None:
            continue  # not a question of this course's answer key: nothing to judge it by
        mine = [
            r
            for r in found
            if isinstance(r, dict) and r.get("kind") == kind and r.get("question") == question.name
        ]
        if not mine:
            return f"{exercise}.{name} passed in the kernel but left no record of its check"
        for record in mine:
            try:
                _check(kind, question, records.decode(record.get("fields")), seed)
            except (grading.AnswerError, records.RecordError, KeyError, TypeError, ValueError) as error:
                message = " ".join(str(error).split()).split(". ")[0].rstrip(".")
                return f"{exercise}.{name} passed in the kernel, but not when checked outside it ({message})"
    return None


def _check(kind: str, question: Any, fields: dict[str, Any], seed: str | None) -> None:
    if kind == "value":
        grading.check_value(fields["answer"], question)
    elif kind == "choice":
        grading.check_choice(fields["answer"], question)
    elif kind == "function":
        cases = grading.function_cases(question, records.grading_rng(question.name, seed) if seed else None)
        recorded = fields["cases"]
        if seed is None:
            cases = cases[: len(question.cases)] + [tuple(c) for c in recorded[len(question.cases) :]]
        if len(recorded) != len(cases) or not all(
            _same_case(a, b) for a, b in zip(recorded, cases, strict=True)
        ):
            raise ValueError("its record holds other sizes than the ones drawn for this student")
        results = fields["results"]
        if not all(isinstance(r, np.ndarray) and r.dtype == np.float64 for r in results):
            raise ValueError("its record holds results that are not float64 arrays")
        grading.check_function(question, cases, results)
    elif kind in ("curves", "curve_labels", "axis_labels"):
        data = grading.FigureData.from_fields(fields)
        {"curves": grading.check_curves, "curve_labels": grading.check_curve_labels}.get(
            kind, grading.check_axis_labels
        )(data, question)
    else:
        raise ValueError(f"unknown kind of check {kind!r}")


def _same_case(recorded: Any, drawn: tuple[Any, ...]) -> bool:
    if not isinstance(recorded, list) or len(recorded) != len(drawn):
        return False
    return all(_same(a, b) for a, b in zip(recorded, drawn, strict=True))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype.kind == np.asarray(b).dtype.kind
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    plain_b = int(b) if isinstance(b, np.integer) else float(b) if isinstance(b, np.floating) else b
    return type(a) is type(plain_b) and a == plain_b
