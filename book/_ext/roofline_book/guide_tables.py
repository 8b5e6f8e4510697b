"""``{answer-key-table} points|tolerances|misconceptions``: the instructor's guide's tables, made
from the grading package's key at each build (:mod:`roofline_grading.guide`), in the edition's language.

The guide is in the instructor's edition only, where the grading package is installed; the
package is imported when a page uses the directive, so the public edition's build never needs it.
A cell that names a notebook or a part is shown as code; the words come translated from the
grading package's catalog (the feedback's), never from the page's, so the table is not extracted
for translation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

__all__ = ["AnswerKeyTable", "setup", "table_node"]


def table_node(header: tuple[str, ...], rows: list[tuple[tuple[str, bool], ...]]) -> nodes.table:
    """A docutils table of ``header`` and ``rows`` (each cell its text and whether it is code).

    >>> table_node(("a", "b"), [(("x", True), ("y", False))]).astext().split()
    ['a', 'b', 'x', 'y']
    """
    group = nodes.tgroup(cols=len(header))
    group += [nodes.colspec(colwidth=1) for _ in header]
    head, body = nodes.thead(), nodes.tbody()
    head += _row([(text, False) for text in header])
    body += [_row(cells) for cells in rows]
    group += [head, body]
    return nodes.table("", group, classes=["answer-key-table"])


def _row(cells: Any) -> nodes.row:
    row = nodes.row()
    for text, code in cells:
        paragraph = nodes.paragraph()
        if text:
            paragraph += nodes.literal(text, text) if code else nodes.Text(text)
        row += nodes.entry("", paragraph)
    return row


class AnswerKeyTable(SphinxDirective):
    """The table its argument names, from the answer key of this course."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        from roofline_grading import guide

        kind = self.arguments[0]
        if kind not in guide.KINDS:
            raise self.error(f"answer-key-table: no table {kind!r} (the tables: {', '.join(guide.KINDS)})")
        root = Path(self.env.srcdir)
        for source in guide.sources(root):
            self.env.note_dependency(str(source))
        header, rows = guide.table(kind, root, self.env.config.language or "en")
        return [table_node(header, rows)]


def setup(app: Sphinx) -> None:
    """Register the directive."""
    app.add_directive("answer-key-table", AnswerKeyTable)
