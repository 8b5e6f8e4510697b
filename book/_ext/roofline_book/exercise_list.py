"""``{exercise-list}``: a table of the released student notebooks in ``exercises/`` with their graded
parts, points and download links (see :mod:`roofline_book.exercises`); a translated edition lists
its own language's release. The pages that show it are read again when notebooks appear or vanish.

A notebook's file name breaks only between its pieces:

>>> literal = nodes.literal(text="ex1_int8_matmul.ipynb")
>>> _breakable(literal)
>>> literal.astext()
'ex1_<wbr>int8_<wbr>matmul<wbr>.ipynb'
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.docutils import SphinxDirective

from roofline_book.exercises import find_exercises, in_language, listing_markdown, name_pieces
from rooflinekit.languages import ENGLISH


class ExerciseList(SphinxDirective):
    """Lists ``exercises/*/*.ipynb`` (the nbgrader release directory) as a table; a translated
    edition links the notebooks of its own language's release."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        root = Path(self.env.srcdir)
        exercises = in_language(root, find_exercises(root), self.env.config.language or ENGLISH.code)
        for ex in exercises:
            self.env.note_dependency(str(root / (ex.download or ex.path)))
        _listing_docs(self.env).add(self.env.docname)
        container = nodes.container(classes=["exercise-list"])
        lines = StringList(listing_markdown(exercises).splitlines(), source=self.env.docname)
        self.state.nested_parse(lines, self.content_offset, container)
        for download in container.findall(addnodes.download_reference):
            for literal in list(download.findall(nodes.literal)):
                _breakable(literal)
        return [container]


def _breakable(literal: nodes.literal) -> None:
    """A file name shown in ``literal`` that breaks only between its pieces (``<wbr>``)."""
    pieces = name_pieces(literal.astext())
    literal.children = []
    for number, piece in enumerate(pieces):
        if number:
            literal += nodes.raw("", "<wbr>", format="html")
        literal += nodes.Text(piece)


def _listing_docs(env: BuildEnvironment) -> set[str]:
    """Documents that use ``{exercise-list}`` (kept in the pickled environment)."""
    if not hasattr(env, "roofline_book_listing_docs"):
        env.roofline_book_listing_docs = set()  # type: ignore[attr-defined]
    docs: set[str] = env.roofline_book_listing_docs  # type: ignore[attr-defined]
    return docs


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _listing_docs(env).discard(docname)


def _merge(
    app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment
) -> None:
    _listing_docs(env).update(_listing_docs(other))


def _refresh_listing(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Re-read the listing when notebooks appear or vanish (a new file has no dependency yet)."""
    current = [ex.docname for ex in find_exercises(Path(env.srcdir))]
    previous = getattr(env, "roofline_book_exercises", None)
    env.roofline_book_exercises = current  # type: ignore[attr-defined]
    if previous is not None and previous != current:
        return sorted(_listing_docs(env))
    return []


def setup(app: Sphinx) -> None:
    app.add_directive("exercise-list", ExerciseList)
    app.connect("env-get-outdated", _refresh_listing)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
