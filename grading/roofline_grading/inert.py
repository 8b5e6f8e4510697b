"""Text a student wrote, made inert for wherever the course writes it: Markdown, a terminal, a CSV.

Grade ids, file names, error messages, kernelspec names, submitted cells: whatever came from a
submission is student text. The course quotes it, never lets it be read as markup or as a
command, with one helper per context:

- :func:`code_span`: a Markdown code span that nothing in the text can close (the grading notes
  name cells and quote why a notebook could not be graded this way);
- :func:`as_text`: a whole Markdown cell shown as it is written, in a fence nothing in it can close;
- :func:`plain`: one line for a terminal or the text report: no control or format character
  (newlines, terminal escapes, bidirectional overrides), cut to a length;
- :func:`spreadsheet_cell`: a CSV cell a spreadsheet shows as text, never runs as a formula
  (OWASP's advice: a cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
  gets a leading ``'``).

Markdown renderers (nbconvert's, JupyterLab's) escape the HTML of a code span's content; the pages
are sanitized too (:mod:`roofline_grading.pages`), in case anything else gets through.

>>> code_span("a`<img src=x onerror=alert(1)>")
'`` a`<img src=x onerror=alert(1)> ``'
>>> plain("alice: 38/38\\x1b[2J\\u202e")
'alice: 38/38 [2J '
>>> spreadsheet_cell("=HYPERLINK(\\"http://x\\")")
'\\'=HYPERLINK("http://x")'
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["as_text", "code_span", "plain", "spreadsheet_cell"]

_UNSEEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a line must not carry: controls, format characters (bidirectional
overrides, zero-width joiners), surrogates, private use, unassigned, line and paragraph separators."""
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def plain(text: str, limit: int = 300) -> str:
    r"""``text`` as one short, plain line: every control or format character (newlines, terminal
    escapes, bidirectional overrides, Unicode line separators) becomes a space, and a text longer
    than ``limit`` is cut, with ``...``.

    >>> plain("read /etc/shadow\nalice: 38/38")
    'read /etc/shadow alice: 38/38'
    >>> plain("x" * 10, limit=8)
    'xxxxx...'
    """
    shown = "".join(" " if unicodedata.category(c) in _UNSEEN else c for c in text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def code_span(text: str, limit: int = 300) -> str:
    """``text`` (made :func:`plain`) as an inline Markdown code span: fenced by one backtick more
    than its longest run of backticks, padded with a space where it starts or ends with one, so
    that no character of it ends the span (a backslash escapes nothing in a code span).

    >>> code_span("ex1_ops")
    '`ex1_ops`'
    >>> code_span("``")
    '``` `` ```'
    """
    shown = plain(text, limit) or " "
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    spaced = shown.startswith(" ") and shown.endswith(" ") and bool(shown.strip())
    pad = " " if longest or spaced else ""  # the renderer takes one space off each side
    return f"{fence}{pad}{shown}{pad}{fence}"


def as_text(markdown: str) -> str:
    """Markdown that shows ``markdown`` as it is written, as text: a fenced block no line of it can close.

    >>> print(as_text("<script>x</script>"))
    ````text
    <script>x</script>
    ````
    """
    longest = max((len(run) for run in re.findall(r"`+", markdown)), default=0)
    fence = "`" * max(4, longest + 1)
    return f"{fence}text\n{markdown}\n{fence}"


def spreadsheet_cell(value: object) -> str:
    """``value`` as a CSV cell that a spreadsheet shows as the text it is: one that would start a
    formula (``=``, ``+``, ``-``, ``@``, a tab, a carriage return) gets a leading ``'``, as OWASP
    recommends against CSV injection, whatever follows (``-2+cmd|...`` is a formula too). A number
    given as a number passes as it is (the course's scores are never negative).

    >>> spreadsheet_cell("@SUM(A1)"), spreadsheet_cell(3.5), spreadsheet_cell("-2"), spreadsheet_cell("")
    ("'@SUM(A1)", '3.5', "'-2", '')
    """
    if isinstance(value, (int, float)):
        return str(value)
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text
