"""The grading step that judges the answers, after the notebook ran, in the grader's process.

:class:`JudgeAnswers` reads the records each test cell's hidden test left
  (:mod:`roofline_recorder`: the answers at the public inputs) and what the copies that test
  left returned at the hidden inputs (:mod:`roofline_grading.autograde.hidden`), judges them
  with the answer key (:mod:`roofline_grading.judge`) and writes the verdict into the cell, in
  the language of the notebook's release: nothing for a right answer, an ``AnswerError`` with
  the feedback for a wrong one, which shows no hidden input. nbgrader then scores the cell as
  usual (0 with an error, full points without). Records are removed from every cell, wherever
  they came from: only a test cell's own records and copies count, and only for the questions
  its hidden test names; a function question passes only if its answers are right at the public
  inputs *and* at the hidden ones.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Dict, Unicode

from roofline_grading.autograde.structure import NotebookStructure
from roofline_grading.cells import HIDDEN_TESTS
from roofline_grading.i18n import language_of, translator
from roofline_grading.judge import Verdict, assess, first_said
from roofline_grading.questions import FunctionQuestion
from roofline_grading.session import joined
from roofline_recorder import MIMETYPE
from roofline_recorder.encode import RecordError, decode

__all__ = ["ANSWER_ERROR", "JudgeAnswers", "recorded_questions"]

ANSWER_ERROR = "AnswerError"
"""``ename`` of the error that carries a wrong answer's feedback."""
_RECORD_CALL = re.compile(r"""\brecord\(\s*["']([\w.]+)["']""")


def recorded_questions(source: str) -> list[str]:
    """The question ids a test cell's hidden test records, e.g. ``['ex1.bytes_read']``.

    >>> hidden = '### BEGIN HIDDEN TESTS\\nrecord("ex1.ops", ops)\\n### END HIDDEN TESTS\\n'
    >>> recorded_questions("assert x\\n" + hidden)
    ['ex1.ops']
    """
    regions = HIDDEN_TESTS.findall(source) or [source]
    return [qid for region in regions for qid in _RECORD_CALL.findall(region)]


class JudgeAnswers(NbGraderPreprocessor):  # type: ignore[misc]
    """Judge each test cell's records and write the verdict into the cell (see the module's docstring)."""

    structures = Dict(help="Notebook name -> NotebookStructure.to_json(), from the gradebook").tag(
        config=True
    )
    verdicts_dir = Unicode("", help="Where to write each notebook's misconceptions (not if empty)").tag(
        config=True
    )

    def preprocess(self, nb: Any, resources: Any) -> tuple[Any, Any]:
        name = resources["nbgrader"]["notebook"]
        language = language_of(nb.metadata)
        structure = NotebookStructure.from_json(self.structures[name]).in_language(language)
        issued = resources.get("roofline_issued", {})
        answered = resources.get("roofline_answered", {})
        found: dict[str, list[str]] = {}
        earlier: list[tuple[Any, Verdict | None]] = []  # the parts judged so far, with their verdicts
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            records = [o for o in cell.get("outputs", []) if MIMETYPE in o.get("data", {})]
            cell.outputs = [o for o in cell.get("outputs", []) if MIMETYPE not in o.get("data", {})]
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id not in structure.ids or not structure.cell(grade_id).grade:
                continue
            for output in cell.outputs:  # nbgrader would read a last value as a partial score
                if output.get("output_type") == "execute_result":
                    output["output_type"] = "display_data"
                    output.pop("execution_count", None)
            asked = recorded_questions(structure.cell(grade_id).source)
            copies = {qid: _copies_of(answered.get(qid), cell.get("execution_count")) for qid in asked}
            verdicts = {
                qid: self._verdict(qid, issued.get(qid), records, copies[qid], language, earlier)
                for qid in asked
            }
            earlier += [(issued[qid].question, verdicts[qid]) for qid in asked if qid in issued]
            for qid, v in verdicts.items():  # for the instructor's summary only: hidden inputs count there
                if v is not None and v.summary_misconceptions:
                    found[qid] = list(v.summary_misconceptions)
            if not asked or any(o.get("output_type") == "error" for o in cell.outputs):
                continue  # nothing to judge, or the cell failed already: nbgrader scores it 0
            wrong = [v.feedback for v in verdicts.values() if v is not None]
            if wrong:
                message = textwrap.fill(" ".join(wrong), width=90, break_long_words=False)
                cell.outputs.append(
                    new_output(
                        "error", ename=ANSWER_ERROR, evalue=message, traceback=[f"{ANSWER_ERROR}: {message}"]
                    )
                )
            else:
                for output in cell.outputs:  # a right answer keeps its points whatever it printed
                    if output.get("output_type") == "stream" and output.get("name") == "stderr":
                        output["name"] = "stdout"
        if self.verdicts_dir:
            Path(self.verdicts_dir).mkdir(parents=True, exist_ok=True)
            (Path(self.verdicts_dir) / f"{name}.json").write_text(json.dumps(found, sort_keys=True))
        return nb, resources

    @staticmethod
    def _verdict(
        qid: str,
        issued: Any,
        records: list[Any],
        copies: list[dict[str, Any]],
        language: str,
        earlier: list[tuple[Any, Verdict | None]],
    ) -> Verdict | None:
        mine = []
        for output in records:
            try:  # as plain JSON first: nbformat hands it over as its own dict and list types
                payload = decode(json.loads(json.dumps(output["data"][MIMETYPE])))
            except (RecordError, KeyError, TypeError, ValueError, RecursionError):
                continue
            if isinstance(payload, dict) and payload.get("question") == qid:
                mine.append(payload)
        name = qid.split(".", 1)[1]
        tr = translator(language)
        if issued is None:
            return Verdict(tr("{name}: this question is not in the answer key.").format(name=name))
        if not mine:
            return Verdict(
                tr("{name}: the test could not record an answer (was the cell's code changed?).").format(
                    name=name
                )
            )
        # Every record of it, with every copy's answers, must be right; what the student reads is the
        # first verdict the public cases decide, else the one sentence for the hidden inputs.
        return first_said(
            assess(issued.question, cases, payload, language, public=public, earlier=earlier)
            for record in mine
            for cases, public, payload in _judged(issued, record, copies)
        )


def _judged(issued: Any, record: Any, copies: list[dict[str, Any]]) -> list[tuple[Any, int | None, Any]]:
    """What to judge of one record: (cases, how many are public, payload) with each copy's answers
    joined, or the record alone where it is not one result per public case (joined, its results
    would be taken for the hidden ones')."""
    if not isinstance(issued.question, FunctionQuestion):
        return [(issued.cases, None, record)]
    results = record.get("results") if isinstance(record, dict) else None
    if isinstance(results, list) and len(results) != len(issued.public):
        return [(issued.public, None, record)]
    hidden: list[dict[str, Any] | None] = [_hidden_payload(c, len(issued.hidden)) for c in copies]
    return [(issued.cases, len(issued.public), joined(record, h)) for h in hidden or [None]]


def _copies_of(entries: Any, cell: Any) -> list[dict[str, Any]]:
    """The copies a test cell (execution count ``cell``) left for one question."""
    if not isinstance(entries, list) or not isinstance(cell, int):
        return []
    return [e for e in entries if isinstance(e, dict) and e.get("cell") == cell]


def _hidden_payload(copy: dict[str, Any], count: int) -> dict[str, Any]:
    """A copy's answers as results to join with the public record (a copy that ran out of time or
    was lost answers each hidden case with that)."""
    if isinstance(copy.get("results"), list):
        return {"results": copy["results"]}
    what = "timed_out" if copy.get("timed_out") else "lost"
    return {"results": [{what: True}] * count}
