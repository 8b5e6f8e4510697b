"""``roofline-grading collect`` (roofline_grading.collect.cli): a mistake in the command is one line
on the error stream and exit status 2, nothing collected."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_grading.collect.cli import main


def course(tmp_path: Path, config: str = "") -> Path:
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n" + config)
    (tmp_path / "release" / "a").mkdir(parents=True)
    (tmp_path / "release" / "a" / "ex1_x.ipynb").write_text("{}")
    return tmp_path


@pytest.mark.parametrize(
    ("setup", "said"),
    [
        (lambda p: p / "nowhere", "is not a course directory: it has no nbgrader_config.py"),
        (lambda p: course(p, "raise ValueError('typo')\n"), "cannot be read: ValueError: typo"),
        (
            lambda p: course(p, "c.ZipCollectApp.collector_plugin = 'lms.Blackboard'\n"),
            "c.ZipCollectApp.collector_plugin = 'lms.Blackboard' cannot be used",
        ),
        (lambda p: course(p), "FileNameCollectorPlugin has no pattern"),
    ],
)
def test_a_mistake_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setup, said
) -> None:
    where = setup(tmp_path)
    (tmp_path / "lms.zip").write_bytes(b"")
    assert main(["a", "--course", str(where), str(tmp_path / "lms.zip")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("collect: ") and said in err and err.count("\n") == 1 and "Traceback" not in err
