"""The pieces of grading across machines that need no grading run: a submission as bytes, the
scheduler's address, the progress without a terminal (the runs themselves:
tests/e2e/test_distributed_grading.py)."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest

from roofline_grading.autograde import certificates, cli
from roofline_grading.autograde.dask_pool import DaskExecutor
from roofline_grading.autograde.gradebook import CourseError
from roofline_grading.autograde.jobs import read_job
from roofline_grading.autograde.precheck import MAX_BYTES, read_submission
from roofline_grading.autograde.progress import Progress
from roofline_grading.autograde.results import NotebookResult, StudentResult
from tests.support.ports import free_port


def test_a_submission_travels_as_bytes_and_reads_the_same_on_the_other_side(tmp_path: Path) -> None:
    """What the worker says of each entry (a notebook, a link, a FIFO, a file too large, a file
    it ignores) is what it says of the original: only the notebooks' and the timestamp's bytes travel."""
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    (submitted / "ex1.ipynb").write_text('{"cells": []}')
    (submitted / "ex2.ipynb").symlink_to("/etc/passwd")
    os.mkfifo(submitted / "ex3.ipynb")
    with (submitted / "ex4.ipynb").open("wb") as huge:
        huge.truncate(MAX_BYTES + 1)
    (submitted / "notes").mkdir()
    (submitted / "notes" / "mine.txt").write_text("secret plans")
    expected = {f"ex{i}.ipynb" for i in range(1, 5)}
    job = read_job(submitted, "alice", expected)
    assert job.entries["notes/mine.txt"].data == b"" and job.entries["ex4.ipynb"].data == b""
    copy = tmp_path / "copy"
    job.materialize(copy)
    for name in sorted(expected):
        assert read_submission(copy / name).problem == read_submission(submitted / name).problem, name
    assert (copy / "ex1.ipynb").read_bytes() == (submitted / "ex1.ipynb").read_bytes()
    assert stat.S_ISFIFO((copy / "ex3.ipynb").lstat().st_mode)
    assert (copy / "notes" / "mine.txt").stat().st_size == len("secret plans")


def test_a_scheduler_address_that_is_not_one_is_refused_by_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["roofline", "--scheduler", "grader1"])
    assert (
        "should be a Dask scheduler's address, e.g. tls://grader1:8786, not 'grader1'"
        in capsys.readouterr().err
    )


def test_no_scheduler_at_the_address_is_said_in_a_sentence(tmp_path: Path) -> None:
    port = free_port()  # nothing listens on it
    with pytest.raises(CourseError, match=r"no certificates of the grading cluster in .*make cluster-certs"):
        DaskExecutor(f"tls://127.0.0.1:{port}", tmp_path / "none")
    certificates.make(tmp_path / "certs")
    with pytest.raises(
        CourseError,
        match=rf"no Dask scheduler of the course answered at tls://127.0.0.1:{port} .*make cluster-scheduler",
    ):
        DaskExecutor(f"tls://127.0.0.1:{port}", tmp_path / "certs")


def test_without_a_terminal_each_student_gets_a_line_with_the_time_left() -> None:
    out = io.StringIO()
    failed = StudentResult("bob", [NotebookResult("ex1", "failed")])
    with Progress(3, out, bar_file=io.StringIO()) as progress:
        progress.update(StudentResult("alice", []), retried=False)
        progress.update(failed, retried=True)
        progress.update(StudentResult("carol", []), retried=False)
    lines = out.getvalue().splitlines()
    assert [line.split("]")[0] for line in lines] == ["[1/3", "[2/3", "[3/3"]
    assert "left)" in lines[0] and "0 flagged, 1 failed, 1 retried so far" in lines[1]
    assert lines[2].endswith("1 retried so far)")  # nothing left


def test_a_worker_with_other_grading_code_refuses_to_grade_naming_what_differs() -> None:
    """The same submission gets the same points on any machine: a worker whose answer key,
    rooflinekit or numpy is not the driver's says so before it grades anyone."""
    from dataclasses import replace

    from roofline_grading.autograde import grading_code, machine
    from roofline_grading.autograde.jobs import Portable
    from roofline_grading.autograde.settings import Settings

    here = grading_code.identity()
    assert [name for name, _ in here][:3] == ["roofline_grading", "roofline_recorder", "rooflinekit"]
    driver = tuple((name, "0" * 16 if name == "rooflinekit" else value) for name, value in here)
    unused = Path("/nonexistent")  # the preflight refuses before it reads a path
    settings = Settings(None, unused, "roofline", {}, unused, b"", timeout=1, notebook_budget=1)
    portable = Portable(
        settings=settings, config_text=None, sandbox_mode="bwrap", memory_bytes=0,
        processes=0, protected=(), salt="", run_id="other-code", code=driver,
    )
    refused = machine.preflight(portable)
    assert refused is not None
    assert f"rooflinekit {dict(here)['rooflinekit']} here, {'0' * 16} on the driver's machine" in refused
    assert refused.startswith("its grading code is not the driver's")  # the driver names the worker
    assert refused.endswith(machine.SAME_CODE)  # the same commit, no uncommitted edit, a fresh start
    assert "uncommitted" in machine.SAME_CODE and "make cluster-worker" in machine.SAME_CODE
    assert machine.preflight(replace(portable, code=())) is not None  # a driver that sent none: refused too
