"""Words the code composes for people: written in English, marked, and shown in any language.

This module is the course's one mechanism for them, used by rooflinekit, the book and the
grading feedback. Three marks tell the catalog tools what to translate; the tools read the code
(Babel's extractor, configured once in ``roofline_book.code_catalogs``), they never run it:

- ``tr("...")``, where a text is shown: ``tr`` is a :data:`Translate`, which the function showing
  the words takes as an argument (:func:`english`, the text itself, by default). Placeholders are
  filled after the translation, so a translation puts the numbers where its language wants them
  but never writes one itself.
- ``N_("...")``, where a text is written to be shown elsewhere (an operation's name, a feedback
  message kept in a table): it marks the text and returns it unchanged; ``tr`` translates it
  where it is shown.
- ``message("...", name=value)``, a :class:`Message`: the English text, a ``str`` like any other,
  that keeps its template and its values so that another process translates it later (the book's
  Korean edition, from the English chapter's glued messages).

The catalog tools gather the marked texts by where they are written: ``tr`` and ``N_`` in
rooflinekit into the explorers' labels (``explorer-labels.po``, shipped as
``rooflinekit/explorer/assets/labels.json``), in the grading package into the feedback's catalog,
and every ``message`` template into the book's ``computed.po``.

Every text comes back through a catalog, ``<locale>/<lang>/LC_MESSAGES/<domain>.po``, looked up by
:func:`translator_from` (a table of translations) and :func:`catalog_translations` (the table of
a ``.po`` file, read with Babel when first asked, not when rooflinekit is imported). The
explorers' table needs no Babel at all: it comes from ``labels.json``, and the kernel-free pages
carry it for their scripts, which look a text up in it the same way (the English where it has no
translation).

>>> tr = translator_from({"{n} chips": "칩 {n}개"})
>>> tr("{n} chips").format(n=8), english("{n} chips").format(n=8), tr("decode")
('칩 8개', '8 chips', 'decode')
>>> m = message("{kernel} on {threads} threads", kernel="copy", threads=2)
>>> m, m.template, m.values
('copy on 2 threads', '{kernel} on {threads} threads', {'kernel': 'copy', 'threads': 2})
>>> m.translated(translator_from({"{kernel} on {threads} threads": "스레드 {threads}개로 실행한 {kernel}"}))
'스레드 2개로 실행한 copy'

A message's value is text, an ``int``, a message (translated too) or a list of them, shown one
after another with ``"; "`` between:

>>> reasons = [message("torch is not installed"), message("jax is not installed")]
>>> message("GPU measurement skipped: {reasons}.", reasons=reasons)
'GPU measurement skipped: torch is not installed; jax is not installed.'
>>> message("{kernel} on {threads} threads", kernel="copy")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rooflinekit.errors.RooflineInputError: values must be exactly the template's placeholders: kernel, threads ...
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rooflinekit.errors import RooflineInputError

Translate = Callable[[str], str]
"""An English text (a template with ``{name}`` placeholders, or a plain word) in another language,
or the English text itself where that language has no translation."""

Value = str | int | Sequence[str]
"""A value of a message: text (a message is text too), an integer, or a list of texts."""

SEPARATOR = "; "
"""Between the parts of a list value."""


def english(text: str) -> str:
    """The English text itself: the ``tr`` of every function that shows words, by default.

    >>> english("memory")
    'memory'
    """
    return text


def N_(text: str) -> str:  # gettext's name for a text marked where it is written
    """Mark ``text`` for the catalog where it is written; it is translated where it is shown.

    >>> N_("decode")
    'decode'
    """
    return text


def translator_from(translations: Mapping[str, str]) -> Translate:
    """A :data:`Translate` that gives each English text's translation in ``translations``, or the
    English text itself where it has none (:func:`english` for an empty table).

    >>> tr = translator_from({"chip": "칩"})
    >>> tr("chip"), tr("chips"), translator_from({}) is english
    ('칩', 'chips', True)
    """
    if not translations:
        return english
    return lambda text: translations.get(text) or text


_READ: dict[Path, tuple[int, dict[str, str]]] = {}


def catalog_translations(path: Path) -> dict[str, str]:
    """The usable translations of the gettext catalog (``.po``) at ``path``, English -> translation:
    empty and fuzzy entries are left out, so their English is shown. Babel reads the file (imported
    here, on first use), again only when it has changed.

    >>> import tempfile
    >>> po = b'msgid "chip"\\nmsgstr "\\xec\\xb9\\xa9"\\n\\n#, fuzzy\\nmsgid "chips"\\nmsgstr "?"\\n'
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "ko.po").write_bytes(po)
    ...     catalog_translations(Path(folder) / "ko.po")
    {'chip': '칩'}
    """
    stamp = path.stat().st_mtime_ns
    if path not in _READ or _READ[path][0] != stamp:
        from babel.messages.pofile import read_po

        with path.open("rb") as handle:
            catalog = read_po(handle)
        usable = {str(m.id): str(m.string) for m in catalog if m.id and m.string and not m.fuzzy}
        _READ[path] = (stamp, usable)
    return _READ[path][1]


def placeholders(template: str) -> list[str]:
    """The names of a template's placeholders, in order, each once.

    >>> placeholders("{a} and {b}, {a} again; {{not one}}")
    ['a', 'b']
    >>> placeholders("{0:.2f}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: template must be text with named placeholders such as {threads} ...
    """
    names: list[str] = []
    try:
        parsed = string.Formatter().parse(template)
        fields = [(name, spec, conversion) for _, name, spec, conversion in parsed if name is not None]
    except ValueError:
        fields = [("", "?", None)]
    for name, spec, conversion in fields:
        if not name.isidentifier() or spec or conversion:
            accepted = "text with named placeholders such as {threads} (no index, conversion or format)"
            raise RooflineInputError("template", accepted, template)
        if name not in names:
            names.append(name)
    return names


class Message(str):
    """The English text of ``template`` filled with ``values``, which keeps both (see the module's
    docstring); :func:`message` makes one."""

    template: str
    values: dict[str, Value]

    def __new__(cls, template: str, values: Mapping[str, Value]) -> Message:
        wanted = placeholders(template)
        if sorted(wanted) != sorted(values):
            raise RooflineInputError(
                "values", "exactly the template's placeholders: " + ", ".join(sorted(wanted)), sorted(values)
            )
        for name, value in values.items():
            if isinstance(value, bool) or not isinstance(value, (str, int, list, tuple)) or (
                isinstance(value, (list, tuple)) and not all(isinstance(part, str) for part in value)
            ):
                raise RooflineInputError(f"value {name}", "text, an int or a list of texts", value)
        text = super().__new__(cls, _fill(template, values, None))
        text.template = template
        text.values = dict(values)
        _remember(text)
        return text

    def __reduce__(self) -> tuple[Any, ...]:
        return (Message, (self.template, self.values))

    def translated(self, translate: Translate) -> str:
        """The text from ``translate``'s template, with the values (messages among them translated too)."""
        return _fill(translate(self.template), self.values, translate)

    def to_data(self) -> dict[str, Any]:
        """The template and the values as JSON data (a message in the values as such data).

        >>> message("{a} of {b}", a="half", b=message("{n} chips", n=8)).to_data()["values"]
        {'a': 'half', 'b': {'template': '{n} chips', 'values': {'n': 8}}}
        """
        return {"template": self.template, "values": {k: _value_data(v) for k, v in self.values.items()}}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Message:
        """The message :meth:`to_data` described.

        >>> m = message("{a}: {b}", a="x", b=[message("y"), "z"])
        >>> Message.from_data(m.to_data()) == m, Message.from_data(m.to_data()).to_data() == m.to_data()
        (True, True)
        """
        return cls(str(data["template"]), {k: _value_from_data(v) for k, v in dict(data["values"]).items()})


_KNOWN: dict[str, Message] = {}
KNOWN_LIMIT = 10_000
"""How many messages :func:`known_message` remembers (the latest by their text)."""


def _remember(made: Message) -> None:
    if len(_KNOWN) >= KNOWN_LIMIT:
        _KNOWN.pop(next(iter(_KNOWN)))
    _KNOWN[str(made)] = made


def known_message(text: str) -> Message | None:
    """The latest message made whose English text is ``text`` (a figure's label, say, which
    matplotlib keeps as a plain ``str``), so that it can be translated; ``None`` if none was.

    >>> known_message(str(message("{n} chips", n=8))).template, known_message("no such words")
    ('{n} chips', None)
    """
    return _KNOWN.get(text)


def message(template: str, **values: Value) -> Message:
    """The English text of ``template`` with its ``{name}`` placeholders filled from ``values``.

    Write the template as a string literal in the call itself, and name every value in it: the
    catalog tools find it there.

    >>> message("The copy moved {rate}.", rate="12 GB/s")
    'The copy moved 12 GB/s.'
    """
    return Message(template, values)


def _text(value: Value, translate: Translate | None) -> str:
    if isinstance(value, Message) and translate is not None:
        return value.translated(translate)
    if isinstance(value, (str, int)):
        return str(value)
    return SEPARATOR.join(_text(part, translate) for part in value)


def _fill(template: str, values: Mapping[str, Value], translate: Translate | None) -> str:
    return template.format_map({name: _text(value, translate) for name, value in values.items()})


def _value_data(value: Value) -> Any:
    if isinstance(value, Message):
        return value.to_data()
    if isinstance(value, (str, int)):
        return value if isinstance(value, int) else str(value)
    return [_value_data(part) for part in value]


def _value_from_data(data: Any) -> Any:
    if isinstance(data, Mapping):
        return Message.from_data(data)
    if isinstance(data, list):
        return [_value_from_data(part) for part in data]
    return data


BOUNDS = {
    # Translators: what bounds an operation, as in "compute-bound"
    "compute": message("compute"),
    # Translators: what bounds an operation, as in "memory-bound"
    "memory": message("memory"),
    # Translators: what bounds an operation, as in "network-bound"
    "network": message("network"),
}
"""The names of what bounds an operation (``Analysis.bound``) for people: ``BOUNDS[r.bound]``."""
