"""What the hidden tests call in the grading kernel: record an answer, judge nothing.

A hidden test cell of the course is one line, for example::

    record("ex1.bytes_read", bytes_read)

When the grading driver runs the notebook, the kernel holds the student's code and this
package, and nothing else of the course: no answer key, no reference, not ``rooflinekit``.
:func:`record` calls the student's function at the question's public inputs (the same in every
run) and writes the plain results into the cell's output as a *record*
(:mod:`roofline_recorder.encode`); then it leaves a copy of the kernel waiting
(:mod:`roofline_recorder.snapshot`), which answers the hidden inputs the driver drew outside
the kernel, from a secret seed, once the notebook's last cell has run. The driver, in its own
process, reads both, judges them against the answer key and writes the verdict into the graded
notebook.

Outside grading (an instructor running a solution notebook), :func:`record` judges the answer
on the spot with the judge an installed package provides (the entry-point group :data:`JUDGES`:
the course's grading package, with its answer key) and raises ``AssertionError`` with the
feedback a student would get.

This package imports only the standard library, numpy and (for figures) matplotlib.

>>> payload = collect({"kind": "function", "returns": "number",
...                    "cases": [encode([2, 3, 4])]}, lambda B, D, F: B * D + D * F)
>>> payload["results"]
[{'value': array(18.)}]
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from roofline_recorder import snapshot
from roofline_recorder.encode import decode, encode

__all__ = ["MIMETYPE", "Session", "collect", "figure_data", "follow_cells", "record", "start_session"]

MIMETYPE = "application/vnd.roofline.record+json"
"""The output type of a record (JupyterLab and nbconvert show nothing for it)."""
MAX_RESULT_ELEMENTS = 100_000
"""Numbers one result may hold; a bigger answer is recorded as too big, not copied."""
MAX_LINE_POINTS = 100_000
"""Points one line of a figure may hold to be recorded."""
MAX_TEXT = 200
"""Characters kept of a word answer, a label or an error message."""


class Session:
    """The questions of the notebook being graded and the public inputs of each; the descriptors the
    copies that answer the hidden inputs talk to the grader on (``hidden``: question -> descriptor,
    each taken by the first copy of its question); the file descriptors such a copy keeps open
    (``keep``: the audit channel)."""

    def __init__(
        self,
        questions: dict[str, dict[str, Any]],
        hidden: dict[str, int] | None = None,
        keep: tuple[int, ...] = (),
    ) -> None:
        self.questions = questions
        self.hidden = dict(hidden or {})
        self.keep = keep

    @classmethod
    def load(cls, path: str | Path, keep: tuple[int, ...] = ()) -> Session:
        data = json.loads(Path(path).read_text())
        hidden = data.get("hidden")
        questions = {str(k): dict(v) for k, v in data["questions"].items()}
        channels = {str(k): int(v) for k, v in hidden.items()} if isinstance(hidden, dict) else {}
        return cls(questions, channels, keep)


_SESSION: Session | None = None
SEAL: Callable[[str], None] | None = None
"""The kernel's monitor's seal, which the grader calls after the last cell (set by
:mod:`roofline_recorder.kernel`, whose own modules a notebook cannot import by name)."""


def start_session(path: str | Path, keep: tuple[int, ...] = ()) -> None:
    """Load the questions of the notebook being graded (the sandboxed kernel calls this once)."""
    global _SESSION
    _SESSION = Session.load(path, keep)


def record(question: str, answer: Any) -> None:
    """Record ``answer`` to ``question`` for grading (see the module's docstring)."""
    __tracebackhide__ = True
    if _SESSION is None:
        _judge_here(question, answer)
        return
    spec = _SESSION.questions.get(question)
    if spec is None:
        raise KeyError(f"{question} is not a question of this notebook")
    payload = {"question": question, **collect(spec, answer)}
    _emit(payload)
    channel = _SESSION.hidden.pop(question, None) if spec["kind"] == "function" else None
    if channel is not None and not callable(answer):
        os.close(channel)
    elif channel is not None:
        returns = str(spec.get("returns", "number"))

        def answer_cases(function: Callable[..., Any], cases: list[Any]) -> list[Any]:
            return [encode(_call(function, decode(case), returns)) for case in cases]

        snapshot.leave(question, answer, channel, _cell(), answer_cases, _SESSION.keep)


_CELLS: list[dict[str, int]] = [{}]
"""The shell's map from a cell's code file name to the cell's execution count."""


def follow_cells(shell: Any) -> None:
    """Know which cell a piece of code comes from (the execution count the graded notebook shows
    for it), so that a hidden test's copy can say which cell left it."""
    _CELLS[0] = getattr(shell.compile, "_filename_map", {})


def _cell() -> int | None:
    """The execution count of the innermost cell on the call stack (the hidden test's)."""
    frame: Any = sys._getframe(1)
    while frame is not None:
        count = _CELLS[0].get(frame.f_code.co_filename)
        if isinstance(count, int):
            return count
        frame = frame.f_back
    return None


def collect(spec: dict[str, Any], answer: Any) -> dict[str, Any]:
    """The plain results of ``answer`` for one question: for a function, one result per case
    (a value, a word, or what went wrong); for a figure, its data."""
    if spec["kind"] == "figure":
        return {"kind": "figure", "figure": figure_data(answer)}
    if not callable(answer):
        return {"kind": "function", "not_callable": _describe(answer)}
    cases = [decode(case) for case in spec["cases"]]
    results = [_call(answer, case, spec.get("returns", "number")) for case in cases]
    return {"kind": "function", "results": results}


def _call(function: Callable[..., Any], case: list[Any], returns: str) -> dict[str, Any]:
    """One call with fresh copies of the arguments; its printing and warnings are dropped, so a
    right answer never loses its points to a debugging print or a RuntimeWarning."""
    arguments = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in case]
    try:
        with (
            warnings.catch_warnings(),
            np.errstate(all="ignore"),
            contextlib.redirect_stdout(_Discard()),
            contextlib.redirect_stderr(_Discard()),
        ):
            warnings.simplefilter("ignore")
            result = function(*arguments)
            return _plain(result, returns)
    except Exception as error:  # the student's error is their answer for this case
        return {"raised": f"{type(error).__name__}: {error}"[:MAX_TEXT]}


def _plain(result: Any, returns: str) -> dict[str, Any]:
    if returns == "word":
        if isinstance(result, str):
            return {"word": str.__str__(result)[:MAX_TEXT]}
        return {"wrong_type": _describe(result)}
    if isinstance(result, str | bytes) or result is None:
        return {"wrong_type": _describe(result)}
    try:
        value = np.array(result, dtype=np.float64, copy=True, subok=False)
    except (TypeError, ValueError, OverflowError):
        return {"wrong_type": _describe(result)}
    if value.size > MAX_RESULT_ELEMENTS:
        return {"too_big": list(value.shape)}
    return {"value": value}


def figure_data(figure: Any) -> dict[str, Any]:
    """What the figure checks look at, as plain values: each line's data and label, each axes'
    labels, line count and legend, the figure's legends; or what the object is instead."""
    from matplotlib.figure import Figure  # only the plot exercise needs matplotlib

    if not isinstance(figure, Figure):
        return {"not_a_figure": _describe(figure)}
    lines = []
    for ax in figure.axes:
        for line in ax.get_lines():
            lines.append(
                {
                    "x": _points(line.get_xdata()),
                    "y": _points(line.get_ydata()),
                    "label": str(line.get_label())[:MAX_TEXT],
                }
            )
    axes = [
        {
            "xlabel": str(ax.get_xlabel())[:MAX_TEXT],
            "ylabel": str(ax.get_ylabel())[:MAX_TEXT],
            "lines": len(ax.get_lines()),
            "legend": ax.get_legend() is not None,
        }
        for ax in figure.axes
    ]
    return {"lines": lines, "axes": axes, "figure_legends": len(figure.legends)}


def _points(data: Any) -> np.ndarray[Any, Any] | None:
    try:
        array = np.array(data, dtype=np.float64, copy=True, subok=False)
    except (TypeError, ValueError, OverflowError):
        return None
    return array if array.size <= MAX_LINE_POINTS else None


def _emit(payload: dict[str, Any]) -> None:
    from IPython.display import display

    display({MIMETYPE: encode(payload)}, raw=True)


JUDGES = "roofline_recorder.judges"
"""The entry-point group a package joins to judge answers on the spot, outside grading (the
course's grading package does, with its answer key); the recorder names no such package."""


def _judge_here(question: str, answer: Any) -> None:
    """Outside grading: judge with a judge this environment provides (an entry point of the
    group :data:`JUDGES`), if it provides one that loads."""
    __tracebackhide__ = True
    from importlib.metadata import entry_points

    for entry in entry_points(group=JUDGES):
        try:
            check = entry.load()
        except ImportError:  # installed but not importable here (a grading kernel masks it)
            continue
        check(question, answer)
        return
    print(f"{question}: hidden tests are judged when the notebook is graded")


def _describe(value: Any) -> str:
    text = repr(value) if not isinstance(value, np.ndarray) else f"array of shape {value.shape}"
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"[:MAX_TEXT]


class _Discard(io.TextIOBase):
    """A text stream that forgets what it is given."""

    def write(self, text: str) -> int:
        return len(text)
