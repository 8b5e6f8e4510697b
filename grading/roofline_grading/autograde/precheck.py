"""Read a submitted file as a notebook, or say in one line why it cannot be graded.

Nothing here runs student code or changes the submitted file: the file is read once, parsed
as JSON, then as a Jupyter notebook (format 4, converting older formats), then validated; a
notebook with schema slips nbformat can repair (missing cell ids, stray keys) is repaired in
memory and graded, with a note.

>>> from pathlib import Path
>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> (folder / "ex1.ipynb").write_text("{not json")
9
>>> read_submission(folder / "ex1.ipynb").problem
'not a notebook: invalid JSON (line 1, column 2: expecting property name enclosed in double quotes)'
>>> read_submission(folder / "ex2.ipynb").problem
'missing'
"""

from __future__ import annotations

import json
import stat
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["MAX_BYTES", "SUBMISSION_SECRET", "TIMESTAMP", "Submission", "read_submission"]

MAX_BYTES = 50 * 2**20
"""A submitted notebook larger than this is not read (outputs are cleared before grading anyway)."""
TIMESTAMP = "timestamp.txt"
"""The file beside a student's notebooks in ``submitted/<student>/<assignment>/`` that says when
they submitted (nbgrader's name: ``make collect`` writes it, the grading worker reads it)."""
SUBMISSION_SECRET = "submission_secret.txt"
"""The file nbgrader's exchange puts beside a submission (``make hub-collect``): the key of the
student's feedback in the exchange (``make hub-return``). Not graded, and not a problem."""


@dataclass(frozen=True)
class Submission:
    """A submitted notebook file: its parsed notebook, or the reason it cannot be graded."""

    path: Path
    notebook: Any = None
    problem: str | None = None
    notes: tuple[str, ...] = field(default=())
    raw: bytes = b""


def read_submission(path: Path, max_bytes: int = MAX_BYTES) -> Submission:
    """Read ``path`` as a notebook (see the module's docstring)."""
    import nbformat
    from nbformat.validator import ValidationError

    try:
        info = path.lstat()
    except FileNotFoundError:
        return Submission(path, problem="missing")
    if stat.S_ISLNK(info.st_mode):
        return Submission(path, problem="not read: a symbolic link, not a file")
    if not stat.S_ISREG(info.st_mode):
        return Submission(path, problem="not read: not a regular file")
    size = info.st_size
    if size == 0:
        return Submission(path, problem="not a notebook: the file is empty")
    if size > max_bytes:
        return Submission(
            path, problem=f"not read: {size / 2**20:.0f} MB, more than {max_bytes / 2**20:.0f} MB"
        )
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return Submission(path, problem=f"not a notebook: not UTF-8 text (byte {error.start})", raw=raw)
    try:
        data = json.loads(text)
    except RecursionError:
        return Submission(path, problem="not a notebook: JSON nested too deeply", raw=raw)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        return Submission(
            path, problem=f"not a notebook: invalid JSON ({where}: {error.msg.lower()})", raw=raw
        )
    if not isinstance(data, dict) or not isinstance(data.get("cells", data.get("worksheets")), list):
        return Submission(path, problem="not a notebook: JSON without a list of cells", raw=raw)
    notes: list[str] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat warns about the slips normalize() repairs
            notebook = nbformat.reads(text, as_version=4, capture_validation_error={})
            try:
                nbformat.validate(notebook)
            except ValidationError:
                notebook, dropped = _rebuilt(notebook)
                nbformat.validate(notebook)
                notes.append(
                    "notebook format slips repaired"
                    + (f", {dropped} unknown cells dropped" if dropped else "")
                )
    except ValidationError as error:
        first = str(error.message).splitlines()[0][:120]
        return Submission(path, problem=f"not a valid notebook: {first}", raw=raw)
    except Exception as error:  # nbformat raises many kinds for malformed notebooks
        return Submission(
            path, problem=f"not a valid notebook: {type(error).__name__}: {error}"[:160], raw=raw
        )
    return Submission(path, notebook=notebook, notes=tuple(notes), raw=raw)


def _rebuilt(notebook: Any) -> tuple[Any, int]:
    """The notebook rebuilt from what grading uses (each cell's type, source and metadata; the
    kernelspec), dropping fields the format does not know and cells of unknown type."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell

    makers = {"code": new_code_cell, "markdown": new_markdown_cell, "raw": new_raw_cell}
    cells, dropped = [], 0
    for cell in notebook.get("cells", []):
        make = makers.get(str(cell.get("cell_type"))) if isinstance(cell, dict) else None
        if make is None:
            dropped += 1
            continue
        source = cell.get("source", "")
        source = "".join(map(str, source)) if isinstance(source, list) else str(source)
        metadata = cell.get("metadata")
        cells.append(make(source=source, metadata=dict(metadata) if isinstance(metadata, dict) else {}))
    rebuilt = new_notebook(cells=cells)
    kernelspec = notebook.get("metadata", {}).get("kernelspec")
    if isinstance(kernelspec, dict):
        rebuilt.metadata["kernelspec"] = kernelspec
    return rebuilt, dropped
