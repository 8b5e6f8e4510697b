"""Words and sentences the code composes for people, kept so that another language can compose them too.

``message(template, **values)`` is the English text, a ``str`` like any other, that also keeps
its template and its values. The template is a gettext message: the book's Korean edition looks
it up in its catalog (locale/ko/LC_MESSAGES/computed.po) and fills the translated template with
the very same values, so a translation never repeats a number. tools/translations.py finds the
templates by reading the code (Babel's extractor): write the template as a string literal in the
call itself, and name every value in it.

:mod:`rooflinekit.words` serves the other case: its ``tr`` translates words where they are shown,
in the process that shows them (the explorers). A message is translated later, by another
process (the book's Korean build reads the English chapter's glued messages), so it carries
its template and values with it.

>>> m = message("{kernel} on {threads} threads", kernel="copy", threads=2)
>>> m
'copy on 2 threads'
>>> m.template, m.values
('{kernel} on {threads} threads', {'kernel': 'copy', 'threads': 2})
>>> korean = {"{kernel} on {threads} threads": "스레드 {threads}개로 실행한 {kernel}"}
>>> m.translated(lambda template: korean.get(template, template))
'스레드 2개로 실행한 copy'

A value is text, an ``int``, a message (translated too) or a list of them, shown one after
another with ``"; "`` between:

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
from typing import Any

from rooflinekit.errors import RooflineInputError

Value = str | int | Sequence[str]
"""A value of a message: text (a message is text too), an integer, or a list of texts."""

SEPARATOR = "; "
"""Between the parts of a list value."""

Translate = Callable[[str], str]
"""A template in another language (the English template itself where there is no translation), as
rooflinekit.words' ``tr``."""


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
    """The English text of ``template`` filled with ``values``; see the module's docstring."""

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


def message(template: str, **values: Value) -> Message:
    """The English text of ``template`` with its ``{name}`` placeholders filled from ``values``.

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
