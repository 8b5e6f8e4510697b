"""A page's downloads in its edition's language.

sphinx-book-theme's download button offers a page's source (``_sources/<page>.md`` or ``.ipynb``,
which Sphinx copies from the English source after writing the page) and, for a MyST notebook, its
executed notebook (``_sources/<page>.ipynb``, which :func:`_notebook_download` puts there: the
theme offers it only with launch buttons, and this offers it either way). In a translated edition
they are replaced by the page in that language, as the page itself reads:

- an exercise's notebook by its release in that language (``exercises/<lang>/<assignment>/``,
  which ``make exercises`` writes): the very notebook the edition's exercises table links
  (:func:`roofline_book.exercises.in_language`), so the page's two routes give one file;
- a MyST page (a chapter) by the page with its prose from the page's catalog, and its executed
  notebook by the same notebook with its Markdown cells translated likewise, code and outputs
  unchanged. tools/chapter_translations.py does both, as it writes the chapters ``make lab``
  opens; a sentence the catalog lacks stays in English, as it does on the page.

Sphinx copies a page's source after the ``html-page-context`` event, so the translated files are
written at ``build-finished``, over the copies of the pages written in this build. An exercise's
page depends on its translated release (a new release rewrites the page, and so its download);
a page depends on its catalog already (Sphinx's own i18n).
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from roofline_book.editions import PRIMARY, edition, executed_notebooks
from roofline_book.exercises import EXERCISES_DIR, release_in
from roofline_book.translations import catalog_path


@dataclass(frozen=True)
class Download:
    """A page written in this build and what its download button offers."""

    pagename: str
    source: str
    """The source's name under ``_sources/`` (Sphinx's ``sourcename``)."""
    notebook: str | None
    """The executed notebook's name under ``_sources/``, if the page offers one."""


def exercise_release(root: Path, source: Path, language: str) -> Path | None:
    """The release in ``language`` of the exercise notebook ``source`` (a page's source file),
    or None when ``source`` is no exercise or has no such release.

    >>> exercise_release(Path("."), Path("book/intro.md"), "ko") is None
    True
    """
    relative = source.resolve().relative_to(root.resolve()) if source.is_absolute() else source
    if relative.suffix != ".ipynb" or relative.parts[0] != EXERCISES_DIR or len(relative.parts) != 3:
        return None
    release = root / release_in(relative, language)
    return release if release.is_file() else None


def chapter_translations(root: Path) -> Any:
    """tools/chapter_translations.py, which writes a page's prose from its catalog."""
    tools = str(root / "tools")
    if tools not in sys.path:
        sys.path.append(tools)
    import chapter_translations

    return chapter_translations


def _pending(app: Sphinx) -> list[Download]:
    if not hasattr(app.builder, "roofline_downloads"):
        app.builder.roofline_downloads = []  # type: ignore[attr-defined]
    pending: list[Download] = app.builder.roofline_downloads  # type: ignore[attr-defined]
    return pending


def _note_page(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if edition(app.config.language) == PRIMARY or not context.get("sourcename") or doctree is None:
        return
    _pending(app).append(Download(pagename, context["sourcename"], context.get("ipynb_source") or None))


def _note_release(app: Sphinx, doctree: nodes.document) -> None:
    language = edition(app.config.language)
    if language == PRIMARY:
        return
    release = exercise_release(Path(app.srcdir), Path(app.env.doc2path(app.env.docname)), language)
    if release is not None:
        app.env.note_dependency(str(release))


def write_translated(app: Sphinx, download: Download, language: str) -> None:
    """Replace the English copies of ``download`` under ``_sources/`` by the page in ``language``."""
    root, out = Path(app.srcdir), Path(app.outdir) / "_sources"
    source = Path(app.env.doc2path(download.pagename))
    release = exercise_release(root, source, language)
    if release is not None:
        shutil.copyfile(release, out / download.source)
        return
    catalog = catalog_path(root, language, download.pagename)
    if source.suffix != ".md" or not catalog.is_file():
        return
    tool = chapter_translations(root)
    (out / download.source).write_text(tool.translate_page(source, catalog, strict=False), encoding="utf-8")
    executed = _english_notebook(app, download)
    if download.notebook is not None and executed.is_file():
        notebook = json.loads(executed.read_text(encoding="utf-8"))
        translated = tool.translate_notebook_prose(notebook, catalog, strict=False)
        text = json.dumps(translated, indent=1, ensure_ascii=False) + "\n"
        (out / download.notebook).write_text(text, encoding="utf-8")


def _english_notebook(app: Sphinx, download: Download) -> Path:
    """The executed notebook the English edition offers for the page (its code and outputs, which
    the translation keeps): the English site's copy, written when the English build wrote the page
    (the translation's own build may rewrite the shared executed notebook, without its execution
    counts); the executed notebook itself when the English site has none."""
    english = Path(app.outdir).parent / "_sources" / (download.notebook or f"{download.pagename}.ipynb")
    return english if english.is_file() else executed_notebooks(app) / f"{download.pagename}.ipynb"


def _write_translations(app: Sphinx, exception: Exception | None) -> None:
    language = edition(app.config.language)
    if exception is not None or language == PRIMARY or app.builder.format != "html":
        return
    for download in _pending(app):
        write_translated(app, download, language)
    _pending(app).clear()


def _notebook_download(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Offer the executed notebook of a MyST notebook page as ``.ipynb`` (the theme's download
    button lists it when ``ipynb_source`` is in the page's context)."""
    executed = executed_notebooks(app) / f"{pagename}.ipynb"
    if context.get("page_source_suffix") != ".md" or not executed.is_file() or context.get("ipynb_source"):
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def setup(app: Sphinx) -> None:
    app.connect("html-page-context", _notebook_download, priority=500)  # before the theme's buttons
    app.connect("html-page-context", _note_page, priority=950)
    app.connect("doctree-read", _note_release)
    app.connect("build-finished", _write_translations)
