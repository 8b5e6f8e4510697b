"""The site's static files: the vendored browser assets are there, and a changed one reaches the site.

- Checks at start-up that the vendored browser assets exist (``make book`` creates them), so a
  build never silently falls back to a CDN.
- Rebuilds when only a static file changed (book/_static, book/_extra): Sphinx copies them only
  after writing some page, and with no page out of date it writes none, so a changed stylesheet
  would never reach the site.
"""

from __future__ import annotations

import filecmp
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import ExtensionError

VENDORED = ("vendor/require.js", "vendor/html-manager/embed-amd.js", "vendor/mathjax/tex-mml-chtml.js")


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


def setup(app: Sphinx) -> None:
    app.connect("builder-inited", _check_vendored)
    app.connect("env-get-outdated", _static_changed)
