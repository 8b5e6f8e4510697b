"""What every worker of a grading run needs to know: the same for all students of the run.

The driver makes one :class:`Settings` for a run; each worker process grades students with it
(:mod:`roofline_grading.autograde.worker`), and the autograde steps read their configuration
from it (:mod:`roofline_grading.autograde.pipeline`).

>>> from pathlib import Path
>>> s = Settings(None, Path("submitted"), "roofline", {}, Path("/tmp"), b"k", timeout=30, notebook_budget=300)
>>> s.sandbox
{}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Settings"]


@dataclass(frozen=True)
class Settings:
    """What every worker needs to know, the same for all students of a run."""

    config_file: Path | None
    submitted: Path
    assignment: str
    structures: dict[str, dict[str, Any]]
    """Notebook name -> NotebookStructure.to_json()."""
    scratch: Path
    secret: bytes
    timeout: int
    notebook_budget: int
    sandbox: dict[str, Any] = field(default_factory=dict)
    """How to confine each kernel (:class:`SandboxedExecute`'s ``sandbox``): ``mode`` (``bwrap``
    or ``off``), ``recorder``, ``prefixes``, ``masks``, ``fontlist``, ``memory_bytes``,
    ``processes``, ``group``."""
