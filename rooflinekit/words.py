"""Words rooflinekit shows people, written in English and ready to be shown in another language.

A function that shows words takes ``tr``, a :data:`Translate`: it passes every English text
through it, and fills the placeholders afterwards, so that a translation puts the numbers where
its language wants them but never writes one itself::

    tr("{sequences} sequences of {tokens} tokens").format(sequences=742, tokens=2049)

The default, :func:`english`, is the text itself, so what a function shows does not change
unless it is asked for another language. A text written in one place and shown in another (the
name of an operation, a phase) is marked with :func:`N_` where it is written and passed through
``tr`` where it is shown. ``tools/explorer_labels.py`` reads both marks from the code with
Babel's extractor into the catalog ``locale/<lang>/LC_MESSAGES/explorer-labels.po``, and
:mod:`rooflinekit.explorer.labels` ships the translations with the package (no Babel at run time).

>>> tr = {"{n} chips": "칩 {n}개"}.get
>>> (tr("{n} chips") or "{n} chips").format(n=8), english("{n} chips").format(n=8)
('칩 8개', '8 chips')
>>> N_("decode")
'decode'
"""

from __future__ import annotations

from collections.abc import Callable

Translate = Callable[[str], str]
"""An English text (a template with ``{name}`` placeholders, or a plain word) in another language."""


def english(text: str) -> str:
    """The English text itself: the ``tr`` of every function that shows words, by default."""
    return text


def N_(text: str) -> str:  # gettext's name for a text marked where it is written
    """Mark ``text`` for the catalog where it is written; it is translated where it is shown."""
    return text
