"""`make test` runs in parallel with `--dist loadgroup`: the tests of one ``xdist_group`` (a module
that grades a class, starts JupyterLab or a database server in its module-scoped fixtures) must all
run on one worker, or every worker builds those fixtures again, side by side."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # two pytest workers started: seconds

GROUPED = '''
import os
import pytest

pytestmark = pytest.mark.xdist_group("one-server")


@pytest.mark.parametrize("i", range(8))
def test_part(i):
    with open("workers.txt", "a") as seen:
        seen.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")
'''


def test_a_groups_tests_all_run_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
         "test_grouped.py"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    workers = (tmp_path / "workers.txt").read_text().split()
    assert len(workers) == 8
    spread = sorted(set(workers))
    assert len(spread) == 1, f"one group spread over {spread} (pytest {pytest.__version__})"
