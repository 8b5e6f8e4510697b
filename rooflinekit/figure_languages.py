"""A figure or a table in the languages of the book's editions: its words translated where it is shown.

The book's chapters are executed once, in English; the Korean edition shows the same outputs. A
figure's words (axis labels, legends, titles, notes) are marked where the code writes them, as
every word the code shows (:mod:`rooflinekit.words`: ``message("Batch (sequences)")``, or ``tr``
and ``N_`` in the library). When the variable :data:`VARIABLE` names catalogs, as ``make book``
sets it (``ko=locale/ko/LC_MESSAGES/computed.po:...``), :func:`install` makes every matplotlib figure
a notebook displays carry, beside its English PNG, one PNG for each language: each text of the
figure is looked up (a message by its English text, :func:`rooflinekit.words.known_message`, else
the text itself as a catalog entry), set in the language with a font that has its letters, the
figure saved, and every text put back. The PNG, the texts and the alt text read
from that drawing (:func:`rooflinekit.alt_text.describe`, so a screen reader hears the words the
drawing shows) go into the output's metadata (``metadata["image/png"][METADATA_KEY][language]``:
``png``, base64, ``texts`` and ``rooflinekit_alt``), where the book's Korean edition finds them
(roofline_book.editions, roofline_book.figures). A table (:class:`rooflinekit.fmt.Table`) or
Markdown put together from parts (:class:`rooflinekit.fmt.Composed`) that a notebook displays carries
its messages in each language the same way, as Markdown (:func:`markdown_translations`, under
``metadata["text/markdown"][METADATA_KEY][language]["markdown"]``) wherever that differs from the
English. Without the variable nothing changes.

>>> from rooflinekit.words import message, translator_from
>>> label = message("{kind}, batch {batch}", kind=message("decode"), batch=64)
>>> tr = translator_from({"{kind}, batch {batch}": "{kind}, 배치 {batch}", "decode": "디코드"})
>>> translated_text(str(label), tr), translated_text("Step time (ms)", tr)
('디코드, 배치 64', 'Step time (ms)')
"""

from __future__ import annotations

import base64
import io
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rooflinekit.alt_text import ALT_KEY, describe
from rooflinekit.figure_display import contribute
from rooflinekit.fmt import Composed, Table
from rooflinekit.languages import LANGUAGES
from rooflinekit.words import Translate, catalog_translations, known_message, translator_from

VARIABLE = "ROOFLINEKIT_FIGURE_LANGUAGES"
"""``lang=catalog.po:other.po lang2=...``: the languages a displayed figure is also drawn in."""
METADATA_KEY = "rooflinekit_translations"
"""Where, in an output's metadata, its drawing (base64 PNG) or its Markdown is in each language."""
FONTS = {each.code: each.fonts for each in LANGUAGES}
"""Fonts with each language's letters, most wanted first (rooflinekit.languages): the first installed
goes after the figure's own (matplotlib falls back glyph by glyph)."""


def languages(value: str | None = None) -> dict[str, Translate]:
    """The translators :data:`VARIABLE` (or ``value``) names, by language; catalogs that do not
    exist are skipped.

    >>> languages("ko=nowhere.po")
    {}
    """
    found: dict[str, Translate] = {}
    for part in (os.environ.get(VARIABLE, "") if value is None else value).split():
        language, _, paths = part.partition("=")
        table: dict[str, str] = {}
        for path in paths.split(os.pathsep):
            if path and Path(path).is_file():
                table = {**catalog_translations(Path(path)), **table}
        if table:
            found[language] = translator_from(table)
    return found


def translated_text(text: str, tr: Translate) -> str:
    """``text`` in ``tr``'s language: the message it was made from, translated, or its own entry."""
    made = known_message(text)
    return made.translated(tr) if made is not None else tr(text)


@contextmanager
def in_language(figure: Any, tr: Translate, font: str | None) -> Iterator[None]:
    """While inside, every text of ``figure`` is in ``tr``'s language (with ``font`` after its own),
    tick labels too: matplotlib writes them again from the axis' formatters at every drawing, so
    each formatter's labels are translated while inside."""
    from matplotlib.text import Text

    saved = []
    for artist in figure.findobj(Text):
        text = artist.get_text()
        new = translated_text(text, tr) if text else text
        if new != text or font is not None:
            saved.append((artist, text, artist.get_fontfamily()))
            artist.set_text(new)
            if font is not None:
                artist.set_fontfamily([*artist.get_fontfamily(), font])
    tickers = [ticker for axes in figure.get_axes() for axis in (axes.xaxis, axes.yaxis)
               for ticker in (axis.major, axis.minor)]
    formatters = [ticker.formatter for ticker in tickers]
    for ticker in tickers:
        ticker.formatter = translating(ticker.formatter, tr)
    labels = _translate_labels(figure, tr)
    try:
        yield
    finally:
        for ticker, formatter in zip(tickers, formatters, strict=True):
            ticker.formatter = formatter
        for artist, text, family in saved:
            artist.set_text(text)
            artist.set_fontfamily(family)
        for named, label in labels:
            named.set_label(label)


def _translate_labels(figure: Any, tr: Translate) -> list[tuple[Any, str]]:
    """The names of the figure's lines, shaded areas, points and bars (what its legend was made
    from, and what its alt text names them by) set in ``tr``'s language; each with its English name."""
    saved = []
    for axes in figure.get_axes():
        for named in (*axes.get_lines(), *axes.collections, *axes.containers):
            label = str(named.get_label() or "")
            new = translated_text(label, tr) if label and not label.startswith("_") else label
            if new != label:
                saved.append((named, label))
                named.set_label(new)
    return saved


def translating(formatter: Any, tr: Translate) -> Any:
    """A matplotlib tick formatter that gives ``formatter``'s labels in ``tr``'s language.

    >>> from matplotlib.ticker import FixedFormatter
    >>> korean = translator_from({"knee": "무릎"})
    >>> translating(FixedFormatter(["knee", "2"]), korean).format_ticks([0, 1])
    ['무릎', '2']
    """
    from matplotlib.ticker import Formatter

    class Translating(Formatter):
        def __call__(self, x: Any, pos: Any = None) -> str:
            return translated_text(formatter(x, pos), tr)

        def format_ticks(self, values: Any) -> list[str]:
            labels = formatter.format_ticks(values)
            return [translated_text(label, tr) if label else label for label in labels]

        # The rest of what an axis asks its formatter, as the formatter answers it.
        def set_locs(self, locs: Any) -> None:
            formatter.set_locs(locs)

        def get_offset(self) -> str:
            return str(formatter.get_offset())

        def format_data(self, value: Any) -> str:
            return str(formatter.format_data(value))

        def format_data_short(self, value: Any) -> str:
            return str(formatter.format_data_short(value))

    return Translating()


def figure_png(figure: Any) -> bytes:
    """``figure`` as the notebook's inline backend saves it (PNG, tight bounding box)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def translations(figure: Any, translators: Mapping[str, Translate]) -> dict[str, dict[str, Any]]:
    """``figure`` in each language of ``translators``, by language: its PNG (``"png"``, base64), the
    texts it shows (``"texts"``, which a reader's test can read) and its alt text's sentences
    (:data:`rooflinekit.alt_text.ALT_KEY`), read from this drawing, its words in the language."""
    from matplotlib import font_manager
    from matplotlib.text import Text

    drawn = {}
    for language, tr in translators.items():
        font = next((f for f in FONTS.get(language, ()) if _font_exists(font_manager, f)), None)
        with in_language(figure, tr, font):
            png = base64.b64encode(figure_png(figure)).decode("ascii")
            # after the drawing, which wrote the tick labels again: the texts the PNG shows
            texts = [t.get_text() for t in figure.findobj(Text) if t.get_text() and t.get_visible()]
            alt = [sentence.to_data() for sentence in describe(figure)]  # read from this drawing
            drawn[language] = {"png": png, "texts": texts, ALT_KEY: alt}
    return drawn


def markdown_translations(shown: Table | Composed, translators: Mapping[str, Translate]) -> dict[str, Any]:
    """``shown``'s Markdown in each language of ``translators`` where its messages make it differ
    from the English, by language (``{"markdown": ...}``).

    >>> from rooflinekit.words import message, translator_from
    >>> table = Table(["kind"], [[message("estimate")]])
    >>> korean, french = translator_from({"estimate": "추정치"}), translator_from({})
    >>> markdown_translations(table, {"ko": korean, "fr": french})
    {'ko': {'markdown': '| kind |\\n| :--- |\\n| 추정치 |'}}
    """
    english = shown.to_markdown()
    drawn = {language: shown.translated(tr).to_markdown() for language, tr in translators.items()}
    return {language: {"markdown": text} for language, text in drawn.items() if text != english}


def _font_exists(font_manager: Any, name: str) -> bool:
    return any(entry.name == name for entry in font_manager.fontManager.ttflist)


def install(translators: Mapping[str, Translate] | None = None) -> bool:
    """In an IPython kernel, make each displayed matplotlib figure carry its PNG, and each displayed
    table its Markdown, in every language of :data:`VARIABLE` (a figure's through
    :mod:`rooflinekit.figure_display`, beside its other metadata); whether it did (no kernel, or no
    language, does nothing)."""
    chosen = languages() if translators is None else dict(translators)
    ipython = sys.modules.get("IPython")  # a kernel has it loaded; the library never imports it
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or not chosen:
        return False
    contribute("figure_languages", lambda figure: {METADATA_KEY: translations(figure, chosen)})

    def markdown(shown: Table | Composed) -> str | tuple[str, dict[str, Any]]:
        translated = markdown_translations(shown, chosen)
        return (shown.to_markdown(), {METADATA_KEY: translated}) if translated else shown.to_markdown()

    for kind in (Table, Composed):
        shell.display_formatter.formatters["text/markdown"].for_type(kind, markdown)
    return True
