"""A worker's warm kernels' template (roofline_grading.autograde.templates), with the real sandbox:
a kernel forked from it answers; once the template has ended, that is said and the next kernel
starts cold."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import roofline_recorder
from roofline_grading.autograde import kernels, templates
from roofline_grading.sandbox import bwrap

pytestmark = pytest.mark.grading

NOTEBOOK = "ex5_h100_threshold"


@pytest.fixture
def warm() -> Iterator[dict[str, Any]]:
    yield {
        "mode": "bwrap",
        "recorder": str(Path(roofline_recorder.__file__).parent),
        "prefixes": list(bwrap.python_prefixes()),
        "kernels": "warm",
    }
    templates.stop()


def test_a_template_that_ends_is_reported_and_kernels_start_cold(
    warm: dict[str, Any], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert kernels.check_start(warm, NOTEBOOK, tmp_path / "first") is None
    template = templates.current(warm)
    assert template is not None and templates.failure() is None
    template.process.kill()  # as a crash would end it
    template.process.wait()
    assert kernels.check_start(warm, NOTEBOOK, tmp_path / "second") is None  # a cold kernel answered
    said = capfd.readouterr().err
    assert "the warm kernels' template ended (exit status" in said
    assert "its kernels start cold from now on" in said
    assert templates.current(warm) is None


def test_a_template_that_cannot_start_is_reported_with_bubblewraps_words(
    warm: dict[str, Any], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    broken = {**warm, "prefixes": [*warm["prefixes"], str(tmp_path / "no-such-prefix")]}
    assert templates.current(broken) is None
    why = templates.failure()
    assert why is not None and why.startswith("the warm kernels' template did not start")
    assert "no-such-prefix" in why  # bubblewrap's own words
    assert "its kernels start cold from now on" in capfd.readouterr().err


def test_a_runs_end_stops_its_template_and_removes_its_folder_but_not_another_runs(
    warm: dict[str, Any], tmp_path: Path
) -> None:
    assert kernels.check_start(warm, NOTEBOOK, tmp_path / "first") is None
    template = templates.current(warm)
    assert template is not None and template.root.is_dir()
    templates.stop({**warm, "stub": str(tmp_path / "another-run")})  # another run's end
    assert template.alive() and template.root.is_dir()
    templates.stop(warm)  # its own run's end
    assert not template.alive() and not template.root.exists()
    assert not Path(f"{template.root}.owner").exists()
