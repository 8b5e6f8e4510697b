"""Every module of the repository's packages is imported by the unit tier (``make test-fast``).

A module that only the slow tiers reach (the grading round, the sandbox, the book's build) would
otherwise break unseen until they run: a bad import, a name gone from a module it imports, an
error at import time. Each module is imported here, one test a module, so a failure names it.
The ``__main__`` modules are left out: importing one runs its command (they are one line each,
``raise SystemExit(main())``, and their commands are tested through ``main``).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {
    "rooflinekit": ROOT / "rooflinekit",
    "roofline_grading": ROOT / "grading" / "roofline_grading",
    "roofline_recorder": ROOT / "grading" / "roofline_recorder",
    "roofline_book": ROOT / "book" / "_ext" / "roofline_book",
}
"""Each package and its folder (the book's extension is on the tests' path: pyproject.toml)."""


def modules(package: str, folder: Path) -> list[str]:
    """The dotted name of every module in ``folder``, read from its files (``__init__.py`` is the
    package's own), so that a module no package imports is counted too."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        if "__pycache__" in parts or parts[-1] == "__main__":
            continue
        names = parts[:-1] if parts[-1] == "__init__" else parts
        found.append(".".join((package, *names)))
    return found


EVERY_MODULE = [name for package, folder in PACKAGES.items() for name in modules(package, folder)]


def test_every_package_has_its_modules_listed() -> None:
    for package in PACKAGES:
        listed = [name for name in EVERY_MODULE if name.split(".")[0] == package]
        assert package in listed and len(listed) > 5, (package, listed)
    assert "rooflinekit.cli.program" in EVERY_MODULE and "roofline_recorder.kernel" in EVERY_MODULE


@pytest.mark.parametrize("name", EVERY_MODULE)
def test_the_module_imports(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__name__ == name
    assert Path(module.__file__ or "").resolve().is_relative_to(ROOT)  # this checkout's, no installed copy
