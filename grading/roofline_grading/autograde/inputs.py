"""Where a submission's hidden inputs come from: its own code and the course's secret.

The hidden inputs of a notebook are drawn from a seed that is a keyed hash (HMAC-SHA256, keyed
with the course's secret) of the assignment, the notebook and the student's code: the source of
every code cell the student wrote or could change, in order (answer cells and cells of their
own), never the cells restored from the release. So

- the same code gets the same inputs, hence the same points and feedback, whoever submits it,
  whenever it is graded, and in whichever language's release (the restored cells differ, the
  student's code does not);
- different code gets other inputs: a resubmission that answers inputs seen earlier from a table
  is asked others;
- nobody without the secret can tell which inputs a submission will be asked.

>>> from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
>>> answer = new_code_cell("def f(x):\\n    return 2 * x")
>>> answer.metadata["nbgrader"] = {"grade_id": "a", "solution": True, "locked": False}
>>> test = new_code_cell("assert f(1) == 2")
>>> test.metadata["nbgrader"] = {"grade_id": "t", "grade": True, "locked": True}
>>> nb = new_notebook(cells=[new_markdown_cell("# Any words"), answer, test])
>>> student_code(nb)
'def f(x):\\n    return 2 * x'
>>> seed_for(b"secret", "roofline", "ex1", student_code(nb)) == seed_for(b"secret", "roofline", "ex1", "")
False
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

__all__ = ["seed_for", "student_code"]

_SEPARATOR = "\n\x1e\n"
"""Between two cells' sources (a record separator no cell's text is read as)."""


def student_code(nb: Any) -> str:
    """The source of every code cell of ``nb`` that is not locked by nbgrader, in order."""
    sources = []
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if isinstance(meta, dict) and meta.get("locked") and not meta.get("solution"):
            continue
        source = cell.get("source", "")
        sources.append("".join(source) if isinstance(source, list) else str(source))
    return _SEPARATOR.join(sources)


def seed_for(secret: bytes, assignment: str, notebook: str, code: str) -> str:
    """The hexadecimal seed of the hidden inputs of ``notebook`` submitted with ``code``."""
    message = f"{assignment}\0{notebook}\0{code}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]
