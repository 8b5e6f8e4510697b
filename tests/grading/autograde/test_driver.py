"""The grading driver (roofline_grading.autograde.driver): the limits it grades with are the guide's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.graded_notebooks import ROOT


def test_the_guide_states_the_time_limits_grading_uses() -> None:
    from traitlets.config.loader import PyFileConfigLoader

    from roofline_grading.autograde.driver import BUDGET_FACTOR

    timeout = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config().Execute.timeout
    guide = " ".join((ROOT / "book" / "instructor-guide.md").read_text().split())
    assert f"A cell may run `c.Execute.timeout` seconds ({timeout}, in `nbgrader_config.py`)" in guide
    assert f"a notebook {BUDGET_FACTOR} times that" in guide


def test_a_list_of_steps_that_would_grade_outside_the_sandbox_stops_the_run_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from roofline_grading.autograde import cli

    (tmp_path / "nbgrader_config.py").write_text(
        'c = get_config()\nc.Pipeline.autograde_preprocessors = ["nbgrader.preprocessors.Execute"]\n'
    )
    assert cli.main(["roofline", "--course", str(tmp_path), "--sandbox", "off"]) == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said == (
        f"autograde: {tmp_path}/nbgrader_config.py: c.Pipeline: Execute would run the notebook outside "
        "the sandbox; only SandboxedExecute runs it"
    )
