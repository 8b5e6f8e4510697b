"""The course in a real JupyterLab, as a student uses it (Debian's chromium, driven by Playwright).

A ``jupyter lab`` server from the course's environment (``make lab``'s, with the settings
``make venv`` installs) serves a scratch folder holding the released exercises and a chapter,
with its own config, settings and runtime folders. Chromium, with a fresh profile and every
request to another host blocked, then does what a student does:

- finds only a student's tools: no Nbgrader menu, no Create Assignment sidebar, none of
  nbgrader's instructor or exchange commands in the command palette; *Validate* in an exercise's
  toolbar and not in a chapter's;
- runs all cells of a fresh exercise: Run All reaches the last cell, the unanswered figures cell
  and each check under an unanswered function say so in one line (no traceback), and *Validate*
  lists each unanswered part in one line;
- opens each released exercise: it opens unmodified (no unsaved-changes
  mark; saved as it opened, it is the released file, byte for byte);
- types the answers into the answer cells (of ex1, ex3 and ex10), runs all cells and presses
  *Validate*: a notebook with a known mistake gets the misconception's words under the answer,
  the message first and alone (no traceback), Run All goes on past it to the last cell, which
  lists every check (an inherited mistake named as inherited), and no "Success!"; the same
  notebook put right passes, every check saying so;
- double-clicks a chapter in the file browser: it opens as a notebook with a Python kernel,
  runs top to bottom without an error, and shows its plots and its explorer; its prose reads
  as on the site (jupyterlab-myst): no MyST role or label shows raw, and the figures and words
  the chapter computes stand in the text as rooflinekit gives them (in English);
- uses the live explorer: a catalog chip shows its own figures (rooflinekit's, to the digits
  shown, in the caption and on the peak and HBM sliders' readouts) and stays chosen, another
  chip too, a dragged slider gives custom figures labelled so (its readout the same),
  "back to" returns to the chip, and the chip's typical achieved share of the peak (marked in
  its menu) gives the figures under that lower roof, labelled so;
- in Korean: Settings > Language offers JupyterLab's Korean interface (its language pack);
  tests/e2e/test_jupyterlab_ko.py takes the Korean student's steps in ``make lab-ko``'s server.

Every assertion reads what the page shows. The server, the browser and the student's steps are
tests/support/jupyterlab.py's (tests/e2e/test_public_edition.py takes the same steps in the student
environment). Screenshots go to ``_build/screenshots/jupyterlab-*``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import rooflinekit as rk
from rooflinekit.catalog import chip
from rooflinekit.explorer.model import chip_figures, evaluate, level_note, on_level, slider_figure
from rooflinekit.fmt import num, pct, si
from tests.support.jupyterlab import (
    CHAPTER,
    ROOT,
    TOKEN,
    Browser,
    Lab,
    cell_at,
    close_all,
    close_dialog,
    flat,
    fresh_run_all_reaches_the_last_cell,
    known_mistake_named_then_put_right,
    lab_with,
    only_students_tools,
    open_path,
    opens_unmodified,
    outputs,
    page_errors,
    run_all,
    screenshot,
    type_answers,
    validate,
)
from tests.support.slips import answered

pytestmark = [pytest.mark.lab, pytest.mark.browser, pytest.mark.xdist_group("jupyterlab")]

EXERCISES = sorted(p.stem for p in (ROOT / "exercises" / "roofline").glob("*.ipynb"))
FRESH = "fresh/ex1_int8_matmul.ipynb"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """A JupyterLab server on a scratch folder: the exercises as released, and a chapter."""
    files = {f"roofline/{n}.ipynb": ROOT / "exercises" / "roofline" / f"{n}.ipynb" for n in EXERCISES}
    files[CHAPTER] = ROOT / "book" / "chapters" / CHAPTER
    files[FRESH] = ROOT / "exercises" / "roofline" / "ex1_int8_matmul.ipynb"  # Validate saves the others
    with lab_with(tmp_path_factory, "jupyterlab", files) as served:
        yield served


# --- The student's tools ----------------------------------------------------------------


def test_the_lab_offers_a_student_validate_on_an_exercise_and_no_instructors_tool(
    browser: Browser, lab: Lab
) -> None:
    only_students_tools(browser, lab, "roofline/ex1_int8_matmul.ipynb", CHAPTER)


def test_run_all_on_a_fresh_exercise_reaches_the_last_cell_and_says_each_unanswered_part_in_one_line(
    browser: Browser, lab: Lab
) -> None:
    fresh_run_all_reaches_the_last_cell(browser, lab, FRESH, "en")


# --- The exercises --------------------------------------------------------------------


def test_a_known_mistake_is_named_before_submission_and_validate_fails_then_passes_when_put_right(
    browser: Browser, lab: Lab
) -> None:
    known_mistake_named_then_put_right(browser, lab, "en")


TYPED = ("ex3_roofline_plot", "ex10_speculative")
"""The exercises answered right by typing in the lab (ex1's known mistake is put right above): one
with a figure, and the newest. Typing, Run All and Validate take the same path in any notebook;
every exercise's model answers pass ``nbgrader validate`` (tests/grading/test_known_mistakes.py)
and run in the student environment (tests/e2e/test_public_edition.py)."""


@pytest.mark.parametrize("name", TYPED)
def test_an_exercise_answered_right_validates(browser: Browser, lab: Lab, name: str) -> None:
    page = browser.page
    open_path(page, lab, f"roofline/{name}.ipynb")
    notebook = answered(name)
    type_answers(page, notebook)
    run_all(page, lab.words)
    shown = outputs(page)
    assert "no known mistake found" in shown and "makes a known mistake" not in shown
    for index, cell in enumerate(notebook.cells):  # every check says so when it passes
        if cell.metadata.get("nbgrader", {}).get("grade"):
            said = flat(cell_at(page, index).locator(".jp-OutputArea").inner_text())
            assert said.endswith("That does not make it right: the hidden tests decide."), (index, said)
    result = validate(page)
    screenshot(page, f"validate-{name}")
    assert "Success! Your notebook passes all the tests." in result, result[:3000]
    close_dialog(page)
    close_all(page, lab.words)


@pytest.mark.parametrize("name", EXERCISES)
def test_a_released_notebook_opens_unmodified(browser: Browser, lab: Lab, name: str) -> None:
    opens_unmodified(browser, lab, ROOT / "exercises" / "roofline" / f"{name}.ipynb")


# --- A chapter and the live explorer ---------------------------------------------------


def _caption(explorer: Any) -> str:
    return str(explorer.locator(".rk-figures").inner_text())


def _chosen(menu: Any) -> str:
    """The chip menu's choice as it reads (ipywidgets writes its spaces as no-break spaces)."""
    return str(menu.evaluate("s => s.options[s.selectedIndex].text")).replace("\xa0", " ")


def _select(menu: Any, text: str) -> None:
    """Choose the option of ``menu`` that reads ``text``."""
    menu.select_option(value=menu.evaluate(
        "(s, text) => [...s.options].find(o => o.text.replace(/\\u00a0/g, ' ') === text).value", text))


SI = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


def _readouts(explorer: Any) -> tuple[float, float]:
    """The figures the peak and HBM sliders show (ipywidgets' readout, e.g. 197T), as numbers."""
    shown = []
    for label in ("peak FLOP/s", "HBM B/s"):
        text = explorer.locator(".widget-slider", has_text=label).locator(".widget-readout").inner_text()
        number = re.fullmatch(r"([0-9.]+)([kMGTP]?)", text.strip())
        assert number, f"the {label} slider reads {text!r}"
        shown.append(float(f"{float(number.group(1)) * SI.get(number.group(2), 1):.3g}"))
    return shown[0], shown[1]


def _table_cell(explorer: Any, row: int, column: int) -> str:
    return str(explorer.locator("table tr").nth(row).locator("td").nth(column).inner_text())


def test_a_chapter_opens_as_a_notebook_runs_and_its_explorer_follows_the_chips(
    browser: Browser, lab: Lab
) -> None:
    page = browser.page
    open_path(page, lab, CHAPTER)  # a double click: the default viewer the course's settings ship
    kernel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Toolbar-kernelName")
    page.wait_for_function(
        "k => k.textContent.includes('Python 3')", arg=kernel.element_handle(), timeout=60_000
    )
    screenshot(page, "chapter-opened")
    run_all(page, lab.words)
    notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    errors = notebook.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.all_inner_texts()

    # The prose as it renders: MyST, with the chapter's computed figures in the text.
    v5e = chip("tpu-v5e")
    peak, bandwidth = chip_figures(v5e)
    figures = [
        si(v5e.peak("bf16"), "FLOP/s"),
        si(v5e.hbm_bandwidth, "B/s"),
        num(v5e.critical_intensity("bf16")),
    ]
    prose = notebook.locator(".jp-MarkdownCell .jp-Cell-inputArea")
    raw_myst = ("{eval}", "{glue", "{ref}", "{doc}", "{math}", ")=", "glued.")
    try:
        # Every inline expression has been evaluated and rendered: the cells re-render one by one
        # after the kernel has run, so the first figure showing does not mean the last cell is done.
        page.wait_for_function(
            """([cells, figures, raw]) => {
                const text = [...document.querySelectorAll(cells)].map(c => c.innerText).join(" ")
                    .replace(/\\s+/g, " ");
                return figures.every(f => text.includes(f)) && !raw.some(r => text.includes(r));
            }""",
            arg=[
                ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell .jp-Cell-inputArea", figures, raw_myst
            ],
            timeout=60_000,
        )
    except PlaywrightTimeout:
        screenshot(page, "chapter-prose-failed")
        text = flat(" ".join(prose.all_inner_texts()))
        missing = [figure for figure in figures if figure not in text]
        left = [f"{raw!r}: ...{text[text.find(raw) - 80 :][:200]}..." for raw in raw_myst if raw in text]
        pytest.fail(f"after 60 s, figures not in the prose: {missing}; raw MyST left: {left}")
    text = flat(" ".join(prose.all_inner_texts()))
    for raw in raw_myst:
        assert raw not in text, (
            f"raw MyST {raw!r} in the rendered chapter: ...{text[text.find(raw) - 80 :][:200]}..."
        )
    for figure in figures:
        assert figure in text, f"{figure} (rooflinekit) is not in the chapter's prose"
    notebook.locator(".jp-MarkdownCell", has_text=figures[0]).first.scroll_into_view_if_needed()
    screenshot(page, "chapter-prose")
    # Words the chapter composes (rooflinekit.words) read in English here, as on the English site.
    assert re.search(r"(memory|compute)-bound under the advertised roof, is (memory|compute)-bound", text), (
        "the glued bound words are not in the chapter's prose"
    )
    assert notebook.locator(".jp-OutputArea-output img").count() >= 2  # the chapter's plots
    explorer = notebook.locator(".widget-vbox:has(.rk-figures)").first
    explorer.wait_for(timeout=60_000)
    explorer.scroll_into_view_if_needed()
    assert "Loading widget" not in notebook.inner_text()
    screenshot(page, "chapter-explorer")

    # The chip it starts on shows its own figures, exactly, and stays chosen.
    page.wait_for_timeout(1500)  # the sliders have placed themselves and told the kernel
    menu = explorer.locator(".widget-dropdown select").first  # the chip's; then the achieved share
    assert _chosen(menu) == v5e.name
    assert _caption(explorer).startswith(
        f"{v5e.name} (catalog): peak {num(peak)} FLOP/s, HBM {num(bandwidth)} B/s"
    )
    assert f"critical intensity {num(peak / bandwidth, 4)} FLOP/B" in _caption(explorer)
    (matmul, *_rest) = evaluate(peak, bandwidth, 256, 8192)
    assert _table_cell(explorer, 1, 9) == num(matmul.critical_batch_approx or 0, 4)
    # Each slider shows the chip's figure, to three significant digits.
    assert _readouts(explorer) == (slider_figure(peak), slider_figure(bandwidth))
    explorer.locator(".widget-slider").first.scroll_into_view_if_needed()
    screenshot(page, "chapter-explorer-readouts")

    # Another chip: its figures, and it stays chosen.
    h100 = chip("h100-sxm")
    menu.select_option(
        value=menu.evaluate(
            "(s, name) => [...s.options].find(o => o.text.replace(/\\u00a0/g, ' ') === name).value", h100.name
        )
    )
    page.wait_for_function(
        "e => e.querySelector('.rk-figures').textContent.startsWith(" + repr(h100.name) + ")",
        arg=explorer.element_handle(),
        timeout=30_000,
    )
    page.wait_for_timeout(1500)
    peak, bandwidth = chip_figures(h100)
    assert _chosen(menu) == h100.name
    assert f"peak {num(peak)} FLOP/s, HBM {num(bandwidth)} B/s" in _caption(explorer)
    assert _readouts(explorer) == (slider_figure(peak), slider_figure(bandwidth))
    back = explorer.locator("button", has_text="back to")
    assert not back.is_visible()

    # The chip's typical achieved share, marked in the achieved menu: the catalog's figures stay,
    # and the critical figures are those under the lower roof, labelled with the share.
    share = rk.catalog.achievable(h100).low
    shares = explorer.locator(".widget-dropdown select").nth(1)
    typical = f"{pct(share)} of peak (typical for {h100.name})"
    _select(shares, typical)
    at = f" at {pct(share)} of peak"
    page.wait_for_function(
        "([e, at]) => e.querySelector('.rk-figures').textContent.includes(at)"
        " && e.querySelector('table').textContent.includes(at)",  # the table is drawn last
        arg=[explorer.element_handle(), at],
        timeout=30_000,
    )
    lower = rk.hardware(h100, achieved=share)
    assert _caption(explorer).startswith(
        f"{h100.name} (catalog): peak {num(peak)} FLOP/s, HBM {num(bandwidth)} B/s;{at}: "
        f"{num(lower.peak, 4)} FLOP/s, critical intensity {num(lower.critical_intensity, 4)} FLOP/B"
    )
    (matmul, *_rest) = evaluate(peak, bandwidth, 256, 8192, achieved=share)
    assert _table_cell(explorer, 1, 9) == num(matmul.critical_batch_approx or 0, 4)
    assert f"critical batch (B ≪ D rule){at}" in explorer.locator("table tr").first.inner_text()
    screenshot(page, "chapter-explorer-achieved")
    _select(shares, "100% of peak")
    page.wait_for_function(
        "e => !e.querySelector('table').textContent.includes('of peak')",
        arg=explorer.element_handle(),
        timeout=30_000,
    )

    # The memory levels: shared memory's roof with the operations' points out of it, as
    # rooflinekit places them; the L2, whose bandwidth no source gives, named instead of drawn.
    levels = explorer.locator(".widget-dropdown select").nth(2)
    offered = levels.evaluate("s => [...s.options].map(o => o.text.replace(/\\u00a0/g, ' '))")
    assert offered == ["HBM", "L2 cache", "shared memory (L1)"]
    _select(levels, "shared memory (L1)")
    said = level_note(h100.id, "smem", 128)
    (matmul, *_rest) = on_level(h100.id, "smem", 256, 8192)
    page.wait_for_function(  # the note, then the table, follow the menu
        "([e, said, cell]) => e.querySelector('.rk-level').textContent === said"
        " && e.querySelectorAll('table tr')[1].querySelectorAll('td')[1].textContent === cell",
        arg=[explorer.element_handle(), said, num(matmul.intensity, 4)],
        timeout=30_000,
    )
    assert _table_cell(explorer, 1, 8) == "-"  # the critical batch is HBM's
    screenshot(page, "chapter-explorer-smem")
    _select(levels, "L2 cache")
    page.wait_for_function(
        "e => e.querySelector('.rk-level').textContent.includes('has no bandwidth figure')"
        " && !e.querySelector('table td')",  # the note, then the table
        arg=explorer.element_handle(),
        timeout=30_000,
    )
    assert explorer.locator("table td").count() == 0 and not explorer.locator("img").is_visible()
    _select(levels, "HBM")
    page.wait_for_function(
        "e => e.querySelector('.rk-level').textContent === '' && e.querySelector('table td')",
        arg=explorer.element_handle(),
        timeout=30_000,
    )

    # A dragged slider makes custom figures, labelled so; "back to" returns to the chip.
    handle = explorer.locator(".widget-slider", has_text="peak FLOP/s").locator(".noUi-handle")
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 60, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    page.wait_for_function(
        "e => e.querySelector('.rk-figures').textContent.startsWith('custom (sliders)')",
        arg=explorer.element_handle(),
        timeout=30_000,
    )
    assert _chosen(menu) == "custom (sliders)"
    custom = re.search(r"peak (\S+) FLOP/s", _caption(explorer))
    assert custom and float(custom.group(1)) > peak
    page.wait_for_function(  # the slider reads the figure in use, once the kernel has its last move
        """e => { const peak = e.querySelector('.rk-figures').textContent.match(/peak (\\S+) FLOP/);
                  const slider = [...e.querySelectorAll('.widget-slider')]
                      .find(s => s.textContent.includes('peak FLOP/s'));
                  const shown = slider.querySelector('.widget-readout').textContent
                      .match(/^([0-9.]+)([kMGTP]?)$/);
                  const si = {"": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15};
                  return peak && shown && Number(peak[1]).toPrecision(3)
                         === (Number(shown[1]) * si[shown[2]]).toPrecision(3); }""",
        arg=explorer.element_handle(),
        timeout=30_000,
    )
    custom = re.search(r"peak (\S+) FLOP/s", _caption(explorer))
    assert custom and _readouts(explorer)[0] == float(custom.group(1))
    screenshot(page, "chapter-explorer-custom")
    assert back.is_visible() and back.inner_text() == f"back to {h100.name}"
    back.click()
    page.wait_for_function(
        "e => e.querySelector('.rk-figures').textContent.startsWith(" + repr(h100.name) + ")",
        arg=explorer.element_handle(),
        timeout=30_000,
    )
    assert f"peak {num(peak)} FLOP/s, HBM {num(bandwidth)} B/s" in _caption(explorer)
    assert not [e for e in page_errors(browser) if "comm" in e.lower()], browser.errors
    assert not browser.blocked or all("127.0.0.1" not in u for u in browser.blocked)
    close_all(page, lab.words)


# --- In Korean --------------------------------------------------------------------------


def test_settings_language_offers_korean_and_the_lab_starts_in_english(browser: Browser, lab: Lab) -> None:
    page = browser.page
    page.goto(f"{lab.url}/lab/workspaces/language?reset&token={TOKEN}")
    page.locator(".lm-MenuBar-item", has_text="Settings").click()
    page.locator(".lm-Menu-item:visible", has_text="Language").click()
    languages = page.locator("#jp-mainmenu-settings-language .lm-Menu-itemLabel")
    languages.first.wait_for(timeout=30_000)
    offered = languages.all_inner_texts()
    screenshot(page, "settings-language")
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    assert any("한국어" in label for label in offered), offered
    assert page.locator(".lm-MenuBar-item").first.inner_text() == "File"
