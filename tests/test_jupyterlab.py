"""The course in a real JupyterLab, as a student uses it (Debian's chromium, driven by Playwright).

A ``jupyter lab`` server from the course's environment (``make lab``'s, with the settings
``make venv`` installs) serves a scratch folder holding the released exercises and a chapter,
with its own config, settings and runtime folders. Chromium, with a fresh profile and every
request to another host blocked, then does what a student does:

- opens each released exercise, types the answers into the answer cells, runs all cells and
  presses *Validate*: a notebook with a known mistake gets the misconception's words under the
  answer and no "Success!", the same notebook put right passes;
- double-clicks a chapter in the file browser: it opens as a notebook with a Python kernel,
  runs top to bottom without an error, and shows its plots and its explorer; its prose reads
  as on the site (jupyterlab-myst): no MyST role or label shows raw, and the figures and words
  the chapter computes stand in the text as rooflinekit gives them (in English);
- uses the live explorer: a catalog chip shows its own figures (rooflinekit's, to the digits
  shown) and stays chosen, another chip too, a dragged slider gives custom figures labelled so,
  "back to" returns to the chip, and the chip's typical achieved share of the peak (marked in
  its menu) gives the figures under that lower roof, labelled so.

Every assertion reads what the page shows. Screenshots go to ``_build/screenshots/jupyterlab-*``.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from browsers import CHROMIUM, CHROMIUM_ARGS
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from slips import SLIPS, answered

import rooflinekit as rk
from rooflinekit.catalog import chip
from rooflinekit.explorer.model import chip_figures, evaluate
from rooflinekit.fmt import num, pct, si

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SCREENSHOTS = ROOT / "_build" / "screenshots"
CHAPTER = "03-roofline-plots.md"  # a chapter with plots, glued numbers and the live explorer
EXERCISES = sorted(p.stem for p in (ROOT / "exercises" / "roofline").glob("*.ipynb"))
TOKEN = "roofline-course-test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Lab:
    url: str
    root: Path


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """A JupyterLab server on a scratch folder: the exercises as released, and a chapter."""
    base = tmp_path_factory.mktemp("jupyterlab")
    root = base / "work"
    (root / "roofline").mkdir(parents=True)
    for name in EXERCISES:
        shutil.copy(ROOT / "exercises" / "roofline" / f"{name}.ipynb", root / "roofline")
    shutil.copy(ROOT / "book" / "chapters" / CHAPTER, root)
    # Every cell of a notebook stays rendered (not only those on screen), so the test can read them all.
    tracker = base / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text('{"windowingMode": "none"}')
    port = _free_port()
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "JUPYTER_CONFIG_DIR": str(base / "config"),  # nothing from ~/.jupyter
        "JUPYTERLAB_SETTINGS_DIR": str(base / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
    }
    log = (base / "server.log").open("w")
    server = subprocess.Popen(
        [
            str(BIN / "jupyter"),
            "lab",
            "--allow-root",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("jupyter lab did not start:\n" + (base / "server.log").read_text()[-4000:])
                time.sleep(0.5)
        yield Lab(url, root)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@dataclass
class Browser:
    page: Any
    errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def browser(lab: Lab, tmp_path_factory: pytest.TempPathFactory, playwright_session: Any) -> Iterator[Browser]:
    context = playwright_session.chromium.launch_persistent_context(
        str(tmp_path_factory.mktemp("chromium-profile")),
        executable_path=CHROMIUM,
        args=CHROMIUM_ARGS,
        viewport={"width": 1400, "height": 1000},
    )
    page = context.new_page()
    seen = Browser(page)

    def route(handle: Any) -> None:
        if handle.request.url.startswith(lab.url) or handle.request.url.startswith(("data:", "blob:")):
            handle.continue_()
        else:
            seen.blocked.append(handle.request.url)
            handle.abort()

    page.route("**/*", route)
    page.on("console", lambda m: m.type == "error" and seen.errors.append(m.text))
    page.on("pageerror", lambda e: seen.errors.append(f"page error: {e}"))
    page.goto(f"{lab.url}/lab?token={TOKEN}", wait_until="load")
    page.locator(".jp-DirListing-content").wait_for(timeout=60_000)
    yield seen
    context.close()


def _screenshot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"jupyterlab-{name}.png"))


def _open(page: Any, lab: Lab, path: str) -> Any:
    """Open ``path`` from the file browser with a double click, as a student does; return its tab's panel.

    Each file opens in a fresh workspace (``?reset``: the default layout, the file browser open),
    so what an earlier test left open or closed does not matter."""
    folder = f"/tree/{path.rsplit('/', 1)[0]}" if "/" in path else ""
    name = path.rsplit("/", 1)[-1]
    workspace = re.sub(r"[^A-Za-z0-9]+", "-", name)
    page.goto(f"{lab.url}/lab/workspaces/{workspace}{folder}?reset&token={TOKEN}")
    item = page.locator(f".jp-DirListing-item[title^='Name: {name}']")
    try:
        item.wait_for(timeout=60_000)
    except PlaywrightTimeout:
        _screenshot(page, "open-failed")
        raise
    item.dblclick()
    panel = page.locator(".jp-NotebookPanel:visible")
    panel.wait_for(timeout=60_000)
    _wait_idle(page)
    return panel


def _wait_idle(page: Any, timeout: float = 180_000) -> None:
    """The kernel of the current notebook is connected and idle."""
    page.wait_for_function(
        """() => { const s = document.querySelector(
                       '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator');
                   return s && s.getAttribute('data-status') === 'idle'; }""",
        timeout=timeout,
    )


def _run_all(page: Any) -> None:
    """*Restart the kernel and run all cells* (the notebook toolbar's button), as the exercises
    ask; wait until the kernel is done (it stops at a failing cell). The outputs of an earlier
    run are cleared first, so that what is read afterwards is this run's."""
    page.locator(".lm-MenuBar-item", has_text="Edit").click()
    page.locator(".lm-Menu-item:visible", has_text="Clear Outputs of All Cells").first.click()
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) [data-command='notebook:restart-run-all']").click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    try:
        page.wait_for_function(  # the first code cell has run, and none is running or waiting
            """() => { const prompts = [...document.querySelectorAll(
                           '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')];
                       return prompts.length && /\\[1\\]/.test(prompts[0].textContent)
                              && !prompts.some(p => p.textContent.includes('*')); }""",
            timeout=300_000,
        )
    except PlaywrightTimeout:
        _screenshot(page, "run-all-failed")
        raise
    _wait_idle(page)


def _type_answers(page: Any, notebook: Any) -> None:
    """Type each answer cell's source into the open notebook, as a student would."""
    cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")
    for index, cell in enumerate(notebook.cells):
        if not cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        editor = cells.nth(index).locator(".cm-content")
        editor.scroll_into_view_if_needed()
        editor.click()
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        page.keyboard.insert_text(cell.source)
        page.keyboard.press("Escape")


def _validate(page: Any) -> str:
    """Press Validate; return the dialog's text (and close it)."""
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .validate-button").click()
    dialog = page.locator(".jp-Dialog")
    dialog.locator(".validation-success, .validation-failed").wait_for(timeout=300_000)
    text = str(dialog.inner_text())
    return text


def _close_dialog(page: Any) -> None:
    page.locator(".jp-Dialog .jp-Dialog-button").last.click()
    page.locator(".jp-Dialog").wait_for(state="detached")


def _words(text: str) -> str:
    return " ".join(text.split())


def _outputs(page: Any) -> str:
    return _words(
        " ".join(page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea").all_inner_texts())
    )


def _close_all(page: Any) -> None:
    page.locator(".lm-MenuBar-item", has_text="File").click()
    page.locator(".lm-Menu-item:visible", has_text="Close All Tabs").first.click()
    dont_save = page.locator(".jp-Dialog button", has_text="Discard")
    for _ in range(10):
        if not dont_save.count():
            break
        dont_save.first.click()


# --- The exercises --------------------------------------------------------------------


def test_a_known_mistake_is_named_before_submission_and_validate_fails_then_passes_when_put_right(
    browser: Browser, lab: Lab
) -> None:
    page = browser.page
    slip = "ex1-two-bytes"
    _open(page, lab, "roofline/ex1_int8_matmul.ipynb")
    _type_answers(page, answered("ex1_int8_matmul", slip))
    _run_all(page)  # it stops at the first failing check: the bytes read
    message = _words(SLIPS[slip].misconception.message)
    shown = _outputs(page)
    assert "bytes_read makes a known mistake." in shown and message in shown
    result = _validate(page)
    _screenshot(page, "validate-known-mistake")
    assert "Success" not in result and message in _words(result), result[:3000]
    _close_dialog(page)

    _type_answers(page, answered("ex1_int8_matmul"))
    _run_all(page)
    shown = _outputs(page)
    assert "makes a known mistake" not in shown
    assert (
        "bytes_read: no known mistake found. That does not make it right: the hidden tests decide." in shown
    )
    result = _validate(page)
    assert "Success! Your notebook passes all the tests." in result, result[:3000]
    _close_dialog(page)
    _close_all(page)


@pytest.mark.parametrize("name", [n for n in EXERCISES if n != "ex1_int8_matmul"])
def test_each_exercise_answered_right_validates(browser: Browser, lab: Lab, name: str) -> None:
    page = browser.page
    _open(page, lab, f"roofline/{name}.ipynb")
    _type_answers(page, answered(name))
    _run_all(page)
    shown = _outputs(page)
    assert "no known mistake found" in shown and "makes a known mistake" not in shown
    result = _validate(page)
    _screenshot(page, f"validate-{name}")
    assert "Success! Your notebook passes all the tests." in result, result[:3000]
    _close_dialog(page)
    _close_all(page)


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


def _table_cell(explorer: Any, row: int, column: int) -> str:
    return str(explorer.locator("table tr").nth(row).locator("td").nth(column).inner_text())


def test_a_chapter_opens_as_a_notebook_runs_and_its_explorer_follows_the_chips(
    browser: Browser, lab: Lab
) -> None:
    page = browser.page
    _open(page, lab, CHAPTER)  # a double click: the default viewer the course's settings ship
    kernel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Toolbar-kernelName")
    page.wait_for_function(
        "k => k.textContent.includes('Python 3')", arg=kernel.element_handle(), timeout=60_000
    )
    _screenshot(page, "chapter-opened")
    _run_all(page)
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
    try:
        page.wait_for_function(  # the inline expressions have been evaluated and rendered
            "([cells, text]) => [...document.querySelectorAll(cells)].some(c => c.innerText.includes(text))",
            arg=[".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell .jp-Cell-inputArea", figures[0]],
            timeout=60_000,
        )
    except PlaywrightTimeout:
        _screenshot(page, "chapter-prose-failed")
        pytest.fail(
            f"{figures[0]} never appeared in the prose: {_words(' '.join(prose.all_inner_texts()))[:3000]}"
        )
    text = _words(" ".join(prose.all_inner_texts()))
    notebook.locator(".jp-MarkdownCell", has_text=figures[0]).first.scroll_into_view_if_needed()
    _screenshot(page, "chapter-prose")
    for raw in ("{eval}", "{glue", "{ref}", "{doc}", "{math}", ")=", "glued."):
        assert raw not in text, (
            f"raw MyST {raw!r} in the rendered chapter: ...{text[text.find(raw) - 80 :][:200]}..."
        )
    for figure in figures:
        assert figure in text, f"{figure} (rooflinekit) is not in the chapter's prose"
    # Words the chapter composes (rooflinekit.messages) read in English here, as on the English site.
    assert re.search(r"(memory|compute)-bound under the advertised roof, is (memory|compute)-bound", text), (
        "the glued bound words are not in the chapter's prose"
    )
    assert notebook.locator(".jp-OutputArea-output img").count() >= 2  # the chapter's plots
    explorer = notebook.locator(".widget-vbox:has(.rk-figures)").first
    explorer.wait_for(timeout=60_000)
    explorer.scroll_into_view_if_needed()
    assert "Loading widget" not in notebook.inner_text()
    _screenshot(page, "chapter-explorer")

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
    _screenshot(page, "chapter-explorer-achieved")
    _select(shares, "100% of peak")
    page.wait_for_function(
        "e => !e.querySelector('table').textContent.includes('of peak')",
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
    _screenshot(page, "chapter-explorer-custom")
    assert back.is_visible() and back.inner_text() == f"back to {h100.name}"
    back.click()
    page.wait_for_function(
        "e => e.querySelector('.rk-figures').textContent.startsWith(" + repr(h100.name) + ")",
        arg=explorer.element_handle(),
        timeout=30_000,
    )
    assert f"peak {num(peak)} FLOP/s, HBM {num(bandwidth)} B/s" in _caption(explorer)
    assert not [e for e in browser.errors if "comm" in e.lower()], browser.errors
    assert not browser.blocked or all("127.0.0.1" not in u for u in browser.blocked)
    _close_all(page)
