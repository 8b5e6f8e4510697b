"""Judge a hidden test on the spot, outside grading: what an instructor's own kernel does.

When an instructor runs a solution notebook (in JupyterLab, or ``nbgrader validate``), its
hidden tests call :func:`roofline_recorder.record` with no grading session; the recorder then
calls :func:`check`, which draws fresh hidden cases, records the answer at them and at the public
ones exactly as grading would, and judges it here with the answer key (in the instructor's own
kernel the feedback may show any input).

>>> check("ex5.dense_peak", lambda flops: flops / 2)
>>> check("ex5.dense_peak", lambda flops: flops)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
AssertionError: dense_peak(1.979e+15) returned 1.979e+15, which is not right. This matches using the ...
"""

from __future__ import annotations

from typing import Any

from roofline_grading.answer_key import question
from roofline_grading.judge import judge
from roofline_grading.session import answered, issue_one

__all__ = ["check"]


def check(qid: str, answer: Any) -> None:
    """Raise ``AssertionError`` with the feedback if ``answer`` to question ``qid`` is wrong."""
    __tracebackhide__ = True
    issued = issue_one(question(qid), None)
    verdict = judge(issued.question, issued.cases, answered(issued, answer))
    if verdict is not None:
        raise AssertionError(verdict)
