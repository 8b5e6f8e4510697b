"""Which grading code a machine runs, so that every machine of a run grades with the driver's.

The same submission must get the same points on whichever machine grades it. A worker machine
that grades with another commit of the answer key, the judge, the recorder or ``rooflinekit``
(or another nbgrader or numpy) could give other points, so the driver sends :func:`identity` with
every job and a worker whose own differs refuses to grade (:func:`differences` names what
differs). The identity is a digest of each package's files (their paths and bytes, so an edit
not yet committed counts too) and the versions of the packages grading runs on.

>>> mine = identity()
>>> differences(mine, mine)
[]
>>> other = tuple((name, "0" if name == "numpy" else value) for name, value in mine)
>>> differences(other, mine)[0].startswith("numpy ")
True
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from importlib import metadata
from pathlib import Path

__all__ = ["ForeignCode", "differences", "identity"]

PACKAGES = ("roofline_grading", "roofline_recorder", "rooflinekit")
"""The course's own code that grading runs: a digest of each package's files."""

DISTRIBUTIONS = ("nbgrader", "nbclient", "nbformat", "jupyter_client", "ipykernel", "numpy", "matplotlib")
"""The packages grading runs on: their versions."""


class ForeignCode(RuntimeError):
    """This machine's grading code is not the driver's (the message names what differs)."""


def _digest(package: str) -> str:
    module = importlib.import_module(package)
    root = Path(module.__file__ or "").resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".mo"):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "absent"


@functools.cache
def identity() -> tuple[tuple[str, str], ...]:
    """This machine's grading code: each package's digest and each distribution's version."""
    return tuple((name, _digest(name)) for name in PACKAGES) + tuple(
        (name, _version(name)) for name in DISTRIBUTIONS
    )


def differences(here: tuple[tuple[str, str], ...], driver: tuple[tuple[str, str], ...]) -> list[str]:
    """What differs between this machine's grading code and the driver's, one phrase each."""
    theirs = dict(driver)
    return [
        f"{name} {value} here, {theirs.get(name, 'absent')} on the driver's machine"
        for name, value in here
        if theirs.get(name) != value
    ]
