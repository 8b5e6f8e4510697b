"""The grading step that keeps only inert content in the graded notebook.

:class:`PlainOutputs` keeps outputs as text and PNG/JPEG images, and the student's own Markdown
cells as plain text. HTML, JavaScript, SVG and widgets a notebook displays, or a ``<script>`` in a
Markdown cell, never reach the feedback page or the instructor's formgrader; nor does what a
template could make markup of (raw cells, attachments, the notebook's and the cells' own
metadata: :func:`roofline_grading.pages.inert_notebook`).

>>> import nbformat
>>> cell = nbformat.v4.new_markdown_cell("<script>alert(1)</script>")
>>> nb, _ = PlainOutputs()(nbformat.v4.new_notebook(cells=[cell]), {})
>>> nb.cells[0].source.startswith("<script>")
False
"""

from __future__ import annotations

import json
import re
from typing import Any

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor

from roofline_grading.inert import as_text
from roofline_grading.pages import SAFE_MIMETYPES, inert_notebook

__all__ = ["MAX_CELL_OUTPUT", "PlainOutputs", "one_stream_each"]

MAX_CELL_OUTPUT = 300_000
"""Characters of output a graded cell may keep, whatever way it was produced."""


class PlainOutputs(NbGraderPreprocessor):  # type: ignore[misc]
    """Keep only inert content (see the module's docstring)."""

    def preprocess(self, nb: Any, resources: Any) -> tuple[Any, Any]:
        nb, resources = super().preprocess(nb, resources)
        return inert_notebook(nb), resources

    def preprocess_cell(self, cell: Any, resources: Any, index: int) -> tuple[Any, Any]:
        if cell.cell_type == "markdown" and not cell.metadata.get("nbgrader", {}).get("locked"):
            cell.source = as_text(cell.source)
        if cell.cell_type != "code":
            return cell, resources
        kept = []
        for output in one_stream_each(cell.get("outputs", [])):
            if output.get("output_type") in ("display_data", "execute_result"):
                data = {k: v for k, v in output.get("data", {}).items() if k in SAFE_MIMETYPES}
                if not data:
                    continue
                output["data"] = data
                output["metadata"] = {}
            kept.append(output)
        if len(json.dumps(kept, default=str)) > MAX_CELL_OUTPUT:  # whatever got past the running caps
            errors = [o for o in kept if o.get("output_type") == "error"][:1]
            note = f"[output cut: more than {MAX_CELL_OUTPUT:,} characters in this cell]\n"
            kept = [*errors, new_output("stream", name="stdout", text=note)]
            for error in errors:
                error["ename"] = str(error.get("ename", ""))[:200]
                error["evalue"] = str(error.get("evalue", ""))[:2000]
                error["traceback"] = [str(line)[:2000] for line in list(error.get("traceback") or [])[-20:]]
        cell.outputs = kept
        return cell, resources


_CARRIAGE_RETURN = re.compile(r".*\r(?=[^\n])")


def one_stream_each(outputs: list[Any]) -> list[Any]:
    """A cell's printing as one output a stream, however the kernel flushed it: the text of each
    later ``stdout`` (``stderr``) output joins the first, as nbclient's ``coalesce_streams`` joins
    them while the cell runs. nbclient does that only with what it has when the cell ends; done
    again here, on the whole cell, the same code gives the same graded notebook however loaded the
    machine was (a flush that came late on one run and not on another).

    Both are needed (the pipeline turns nbclient's on): nbclient's runs only on a cell that ends
    with a reply, not on one whose kernel died or could not be interrupted (its ``DeadKernelError``
    skips it), whose pieces then reach this step as they came; and it does what this does not,
    erasing backspaced characters and putting ``stdout`` before ``stderr``, which the graded
    notebooks have always shown.

    >>> from nbformat.v4 import new_output
    >>> merged = one_stream_each([new_output("stream", name="stdout", text="a\\n"),
    ...                           new_output("stream", name="stdout", text="b\\n")])
    >>> [o.text for o in merged]
    ['a\\nb\\n']
    """
    merged: list[Any] = []
    first: dict[str, Any] = {}
    for output in outputs:
        if output.get("output_type") != "stream":
            merged.append(output)
        elif output.get("name") in first:
            earlier = first[output.get("name")]
            text = _text(earlier.get("text")) + _text(output.get("text"))
            earlier["text"] = _CARRIAGE_RETURN.sub("", text)  # a line \r rewrote, as nbclient shows it
        else:
            first[output.get("name")] = output
            merged.append(output)
    return merged


def _text(text: Any) -> str:
    return text if isinstance(text, str) else "".join(text or [])
