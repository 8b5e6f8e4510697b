"""formgrader as the course installs it (roofline_grading.plugins.formgrader), without a server: its two
list pages draw no button for nbgrader's generate, autograde or feedback steps, its API refuses
them, and the exchange's release, unrelease and collect, naming the make target, and a student's
``timestamp.txt`` that is not a time loads as none.
A browser opens every view of the hostile class in tests/e2e/test_autograde_hardening.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from roofline_grading.plugins import formgrader

NBGRADERS = {
    "manage_assignments.tpl": ["Generate", "Release", "Collect", "Generate Feedback", "Release Feedback"],
    "manage_submissions.tpl": ["Autograde", "Generate Feedback", "Release Feedback"],
}
"""Each list page nbgrader draws, with the columns of its buttons for steps the course runs with make."""


def rendered(name: str) -> BeautifulSoup:
    """formgrader's page ``name`` from the Jinja environment its extension builds (after install)."""
    from nbgrader.server_extensions.formgrader import formgrader as app
    from nbgrader.server_extensions.formgrader import handlers

    formgrader.install()
    environment = app.Environment(loader=app.FileSystemLoader([handlers.template_path]))
    page = environment.get_template(name).render(
        base_url="", url_prefix=".", assignment_id="roofline", course_dir="/course", course_id="roofline"
    )
    return BeautifulSoup(page, "html.parser")


@pytest.mark.parametrize("name", sorted(NBGRADERS))
def test_a_list_page_has_no_column_for_a_step_the_course_runs_with_make(name: str) -> None:
    page = rendered(name)
    headers = [th.get_text(strip=True) for th in page.find_all("th")]
    assert headers and not set(headers) & set(NBGRADERS[name]), headers
    script = page.find_all("script")[-1].get_text()  # the course's rows, drawn after nbgrader's views
    cells = script.count('$("<td/>")')
    assert cells == len(headers) and "autograde" not in script and "feedback" not in script
    assert "make autograde" in page.get_text() and "make feedback" in page.get_text()


def api(root: Path) -> formgrader.CourseAPI:
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    return formgrader.CourseAPI(CourseDirectory(root=str(root)), Authenticator())


@pytest.mark.parametrize(
    ("step", "arguments", "target"),
    [
        ("generate_assignment", ("roofline",), "make exercises"),
        ("autograde", ("roofline", "alice"), "make autograde"),
        ("generate_feedback", ("roofline",), "make feedback"),
        ("release_feedback", ("roofline", "alice"), "make hub-return"),
        ("release_assignment", ("roofline",), "make hub-release"),
        ("unrelease", ("roofline",), "make hub-unrelease"),
        ("collect", ("roofline",), "make hub-collect"),
    ],
)
def test_the_api_refuses_each_step_naming_the_make_target(
    tmp_path: Path, step: str, arguments: tuple[str, ...], target: str
) -> None:
    done = getattr(api(tmp_path), step)(*arguments)
    assert done["success"] is False and target in done["error"]
    assert not {"autograded", "feedback", "submitted"} & {p.name for p in tmp_path.iterdir()}


def test_a_timestamp_that_is_not_a_time_reads_as_none(tmp_path: Path) -> None:
    folder = tmp_path / "submitted" / "bob" / "roofline"
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text("the day before the deadline")
    assert api(tmp_path).get_submitted_timestamp("roofline", "bob") is None
    (folder / "timestamp.txt").write_text("2026-03-01 12:00:00 UTC")
    assert api(tmp_path).get_submitted_timestamp("roofline", "bob").year == 2026
