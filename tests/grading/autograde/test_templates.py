"""A worker's warm kernels' template (roofline_grading.autograde.templates), with the real sandbox:
a kernel forked from it answers; once the template has ended, that is said and the next kernel
starts cold."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_core.utils import run_sync

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


def output_of(settings: dict[str, Any], run_root: Path, code: str) -> str:
    """What ``code`` prints in a kernel started as grading starts one (warm if ``settings`` say so)."""
    kernel = kernels.prepare(NOTEBOOK, settings, run_root)
    client = kernel.km.client()
    printed: list[str] = []

    def keep(message: dict[str, Any]) -> None:
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])
        elif message["msg_type"] == "error":
            printed.append(f"{message['content']['ename']}: {message['content']['evalue']}")

    try:
        client.start_channels()
        run_sync(kernels.until_ready)(client, kernel.km, 60)
        run_sync(client.execute_interactive)(code, timeout=60, output_hook=keep)
    finally:
        client.stop_channels()
        kernel.discard()
    return "".join(printed)


def test_an_environment_under_tmp_is_there_in_a_warm_kernel_as_in_a_cold_one(
    warm: dict[str, Any], tmp_path: Path
) -> None:
    # An instructor's course (and its virtual environment) may live under /tmp, which every kernel
    # gets fresh: the sandbox mounts the environment back on top, read-only, for a warm kernel too.
    with tempfile.TemporaryDirectory(dir="/tmp") as place:
        environment = Path(place, "venv", "lib")
        environment.mkdir(parents=True)
        (environment / "module.py").write_text("ANSWER = 42\n")
        hook = environment / "__editable__.rooflinekit.pth"  # masked: mounted within the environment
        hook.write_text("/the/course/checkout\n")
        settings = {
            **warm,
            "prefixes": [*warm["prefixes"], str(environment.parent)],
            "masks": [("/dev/null", str(hook))],
        }
        look = (
            f"import os\nprint(open({str(environment / 'module.py')!r}).read().strip())\n"
            f"print('writable:', os.access({str(environment)!r}, os.W_OK))\n"
            f"print('hook:', os.stat({str(hook)!r}).st_size, 'bytes')"
        )
        cold = output_of({**settings, "kernels": "cold"}, tmp_path / "cold", look)
        warmed = output_of(settings, tmp_path / "warm", look)
        assert templates.current(settings) is not None  # the second kernel was a warm one
    assert cold == "ANSWER = 42\nwritable: False\nhook: 0 bytes\n"
    assert warmed == cold
