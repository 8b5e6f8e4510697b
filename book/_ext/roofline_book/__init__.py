"""Sphinx extension of the roofline course's book (loaded through _config.yml).

- ``{eval}`glued.<name>` ``: the text a chapter glued as ``<name>`` (rooflinekit.glue), pasted as
  myst-nb's ``{glue:text}`` pastes it. In JupyterLab, jupyterlab-myst evaluates the same inline
  expression in the chapter's kernel, so the prose reads the same there. (myst-nb's own ``eval``
  role needs a kernel while the page is read, which the cached execution the site uses has not.)
  A glued message (words the code composed, rooflinekit.words) shows in a translated edition
  in its language: its template translated (:mod:`roofline_book.computed`), the values the same.
- ``{exercise-list}``: a table of the released student notebooks in ``exercises/`` with
  their graded parts, points and download links (see :mod:`roofline_book.exercises`).
- Checks at start-up that the vendored browser assets exist (``make book`` creates them),
  so a build never silently falls back to a CDN.
- Turns pydata-sphinx-theme's header navbar off, as sphinx-book-theme means to. Since
  pydata-sphinx-theme 0.17.1 the navbar comes back unless ``navbar_persistent`` is set
  (sphinx-book-theme issue 988): it adds a second search field above the page and hidden
  copies of the sidebar toggles, and the theme's script then wires the hidden toggle, so the
  visible one does nothing and the navigation cannot be opened on a narrow screen.
- Rebuilds when only a static file changed (book/_static, book/_extra): Sphinx copies them
  only after writing some page, and with no page out of date it writes none, so a changed
  stylesheet would never reach the site.
- Drops repeated inline scripts from pages. Extensions that add a script in a build event
  (sphinx-togglebutton) get it twice under Sphinx 7.4; a ``const`` declared twice would be a
  JavaScript error on every page.
- The course's public home is one setting, ``repository.url`` in _config.yml, an address on
  any host (:mod:`roofline_book.home`). Until it is set the repository, issues, edit and launch
  buttons are turned off (they would lead to a page that does not exist), and the tag
  ``course_home`` is not set, so ``{only} course_home`` blocks stay out of the pages. The
  ``.ipynb`` download of a chapter, which sphinx-book-theme offers only with launch buttons, is
  offered either way.
- The editions (English, Korean) and Korean search: :mod:`roofline_book.editions`; a translated
  edition's downloads in its language: :mod:`roofline_book.downloads`; its launch buttons open
  the page in its language: :mod:`roofline_book.launch`.
- Controls named by what they show (axe-core's WCAG 2.1 A and AA rules):
  :mod:`roofline_book.accessibility`; every figure a cell drew says what it shows, in the page's
  language: :mod:`roofline_book.figures`.
"""

from __future__ import annotations

import filecmp
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from myst_nb.core.variables import RetrievalError, create_warning
from myst_nb.ext.glue.roles import PasteTextRole
from myst_nb.ext.glue.utils import retrieve_glue_data
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

from roofline_book import accessibility, computed, downloads, editions, figures, guide_tables, home, launch
from roofline_book.exercises import find_exercises, in_language, listing_markdown, name_pieces
from rooflinekit.errors import RooflineInputError
from rooflinekit.glue import MESSAGE_MIME
from rooflinekit.words import Message

VENDORED = ("vendor/require.js", "vendor/html-manager/embed-amd.js", "vendor/mathjax/tex-mml-chtml.js")


class ExerciseList(SphinxDirective):
    """Lists ``exercises/*/*.ipynb`` (the nbgrader release directory) as a table; a translated
    edition links the notebooks of its own language's release."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        root = Path(self.env.srcdir)
        exercises = in_language(root, find_exercises(root), self.env.config.language or "en")
        for ex in exercises:
            self.env.note_dependency(str(root / (ex.download or ex.path)))
        _listing_docs(self.env).add(self.env.docname)
        container = nodes.container(classes=["exercise-list"])
        lines = StringList(listing_markdown(exercises).splitlines(), source=self.env.docname)
        self.state.nested_parse(lines, self.content_offset, container)
        for download in container.findall(addnodes.download_reference):
            for literal in list(download.findall(nodes.literal)):
                _breakable(literal)
        return [container]


def _breakable(literal: nodes.literal) -> None:
    """A file name shown in ``literal`` that breaks only between its pieces (``<wbr>``)."""
    pieces = name_pieces(literal.astext())
    literal.children = []
    for number, piece in enumerate(pieces):
        if number:
            literal += nodes.raw("", "<wbr>", format="html")
        literal += nodes.Text(piece)


def _listing_docs(env: BuildEnvironment) -> set[str]:
    """Documents that use ``{exercise-list}`` (kept in the pickled environment)."""
    if not hasattr(env, "roofline_book_listing_docs"):
        env.roofline_book_listing_docs = set()  # type: ignore[attr-defined]
    docs: set[str] = env.roofline_book_listing_docs  # type: ignore[attr-defined]
    return docs


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _listing_docs(env).discard(docname)


def _merge(
    app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment
) -> None:
    _listing_docs(env).update(_listing_docs(other))


def _refresh_listing(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Re-read the listing when notebooks appear or vanish (a new file has no dependency yet)."""
    current = [ex.docname for ex in find_exercises(Path(env.srcdir))]
    previous = getattr(env, "roofline_book_exercises", None)
    env.roofline_book_exercises = current  # type: ignore[attr-defined]
    if previous is not None and previous != current:
        return sorted(_listing_docs(env))
    return []


def stale_copies(sources: Path, copies: Path) -> list[Path]:
    """Files under ``sources`` whose copy under ``copies`` is missing or differs.

    >>> import tempfile
    >>> here, there = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    >>> _ = (here / "a.css").write_text("a {}"); _ = (there / "a.css").write_text("a {}")
    >>> _ = (here / "b.css").write_text("b {}")
    >>> [p.name for p in stale_copies(here, there)]
    ['b.css']
    """
    return sorted(
        path for path in sources.rglob("*")
        if path.is_file() and not (
            (copy := copies / path.relative_to(sources)).is_file() and filecmp.cmp(path, copy, shallow=False)
        )
    )


def _static_changed(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """The root page when a static or extra file changed, so that Sphinx copies them again."""
    if app.builder.format != "html":
        return []
    root, out = Path(app.confdir), Path(app.outdir)
    pairs = [(root / p, out / "_static") for p in app.config.html_static_path]
    pairs += [(root / p, out) for p in app.config.html_extra_path]
    if any((out / "_static").is_dir() and stale_copies(src, dst) for src, dst in pairs if src.is_dir()):
        return [app.config.root_doc]
    return []


def _check_vendored(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    for static in app.config.html_static_path:
        base = Path(app.confdir) / static
        if all((base / name).is_file() for name in VENDORED):
            return
    raise ExtensionError(
        "vendored browser assets are missing (book/_static/vendor): build with `make book`, "
        "which runs `npm ci` and tools/vendor_assets.py"
    )


def _no_header_navbar(app: Sphinx, config: Any) -> None:
    config.html_theme_options.setdefault("navbar_persistent", [])


def _notebook_download(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Offer the executed notebook of a MyST notebook page as ``.ipynb`` (the theme's download
    button lists it when ``ipynb_source`` is in the page's context)."""
    executed = editions.executed_notebooks(app) / f"{pagename}.ipynb"
    if context.get("page_source_suffix") != ".md" or not executed.is_file() or context.get("ipynb_source"):
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def _dedupe_scripts(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen: set[tuple[str, str]] = set()
    kept = []
    for script in scripts:
        attributes = getattr(script, "attributes", {})
        key = (str(getattr(script, "filename", "") or ""), repr(sorted(attributes.items())))
        if key in seen:
            continue
        seen.add(key)
        kept.append(script)
    scripts[:] = kept


GLUED = "glued."


class GluedText(PasteTextRole):  # type: ignore[misc]  # myst-nb has no type hints
    """``{eval}`glued.<name>` ``: the text glued as ``<name>``; any other expression is a warning
    (the build fails on warnings)."""

    text: str
    """The role's text (docutils' SphinxRole sets it)."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        if not self.text.startswith(GLUED) or not self.text[len(GLUED) :].isidentifier():
            warning = create_warning(
                f"{{eval}}`{self.text}`: the book's eval role shows glued texts only, "
                f"as {{eval}}`{GLUED}<name>` with <name> glued in a code cell (rooflinekit.glue)",
                self.document,
                self.line,
                subtype="eval",
            )
            return [], [warning]
        self.text = self.text[len(GLUED) :]
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


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("myst_nb")  # its own eval role first, so that this one replaces it
    app.add_role("eval", GluedText(), override=True)
    app.add_directive("exercise-list", ExerciseList)
    app.connect("config-inited", _no_header_navbar)
    app.connect("html-page-context", _notebook_download, priority=500)  # before the theme's buttons
    app.connect("builder-inited", _check_vendored)
    app.connect("env-get-outdated", _refresh_listing)
    app.connect("env-get-outdated", _static_changed)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    editions.setup(app)
    accessibility.setup(app)
    downloads.setup(app)
    launch.setup(app)
    home.setup(app)
    figures.setup(app)
    guide_tables.setup(app)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
