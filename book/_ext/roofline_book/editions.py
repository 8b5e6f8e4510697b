"""The book's editions: English at the site's root, each translation under ``/<lang>/``.

tools/build_book.py builds each translation from the same sources and the same execution
cache with Sphinx's ``language`` set; the translated prose comes from gettext catalogs
(roofline_book.translations). This module, loaded in every edition, adds

- a language switcher in each page's header (and ``<link rel="alternate" hreflang>``), to the
  same page in the other edition;
- on a page the manifest does not call translated, a notice in the edition's language that it
  is shown in English;
- cell outputs stay out of the catalogs: they are computed, so a translation never repeats a
  number (markdown a cell displays would otherwise be a translatable paragraph); but a figure's
  caption (written in the page, in the cell's metadata) and a table's headings without a number
  (the words of the code that drew it) are translated with the page;
- the words the code composed in a cell's output, in the edition's language: a figure drawn in
  it (:class:`TranslatedFigures`) and a table's messages (:class:`TranslatedMarkdown`), both
  made by the chapter's kernel (rooflinekit.figure_languages) and kept in the executed notebook;
- glue in translated sentences: Sphinx parses a translation in a document of its own, where
  myst-nb finds no notebook to paste ``{glue:}`` values from; the notebook of the page being
  translated is handed over, so a translated sentence shows the very values the English one does;
- the table of contents' captions translated (they arrive after Sphinx's i18n);
- the site's title (each page's ``<title>``, the sidebar's heading) translated: it is the root
  page's heading (_config.yml's ``title`` and book/intro.md's first line say the same), so its
  translation is in the root page's catalog (:func:`site_title`);
- executed notebooks go to the English build's ``jupyter_execute`` (the same outputs), not
  inside the site, and hold their outputs even when these came from the execution cache.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
from docutils import nodes
from myst_nb.sphinx_ import Parser as NotebookParser
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.locale import init as init_locale
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.i18n import docname_to_domain

from roofline_book.code_catalogs import BOOK_EXTENSION
from roofline_book.search_ko import SearchKorean
from roofline_book.translations import catalog_path, manifest_path, read_manifest
from rooflinekit.languages import ENGLISH, LANGUAGES
from rooflinekit.words import N_, catalog_translations, translator_from

PRIMARY = ENGLISH.code
EDITIONS = {each.code: each.name for each in LANGUAGES}
"""Each edition's language code and its name in its own language (rooflinekit.languages); the
primary one is at the root."""

NOT_TRANSLATED = N_("This page is not translated yet: below is its English original. Its numbers and "
                    "figures are computed by the same code as those of the translated pages.")
"""The notice on a page not yet translated, shown in the edition's language (BOOK_EXTENSION's catalog)."""

logger = logging.getLogger(__name__)

SEARCH_FIELD = N_("Search this book...")
"""The search field's placeholder: Jupyter Book sets it in English, the theme does not translate it."""


def edition(language: str | None) -> str:
    return language if language in EDITIONS else PRIMARY


def counterpart(pagename: str, language: str, target: str) -> str:
    """The relative address, from ``pagename`` in ``language``, of the same page in ``target``.

    >>> counterpart("book/chapters/01-x", "en", "ko")
    '../../ko/book/chapters/01-x.html'
    >>> counterpart("book/chapters/01-x", "ko", "en")
    '../../../book/chapters/01-x.html'
    >>> counterpart("search", "ko", "en")
    '../search.html'
    """
    up = "../" * pagename.count("/") + ("" if language == PRIMARY else "../")
    prefix = "" if target == PRIMARY else f"{target}/"
    return f"{up}{prefix}{pagename}.html"


SWITCHER = N_("Language")
"""The language switcher's name, for a screen reader: the word in every edition's language."""


def switcher_label(root: Path) -> str:
    """The language switcher's name: :data:`SWITCHER` in each edition's language, each once, so that a
    reader of any edition knows it (from the catalogs of the book in ``root``).

    >>> switcher_label(Path(__file__).resolve().parents[3])
    'Language / 언어'
    """
    words = [BOOK_EXTENSION.translator(root, code)(SWITCHER) for code in EDITIONS]
    return " / ".join(dict.fromkeys(words))


def _switcher(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    current = edition(app.config.language)
    links = [
        (lang, label, counterpart(pagename, current, lang), lang == current)
        for lang, label in EDITIONS.items()
    ]
    context["roofline_editions"] = links
    context["roofline_editions_label"] = switcher_label(Path(app.srcdir))
    alternates = "".join(
        f'<link rel="alternate" hreflang="{lang}" href="{url}" />\n'
        for lang, _, url, here in links if not here
    )
    context["metatags"] = context.get("metatags", "") + alternates


def _header(app: Sphinx, config: Any) -> None:
    config.templates_path.append(str(Path(__file__).parent / "templates"))
    options = config.html_theme_options
    options.setdefault("article_header_end", ["language-switcher.html", "article-header-buttons.html"])
    language = edition(config.language)
    if language != PRIMARY:
        options["search_bar_text"] = BOOK_EXTENSION.translator(Path(app.srcdir), language)(SEARCH_FIELD)


def site_title(root: Path, language: str, title: str, root_doc: str) -> str:
    """The site's ``title`` in ``language``: its translation in the catalog of the root page, whose
    heading it is, or ``title`` itself where that catalog has none (as an untranslated sentence
    stays English on a page).

    >>> site_title(Path("."), "ko", "A course", "nowhere/page")
    'A course'
    """
    catalog = catalog_path(root, language, root_doc)
    return translator_from(catalog_translations(catalog))(title) if catalog.is_file() else title


def _site_title(app: Sphinx, config: Any) -> None:
    """The translated edition's ``html_title`` (after sphinx-external-toc has set ``root_doc``)."""
    language = edition(config.language)
    if language != PRIMARY and config.html_title:
        config.html_title = site_title(Path(app.srcdir), language, config.html_title, config.root_doc)


HEADING_NUMBER = re.compile(r"(?<![A-Za-z_\d])\d")
"""Digits that start a number, not the end of a name such as bf16, v5e or H100."""


def words_of_the_page(node: nodes.Element) -> bool:
    """Whether text in a cell's output is words to translate: a figure's caption, or a table's
    heading without a number (a number in a heading may be computed: it stays as it is).

    >>> words = ("bound", "bf16 peak", "whole 8192x8192x8192")
    >>> heading = nodes.thead("", nodes.row("", *(nodes.entry("", nodes.paragraph(text=w)) for w in words)))
    >>> [words_of_the_page(p) for p in heading.findall(nodes.paragraph)]
    [True, True, False]
    """
    if isinstance(node, nodes.caption):
        return True
    heading = isinstance(node, nodes.paragraph) and any(
        isinstance(parent, nodes.thead) for parent in _ancestors(node)
    )
    return heading and not HEADING_NUMBER.search(node.astext())


def _ancestors(node: nodes.Node) -> list[nodes.Node]:
    found = []
    while node.parent is not None:
        node = node.parent
        found.append(node)
    return found


class KeepOutputsUntranslated(SphinxTransform):
    """Marks cell outputs and display math not translatable (before Sphinx's i18n, priority 20),
    but for captions and table headings (:func:`words_of_the_page`)."""

    default_priority = 15

    def apply(self, **kwargs: Any) -> None:
        for output in self.document.findall(nodes.container):
            if "cell_output" not in output.get("classes", []):
                continue
            for text in output.findall(nodes.TextElement):
                if not words_of_the_page(text):
                    text["translatable"] = False
        for math in self.document.findall(nodes.math_block):
            math["translatable"] = False


FIGURE_TRANSLATIONS = "rooflinekit_translations"
"""An image output's metadata key with its drawing in each language (rooflinekit.figure_languages)."""


def translated_pngs(notebook: dict[str, Any], language: str) -> dict[str, bytes]:
    """The executed ``notebook``'s figures drawn in ``language``, by the SHA-256 of their English PNG
    (the name myst-nb gives the English one's file).

    >>> import base64, hashlib
    >>> drawn = {FIGURE_TRANSLATIONS: {"ko": {"png": base64.b64encode(b"ko").decode()}}}
    >>> out = {"output_type": "display_data", "data": {"image/png": base64.b64encode(b"en").decode()},
    ...        "metadata": {"image/png": drawn}}
    >>> notebook = {"cells": [{"cell_type": "code", "outputs": [out]}]}
    >>> list(translated_pngs(notebook, "ko").values()), translated_pngs(notebook, "fr")
    ([b'ko'], {})
    """
    import base64
    import hashlib

    found = {}
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            english = output.get("data", {}).get("image/png")
            drawn = output.get("metadata", {}).get("image/png", {}).get(FIGURE_TRANSLATIONS, {}).get(language)
            if english and drawn:
                found[hashlib.sha256(base64.b64decode(english)).hexdigest()] = base64.b64decode(drawn["png"])
    return found


DRAWN_FROM = "roofline_drawn_from"
"""An image's attribute, in a translated edition: the name of the English image it was drawn from."""


class TranslatedFigures(SphinxTransform):
    """In a translated edition, each figure a chapter drew shows its drawing in the edition's
    language where the executed notebook holds one: the image's file is swapped for it."""

    default_priority = 16

    def apply(self, **kwargs: Any) -> None:
        import hashlib

        language = edition(self.config.language)
        notebook = executed_notebook(self.env) if language != PRIMARY else None
        if notebook is None:
            return
        drawn = translated_pngs(notebook, language)
        for image in self.document.findall(nodes.image):
            uri = str(image.get("uri", ""))
            name = uri.rsplit("/", 1)[-1].removesuffix(".png")
            if name not in drawn or not uri.startswith("/"):
                continue
            content = drawn[name]
            english = Path(self.app.srcdir) / uri[1:]
            target = english.with_name(f"{hashlib.sha256(content).hexdigest()}.png")
            if not target.exists():
                target.write_bytes(content)
            image["uri"] = uri.rsplit("/", 1)[0] + "/" + target.name
            image[DRAWN_FROM] = name  # the English image's name, by which its alt text is found


def executed_notebook(env: Any) -> dict[str, Any] | None:
    """The page's executed notebook, outputs included: myst-nb's client holds it while the page is
    read (TranslationParser keeps it); the notebook myst-nb writes out has no outputs."""
    kept = env.temp_data.get("roofline_notebook")
    client = getattr(getattr(kept, "renderer", None), "md_options", {}).get("nb_client")
    notebook = getattr(client, "notebook", None)
    return dict(notebook) if notebook is not None else None


def translated_markdown(notebook: dict[str, Any], language: str) -> dict[tuple[int, int], str]:
    """The executed ``notebook``'s Markdown outputs in ``language`` (a table's messages translated:
    rooflinekit.figure_languages), by cell and place among the cell's displayed outputs.

    >>> words = {FIGURE_TRANSLATIONS: {"ko": {"markdown": "| 종류 |"}}}
    >>> table = {"output_type": "display_data", "data": {"text/markdown": "| kind |"},
    ...          "metadata": {"text/markdown": words}}
    >>> code = {"cell_type": "code", "outputs": [{"output_type": "stream"}, table]}
    >>> cells = [{"cell_type": "markdown"}, code]
    >>> translated_markdown({"cells": cells}, "ko"), translated_markdown({"cells": cells}, "fr")
    ({(1, 0): '| 종류 |'}, {})
    """
    found = {}
    for index, cell in enumerate(notebook.get("cells", [])):
        shown = [o for o in cell.get("outputs", []) if o.get("output_type") in DISPLAYED]
        for place, output in enumerate(shown):
            words = output.get("metadata", {}).get("text/markdown", {}).get(FIGURE_TRANSLATIONS, {})
            if language in words:
                found[(index, place)] = str(words[language]["markdown"])
    return found


DISPLAYED = ("display_data", "execute_result")
"""The outputs myst-nb shows as a bundle of formats (the others are text streams and errors)."""


class TranslatedMarkdown(SphinxTransform):
    """In a translated edition, a table a chapter displayed shows in the edition's language where
    the executed notebook holds it so: myst-nb rendered the English Markdown; the page's own
    renderer renders the translation in its place, with the English one's source and line. It runs
    before KeepOutputsUntranslated and Sphinx's i18n, so the table's headings are still translated
    from the page's catalog (and found there by the gettext builder, which skips text without a
    source)."""

    default_priority = 14

    def apply(self, **kwargs: Any) -> None:
        language = edition(self.config.language)
        notebook = executed_notebook(self.env) if language != PRIMARY else None
        wanted = translated_markdown(notebook, language) if notebook is not None else {}
        if not wanted:
            return
        for cell in self.document.findall(nodes.container):
            if cell.get("nb_element") != "cell_code" or not any(at[0] == cell["cell_index"] for at in wanted):
                continue
            bundles = [n for n in cell.findall(nodes.container) if n.get("nb_element") == "mime_bundle"]
            shown = [o for o in notebook["cells"][cell["cell_index"]].get("outputs", [])  # type: ignore[index]
                     if o.get("output_type") in DISPLAYED]
            if bundles and len(bundles) != len(shown):
                logger.warning(f"{self.env.docname}: cell {cell['cell_index']} shows {len(bundles)} of its "
                               f"{len(shown)} outputs; its tables stay in English", location=cell)
                continue
            for place, bundle in enumerate(bundles):
                text = wanted.get((cell["cell_index"], place))
                if text is not None:
                    self._replace(bundle, text, cell, place)

    def _replace(self, bundle: nodes.Element, text: str, cell: nodes.Element, place: int) -> None:
        from myst_nb.core.render import MimeData

        renderer = self.env.temp_data["roofline_notebook"]
        for box in bundle.findall(nodes.container):
            if box.get("mime_type") == "text/markdown":
                data = MimeData("text/markdown", text, cell_metadata=cell.get("cell_metadata", {}),
                                cell_index=cell["cell_index"], output_index=place, line=bundle.line)
                rendered = renderer.render_markdown(data)
                for node in (n for top in rendered for n in top.findall(nodes.Element)):
                    node.source, node.line = node.source or bundle.source, node.line or bundle.line
                del box[:]
                box.extend(rendered)


class _KeepsNotebook(dict):  # type: ignore[type-arg]
    """A document's attributes that keep myst-nb's notebook when myst-nb drops it after parsing."""

    kept: Any = None

    def pop(self, key: Any, *default: Any) -> Any:
        value = super().pop(key, *default)
        if key == "nb_renderer":
            self.kept = value
        return value


class TranslationParser(NotebookParser):  # type: ignore[misc]  # myst-nb has no type hints
    """myst-nb's parser; a translated sentence gets the notebook of the page it belongs to, and
    the executed notebook written beside the build holds the outputs.

    myst-nb keeps the executed notebook (``nb_renderer``, with its glue data) on the document
    only while it parses the page; Sphinx translates afterwards, parsing each translated
    sentence in a new document; the page's notebook waits in ``env.temp_data``, which Sphinx
    clears after each page.

    myst-nb writes the page's notebook to ``jupyter_execute/`` as it read it, which is without
    outputs when they came from the execution cache (a page whose code did not change): it is
    written again with its outputs (:func:`write_executed`), the notebook readers download and
    the figures' alt texts are read from (:mod:`roofline_book.figures`).
    """

    def parse(self, inputstring: str, document: nodes.document) -> None:
        settings = document.settings
        if str(document.current_source).endswith("<translated>"):
            notebook = settings.env.temp_data.get("roofline_notebook")
            if notebook is not None:
                document["nb_renderer"] = notebook
            try:
                super().parse(inputstring, document)
            finally:
                document.attributes.pop("nb_renderer", None)  # the page's doctree is pickled
            return
        document.attributes = _KeepsNotebook(document.attributes)
        try:
            super().parse(inputstring, document)
        finally:
            kept = document.attributes.kept
            document.attributes = dict(document.attributes)
        write_executed(settings.env.docname, kept)
        if edition(settings.env.config.language) != PRIMARY:
            settings.env.temp_data["roofline_notebook"] = kept


def write_executed(docname: str, renderer: Any) -> None:
    """``jupyter_execute/<docname>.ipynb`` written with the outputs of the notebook myst-nb
    rendered (``renderer``: its element renderer, kept from the page's parse; None for a page
    that is no notebook)."""
    options = getattr(getattr(renderer, "renderer", None), "md_options", None) or {}
    client = options.get("nb_client")
    notebook = getattr(client, "notebook", None)
    if notebook is None:
        return
    path = docname.split("/")
    written = nbformat.writes(notebook).encode("utf-8")  # type: ignore[no-untyped-call]
    renderer.write_file([*path[:-1], f"{path[-1]}.ipynb"], written, overwrite=True)


def _not_translated_notice(app: Sphinx, doctree: nodes.document) -> None:
    language = edition(app.config.language)
    if language == PRIMARY:
        return
    env = app.env
    root = Path(app.srcdir)
    env.note_dependency(str(manifest_path(root, language)))
    page = read_manifest(root, language).get(env.docname)
    if page is not None and page.translated:
        return
    tr = BOOK_EXTENSION.translator(root, language)
    notice = nodes.admonition(classes=["note", "rk-not-translated"])
    notice += nodes.title(text=tr("Not translated"))
    notice += nodes.paragraph(text=tr(NOT_TRANSLATED))
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is not None and section.children and isinstance(section[0], nodes.title):
        section.insert(1, notice)
    else:
        doctree.insert(0, notice)


def _translate_captions(app: Sphinx, doctree: nodes.document) -> None:
    """Translates the captions of the table of contents (the sidebar's part titles).

    sphinx-external-toc inserts the toctrees after Sphinx's i18n has run, so their captions,
    which the gettext builder does collect from the root page, need the page's catalog here.
    """
    if edition(app.config.language) == PRIMARY:
        return
    toctrees = [t for t in doctree.findall(addnodes.toctree) if t.get("caption")]
    if not toctrees:
        return
    dirs = [str(Path(app.srcdir) / d) for d in app.config.locale_dirs]
    domain = docname_to_domain(app.env.docname, app.config.gettext_compact)
    catalog, found = init_locale(dirs, app.config.language, domain)
    if found:
        for toctree in toctrees:
            toctree["caption"] = catalog.gettext(toctree["caption"])


def _shared_outputs(app: Sphinx) -> None:
    """A translation writes executed notebooks where the English build does (same outputs)."""
    if edition(app.config.language) == PRIMARY or not hasattr(app.env, "mystnb_config"):
        return
    english = Path(app.doctreedir).parent / "jupyter_execute"  # _build/, as the English build
    app.env.mystnb_config = app.env.mystnb_config.copy(output_folder=str(english.resolve()))


def executed_notebooks(app: Sphinx) -> Path:
    """Where myst-nb writes this build's executed notebooks."""
    config = getattr(app.env, "mystnb_config", None)
    folder = getattr(config, "output_folder", "") if config is not None else ""
    return Path(folder) if folder else Path(app.outdir).parent / "jupyter_execute"


def setup(app: Sphinx) -> None:
    app.add_search_language(SearchKorean)
    app.add_css_file("editions.css")
    app.connect("config-inited", _header)
    app.connect("config-inited", _site_title, priority=900)
    app.connect("builder-inited", _shared_outputs, priority=600)  # after myst-nb sets its own
    app.connect("html-page-context", _switcher)
    app.connect("doctree-read", _not_translated_notice)
    app.connect("doctree-read", _translate_captions)
    app.add_transform(KeepOutputsUntranslated)
    app.add_transform(TranslatedFigures)
    app.add_transform(TranslatedMarkdown)
    app.add_source_parser(TranslationParser, override=True)
