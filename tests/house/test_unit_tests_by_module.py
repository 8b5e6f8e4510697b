"""The grading package's unit tests follow its layout: each autograde step, each part of collect and
each nbgrader plug-in has a test module named after it in the folder that mirrors it, which the
unit tier (make test-fast) runs."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "grading" / "roofline_grading"
MIRRORED = {
    PACKAGE / "autograde" / "steps": ROOT / "tests" / "grading" / "steps",
    PACKAGE / "collect": ROOT / "tests" / "grading" / "collect",
    PACKAGE / "plugins": ROOT / "tests" / "grading" / "plugins",
}


def modules(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("_"))


@pytest.mark.parametrize("code", sorted(MIRRORED), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_each_module_has_its_unit_tests_named_after_it(code: Path) -> None:
    tests = MIRRORED[code]
    missing = [m for m in modules(code) if not (tests / f"test_{m}.py").is_file()]
    assert not missing, f"no tests/{tests.relative_to(ROOT / 'tests')}/test_<module>.py for {missing}"
