"""Students' feedback pages in a real browser, opened from the file system with no network.

A small course gets a formula-bearing release: the chapters' notation for exercise 1 (inline
and display math, an ``aligned`` block), written into the introduction of the English and the
Korean notebook (the released exercises have no TeX yet). One student submits each, and
``make autograde`` and ``make feedback`` run as an instructor runs them. Each page, opened in
Debian's chromium from ``file://`` as a student opens the folder returned through the LMS, with
every other request blocked, must load nothing else and fail nothing, name no other host, show
each formula laid out as MathML with no TeX left in the text, and keep its scores. A screenshot
of each is saved under _build/screenshots/feedback/.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbgrader.utils import compute_checksum

from tests.support.browsers import note_requests_elsewhere
from tests.support.make_targets import make
from tests.support.slips import ASSIGNMENT, ROOT, answered, read

pytestmark = [pytest.mark.grading, pytest.mark.browser, pytest.mark.xdist_group("feedback-pages")]

NOTEBOOK = "ex1_int8_matmul"
INTRO = "ex1_intro"
SCREENSHOTS = ROOT / "_build" / "screenshots" / "feedback"
ALIGNED = (
    r"\begin{aligned} T_\text{math} &= \frac{2BDF}{\text{%s}}, \\ "
    r"T_\text{comms} &= \frac{BD + DF + BF}{\text{%s}}. \end{aligned}"
)
FORMULAS = {
    "en": [
        "BD + DF + BF",
        "2BDF",
        r"B \ll D, F",
        r"I = \frac{2BDF}{BD + DF + BF} \approx 2B",
        r"T_\text{lower} = \max(T_\text{math}, T_\text{comms}) \le T \le T_\text{math} + T_\text{comms}",
        ALIGNED % ("int8 peak", "HBM bandwidth"),
    ],
    "ko": [
        "BD + DF + BF",
        "2BDF",
        r"B \ll D, F",
        r"I = \frac{2BDF}{BD + DF + BF} \approx 2B",
        r"T_\text{lower} = \max(T_\text{math}, T_\text{comms}) \le T \le T_\text{math} + T_\text{comms}",
        ALIGNED % ("int8 피크", "HBM 대역폭"),
    ],
}
PARAGRAPH = {
    "en": "In the chapters' notation, the matmul moves ${}$ bytes and does ${}$ operations; when ${}$,\n"
    "its arithmetic intensity is ${}$. The time it takes is bounded:\n\n$${}$$\n\nwhere\n\n$${}$$",
    "ko": "장의 표기로, 이 행렬 곱은 ${}$ 바이트를 옮기고 ${}$ 번 연산합니다. ${}$ 이면\n"
    "산술 강도는 ${}$ 입니다. 걸리는 시간의 범위는\n\n$${}$$\n\n이고, 여기서\n\n$${}$$",
}
STUDENTS = {"en": "ada", "ko": "bomi"}


def release_with_math(course: Path) -> None:
    """Write each language's paragraph of formulas into exercise 1's introduction: in the English
    instructor version (nbgrader releases it again), and in the Korean instructor version and
    release (what ``make exercises`` writes from the catalogs, which have no such paragraph)."""
    places = {
        "en": [course / "solutions" / ASSIGNMENT],
        "ko": [course / "solutions" / "ko" / ASSIGNMENT, course / "exercises" / "ko" / ASSIGNMENT],
    }
    for language, folders in places.items():
        for folder in folders:
            path = folder / f"{NOTEBOOK}.ipynb"
            notebook = read(path)
            (cell,) = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == INTRO]
            cell.source += "\n\n" + PARAGRAPH[language].format(*FORMULAS[language])
            if "checksum" in cell.metadata.nbgrader:
                cell.metadata.nbgrader.checksum = compute_checksum(cell)
            nbformat.write(notebook, path)
    bin_dir = Path(sys.executable).parent  # nbgrader calls alembic through PATH, as in the Makefile
    subprocess.run(
        [str(bin_dir / "nbgrader"), "generate_assignment", ASSIGNMENT, "--force"],
        cwd=course,
        check=True,
        capture_output=True,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
    )


@pytest.fixture(scope="module")
def feedback(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course whose exercise 1 has formulas, one English and one Korean student who submit the
    model answers to it, graded, with their feedback pages: the course's folder."""
    course = tmp_path_factory.mktemp("feedback") / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    for kind in ("solutions", "exercises"):
        shutil.copytree(ROOT / kind, course / kind)
    release_with_math(course)
    for language, student in STUDENTS.items():
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(answered(NOTEBOOK, language=language, root=course), folder / f"{NOTEBOOK}.ipynb")
    make("autograde", "feedback", course=course)
    return course


@dataclass
class Opened:
    page: Any
    errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)


@contextmanager
def open_offline(browser: Any, path: Path) -> Iterator[Opened]:
    """``path`` opened in a new browser context; every request but to files (and what the page holds)
    is noted (the browser reaches no host but 127.0.0.1)."""
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    seen = Opened(page)

    note_requests_elsewhere(page, "file://", seen.blocked)
    page.on("console", lambda m: m.type in ("error", "warning") and seen.errors.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: seen.errors.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: seen.errors.append(f"failed: {r.url} {r.failure}"))
    page.goto(path.as_uri(), wait_until="load", timeout=60_000)
    page.wait_for_load_state("networkidle", timeout=60_000)
    page.wait_for_timeout(300)  # late requests (fonts a stylesheet asks for once laid out)
    try:
        yield seen
    finally:
        context.close()


# What each formula of the cell became, and whether Chromium lays it out as math: a <math> element
# in MathML's own display types, and each fraction's numerator above its denominator.
MATH_IN_CELL = """cell => [...cell.querySelectorAll('math')].map(m => ({
    tex: m.querySelector('annotation') ? m.querySelector('annotation').textContent : null,
    display: getComputedStyle(m).display,
    width: m.getBoundingClientRect().width,
    fractions: [...m.querySelectorAll('mfrac')].map(f => {
        const [top, bottom] = [...f.children].map(c => c.getBoundingClientRect());
        return top.bottom <= bottom.top + 0.5 && top.height > 0 && bottom.height > 0;
    }),
}))"""


@pytest.mark.parametrize("language", list(STUDENTS))
def test_a_feedback_page_shows_its_math_offline_and_loads_nothing(
    feedback: Path, chromium: Any, language: str
) -> None:
    path = feedback / "feedback" / STUDENTS[language] / ASSIGNMENT / f"{NOTEBOOK}.html"
    html = path.read_text()
    # No address of another host in the page, but in Bootstrap's licence notes (CSS comments).
    assert "<script" not in html and "<link" not in html
    assert not re.findall(r"[a-z]+://\S+", re.sub(r"/\*.*?\*/", "", html, flags=re.DOTALL))

    with open_offline(chromium, path) as seen:
        page = seen.page
        cells = page.locator(".text_cell_render", has=page.locator("math"))
        assert cells.count() == 1, "the introduction, and only it, has math"
        maths = cells.first.evaluate(MATH_IN_CELL)
        assert [m["tex"] for m in maths] == FORMULAS[language]
        for m in maths:
            assert m["display"] in ("math", "block math") and m["width"] > 0, m
            assert all(m["fractions"]), f"a fraction is not laid out as one: {m}"
        assert [m["display"] for m in maths].count("block math") == 2
        text = cells.first.inner_text()
        assert "$" not in text and "\\" not in text, f"TeX left in the text: {text[-400:]}"
        # The page otherwise as nbgrader writes it: the notebook's score, each test cell's.
        heading = page.locator(".panel-heading h4").inner_text()
        assert re.fullmatch(rf"{NOTEBOOK} \(Score: 11\.0 / 11\.0\)", heading), heading
        tests = [c for c in read(feedback / "exercises" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").cells
                 if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
        assert page.locator("#toc li").count() == len(tests)
        if language == "ko":
            assert "연습 문제 1" in page.locator("h1").first.inner_text()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{language}.png"), full_page=True)
        assert not seen.blocked, f"requests to other hosts: {seen.blocked}"
        assert not seen.errors, "\n".join(seen.errors)
