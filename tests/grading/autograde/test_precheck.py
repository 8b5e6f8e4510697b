"""A submitted file read as a notebook, or named for what it is (roofline_grading.autograde.precheck)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from roofline_grading.autograde.precheck import read_submission
from tests.support.graded_notebooks import EX5, RELEASE, SOLUTIONS


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "not a notebook: the file is empty"),
        (b"{not json", "not a notebook: invalid JSON (line 1, column 2"),
        (b"\xff\xfe\x00", "not a notebook: not UTF-8 text"),
        (b'{"cells": 3}', "not a notebook: JSON without a list of cells"),
        (b"[1, 2]", "not a notebook: JSON without a list of cells"),
        (b'{"cells": [], "nbformat": 4, "nbformat_minor": 5}', "not a valid notebook"),
    ],
)
def test_a_file_that_is_not_a_notebook_is_named_for_what_it_is(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "ex1.ipynb"
    path.write_bytes(content)
    result = read_submission(path)
    assert result.notebook is None and result.problem is not None and result.problem.startswith(problem)


def test_a_link_or_a_special_file_is_never_read(tmp_path: Path) -> None:
    (tmp_path / "link.ipynb").symlink_to(SOLUTIONS / f"{EX5}.ipynb")
    assert read_submission(tmp_path / "link.ipynb").problem == "not read: a symbolic link, not a file"
    os.mkfifo(tmp_path / "fifo.ipynb")  # reading it would block the grader
    assert read_submission(tmp_path / "fifo.ipynb").problem == "not read: not a regular file"
    (tmp_path / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    assert read_submission(tmp_path / "deep.ipynb").problem == "not a notebook: JSON nested too deeply"


def test_a_notebook_with_format_slips_is_repaired_in_memory_only(tmp_path: Path) -> None:
    data = json.loads((RELEASE / f"{EX5}.ipynb").read_text())
    data["cells"][0]["bogus"] = True
    path = tmp_path / "ex5.ipynb"
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    result = read_submission(path)
    assert result.problem is None and result.notes == ("notebook format slips repaired",)
    assert len(result.notebook.cells) == len(data["cells"])
    assert path.read_bytes() == before
    assert read_submission(tmp_path / "absent.ipynb").problem == "missing"
