"""Chapter 10, the errata, says what exercise 5's grader accepts, and the grader agrees.

The chapter computes its claim from the answer key (a hidden cell stops the build when the claim no
longer holds). Here the grader itself is asked, as a submission is judged: the recorder calls the
function at the issued public and hidden cases, the record is encoded and decoded, and the judge
decides (:mod:`roofline_grading.session`, :mod:`roofline_grading.judge`). The chapter's sentences
are read with the texts its cells glue, as the site shows them.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jupytext
import matplotlib
import pytest

from roofline_grading import answer_key as key
from roofline_grading.judge import judge
from roofline_grading.questions import FunctionQuestion, Question
from roofline_grading.session import answered, issue_one
from rooflinekit.fmt import Table
from rooflinekit.glue import glued

pytestmark = pytest.mark.xdist_group("errata")  # its module-scoped fixtures, built once: one worker

ROOT = Path(__file__).resolve().parents[2]
ERRATA = ROOT / "book" / "chapters" / "10-errata.md"
GLUED = re.compile(r"\{eval\}`glued\.(\w+)`")

CRITICAL_BATCH = key.question("ex5.critical_batch")
DENSE_PEAK = key.question("ex5.dense_peak")
assert isinstance(CRITICAL_BATCH, FunctionQuestion) and isinstance(DENSE_PEAK, FunctionQuestion)
H100 = CRITICAL_BATCH.cases[0]
"""The exercise's own figures: the datasheet's sparse bf16 figure and its bandwidth in B/s."""


def _run(source: str, namespace: dict[str, Any]) -> Any:
    """Run a code cell; the value of its last line when that is an expression (what the page shows)."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, str(ERRATA), "exec"), namespace)
    return None if last is None else eval(compile(ast.Expression(last.value), str(ERRATA), "eval"), namespace)


@pytest.fixture(scope="module")
def errata() -> Iterator[tuple[str, list[Table]]]:
    """Chapter 10's prose with the glued texts pasted in, one paragraph a line, and the tables it
    shows (the texts it glues are forgotten afterwards, as the chapter's own kernel would)."""
    saved = dict(glued._texts)
    try:
        yield _errata()
    finally:
        glued._texts.clear()
        glued._texts.update(saved)


def _errata() -> tuple[str, list[Table]]:
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    chapter = jupytext.read(ERRATA)
    namespace: dict[str, Any] = {}
    tables = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # plt.show() on a backend that shows nothing
        for cell in chapter.cells:
            if cell.cell_type == "code":
                shown = _run(cell.source, namespace)
                if isinstance(shown, Table):
                    tables.append(shown)
    plt.close("all")
    markdown = [cell.source for cell in chapter.cells if cell.cell_type == "markdown"]
    paragraphs = [" ".join(p.split()) for source in markdown for p in source.split("\n\n")]
    return "\n".join(GLUED.sub(lambda m: str(getattr(glued, m[1])), p) for p in paragraphs), tables


def verdict(question: Question, answer: Any) -> str | None:
    """What grading tells a student of ``answer``: None when it is right."""
    issued = issue_one(question, "e5")
    return judge(question, issued.cases, answered(issued, answer), public=len(issued.public))


def right_but_at_the_h100(value: float) -> Callable[[float, float], float]:
    """A ``critical_batch`` that is the model's everywhere but at the H100's figures: there, ``value``."""

    def critical_batch(datasheet_flops: float, hbm_bandwidth: float) -> float:
        if (datasheet_flops, hbm_bandwidth) == H100:
            return value
        return float(CRITICAL_BATCH.reference(datasheet_flops, hbm_bandwidth))

    return critical_batch


def test_the_grader_accepts_what_section_10_3_says_and_refuses_the_peak_rounded_first(
    errata: tuple[str, list[Table]],
) -> None:
    prose, _ = errata
    accepted, refused = glued.h100_exact_4, glued.ex5_refused
    claim = f"accepts an answer within one token of {accepted} and refuses {refused}"
    assert claim in prose, "§10.3 should say what exercise 5's grader accepts and refuses"
    assert f"refuses the rounded peak {glued.ex5_peak_1sf}" in prose

    # The batches the chapter names, 295.4 and 298.5, at the H100's figures.
    assert verdict(CRITICAL_BATCH, right_but_at_the_h100(float(accepted))) is None
    refusal = verdict(CRITICAL_BATCH, right_but_at_the_h100(float(refused)))
    assert refusal is not None and f"returned {refused}" in " ".join(refusal.split()), refusal
    # "Within one token": the grader's own window around the exact batch.
    exact = float(CRITICAL_BATCH.reference(*H100))
    width = 1.0
    for inside in (exact - 0.99 * width, exact + 0.99 * width):
        assert verdict(CRITICAL_BATCH, right_but_at_the_h100(inside)) is None, inside
    for outside in (exact - 1.01 * width, exact + 1.01 * width):
        assert verdict(CRITICAL_BATCH, right_but_at_the_h100(outside)) is not None, outside

    # An answer that rounds the dense peak to one significant figure first fails both parts.
    def rounded_peak(datasheet_flops: float) -> float:
        return float(f"{datasheet_flops / 2:.0e}")

    assert verdict(DENSE_PEAK, rounded_peak) is not None
    assert verdict(CRITICAL_BATCH, lambda flops, bandwidth: rounded_peak(flops) / bandwidth) is not None


def test_the_errata_summary_says_what_the_grader_does(errata: tuple[str, list[Table]]) -> None:
    prose, tables = errata
    (summary,) = [t for t in tables if list(t.header) == ["topic", "published", "library", "why"]]
    (row,) = [r for r in summary.rows if str(r[0]) == "H100 critical batch"]
    assert row[1] == glued.ex5_refused and f"refuses it, accepts {glued.h100_exact_4}" in row[3], row
    assert verdict(CRITICAL_BATCH, right_but_at_the_h100(float(row[1]))) is not None
    assert not re.search(r"both (are|were) accepted|accepts it and", prose + str(row))
