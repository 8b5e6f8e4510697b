"""After a round: how many students made each known mistake, part by part (what to reteach).

The judge's verdicts are the source: for every answer it judges, :class:`~roofline_grading.
autograde.steps.judge_answers.JudgeAnswers` notes the names of the answer key's misconceptions it matches
at every input, hidden ones included (:attr:`~roofline_grading.judge.Verdict.summary_misconceptions`:
for this summary only; the feedback names those that fit at the public inputs), also when a visible
check, such as the known-mistake check, failed the cell first. The driver
keeps them per student in ``autograded/<assignment>-verdicts/<student>.json`` (:func:`save`), so a
later run for some students only updates theirs, and after every run writes the summary of the
whole class (:func:`write_summary`):

- ``autograded/<assignment>-misconceptions.csv``: one row per question and known misconception
  of the answer key, with ``students`` (how many made it) and ``graded`` (how many students'
  notebooks were graded);
- ``autograded/<assignment>-misconceptions.png``: the same counts as bars, the most common first.

>>> from roofline_grading.autograde.results import NotebookResult, StudentResult
>>> import tempfile
>>> out = Path(tempfile.mkdtemp())
>>> n = NotebookResult("ex5_h100_threshold", "graded", misconceptions={"ex5.dense_peak": ["sparse-peak"]})
>>> save(out, "roofline", StudentResult("ann", [n]))
>>> [(r.question, r.misconception, r.students, r.graded) for r in summary(out, "roofline") if r.students]
[('ex5.dense_peak', 'sparse-peak', 1, 1)]
"""

from __future__ import annotations

import csv
import json
from dataclasses import astuple, dataclass
from pathlib import Path

from roofline_grading.answer_key import EXERCISES
from roofline_grading.autograde.results import StudentResult
from roofline_grading.inert import spreadsheet_cell
from roofline_grading.questions import FigureQuestion, Mistake, Question

__all__ = ["Row", "save", "summary", "write_summary"]


@dataclass(frozen=True)
class Row:
    """How many of the ``graded`` students' answers to ``question`` matched ``misconception``."""

    notebook: str
    question: str
    misconception: str
    students: int
    graded: int


def _verdicts(autograded: Path, assignment: str) -> Path:
    return autograded / f"{assignment}-verdicts"


def save(autograded: Path, assignment: str, result: StudentResult) -> None:
    """Keep one student's misconceptions, notebook by notebook (replacing an earlier run's)."""
    folder = _verdicts(autograded, assignment)
    folder.mkdir(parents=True, exist_ok=True)
    data = {n.notebook: {"status": n.status, "misconceptions": n.misconceptions} for n in result.notebooks}
    (folder / f"{result.student}.json").write_text(json.dumps(data, indent=1, sort_keys=True))


def _mistakes(question: Question) -> list[Mistake]:
    if isinstance(question, FigureQuestion):
        return [m for curve in question.curves for m in curve.mistakes]
    return list(question.mistakes)


def summary(autograded: Path, assignment: str) -> list[Row]:
    """Every question and known misconception of the answer key, with the class's counts."""
    students = [
        json.loads(path.read_text()) for path in sorted(_verdicts(autograded, assignment).glob("*.json"))
    ]
    rows = []
    for notebook, exercise in EXERCISES.items():
        graded = [s[notebook] for s in students if s.get(notebook, {}).get("status") == "graded"]
        for question in exercise.questions:
            names = dict.fromkeys(m.misconception.name for m in _mistakes(question))
            for name in names:
                made = sum(name in g["misconceptions"].get(question.id, []) for g in graded)
                rows.append(Row(notebook, question.id, name, made, len(graded)))
    return rows


def write_summary(autograded: Path, assignment: str) -> tuple[Path, Path]:
    """Write the CSV and the plot (see the module's docstring); return their paths."""
    rows = summary(autograded, assignment)
    table = autograded / f"{assignment}-misconceptions.csv"
    with table.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["notebook", "question", "misconception", "students", "graded"])
        writer.writerows([spreadsheet_cell(cell) for cell in astuple(r)] for r in rows)
    plot = table.with_suffix(".png")
    _plot(rows, plot)
    return table, plot


def load_plotting() -> None:
    """Import what the plot needs (about a second of CPU): the driver does it in a thread while the
    workers grade, so that the run's end does not wait for it.

    >>> load_plotting()
    >>> import sys; "matplotlib.figure" in sys.modules
    True
    """
    import matplotlib.backends.backend_agg
    import matplotlib.figure
    import matplotlib.ticker  # noqa: F401


def _plot(rows: list[Row], path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    made = sorted((r for r in rows if r.students), key=lambda r: (r.students, r.question), reverse=True)
    fig = Figure(figsize=(8, 1.5 + 0.3 * max(len(made), 1)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    graded = max((r.graded for r in rows), default=0)
    if made:
        labels = [f"{r.question}: {r.misconception}" for r in made]
        ax.barh(range(len(made)), [r.students for r in made], color="#d62728")
        ax.set_yticks(range(len(made)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    else:
        ax.text(0.5, 0.5, "no answer matched a known mistake", ha="center", va="center")
        ax.set_yticks([])
    ax.set_xlabel(f"students (of {graded} graded)")
    ax.set_title("Known mistakes, part by part")
    fig.savefig(path, dpi=100)
