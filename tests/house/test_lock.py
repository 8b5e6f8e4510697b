"""Every version requirements.lock pins installs on every Python the course admits.

pip refuses a package whose own ``Requires-Python`` excludes the Python it installs into, so one
pin that asks for more than ``pyproject.toml`` says breaks the student's one command there (the
lock once pinned soupsieve 4.1.3, which asks for 3.11.5: Debian 12's Python is 3.11.2). The
environment this test runs in was installed from the lock, so each pin's metadata is at hand.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def oldest_python(pyproject: Path) -> Version:
    """The lowest Python ``pyproject``'s ``requires-python`` admits (its ``>=`` bound, padded)."""
    declared = tomllib.loads(pyproject.read_text())["project"]["requires-python"]
    bound = re.fullmatch(r">=\s*([0-9.]+)", declared.strip())
    assert bound, f"{pyproject}: requires-python {declared!r} is not a single lower bound"
    return Version(bound.group(1))


def test_every_pin_of_the_lock_installs_on_the_oldest_python_the_course_admits() -> None:
    oldest = {oldest_python(ROOT / "pyproject.toml"), oldest_python(ROOT / "grading" / "pyproject.toml")}
    pins = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", (ROOT / "requirements.lock").read_text(), re.M)
    assert len(pins) > 100
    refused = []
    for name, version in pins:
        metadata = importlib.metadata.metadata(name)
        assert metadata["Version"] == version, f"{name}: installed {metadata['Version']}, locked {version}"
        needs = SpecifierSet(",".join(metadata.get_all("Requires-Python", [])))
        refused += [f"{name}=={version} needs Python {needs}, not {py}" for py in oldest if py not in needs]
    assert not refused, refused
