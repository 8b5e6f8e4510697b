"""Copy the browser assets the site ships from node_modules into book/_static/vendor.

The book must work with the network off, so nothing may be fetched from a CDN at run time:
MathJax (rendering the chapters' math) and RequireJS plus @jupyter-widgets/html-manager
(rendering ipywidgets saved in a page) are installed from npm by ``npm ci`` (versions pinned
in package.json / package-lock.json) and copied here. ``make book`` runs this script;
_config.yml points Sphinx and myst-nb at the copies.

Run from the repository root, after ``npm ci``::

    python tools/vendor_assets.py     # copy, then list the copies in book/_static/vendor/.vendored
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "node_modules"
VENDOR = ROOT / "book" / "_static" / "vendor"
STAMP = VENDOR / ".vendored"

FONT_SUFFIXES = (".woff2", ".woff", ".ttf", ".eot", ".svg")


@dataclass(frozen=True)
class Asset:
    """Files under ``source`` (relative to node_modules) copied to ``target`` (under vendor/)."""

    source: str
    target: str
    patterns: tuple[str, ...] = ("*",)
    recursive: bool = False

    def files(self) -> list[tuple[Path, Path]]:
        base = NODE_MODULES / self.source
        if base.is_file():
            return [(base, VENDOR / self.target)]
        found: list[tuple[Path, Path]] = []
        for pattern in self.patterns:
            matches = base.rglob(pattern) if self.recursive else base.glob(pattern)
            for path in sorted(matches):
                if path.is_file():
                    found.append((path, VENDOR / self.target / path.relative_to(base)))
        return found


ASSETS: tuple[Asset, ...] = (
    Asset("requirejs/require.js", "require.js"),
    Asset("requirejs/package.json", "require.package.json"),
    Asset("@jupyter-widgets/html-manager/dist", "html-manager",
          ("embed-amd.js", *(f"*{suffix}" for suffix in FONT_SUFFIXES))),
    Asset("@jupyter-widgets/html-manager/package.json", "html-manager/package.json"),
    # MathJax 3 loads its components (TeX extensions, fonts, menu, a11y) relative to the
    # combined file, so keep the es5 tree's layout.
    Asset("mathjax/es5", "mathjax", ("tex-mml-chtml.js",)),
    Asset("mathjax/es5/input", "mathjax/input", ("*",), recursive=True),
    Asset("mathjax/es5/output", "mathjax/output", ("chtml.js",)),
    Asset("mathjax/es5/output/chtml", "mathjax/output/chtml", ("*",), recursive=True),
    Asset("mathjax/es5/ui", "mathjax/ui", ("*",), recursive=True),
    Asset("mathjax/es5/a11y", "mathjax/a11y", ("*",), recursive=True),
    Asset("mathjax/es5/sre", "mathjax/sre", ("*",), recursive=True),
    Asset("mathjax/es5/adaptors", "mathjax/adaptors", ("*",), recursive=True),
    Asset("mathjax/LICENSE", "mathjax/LICENSE"),
    Asset("mathjax/package.json", "mathjax/package.json"),
)


def plan() -> list[tuple[Path, Path]]:
    """Every (source, target) pair; fails if an npm package is missing or empty."""
    pairs: list[tuple[Path, Path]] = []
    for asset in ASSETS:
        files = asset.files()
        if not files:
            raise SystemExit(
                f"vendor_assets: nothing found at node_modules/{asset.source}; "
                "run `npm ci` (make book does) first"
            )
        pairs.extend(files)
    return pairs


def copy(pairs: list[tuple[Path, Path]]) -> None:
    """Replace book/_static/vendor with fresh copies, so no file of an old version lingers."""
    shutil.rmtree(VENDOR, ignore_errors=True)
    for source, target in pairs:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def main() -> int:
    pairs = plan()
    copy(pairs)
    STAMP.write_text("".join(f"{t.relative_to(VENDOR)}\n" for _, t in pairs))
    print(f"vendor_assets: {len(pairs)} files in book/_static/vendor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
