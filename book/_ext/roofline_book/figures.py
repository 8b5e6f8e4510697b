"""Every figure a chapter's code drew says what it shows, in the page's language: its ``<img alt>``.

myst-nb writes a cell's image to a file named by the SHA-256 of its bytes and gives the ``<img>``
no alt text of its own (docutils then puts the file's path there: a screen reader would read out
a hash). A figure shown in a notebook where rooflinekit is imported carries its description in
its output's metadata (:mod:`rooflinekit.alt_text`, read from the figure as drawn); this
post-transform finds each image's output in the page's executed notebook by that SHA-256 and
writes the description into the image, composed in the edition's language from the code's
catalog (``computed.po``, :mod:`roofline_book.computed`), the figure's own names and notes as
drawn. In a translated edition an image shows the figure drawn in the edition's language
(:class:`roofline_book.editions.TranslatedFigures`); its description is the one read from that
drawing (:mod:`rooflinekit.figure_languages` keeps it beside it), so the labels, legends and notes a
screen reader hears are the drawing's own, in the edition's language, never the English ones.

An image of a cell's output with no description is a warning, so the build fails: no figure
reaches the site without words.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from roofline_book import computed
from roofline_book.editions import DRAWN_FROM, FIGURE_TRANSLATIONS, PRIMARY, edition, executed_notebooks
from rooflinekit.alt_text import ALT_KEY, alt_in
from rooflinekit.figure_display import IMAGE_TYPES
from rooflinekit.words import english

LOGGER = logging.getLogger(__name__)


def descriptions(notebook: dict[str, Any], language: str = PRIMARY) -> dict[str, list[Any]]:
    """The alt text's sentences of every image output of ``notebook`` (a notebook's JSON), by the
    SHA-256 of the image's bytes (myst-nb's name for its file); for another ``language``, those
    of the image's drawing in that language (still by the English image's SHA-256, the name
    :data:`DRAWN_FROM` keeps), for the images that have one.

    >>> image = base64.b64encode(b"png").decode()
    >>> output = {"output_type": "display_data", "data": {"image/png": image},
    ...           "metadata": {"image/png": {ALT_KEY: [{"template": "A chart.", "values": {}}]}}}
    >>> found = descriptions({"cells": [{"cell_type": "code", "outputs": [output]}]})
    >>> found[hashlib.sha256(b"png").hexdigest()]
    [{'template': 'A chart.', 'values': {}}]
    >>> descriptions({"cells": [{"cell_type": "code", "outputs": [output]}]}, "ko")
    {}
    """
    found: dict[str, list[Any]] = {}
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            for kind in IMAGE_TYPES:
                data, about = output.get("data", {}).get(kind), output.get("metadata", {}).get(kind, {})
                if language != PRIMARY:
                    about = about.get(FIGURE_TRANSLATIONS, {}).get(language, {})
                if data is None or ALT_KEY not in about:
                    continue
                text = "".join(data) if isinstance(data, list) else data
                raw = text.encode("utf-8") if kind == "image/svg+xml" else base64.b64decode(text)
                found[hashlib.sha256(raw).hexdigest()] = about[ALT_KEY]
    return found


class FigureAltText(SphinxPostTransform):
    """Writes each cell image's description into its ``alt`` (see the module's docstring)."""

    default_priority = 100  # after myst-nb's choice of one output among an output's types (4)
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        images = [image for image in self.document.findall(nodes.image) if _from_a_cell(image)]
        if not images:
            return
        executed = executed_notebooks(self.app) / f"{self.env.docname}.ipynb"
        notebook = json.loads(executed.read_text(encoding="utf-8")) if executed.is_file() else {}
        language = edition(self.config.language)
        translate = english if language == PRIMARY else computed.translator(Path(self.env.srcdir), language)
        # an image swapped for the figure drawn in the edition's language is described from that drawing
        known, drawn = descriptions(notebook), descriptions(notebook, language)
        for image in images:
            name = image.get(DRAWN_FROM)
            sentences = drawn.get(name) if name else known.get(Path(image["uri"]).stem)
            if sentences is None:
                LOGGER.warning(
                    "a figure of a cell's output has no alt text: show it in a notebook that imports "
                    "rooflinekit, whose figures carry what they show, in each language they are drawn "
                    "in (rooflinekit.alt_text, rooflinekit.figure_languages)",
                    location=image, type="roofline", subtype="alt",
                )
                continue
            image["alt"] = alt_in(sentences, translate)


def _from_a_cell(image: nodes.image) -> bool:
    """An image myst-nb wrote from a cell's output: its file is named by a SHA-256."""
    stem = Path(str(image.get("uri", ""))).stem
    return len(stem) == 64 and all(c in "0123456789abcdef" for c in stem)


def _catalog_dependency(app: Sphinx, doctree: nodes.document) -> None:
    """A translated page with a cell's image is written again when the code's catalog changes."""
    language = edition(app.config.language)
    if language != PRIMARY and any(_from_a_cell(image) for image in doctree.findall(nodes.image)):
        app.env.note_dependency(str(computed.catalog_path(Path(app.srcdir), language)))


def setup(app: Sphinx) -> None:
    app.add_post_transform(FigureAltText)
    app.connect("doctree-read", _catalog_dependency)
