"""The grading driver (roofline_grading.autograde.driver): the limits it grades with are the guide's."""

from __future__ import annotations

from tests.support.graded_notebooks import ROOT


def test_the_guide_states_the_time_limits_grading_uses() -> None:
    from traitlets.config.loader import PyFileConfigLoader

    from roofline_grading.autograde.driver import BUDGET_FACTOR

    timeout = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config().Execute.timeout
    guide = " ".join((ROOT / "book" / "instructor-guide.md").read_text().split())
    assert f"A cell may run `c.Execute.timeout` seconds ({timeout}, in `nbgrader_config.py`)" in guide
    assert f"a notebook {BUDGET_FACTOR} times that" in guide
