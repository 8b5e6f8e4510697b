"""The course's JupyterLab in Korean, as a Korean student uses it (Debian's chromium, Playwright).

A second server, started as ``make lab-ko`` starts it (jupyter-config/ko), on a scratch folder
holding the Korean release of exercise 1: its menus are in Korean (JupyterLab's language pack);
every Korean release opens unmodified; there a Korean student reads the check's Korean words for
a known mistake under the answer, puts it right, and *Validate* agrees; finds only a student's
tools (Validate on the exercise, not on a chapter); and runs a fresh exercise to its last cell,
each unanswered part said in Korean in one line. The interface's words
come from the language pack's own catalog and the notebook's from roofline_grading's, so no
translation is typed into the test. The server, the browser and the steps are
tests/support/jupyterlab.py's, as for tests/e2e/test_jupyterlab.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.support.jupyterlab import (
    CHAPTER,
    ROOT,
    Browser,
    Lab,
    flat,
    fresh_run_all_reaches_the_last_cell,
    known_mistake_named_then_put_right,
    lab_with,
    only_students_tools,
    opens_unmodified,
    page_errors,
    screenshot,
)

# One worker runs every module that starts a JupyterLab, one server at a time (test_public_edition.py).
pytestmark = [pytest.mark.lab, pytest.mark.browser, pytest.mark.xdist_group("jupyterlab")]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """``make lab-ko``'s JupyterLab on a scratch folder holding the Korean release of exercise 1."""
    exercise = "roofline/ex1_int8_matmul.ipynb"
    release = ROOT / "exercises" / "ko" / exercise
    files = {exercise: release, f"fresh/{exercise}": release}  # (Validate saves the first)
    files[CHAPTER] = ROOT / "book" / "chapters" / CHAPTER
    with lab_with(tmp_path_factory, "jupyterlab-ko", files, "ko") as served:
        yield served


def test_make_lab_ko_shows_jupyterlab_in_korean(browser: Browser, lab: Lab) -> None:
    page = browser.page
    menus = ("File", "Edit", "View", "Run", "Kernel", "Tabs", "Settings", "Help")
    korean = [lab.words(menu, "menu") for menu in menus]
    assert all(re.search("[가-힣]", label) for label in korean), korean  # the pack translates them all
    page.wait_for_function(  # every menu is in (they come with their plugins' settings)
        f"() => document.querySelectorAll('.lm-MenuBar-item').length >= {len(menus)}", timeout=60_000
    )
    shown = [flat(label) for label in page.locator(".lm-MenuBar-item").all_inner_texts()]
    screenshot(page, "ko-menus")
    assert [label for label in shown if label in korean] == korean, shown
    assert not set(menus) & set(shown), shown
    page.locator(".lm-MenuBar-item", has_text=lab.words("Settings", "menu")).click()
    language = page.locator(".lm-Menu-item:visible", has_text=lab.words("Language", "menu"))
    assert language.count() == 1
    page.keyboard.press("Escape")


def test_a_korean_release_opens_unmodified(browser: Browser, lab: Lab) -> None:
    for path in sorted((ROOT / "exercises" / "ko" / "roofline").glob("*.ipynb")):
        opens_unmodified(browser, lab, path)


def test_a_korean_student_reads_the_known_mistake_in_korean_and_validate_agrees(
    browser: Browser, lab: Lab
) -> None:
    known_mistake_named_then_put_right(browser, lab, "ko")
    assert not page_errors(browser), browser.errors
    assert not browser.blocked, browser.blocked


def test_the_korean_lab_offers_a_student_validate_on_an_exercise_and_no_instructors_tool(
    browser: Browser, lab: Lab
) -> None:
    only_students_tools(browser, lab, "roofline/ex1_int8_matmul.ipynb", CHAPTER, "ko-")


def test_run_all_on_a_fresh_korean_exercise_reaches_the_last_cell_saying_each_unanswered_part_in_korean(
    browser: Browser, lab: Lab
) -> None:
    fresh_run_all_reaches_the_last_cell(browser, lab, "fresh/roofline/ex1_int8_matmul.ipynb", "ko")
