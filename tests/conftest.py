"""Fixtures shared by the tests: the built site, served on 127.0.0.1; a released course; Playwright."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.support import book_build, screenshots
from tests.support.book_build import make_book
from tests.support.browsers import CHROMIUM, CHROMIUM_ARGS
from tests.support.locks import exclusive
from tests.support.make_targets import make
from tests.support.site_pages import served

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"

# jupyter_core warns (DeprecationWarning) until platformdirs paths are opted into; pytest
# turns warnings into errors, and this is the setting Jupyter recommends.
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")

# Hypothesis fails an example that takes over 200 ms, and a search whose inputs are slow to draw:
# timed checks, which on a shared machine (a full run keeps both cores busy) fail for the load, not
# for the code. The properties are what these tests assert; speed is benchmarks/' business.
settings.register_profile("course", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("course")


TIERS = ("book", "grading", "browser", "lab", "slow")
"""The markers that take a test out of the unit tier (pyproject.toml declares them)."""
NEEDS_THE_SITE = {"built_site", "site_url"}
SLOW_DOCTESTS = {
    "rooflinekit.measure.run.measure_cache_levels",  # measures this machine's memory levels
    "rooflinekit.explorer.transformer_static.transformer_html",  # the view at every position
    "rooflinekit.explorer.transformer_static.view_data",
    "rooflinekit.explorer.transformer_static",  # the module's example: a whole view
    "rooflinekit.explorer.transformer_widget",  # the module's example: a live view
    "tests.support.kernels",  # the module's example: a notebook run in a kernel
    "roofline_grading.plugins.grades.read_entries",  # a new gradebook: nbgrader runs alembic
}
"""The docstring examples that take seconds by nature: in the slow tier (a doctest takes no marker)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test gets its tier: a test that asks for the built site is a book test, and one with
    no tier marker is a unit test (``make test-fast``: ``pytest -m unit``)."""
    for item in items:
        if NEEDS_THE_SITE & set(getattr(item, "fixturenames", ())) and not item.get_closest_marker("book"):
            item.add_marker(pytest.mark.book)
        if isinstance(item, pytest.DoctestItem) and item.name in SLOW_DOCTESTS:
            item.add_marker(pytest.mark.slow)
        if not any(item.get_closest_marker(tier) for tier in TIERS):
            item.add_marker(pytest.mark.unit)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """A run with a test that needs the site starts building it as its tests start, in one process
    (the first worker of a parallel run; xdist's controller has no tests): tests/support/book_build.py.
    Not for a collection that failed, nor for --collect-only."""
    if session.testsfailed or session.config.option.collectonly:
        return
    if os.environ.get("PYTEST_XDIST_WORKER", "gw0") != "gw0":
        return
    if any(NEEDS_THE_SITE & set(getattr(item, "fixturenames", ())) for item in session.items):
        book_build.build_in_background()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Wait for the site's build this process started, or stop it if the run ended early (-x,
    --maxfail, Ctrl+C): no run leaves `make book` running, nor sits out a build it no longer needs."""
    early = bool(session.shouldstop or session.shouldfail) or exitstatus == pytest.ExitCode.INTERRUPTED
    book_build.finish_background_build(wait=not early)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """Note on the test whether its body failed: a browser fixture then keeps screenshots of the
    pages it opened (tests/support/screenshots.py)."""
    report: pytest.TestReport = yield
    if report.when == "call":
        item.stash[screenshots.CALL_FAILED] = report.failed
    return report


@pytest.fixture(scope="session")
def built_site() -> Path:
    """The site in _build/html, built once per test run by ``make book``.

    It is the same command a reader runs, so the test sees what they get: the execution
    cache makes it quick when nothing changed since the last build, and the workers of a
    parallel run take turns (tests/support/book_build.py): one builds, the others find it built.
    A run that needs the site starts that build with its first tests (pytest_runtestloop).
    """
    done = make_book()
    if done.returncode != 0:
        pytest.fail(f"make book failed ({done.returncode}):\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}")
    return SITE


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """``http://127.0.0.1:PORT/``: the built site served by a thread of this process."""
    with served(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def playwright_session() -> Iterator[Any]:
    """Playwright, started once for the whole session and shared by every browser test: its sync
    API allows one instance per process (a second one, started inside the first's event loop,
    fails)."""
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is not installed (apt-get install chromium; .ci/run does)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def chromium(playwright_session: Any) -> Iterator[Any]:
    """Debian's chromium, headless and kept from reaching out on its own, for the tests that open
    pages in contexts of their own (JupyterLab's tests launch theirs with a profile: ``browser``)."""
    launched = playwright_session.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield launched
    launched.close()


@pytest.fixture(scope="session")
def axe_script() -> str:
    """axe-core's browser build (axe.min.js), as `make vendor` copied it from npm."""
    import vendor_assets  # tools/vendor_assets.py: where the tests' axe-core is

    path = vendor_assets.AXE
    assert path.is_file(), f"{path.relative_to(ROOT)} is missing: run `make vendor` (make test does)"
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def released_course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course with the repository's nbgrader config and solutions, released by `make exercises`,
    once per run: in a parallel run the first worker to ask releases it in the run's shared
    temporary folder and the others, waiting on a file lock, find it there (pytest-xdist's recipe
    for a session fixture run once). Tests that grade copy it first (shutil.copytree) and never
    change it."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, above each worker's own
    root, done = shared / "released" / "course", shared / "released.done"
    with exclusive(shared / "released.lock"):
        if not done.exists():
            shutil.rmtree(root.parent, ignore_errors=True)
            root.mkdir(parents=True)
            shutil.copy(ROOT / "nbgrader_config.py", root)
            shutil.copytree(ROOT / "solutions", root / "solutions")
            make("exercises", course=root)
            subprocess.run([sys.executable, "-c", "import matplotlib.pyplot"], check=True)  # font cache
            done.touch()
    return root
