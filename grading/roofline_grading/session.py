"""What the grading kernel is told about a notebook: its questions and the inputs chosen for each.

Before a notebook runs, the driver draws each function question's cases (the fixed ones and
random ones from the student's secret seed) and writes them, with the question's kind, into
the session file the sandboxed kernel reads (:mod:`roofline_recorder.kernel`). The file holds
inputs only, never an answer. After the run, :mod:`roofline_grading.autograde.judging` judges
each record with the same cases.

>>> issued = issue("ex5_h100_threshold", seed="2a")
>>> sorted(issued)
['ex5.critical_batch', 'ex5.dense_peak', 'ex5.global_batch', 'ex5.hbm_bandwidth']
>>> spec(issued["ex5.dense_peak"])["kind"], len(issued["ex5.dense_peak"].cases)
('function', 7)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roofline_grading.answer_key import EXERCISES
from roofline_grading.questions import FunctionQuestion, Question, draw_cases, rng_for
from roofline_recorder.encode import encode

__all__ = ["Issued", "issue", "spec"]


@dataclass(frozen=True)
class Issued:
    """A question and the cases its answer is called at in this run (none for a figure)."""

    question: Question
    cases: tuple[tuple[Any, ...], ...]


def issue(notebook: str, seed: str | None) -> dict[str, Issued]:
    """Each question of ``notebook`` with its cases; ``seed`` None draws fresh random ones."""
    found = {}
    for question in EXERCISES[notebook].questions:
        cases: tuple[tuple[Any, ...], ...] = ()
        if isinstance(question, FunctionQuestion):
            cases = tuple(draw_cases(question, rng_for(question, seed)))
        found[question.id] = Issued(question, cases)
    return found


def spec(issued: Issued) -> dict[str, Any]:
    """What the kernel needs to record an answer: the kind, and for a function its cases."""
    question = issued.question
    if not isinstance(question, FunctionQuestion):
        return {"kind": "figure"}
    return {
        "kind": "function",
        "returns": question.returns,
        "cases": [encode(list(case)) for case in issued.cases],
    }
