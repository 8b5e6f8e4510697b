"""``{eval}`glued.<name>` ``: the text a chapter glued as ``<name>`` (rooflinekit.glue), pasted as
myst-nb's ``{glue:text}`` pastes it.

In JupyterLab, jupyterlab-myst evaluates the same inline expression in the chapter's kernel, so
the prose reads the same there. (myst-nb's own ``eval`` role needs a kernel while the page is read,
which the cached execution the site uses has not.) A glued message (words the code composed,
rooflinekit.words) shows in a translated edition in its language: its template translated
(:mod:`roofline_book.computed`), the values the same.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from myst_nb.core.variables import RetrievalError, create_warning
from myst_nb.ext.glue.roles import PasteTextRole
from myst_nb.ext.glue.utils import retrieve_glue_data
from sphinx.application import Sphinx

from roofline_book import computed, editions
from rooflinekit.errors import RooflineInputError
from rooflinekit.glue import MESSAGE_MIME
from rooflinekit.words import Message

GLUED = "glued."


def glued_name(text: str) -> str | None:
    """The name an ``{eval}`` role's text pastes (``glued.<name>``), or None for any other expression.

    >>> glued_name("glued.copy_rate"), glued_name("1 + 1"), glued_name("glued.a.b")
    ('copy_rate', None, None)
    """
    name = text[len(GLUED) :]
    return name if text.startswith(GLUED) and name.isidentifier() else None


class GluedText(PasteTextRole):  # type: ignore[misc]  # myst-nb has no type hints
    """``{eval}`glued.<name>` ``: the text glued as ``<name>``; any other expression is a warning
    (the build fails on warnings)."""

    text: str
    """The role's text (docutils' SphinxRole sets it)."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        name = glued_name(self.text)
        if name is None:
            warning = create_warning(
                f"{{eval}}`{self.text}`: the book's eval role shows glued texts only, "
                f"as {{eval}}`{GLUED}<name>` with <name> glued in a code cell (rooflinekit.glue)",
                self.document,
                self.line,
                subtype="eval",
            )
            return [], [warning]
        self.text = name
        language = editions.edition(self.document.settings.env.config.language)
        if language != editions.PRIMARY:
            translated = self._translated(language)
            if translated is not None:
                return translated
        return super().run()  # type: ignore[no-any-return]

    def _translated(self, language: str) -> tuple[list[nodes.Node], list[nodes.system_message]] | None:
        """A glued message in ``language`` (None if the text is not a message: pasted as it is)."""
        try:
            data = retrieve_glue_data(self.document, self.text).data.get(MESSAGE_MIME)
        except RetrievalError:
            return None  # the English role says what is missing
        if data is None:
            return None
        env = self.document.settings.env
        root = Path(env.srcdir)
        env.note_dependency(str(computed.catalog_path(root, language)))
        try:
            text = Message.from_data(data).translated(computed.translator(root, language))
        except (KeyError, IndexError, ValueError, RooflineInputError) as error:
            where = computed.catalog_path(root, language).relative_to(root)
            warning = create_warning(
                f"{{eval}}`{GLUED}{self.text}`: its {language} template in {where} does not fit the "
                f"message's values ({type(error).__name__}: {error}); "
                "run `python tools/translations.py check`",
                self.document,
                self.line,
                subtype="eval",
            )
            return [], [warning]
        node = nodes.inline(text, text, classes=["pasted-text"])
        self.set_source_info(node)
        return [node], []


def setup(app: Sphinx) -> None:
    """Replaces myst-nb's ``eval`` role (myst-nb is set up first, so that this one wins)."""
    app.setup_extension("myst_nb")
    app.add_role("eval", GluedText(), override=True)
