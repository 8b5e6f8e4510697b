"""The grading driver (roofline_grading.autograde.driver): the limits it grades with are the guide's,
and a warm run starts one kernel to check that its kernels start, not two."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_grading.autograde import driver, kernels, local_pool, templates
from roofline_grading.autograde.jobs import Portable
from roofline_grading.autograde.settings import Settings
from tests.support.graded_notebooks import ROOT
from tests.support.nbgrader_cells import NAME, STRUCTURE


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


@pytest.mark.parametrize(
    ("template_failed", "kernels_started"),
    [(None, ["warm-check"]), ("the warm kernels' template did not start", ["warm-check", "preflight"])],
)
def test_a_warm_run_starts_one_check_kernel_before_its_first_student(
    template_failed: str | None, kernels_started: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The driver's warm check starts a kernel in its own process with the run's settings; the local
    pool's preflight, which would start one the same way, starts none after it. Where the check fell
    back to cold kernels, the preflight starts a cold one: that is what the workers will start."""
    started: list[tuple[str, str]] = []

    def check_start(sandbox: dict[str, object], notebook: str, run_root: Path, timeout: float = 120) -> None:
        started.append((run_root.name, str(sandbox["kernels"])))

    monkeypatch.setattr(kernels, "check_start", check_start)
    monkeypatch.setattr(templates, "failure", lambda: template_failed)
    monkeypatch.setattr(local_pool, "_start_pool", lambda jobs: None)
    sandbox = {"mode": "bwrap", "kernels": "warm", "tag": "run"}
    settings = Settings(None, tmp_path, "a", {NAME: STRUCTURE.to_json()}, tmp_path, b"k", 30, 300, sandbox)
    said, checked = driver._choose_kernels(driver.Options(tmp_path, "a"), settings)
    portable = Portable(settings, None, "bwrap", 2**30, 64, (), "salt", "run")
    local_pool.LocalExecutor(1).preflight(portable, checked)
    assert [name for name, _ in started] == kernels_started
    assert said.startswith("warm" if template_failed is None else "cold (warm kernels cannot start here")
    assert started[-1][1] == ("warm" if template_failed is None else "cold")
