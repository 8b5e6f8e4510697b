"""Figures a chapter computes, named for its prose, shown on the site and in JupyterLab alike.

A chapter's code names a text with ``glue("ridge", num(x))``; its prose writes
``{eval}`glued.ridge` ``. Two readers turn that into the text:

- the site: myst-nb's glue stores the text with the executed chapter, and the book's ``eval``
  role (book/_ext/roofline_book) pastes it, as myst-nb's ``{glue:text}`` would;
- JupyterLab with jupyterlab-myst: running the Markdown cell evaluates the inline expression
  ``glued.ridge`` in the chapter's kernel and shows the text.

The texts live in ``glued``, not as variables of the chapter, so a name never replaces one of
the chapter's own variables (``D`` the model width and ``glued.D`` its text, "8,192").

Words and sentences (not just numbers) are glued as :func:`rooflinekit.words.message`: the
glue keeps the English text and, beside it (``MESSAGE_MIME``), the template and the values, from
which the book's Korean edition composes the same sentence in Korean. JupyterLab shows the English.

>>> glue("ridge", "240")
>>> glued.ridge
240
>>> glued.width
Traceback (most recent call last):
...
AttributeError: nothing was glued as 'width' (glued so far: ridge)
"""

from __future__ import annotations

from typing import Any

from rooflinekit.words import Message

MESSAGE_MIME = "application/vnd.rooflinekit.message+json"
"""The glued data of a message: its template and values (``Message.to_data``)."""


class Text(str):
    """A text that displays as itself: no quotes and no escapes, in a notebook or an inline expression.

    >>> Text("820 GB/s")
    820 GB/s
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


class Glued:
    """The texts glued so far, by name (attribute access, for short inline expressions)."""

    def __init__(self) -> None:
        self._texts: dict[str, Text] = {}

    def __getattr__(self, name: str) -> Text:
        texts: dict[str, Text] = self.__dict__.get("_texts", {})
        if name not in texts:
            raise AttributeError(f"nothing was glued as {name!r} (glued so far: {', '.join(texts)})")
        return texts[name]

    def put(self, name: str, text: str) -> Text:
        self._texts[name] = Text(text)
        return self._texts[name]


glued = Glued()


class _GluedMessage:
    """What myst-nb stores for a glued message: the English text/plain a plain ``str`` would get,
    and the message's template and values."""

    def __init__(self, text: Message) -> None:
        self.text = text

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.pretty(str(self.text))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {MESSAGE_MIME: self.text.to_data()}


def glue(name: str, text: str) -> None:
    """Name ``text`` for the chapter's prose: ``{eval}`glued.<name>` `` shows it.

    Outside a notebook (no IPython kernel) myst-nb's glue displays nothing, and ``glued`` still
    holds the text.
    """
    from myst_nb import glue as myst_glue  # untyped (pyproject.toml's mypy overrides)

    # myst-nb gets the plain str: its text/plain is the quoted repr, which {glue:text} and the
    # site's role read back as this very string (unquoted, "8.2e11" would be read as a float).
    shown = str(glued.put(name, text))
    myst_glue(name, _GluedMessage(text) if isinstance(text, Message) else shown, display=False)
