"""A page's launch buttons open the page in its edition's language.

sphinx-book-theme's launch buttons (Binder, a JupyterHub, Colab; on once ``repository.url`` is
set) open the page's source file in the repository, and a translated edition is built from the
English sources: its buttons would open the English notebook. In a translated edition they open
the page in that language instead:

- an exercise's notebook by its release in that language (``exercises/<lang>/<assignment>/``,
  which ``make exercises`` writes and the repository holds): every launch button;
- a chapter by the chapter with its prose from the page's catalog, which
  tools/chapter_translations.py writes into ``locale/<lang>/chapters/`` (git ignores it): Binder
  alone, because Binder runs ``binder/postBuild``, which writes those chapters; a JupyterHub's
  nbgitpuller and Colab take the repository as it is, so they keep the English chapter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from roofline_book.downloads import chapter_translations, exercise_release
from roofline_book.editions import PRIMARY, edition


def translated_source(root: Path, source: Path, language: str) -> tuple[str, bool] | None:
    """The page ``source`` (its source file) in ``language`` as a path in the repository, and
    whether the repository holds it (else Binder's build writes it); None if there is none.

    >>> translated_source(Path("."), Path("book/intro.md"), "ko") is None
    True
    """
    relative = source.resolve().relative_to(root.resolve()) if source.is_absolute() else source
    release = exercise_release(root, relative, language)
    if release is not None:
        return release.resolve().relative_to(root.resolve()).as_posix(), True
    tool = chapter_translations(root)
    chapters = Path(tool.CHAPTERS)
    if relative.parent != chapters or relative.suffix != ".md":
        return None
    if not tool.chapter_catalog(relative.stem, language, root).is_file():
        return None
    return f"{tool.chapters_folder(language)}/{relative.name}", False


LAUNCH_GROUP = "launch-buttons"
"""The label of sphinx-book-theme's group of launch buttons among a page's header buttons (the
download buttons, which :mod:`roofline_book.downloads` handles, are another group)."""


def retarget(buttons: list[dict[str, Any]], english: str, translated: str, *, binder_only: bool) -> None:
    """Point the launch buttons among ``buttons`` (the theme's header buttons) at ``translated``
    instead of the English source ``english`` (both paths in the repository).

    >>> buttons = [{"type": "group", "label": "download-buttons", "buttons": [
    ...     {"text": ".ipynb", "url": "../_sources/a/x.md"}]},
    ...     {"type": "group", "label": LAUNCH_GROUP, "buttons": [
    ...     {"text": "Binder", "url": "https://mybinder.org/v2/gh/o/r/main?urlpath=lab/tree/a/x.md"},
    ...     {"text": "JupyterHub", "url": "https://hub/hub/user-redirect/git-pull?urlpath=lab/tree/r/a/x.md&branch=main"}]}]
    >>> retarget(buttons, "a/x.md", "b/x.md", binder_only=True)
    >>> [b["url"].split("urlpath=")[1] for b in buttons[1]["buttons"]], buttons[0]["buttons"][0]["url"]
    (['lab/tree/b/x.md', 'lab/tree/r/a/x.md&branch=main'], '../_sources/a/x.md')
    """
    for group in buttons:
        if group.get("label") != LAUNCH_GROUP or not isinstance(group.get("buttons"), list):
            continue
        for button in group["buttons"]:
            url = button.get("url")
            if not isinstance(url, str) or (binder_only and button.get("text") != "Binder"):
                continue
            button["url"] = url.replace(f"/{english}", f"/{translated}", 1)


def _translate_launch(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    language = edition(app.config.language)
    if language == PRIMARY or not context.get("header_buttons"):
        return
    root = Path(app.srcdir)
    source = Path(app.env.doc2path(pagename))
    found = translated_source(root, source, language)
    if found is None:
        return
    translated, committed = found
    english = source.resolve().relative_to(root.resolve()).as_posix()
    retarget(context["header_buttons"], english, translated, binder_only=not committed)


def setup(app: Sphinx) -> None:
    app.connect("html-page-context", _translate_launch, priority=510)  # after the theme's (501)
