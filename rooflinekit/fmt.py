"""Numbers and tables for people: what the book's prose and tables show.

A chapter computes a figure with ``rooflinekit`` and shows it with these helpers, so
the text never carries a number typed by hand.

>>> num(1.97e14), num(240.24), num(136.08, 4), num(0.49975)
('1.97e14', '240', '136.1', '0.5')
>>> si(8.2e11, "B/s"), si(0.0239, "s"), si(1.97e14, "FLOP/s")
('820 GB/s', '23.9 ms', '197 TFLOP/s')
>>> sci(3.94e14), seconds(2.5e-5)
('3.94e14', '25 µs')
>>> print(Table(["chip", "critical intensity"], [["TPU v5e", 240.24]]))
| chip | critical intensity |
| :--- | ---: |
| TPU v5e | 240 |

A table's words, and the words of Markdown put together from text and tables (:class:`Composed`),
may be messages (:mod:`rooflinekit.words`): shown in English, and in another language by
``translated`` (the book's Korean edition shows them so: rooflinekit.figure_languages).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rooflinekit.errors import RooflineInputError
from rooflinekit.words import Message, Translate

_PREFIXES = {-15: "f", -12: "p", -9: "n", -6: "µ", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T",
             15: "P", 18: "E"}


def _check_digits(digits: int) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise RooflineInputError("digits", "a positive integer", digits)
    return digits


def _strip(text: str) -> str:
    """Drop trailing zeros after a decimal point, and the point itself if nothing is left."""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _fixed(value: float, digits: int) -> str:
    """``digits`` significant figures, but never fewer than the integer part has."""
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return _strip(f"{value:.{decimals}f}")


def num(value: Any, digits: int = 3) -> str:
    """A number rounded to ``digits`` significant figures, in ``1.97e14`` style when large or small.

    Integers keep all their digits (``8756``, not ``8.76e3``) below a million; ``inf``
    prints as ``inf``.

    >>> num(8755.6), num(8.1e11), num(2.5e-5), num(float("inf"))
    ('8756', '8.1e11', '2.5e-5', 'inf')
    """
    digits = _check_digits(digits)
    number = float(value)
    if number == 0 or 1e-3 <= abs(number) < 1e6:
        return _fixed(number, digits)
    return sci(number, digits)


def sci(value: Any, digits: int = 4) -> str:
    """A number in exponent form, as problem statements and datasheets write figures.

    Up to ``digits`` significant figures, no trailing zeros, no ``+`` and no leading zeros
    in the exponent; ``inf`` prints as ``inf``.

    >>> sci(3.94e14), sci(8.1e11), sci(0.001), sci(1.979e15), sci(9.89e14, 2)
    ('3.94e14', '8.1e11', '1e-3', '1.979e15', '9.9e14')
    """
    digits = _check_digits(digits)
    number = float(value)
    if not math.isfinite(number):
        return "inf" if number > 0 else ("-inf" if number < 0 else "nan")
    mantissa, exponent = f"{number:.{digits - 1}e}".split("e")
    return f"{_strip(mantissa)}e{int(exponent)}"


def si(value: Any, unit: str, digits: int = 3) -> str:
    """``value`` with an SI prefix on ``unit``: ``si(8.19e11, "B/s") == '819 GB/s'``.

    >>> si(4.5e10, "B/s"), si(3.2e-7, "s"), si(1e18, "FLOP")
    ('45 GB/s', '320 ns', '1 EFLOP')
    """
    digits = _check_digits(digits)
    number = float(value)
    if number == 0 or not math.isfinite(number):
        return f"{num(number, digits)} {unit}"
    exponent = 3 * math.floor(math.log10(abs(number)) / 3)
    exponent = min(max(exponent, min(_PREFIXES)), max(_PREFIXES))
    mantissa = number / 10.0**exponent
    text = _fixed(mantissa, digits)
    if abs(float(text)) >= 1000 and exponent < max(_PREFIXES):  # 999.7 rounded up to 1000
        exponent += 3
        text = _fixed(number / 10.0**exponent, digits)
    return f"{text} {_PREFIXES[exponent]}{unit}"


def seconds(value: Any, digits: int = 3) -> str:
    """A duration: with an SI prefix below a second, in plain seconds from one second up.

    >>> seconds(0.0239), seconds(3.2e-7), seconds(1.5), seconds(14000.0, 4)
    ('23.9 ms', '320 ns', '1.5 s', '14000 s')
    >>> seconds(5.603e-11, 4), seconds(5.603e-14, 4)
    ('56.03 ps', '56.03 fs')
    """
    number = float(value)
    if math.isfinite(number) and abs(number) >= 1:
        return f"{num(number, digits)} s"
    return si(number, "s", digits)


def pct(fraction: Any, digits: int = 3) -> str:
    """A fraction as a percentage: ``pct(0.4997) == '50%'``.

    >>> pct(0.4997), pct(1.0), pct(0.0123)
    ('50%', '100%', '1.23%')
    """
    return f"{_fixed(100 * float(fraction), _check_digits(digits))}%"


def link(title: str, url: str) -> str:
    """A Markdown link, for a table cell or printed Markdown.

    >>> link("TPU v5e", "https://cloud.google.com/tpu/docs/v5e")
    '[TPU v5e](https://cloud.google.com/tpu/docs/v5e)'
    """
    return f"[{title.replace('[', '(').replace(']', ')')}]({url})"


class Page(Protocol):
    """A page figures come from (a :class:`~rooflinekit.catalog.Source`)."""

    @property
    def title(self) -> str: ...

    @property
    def url(self) -> str: ...


class Sourced(Protocol):
    """Something named whose figures come from pages (a :class:`~rooflinekit.catalog.Chip`)."""

    @property
    def name(self) -> str: ...

    @property
    def sources(self) -> Sequence[Page]: ...


def sources_table(chips: Iterable[Sourced]) -> Table:
    """The pages the chips' figures come from, each once, with the chips that use it.

    >>> from rooflinekit.catalog import chip
    >>> table = sources_table([chip("tpu-v5e"), chip("tpu-v5p")])
    >>> [row[1] for row in table.rows]
    ['TPU v5e', 'TPU v5p', 'TPU v5e, TPU v5p', 'TPU v5e, TPU v5p']
    >>> table.rows[0][0]
    '[Google Cloud TPU v5e](https://cloud.google.com/tpu/docs/v5e)'
    """
    users: dict[tuple[str, str], list[str]] = {}
    for c in chips:
        for source in c.sources:
            users.setdefault((source.title, source.url), []).append(c.name)
    # Pages of one chip (the vendor's) first, pages shared by several (the course's) last.
    ordered = sorted(users.items(), key=lambda item: len(item[1]))
    rows = [[link(title, url), ", ".join(names)] for (title, url), names in ordered]
    return Table(["source", "figures for"], rows, align="ll")


def _in_language(value: Any, tr: Translate) -> Any:
    return value.translated(tr) if isinstance(value, Message) else value


def _cell(value: Any) -> str:
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    text = num(value) if is_number else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


@dataclass(frozen=True)
class Table:
    """A small table that shows as Markdown in JupyterLab and in the built book.

    Numbers in ``rows`` are formatted with :func:`num`; format them yourself (``si``,
    ``num(x, 4)``) for other styles. ``align`` has one letter per column, ``l``, ``c`` or
    ``r``; by default the first column is left-aligned and the others right-aligned.

    >>> Table(["a", "b"], [[1, 2]], align="cc").to_markdown().splitlines()[1]
    '| :---: | :---: |'
    """

    header: Sequence[str]
    rows: Sequence[Sequence[Any]]
    align: str | None = None

    def __post_init__(self) -> None:
        width = len(self.header)
        if width == 0:
            raise RooflineInputError("header", "at least one column name", self.header)
        for row in self.rows:
            if len(row) != width:
                raise RooflineInputError("rows", f"rows of {width} cells, like the header", row)
        if self.align is not None and (len(self.align) != width or set(self.align) - set("lcr")):
            raise RooflineInputError("align", f"{width} letters from l, c and r", self.align)

    @property
    def alignment(self) -> str:
        """One letter per column: ``align``, or left for the first column and right for the rest."""
        return self.align or "l" + "r" * (len(self.header) - 1)

    def cells(self) -> list[list[str]]:
        """The header and the rows as text, numbers formatted with :func:`num`."""
        return [[_cell(v) for v in row] for row in (self.header, *self.rows)]

    def translated(self, tr: Translate) -> Table:
        """The same table with its messages in ``tr``'s language; every other cell as it is.

        >>> from rooflinekit.words import message, translator_from
        >>> table = Table(["kind", "value"], [[message("estimate"), 3], ["estimate", 4]])
        >>> table.translated(translator_from({"estimate": "추정치"})).rows
        [['추정치', 3], ['estimate', 4]]
        """
        return Table([_in_language(cell, tr) for cell in self.header],
                     [[_in_language(cell, tr) for cell in row] for row in self.rows], self.align)

    def to_markdown(self) -> str:
        """The table as GitHub-flavoured Markdown, which MyST renders."""
        rule = {"l": ":---", "c": ":---:", "r": "---:"}
        header, *rows = self.cells()
        lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule[a] for a in self.alignment) + " |"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)

    def to_text(self, indent: str = "") -> str:
        """The table as plain text in aligned columns, for a terminal.

        >>> print(Table(["chip", "FLOP/s"], [["TPU v5e", 1.97e14], ["B200", 2.25e15]]).to_text())
        chip      FLOP/s
        TPU v5e  1.97e14
        B200     2.25e15
        """
        text = self.cells()
        widths = [max(len(row[i]) for row in text) for i in range(len(self.header))]
        pad = {"l": str.ljust, "c": str.center, "r": str.rjust}
        lines = [
            "  ".join(pad[a](cell, w) for a, cell, w in zip(self.alignment, row, widths, strict=True))
            for row in text
        ]
        return "\n".join((indent + line).rstrip() for line in lines)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __str__(self) -> str:
        return self.to_markdown()


@dataclass(frozen=True, repr=False)
class Composed:
    """Markdown put together from ``parts``, one after the other: text (a message among them) and
    tables, so that its words can be shown in another language (:meth:`translated`) where one
    Markdown text could not.

    >>> from rooflinekit.words import message, translator_from
    >>> shown = Composed(["**TPU v5e**\\n\\n", Table(["kind"], [[message("estimate")]]), "\\n- ",
    ...                   message("A note.")])
    >>> print(shown.translated(translator_from({"estimate": "추정치", "A note.": "메모."})).to_markdown())
    **TPU v5e**
    <BLANKLINE>
    | kind |
    | :--- |
    | 추정치 |
    - 메모.
    """

    parts: Sequence[str | Table]

    def translated(self, tr: Translate) -> Composed:
        """The same parts with their messages in ``tr``'s language."""
        return Composed([part.translated(tr) if isinstance(part, Table) else _in_language(part, tr)
                         for part in self.parts])

    def to_markdown(self) -> str:
        return "".join(part.to_markdown() if isinstance(part, Table) else str(part) for part in self.parts)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __str__(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:  # a notebook's plain-text stand-in for the Markdown, kept short
        return f"<Composed Markdown of {len(self.parts)} parts>"
