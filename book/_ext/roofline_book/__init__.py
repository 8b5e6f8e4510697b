"""Sphinx extension of the roofline course's book (loaded through _config.yml): its ``setup`` alone,
which sets up each part, one job a module.

- ``{eval}`glued.<name>` ``, the text a chapter glued, in the edition's language:
  :mod:`roofline_book.glued`;
- ``{exercise-list}``, the released exercises with their parts, points and downloads:
  :mod:`roofline_book.exercise_list` (the exercises read by :mod:`roofline_book.exercises`);
- the vendored browser assets checked at start-up, and a changed static file copied to the site:
  :mod:`roofline_book.static_files`;
- two fixes of the theme's pages (no header navbar, no script twice): :mod:`roofline_book.theme`;
- the editions (one for each language of rooflinekit.languages) and Korean search:
  :mod:`roofline_book.editions`; a page's downloads (its executed notebook; in a translated
  edition, in its language): :mod:`roofline_book.downloads`; a translated page's launch buttons
  open the page in its language: :mod:`roofline_book.launch`;
- the course's public home, one setting (``repository.url`` in _config.yml), and the buttons that
  lead there: :mod:`roofline_book.home`;
- controls named by what they show (axe-core's WCAG 2.1 A and AA rules):
  :mod:`roofline_book.accessibility`; every figure a cell drew says what it shows, in the page's
  language: :mod:`roofline_book.figures`.

The other modules are no part of their own: the parts and the tools use them.

>>> import importlib, pkgutil
>>> [m.name for m in pkgutil.iter_modules(__path__)
...  if not hasattr(importlib.import_module(f"roofline_book.{m.name}"), "setup")]
['code_catalogs', 'computed', 'exercises', 'search_ko', 'translations']
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

from roofline_book import (
    accessibility,
    downloads,
    editions,
    exercise_list,
    figures,
    glued,
    guide_tables,
    home,
    launch,
    static_files,
    theme,
)


def setup(app: Sphinx) -> dict[str, Any]:
    for part in (glued, exercise_list, theme, static_files, editions, accessibility, downloads, launch, home,
                 figures, guide_tables):
        part.setup(app)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
