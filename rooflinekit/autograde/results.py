"""What grading one student produced, as plain data, and how it reads in one line.

A worker process returns a :class:`StudentResult`; the driver writes its scores into the
gradebook and its :meth:`StudentResult.summary` into the report.

>>> ok = NotebookResult("ex1", "graded", {"t": GradeResult(2.0, 2.0, False)})
>>> eve = NotebookResult("ex2", "graded", {"u": GradeResult(0.0, 1.0, True)},
...                      flags=["answer cell 'a', line 2: assigns to np.isclose"])
>>> StudentResult("eve", [ok, eve, NotebookResult("ex3", "missing")]).summary()
"2/3, held for manual grading: ex2: answer cell 'a', line 2: assigns to np.isclose | not submitted: ex3"
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

__all__ = ["GradeResult", "NotebookResult", "StudentResult"]

STATUSES = ("graded", "missing", "unreadable", "failed")


@dataclass(frozen=True)
class GradeResult:
    """One graded part: its automatic score (None: needs a human), maximum, and whether a
    human must look at it."""

    auto_score: float | None
    max_score: float
    needs_manual_grade: bool


@dataclass
class NotebookResult:
    """One submitted notebook of one student."""

    notebook: str
    status: str
    """``graded``, ``missing`` (not submitted), ``unreadable`` (not a notebook) or ``failed``."""
    grades: dict[str, GradeResult] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    """Why the notebook is held for manual grading (its parts then score 0)."""
    unverified: dict[str, str] = field(default_factory=dict)
    """Test cells that passed in the kernel but not when checked outside it, and why."""
    events: list[str] = field(default_factory=list)
    """What happened while it ran: time limits, a kernel that died."""
    problems: list[str] = field(default_factory=list)
    """What differs from the released notebook and was put right, or could not be read."""
    comments: dict[str, str | None] = field(default_factory=dict)
    late_penalty: float | None = None
    autograded: bytes | None = None

    @property
    def held(self) -> bool:
        """Held for manual grading: a way around the grading was found or a check did not hold."""
        return bool(self.flags or self.unverified)

    @property
    def score(self) -> float:
        return sum(g.auto_score or 0.0 for g in self.grades.values())

    @property
    def max_score(self) -> float:
        return sum(g.max_score for g in self.grades.values())

    def clauses(self) -> list[str]:
        """What went wrong, most serious first, as short clauses (nothing for a notebook that
        was not submitted: the summary lists those together)."""
        return [
            *self.flags,
            *(self.unverified[k] for k in sorted(self.unverified)),
            *self.events,
            *self.problems,
        ]


@dataclass
class StudentResult:
    """All notebooks of one student, and how long grading them took."""

    student: str
    notebooks: list[NotebookResult]
    timestamp: datetime | None = None
    problems: list[str] = field(default_factory=list)
    """About the submission as a whole (extra files ignored, a worker that died)."""
    seconds: float = 0.0

    @property
    def score(self) -> float:
        return sum(n.score for n in self.notebooks)

    @property
    def max_score(self) -> float:
        return sum(n.max_score for n in self.notebooks)

    @property
    def status(self) -> str:
        """``held`` (for manual grading), ``failed`` (a notebook could not be graded), ``problems``
        (put right: restored cells, ignored files, time limits), ``incomplete`` (notebooks not
        submitted) or ``ok``."""
        if any(n.held for n in self.notebooks):
            return "held"
        if any(n.status in ("unreadable", "failed") for n in self.notebooks):
            return "failed"
        if self.problems or any(n.clauses() for n in self.notebooks):
            return "problems"
        if any(n.status == "missing" for n in self.notebooks):
            return "incomplete"
        return "ok"

    def summary(self, limit: int = 3) -> str:
        """One line for the instructor: the score, then what went wrong, notebook by notebook
        (held ones first), then what was ignored, then what was not submitted."""
        line = f"{self.score:g}/{self.max_score:g}"
        if self.status == "held":
            line += ", held for manual grading"
        ordered = sorted(self.notebooks, key=lambda n: not n.held)
        parts = []
        for notebook in ordered:
            clauses = notebook.clauses()
            if clauses:
                more = f" (and {len(clauses) - limit} more)" if len(clauses) > limit else ""
                parts.append(f"{notebook.notebook}: " + "; ".join(clauses[:limit]) + more)
        parts += self.problems
        missing = [n.notebook for n in self.notebooks if n.status == "missing"]
        if missing:
            parts.append("not submitted: " + ", ".join(missing))
        return line + (": " + " | ".join(parts) if parts else "")
