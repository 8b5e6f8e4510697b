"""The grading benchmark runs end to end on a tiny class (its figures mean nothing at this size:
the benchmark itself, with 40 students, is for `make bench`). The mixed class hands in two
notebooks, not the course's ten: every kind of submission (model, slip, broken, blank), a student
with several notebooks, and every contender's code path are there, at a fifth of the kernels."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MIXED = ("ex1_int8_matmul", "ex3_roofline_plot")
"""The mixed class's notebooks."""


@pytest.mark.grading
def test_the_grading_benchmark_times_every_contender_and_compares_their_scores() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_autograde.py"),
            "--students",
            "2",
            "--mixed-students",
            "3",
            "--repeat",
            "1",
            "--notebooks",
            "ex5_h100_threshold",
            "--mixed-notebooks",
            *MIXED,
            "--ceiling-students",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=1800,  # about 160 s on an idle machine, 300 s in a loaded CI run, 20 min at load 20
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for contender in (
        "floor (nbclient alone)",
        "nbgrader autograde (sequential)",
        "driver, 1 worker",
        "driver, 2 workers",
        "driver, Dask, 2 workers",
        "driver, 1 worker, warm",
        "driver, 2 workers, warm",
        "driver, Dask, 2 workers, warm",
    ):  # the uniform class's time, then the mixed class's (nbgrader's own run: the uniform class only)
        second = r"-" if contender.startswith("nbgrader") else r"\d+\.\ds"
        assert re.search(
            rf"^  {re.escape(contender)} +\d+\.\ds .* {second}( |$)", done.stdout, re.MULTILINE
        ), contender
    for ratio in (
        "ratio driver 1 worker / floor:",
        "speed-up 2 workers over 1 worker:",
        "ratio Dask 2 workers / local 2 workers:",
        "ratio driver 1 worker, warm / floor:",
        "speed-up 2 workers over 1 worker, warm:",
        "ratio Dask 2 workers / local 2 workers, warm:",
    ):
        assert re.search(rf"{re.escape(ratio)} +\d+\.\d\d +\d+\.\d\d$", done.stdout, re.MULTILINE), ratio
    # a notebook's start, execution and judging, for each kind of submission, cold kernels and warm
    split = rf"^    (model|blank)(, warm)? \({len(MIXED)} notebooks\) +\d+\.\d\d s +\d+\.\d\d s +\d+\.\d\d s$"
    assert len(re.findall(split, done.stdout, flags=re.MULTILINE)) == 4, done.stdout
    assert re.search(r"driver's ceiling \(.*\): \d+\.\d students committed per second", done.stdout)
    projected = r"^ +64 machines( +(\d+ h \d\d|\d+) min){4}$"  # the projection's last row: four times
    assert len(re.findall(projected, done.stdout, flags=re.MULTILINE)) == 2, done.stdout  # cold, warm
    assert "a notebook (Dask, warm kernels" in done.stdout
    for kind in ("uniform", "mixed"):
        assert f"{kind}: every driver run gave every student the same total: yes" in done.stdout


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--ceiling-students", "0", "must be a whole number of at least 1, not 0"),
        ("--students", "many", "must be a whole number of at least 1, not many"),
        ("--mixed-students", "-1", "must be a whole number of at least 0, not -1"),
        ("--notebooks", "ex99", "invalid choice: 'ex99'"),
    ],
)
def test_the_grading_benchmark_names_a_bad_option_and_what_it_accepts(
    option: str, value: str, said: str
) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_autograde.py"), option, value],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"argument {option}: {said}" in done.stderr, done.stderr
