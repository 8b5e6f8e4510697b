"""What grading one student produced, as plain data, and how it reads in one line.

A worker process returns a :class:`StudentResult`; the driver writes its scores into the
gradebook, notes on it what only the driver knows (the late penalty the gradebook gave,
:class:`Lateness`, and why it was graded again, if it was), and writes into the report its
:meth:`StudentResult.summary` (one line an instructor reads at a glance) and every clause of
:meth:`StudentResult.problems_found`.

>>> ok = NotebookResult("ex1", "graded", {"t": GradeResult(2.0, 2.0, False)})
>>> eve = NotebookResult("ex2", "graded", {"u": GradeResult(0.0, 1.0, False)},
...                      attempts=["answer cell 'a', line 2: read /course/gradebook.db"])
>>> result = StudentResult("eve", [ok, eve, NotebookResult("ex3", "missing")])
>>> result.summary()
"2/3 flagged: ex2: tried: answer cell 'a', line 2: read /course/gradebook.db (+1 more)"
>>> result.problems_found()[1]
'not submitted: ex3'

"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from roofline_grading.inert import plain

__all__ = ["GradeResult", "Lateness", "NotebookResult", "StudentResult", "clean", "how_long"]

CLAUSE_CHARS = 300
"""Characters a clause of the report may take (a clause can quote what a student wrote)."""


def clean(text: str, limit: int = CLAUSE_CHARS) -> str:
    r"""``text`` as one short, plain line (:func:`roofline_grading.inert.plain`): control and
    format characters (newlines, terminal escapes, bidirectional overrides) become spaces, and a
    long text is cut.

    >>> clean("read /etc/shadow\nalice: 38/38\x1b[2J\u202e")
    'read /etc/shadow alice: 38/38 [2J '
    """
    return plain(text, limit)


def how_long(seconds: float) -> str:
    """A duration as the report says it: its two largest units, rounded down.

    >>> how_long(1), how_long(125), how_long(3 * 3600 + 61), how_long(2 * 86400 + 7200)
    ('1 s', '2 min 5 s', '3 h 1 min', '2 days 2 h')
    """
    left = int(seconds)
    days, left = divmod(left, 86400)
    hours, left = divmod(left, 3600)
    minutes, secs = divmod(left, 60)
    units = [(days, " day" if days == 1 else " days"), (hours, " h"), (minutes, " min"), (secs, " s")]
    first = next((i for i, (n, _) in enumerate(units) if n), len(units) - 1)
    return " ".join(f"{n}{unit}" for n, unit in units[first : first + 2] if n or first == len(units) - 1)


@dataclass(frozen=True)
class Lateness:
    """A submission after its due date, and the points the course's late penalty took (nbgrader's
    late-submission plugin, as ``nbgrader_config.py`` configures it; all notebooks together).

    >>> from datetime import datetime
    >>> late = Lateness(datetime(2026, 3, 2, 0, 0), datetime(2026, 3, 1, 23, 59), 70.0)
    >>> print(late.clause(70.0, 70.0))  # doctest: +NORMALIZE_WHITESPACE
    submitted 2026-03-02 00:00:00 UTC, 1 min after the due date 2026-03-01 23:59:00 UTC;
    late penalty 70 points (70/70 before it)
    """

    submitted: datetime
    due: datetime
    """The due date that applies to the student (the assignment's, or an extension's)."""
    penalty: float

    def clause(self, raw: float, max_score: float) -> str:
        """What the report's details say, ``raw`` being the score before the penalty."""
        after = how_long((self.submitted - self.due) / timedelta(seconds=1))
        submitted, due = (f"{t:%Y-%m-%d %H:%M:%S} UTC" for t in (self.submitted, self.due))
        when = f"submitted {submitted}, {after} after the due date {due}"
        if self.penalty > 0:
            return f"{when}; late penalty {self.penalty:g} points ({raw:g}/{max_score:g} before it)"
        return f"{when}; no late penalty given (c.LateSubmissionPlugin in nbgrader_config.py)"


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
    attempts: list[str] = field(default_factory=list)
    """What its code tried that the sandbox does not allow (read the course, signal a process,
    start processes, reach the network...), with the cell and line; the scores stand."""
    events: list[str] = field(default_factory=list)
    """What happened while it ran: time limits, a kernel that died, limits hit, output cut."""
    problems: list[str] = field(default_factory=list)
    """What differs from the released notebook and was put right, or could not be read."""
    comments: dict[str, str | None] = field(default_factory=dict)
    misconceptions: dict[str, list[str]] = field(default_factory=dict)
    """Question id -> the known misconceptions its answer matches (only answers that match one)."""
    language: str = "en"
    """The language of the release it came from (guessed from its bytes if it could not be read)."""
    inputs: dict[str, Any] = field(default_factory=dict)
    """The hidden inputs it was asked: ``seed`` and ``hidden`` (question id -> cases), for the
    instructor's record (never for the student)."""
    notes: list[str] = field(default_factory=list)
    """What its run tells the student, for a notebook that could not be graded (a graded one
    carries these notes in its first cell): limits hit and attempts, before the hidden inputs."""
    autograded: bytes | None = None

    @property
    def flagged(self) -> bool:
        """Its code tried something the sandbox does not allow: worth a look, scores unchanged."""
        return bool(self.attempts)

    @property
    def score(self) -> float:
        return sum(g.auto_score or 0.0 for g in self.grades.values())

    @property
    def max_score(self) -> float:
        return sum(g.max_score for g in self.grades.values())

    def clauses(self) -> list[str]:
        """What happened, most serious first, as short clauses (nothing for a notebook that
        was not submitted: the summary lists those together)."""
        tried = ["tried: " + "; ".join(clean(a) for a in self.attempts[:20])] if self.attempts else []
        return [*tried, *(clean(e) for e in self.events), *(clean(p) for p in self.problems)]


@dataclass
class StudentResult:
    """All notebooks of one student, and how long grading them took."""

    student: str
    notebooks: list[NotebookResult]
    timestamp: datetime | None = None
    problems: list[str] = field(default_factory=list)
    """About the submission as a whole (extra files ignored, a worker that died)."""
    seconds: float = 0.0
    late: Lateness | None = None
    """After the due date: when, and the late penalty the gradebook gave (the driver notes it)."""
    retries: list[str] = field(default_factory=list)
    """Why it was graded again, each time a worker was lost while grading it (the driver notes it)."""

    @property
    def score(self) -> float:
        """The points its answers earned, before any late penalty."""
        return sum(n.score for n in self.notebooks)

    @property
    def final_score(self) -> float:
        """The points it gets: :attr:`score` less the late penalty (what ``grades.csv`` exports)."""
        return self.score - (self.late.penalty if self.late is not None else 0.0)

    def notebook(self, name: str) -> NotebookResult | None:
        """The result of notebook ``name``, if it was expected."""
        return next((n for n in self.notebooks if n.notebook == name), None)

    @property
    def max_score(self) -> float:
        return sum(n.max_score for n in self.notebooks)

    @property
    def status(self) -> str:
        """``failed`` (a notebook could not be graded: a human must look), ``flagged`` (its code
        tried something the sandbox does not allow), ``problems`` (put right: restored cells,
        ignored files, time and output limits), ``incomplete`` (notebooks not submitted) or ``ok``."""
        if any(n.status in ("unreadable", "failed") for n in self.notebooks):
            return "failed"
        if any(n.flagged for n in self.notebooks):
            return "flagged"
        if self.problems or any(n.clauses() for n in self.notebooks):
            return "problems"
        if any(n.status == "missing" for n in self.notebooks):
            return "incomplete"
        return "ok"

    def problems_found(self) -> list[str]:
        """Everything that happened, one clause each, the most serious first: notebooks that could
        not be graded, what code tried, limits hit, what was put right, files ignored, notebooks
        not submitted. Each clause names its notebook."""
        ranked: list[tuple[int, str]] = []
        for notebook in self.notebooks:
            where = f"{notebook.notebook}: "
            failed = notebook.status in ("unreadable", "failed")
            ranked += [(0 if failed else 3, where + clean(p)) for p in notebook.problems]
            if notebook.attempts:
                tried = "; ".join(clean(a) for a in notebook.attempts[:20])
                more = f" (and {len(notebook.attempts) - 20} more)" if len(notebook.attempts) > 20 else ""
                ranked.append((1, f"{where}tried: {tried}{more}"))
            ranked += [(2, where + clean(e)) for e in notebook.events]
        ranked += [(4, clean(p)) for p in self.problems]
        if self.late is not None:
            ranked.append((5, self.late.clause(self.score, self.max_score)))
        missing = [n.notebook for n in self.notebooks if n.status == "missing"]
        if missing:
            ranked.append((6, "not submitted: " + ", ".join(missing)))
        if self.retries:
            ranked.append((7, "graded again: " + "; ".join(clean(r) for r in self.retries)))
        return [clause for _, clause in sorted(ranked, key=lambda r: r[0])]

    def summary(self, width: int = 160) -> str:
        """One line for the instructor, at most ``width`` characters with the student's name in
        front: the score (after a late penalty, marked ``late`` with the points it took), the
        status, the most serious problem and how many others there are.

        >>> from datetime import datetime
        >>> graded = NotebookResult("ex1", "graded", {"t": GradeResult(70.0, 70.0, False)})
        >>> due = datetime(2026, 3, 1, 23, 59)
        >>> late = StudentResult("dave", [graded], late=Lateness(datetime(2026, 3, 2), due, 70.0))
        >>> print(late.summary())  # doctest: +NORMALIZE_WHITESPACE
        0/70 late (-70): submitted 2026-03-02 00:00:00 UTC, 1 min after the due date
        2026-03-01 23:59:00 UTC; late penalty 70 points (70/70 before it)
        """
        line = f"{self.final_score:g}/{self.max_score:g}"
        if self.late is not None:
            line += f" late (-{self.late.penalty:g})" if self.late.penalty > 0 else " late"
        if self.status != "ok":
            line += f" {self.status}"
        found = self.problems_found()
        if not found:
            return line
        more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
        room = max(20, width - len(self.student) - 2 - len(line) - 2 - len(more))
        return f"{line}: {clean(found[0], room)}{more}"
