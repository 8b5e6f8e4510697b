"""Two fixes of the theme's pages.

- Turns pydata-sphinx-theme's header navbar off, as sphinx-book-theme means to. Since
  pydata-sphinx-theme 0.17.1 the navbar comes back unless ``navbar_persistent`` is set
  (sphinx-book-theme issue 988): it adds a second search field above the page and hidden copies
  of the sidebar toggles, and the theme's script then wires the hidden toggle, so the visible one
  does nothing and the navigation cannot be opened on a narrow screen.
- Drops repeated inline scripts from pages. Extensions that add a script in a build event
  (sphinx-togglebutton) get it twice under Sphinx 7.4; a ``const`` declared twice would be a
  JavaScript error on every page.

>>> from sphinx.builders.html._assets import _JavaScript
>>> context = {"script_files": [_JavaScript("a.js"), _JavaScript("b.js"), _JavaScript("a.js")]}
>>> _dedupe_scripts(None, "index", "page.html", context, None)
>>> [script.filename for script in context["script_files"]]
['a.js', 'b.js']
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def _no_header_navbar(app: Sphinx, config: Any) -> None:
    config.html_theme_options.setdefault("navbar_persistent", [])


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


def setup(app: Sphinx) -> None:
    app.connect("config-inited", _no_header_navbar)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
