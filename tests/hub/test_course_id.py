"""The course id is named once, in nbgrader_config.py: in a copy of the course that renames it, the
hub's release, unrelease and collect (make hub-release, hub-unrelease, hub-collect) and the hub
make hub starts (its course groups, the students' exchange configuration) follow."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from traitlets.config import Config

from roofline_grading.collect.submission_times import stamp
from tests.support.make_targets import ROOT, command, make
from tests.support.slips import ASSIGNMENT

sys.path.insert(0, str(ROOT / "hub"))

import prepare
from roofline_hub import Settings, configure

RENAMED = "physics101"
NOTEBOOK = "ex1_int8_matmul.ipynb"


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """The course's releases, English and Korean, with nbgrader_config.py naming the course RENAMED."""
    root = tmp_path / "course"
    for release in (Path("exercises") / ASSIGNMENT, Path("exercises") / "ko" / ASSIGNMENT):
        shutil.copytree(ROOT / release, root / release)
    config = (ROOT / "nbgrader_config.py").read_text()
    renamed = config.replace(
        'c.CourseDirectory.course_id = "roofline"', f'c.CourseDirectory.course_id = "{RENAMED}"'
    )
    assert renamed != config
    (root / "nbgrader_config.py").write_text(renamed)
    return root


def released(exchange: Path) -> list[str]:
    return sorted(str(p.relative_to(exchange)) for p in exchange.glob(f"*/outbound*/{ASSIGNMENT}"))


@pytest.mark.grading
def test_release_collect_and_unrelease_follow_the_renamed_course_id(course: Path, tmp_path: Path) -> None:
    exchange = tmp_path / "exchange"
    make("hub-release", course=course, EXCHANGE=str(exchange))
    assert released(exchange) == [f"{RENAMED}/outbound-ko/{ASSIGNMENT}", f"{RENAMED}/outbound/{ASSIGNMENT}"]
    claimed = stamp(datetime.now(UTC).replace(tzinfo=None) - timedelta(days=2))
    submission = exchange / RENAMED / "inbound" / f"ann+{ASSIGNMENT}+{claimed}+Qx3"
    submission.mkdir()
    shutil.copy(course / "exercises" / ASSIGNMENT / NOTEBOOK, submission)
    (submission / "timestamp.txt").write_text(claimed)
    said = make("hub-collect", course=course, EXCHANGE=str(exchange)).stdout
    assert (course / "submitted" / "ann" / ASSIGNMENT / NOTEBOOK).is_file()
    assert f"ann: the submission says {claimed}, the exchange received it" in said
    make("hub-unrelease", course=course, EXCHANGE=str(exchange))
    assert released(exchange) == []


@pytest.mark.grading
def test_the_hub_make_hub_starts_follows_the_renamed_course_id(course: Path, tmp_path: Path) -> None:
    planned = subprocess.run(
        command("-n", "hub", course=course, HUB_DIR=str(tmp_path / "hub"), EXCHANGE=str(tmp_path / "x")),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    (line,) = [line for line in planned.splitlines() if line.endswith("hub/prepare.py")]
    environment = dict(word.split("=", 1) for word in shlex.split(line) if "=" in word)
    settings = Settings.from_environment(environment)
    config = Config()
    configure(config, settings)
    groups = {f"formgrade-{RENAMED}", f"nbgrader-{RENAMED}"}
    assert config.LocalAuthenticator.allowed_groups == groups and set(config.JupyterHub.load_groups) == groups
    prepare.jupyter_config(settings)
    students = json.loads((settings.hub_dir / "etc/exchange/nbgrader_config.json").read_text())
    assert students["CourseDirectory"]["course_id"] == RENAMED
