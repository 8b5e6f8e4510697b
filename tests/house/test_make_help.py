"""``make help`` lists every target the Makefile and instructor.mk describe (a ``## `` comment on
the target's line), each with its description, as the README sends a newcomer there first."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DESCRIBED = re.compile(r"^([A-Za-z0-9_%.-]+)\s*:(?!=)[^#\n]*##\s+(.+)$", re.MULTILINE)


def described() -> dict[str, str]:
    """Each described target of the two makefiles, and its description."""
    text = "\n".join((ROOT / name).read_text() for name in ("Makefile", "instructor.mk"))
    return {target: words.strip() for target, words in DESCRIBED.findall(text)}


def test_make_help_lists_every_described_target_with_its_description() -> None:
    targets = described()
    assert {"venv", "book", "test", "k8s-check", "k8s-exchange-env"} <= targets.keys()
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "help"], capture_output=True, text=True, check=True)
    listed = dict(line.split("\t", 1) for line in done.stdout.splitlines())
    assert listed == targets
