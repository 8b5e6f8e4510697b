"""Merge freshly collected submissions into ``submitted/`` without losing earlier ones.

``make collect ZIP=...`` lets nbgrader's ``zip_collect`` extract the LMS's zips into a staging
folder (``downloaded/<assignment>/collected``), then runs this: each collected file replaces the
file of the same name in ``submitted/<student>/<assignment>/``, and every other file collected
before stays. (nbgrader's ``zip_collect --force`` alone empties a student's folder first, so a
late zip holding one notebook would delete the others.)

    python -m roofline_grading.autograde.collect ASSIGNMENT [--course DIR]

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> (root / "staged" / "carol" / "a").mkdir(parents=True)
>>> _ = (root / "staged" / "carol" / "a" / "ex4.ipynb").write_text("new")
>>> (root / "submitted" / "carol" / "a").mkdir(parents=True)
>>> _ = (root / "submitted" / "carol" / "a" / "ex1.ipynb").write_text("earlier")
>>> merge(root / "staged", root / "submitted", "a")
['carol: ex4.ipynb collected; 1 file kept from before']
>>> sorted(p.name for p in (root / "submitted" / "carol" / "a").iterdir())
['ex1.ipynb', 'ex4.ipynb']
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

__all__ = ["STAGING", "main", "merge"]

STAGING = "downloaded/{assignment}/collected"
"""Where ``make collect`` has nbgrader put the files it extracts, relative to the course."""


def merge(staged: Path, submitted: Path, assignment: str) -> list[str]:
    """Copy every file under ``staged/<student>/<assignment>/`` into the same place under
    ``submitted``, replacing files of the same name only; one line per student says what changed."""
    lines = []
    for folder in sorted(p for p in staged.glob(f"*/{assignment}") if p.is_dir()):
        student = folder.parent.name
        target = submitted / student / assignment
        target.mkdir(parents=True, exist_ok=True)
        new = sorted(p.name for p in folder.iterdir() if p.is_file())
        kept = [p.name for p in target.iterdir() if p.is_file() and p.name not in new]
        for name in new:
            shutil.copyfile(folder / name, target / name)
        notebooks = [name for name in new if name.endswith(".ipynb")]
        line = f"{student}: {', '.join(notebooks) or 'no notebook'} collected"
        if kept:
            line += f"; {len(kept)} file{'s' if len(kept) > 1 else ''} kept from before"
        lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m roofline_grading.autograde.collect", description=__doc__)
    parser.add_argument("assignment")
    parser.add_argument("--course", type=Path, default=Path("."))
    args = parser.parse_args(argv)
    staged = args.course / STAGING.format(assignment=args.assignment)
    if not staged.is_dir():
        print(f"collect: nothing was extracted into {staged}", file=sys.stderr)
        return 2
    for line in merge(staged, args.course / "submitted", args.assignment):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
