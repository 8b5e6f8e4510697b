"""What the grading kernel is told about a notebook: its questions and the inputs chosen for each.

Each function question is asked at its *public* cases (the same in every run: the exercise's own
figures, a few fixed others, and cases that separate each known mistake) and at *hidden* ones,
drawn from a seed that only the grader knows. The kernel is told the public cases when it starts
(:func:`spec`, written into its session file); the hidden ones never enter the kernel while the
notebook's cells run: after the last cell, the driver hands them to the copy of the kernel each
hidden test left waiting (:mod:`roofline_grading.autograde.hidden`). Neither holds an answer.
:mod:`roofline_grading.autograde.steps.judge_answers` then judges every result with the same cases.

>>> issued = issue("ex5_h100_threshold", seed="2a")
>>> sorted(issued)
['ex5.critical_batch', 'ex5.dense_peak', 'ex5.global_batch', 'ex5.hbm_bandwidth']
>>> dense = issued["ex5.dense_peak"]
>>> spec(dense)["kind"], len(dense.public), len(dense.hidden), len(spec(dense)["cases"])
('function', 2, 5, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roofline_grading.answer_key import EXERCISES
from roofline_grading.questions import FunctionQuestion, Question, hidden_cases, public_cases, rng_for
from roofline_recorder import collect
from roofline_recorder.encode import decode, encode

__all__ = ["Issued", "answered", "issue", "issue_one", "joined", "spec"]


@dataclass(frozen=True)
class Issued:
    """A question and the cases its answer is called at in this run (none for a figure): the
    public ones first, then the hidden ones."""

    question: Question
    public: tuple[tuple[Any, ...], ...]
    hidden: tuple[tuple[Any, ...], ...] = ()

    @property
    def cases(self) -> tuple[tuple[Any, ...], ...]:
        """Every case, public then hidden (the order of the results judged)."""
        return (*self.public, *self.hidden)


def issue(notebook: str, seed: str | None) -> dict[str, Issued]:
    """Each question of ``notebook`` with its cases; ``seed`` None draws fresh hidden ones."""
    return {question.id: issue_one(question, seed) for question in EXERCISES[notebook].questions}


def issue_one(question: Question, seed: str | None) -> Issued:
    """One question with its public cases and the hidden ones ``seed`` draws."""
    if not isinstance(question, FunctionQuestion):
        return Issued(question, ())
    hidden = tuple(hidden_cases(question, rng_for(question, seed)))
    return Issued(question, public_cases(question), hidden)


def spec(issued: Issued, *, hidden: bool = False) -> dict[str, Any]:
    """What the kernel needs to record an answer: the kind, and for a function its public cases
    (``hidden``: its hidden ones instead, for the copy that answers them)."""
    question = issued.question
    if not isinstance(question, FunctionQuestion):
        return {"kind": "figure"}
    return {
        "kind": "function",
        "returns": question.returns,
        "cases": [encode(list(case)) for case in (issued.hidden if hidden else issued.public)],
    }


def joined(public: Any, hidden: Any) -> Any:
    """One function question's record at its public cases and its results at the hidden ones, as
    one payload for :func:`assess` (the public record alone where it holds no results).

    >>> joined({"kind": "function", "results": [{"value": 1.0}]}, {"results": [{"value": 2.0}]})
    {'kind': 'function', 'results': [{'value': 1.0}, {'value': 2.0}]}
    """
    if not isinstance(public, dict) or not isinstance(public.get("results"), list):
        return public
    results = hidden.get("results") if isinstance(hidden, dict) else None
    if not isinstance(results, list):
        return {**public, "hidden_missing": True}
    return {**public, "results": [*public["results"], *results]}


def answered(issued: Issued, answer: Any) -> Any:
    """What the grader judges of ``answer`` when it is at hand (an instructor's own kernel, tests):
    recorded at the public cases as the kernel records it, at the hidden ones as the kernel's copy
    does, each through the record format, and joined."""
    public = decode(encode(collect(spec(issued), answer)))
    if not isinstance(issued.question, FunctionQuestion):
        return public
    hidden = decode(encode(collect(spec(issued, hidden=True), answer)))
    return joined(public, hidden)
