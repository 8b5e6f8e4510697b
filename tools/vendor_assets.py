"""Copy the browser assets the site ships from node_modules into book/_static/vendor.

The book must work with the network off, so nothing may be fetched from a CDN at run time:
MathJax (rendering the chapters' math) and RequireJS plus @jupyter-widgets/html-manager
(rendering ipywidgets saved in a page) are installed from npm by ``npm ci`` (versions pinned
in package.json / package-lock.json) and copied here. ``make book`` runs this script;
_config.yml points Sphinx and myst-nb at the copies.

The browser tests' own assets, npm dev dependencies, are copied into tests/vendor (git ignores
it), never into the site: axe-core, whose accessibility audit tests/book/test_browser.py injects into
every page.

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
TESTS_VENDOR = ROOT / "tests" / "vendor"
"""The tests' assets: not part of the site."""

FONT_SUFFIXES = (".woff2", ".woff", ".ttf", ".eot", ".svg")


@dataclass(frozen=True)
class Asset:
    """Files under ``source`` (relative to node_modules) copied to ``target`` (under ``into``:
    the site's vendor/ or the tests')."""

    source: str
    target: str
    patterns: tuple[str, ...] = ("*",)
    recursive: bool = False
    into: Path = VENDOR

    def files(self) -> list[tuple[Path, Path]]:
        base = NODE_MODULES / self.source
        if base.is_file():
            return [(base, self.into / self.target)]
        found: list[tuple[Path, Path]] = []
        for pattern in self.patterns:
            matches = base.rglob(pattern) if self.recursive else base.glob(pattern)
            for path in sorted(matches):
                if path.is_file():
                    found.append((path, self.into / self.target / path.relative_to(base)))
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

AXE = TESTS_VENDOR / "axe-core" / "axe.min.js"
"""axe-core's browser build, which tests/book/test_browser.py injects into each page it audits."""
TEST_ASSETS: tuple[Asset, ...] = tuple(
    Asset(f"axe-core/{name}", f"axe-core/{name}", into=TESTS_VENDOR)
    for name in ("axe.min.js", "LICENSE", "package.json")
)


def plan() -> list[tuple[Path, Path]]:
    """Every (source, target) pair; fails if an npm package is missing or empty."""
    pairs: list[tuple[Path, Path]] = []
    for asset in ASSETS + TEST_ASSETS:
        files = asset.files()
        if not files:
            raise SystemExit(
                f"vendor_assets: nothing found at node_modules/{asset.source}; "
                "run `npm ci` (make book does) first"
            )
        pairs.extend(files)
    return pairs


def copy(pairs: list[tuple[Path, Path]]) -> None:
    """Replace book/_static/vendor and tests/vendor with fresh copies, so no file of an old
    version lingers."""
    shutil.rmtree(VENDOR, ignore_errors=True)
    shutil.rmtree(TESTS_VENDOR, ignore_errors=True)
    for source, target in pairs:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def main() -> int:
    pairs = plan()
    copy(pairs)
    site = [target for _, target in pairs if target.is_relative_to(VENDOR)]
    STAMP.write_text("".join(f"{t.relative_to(VENDOR)}\n" for t in site))
    print(f"vendor_assets: {len(site)} files in book/_static/vendor, "
          f"{len(pairs) - len(site)} in tests/vendor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
