"""The course in a real JupyterLab, as a student uses it (Debian's chromium, driven by Playwright).

A ``jupyter lab`` server from the course's environment (``make lab``'s, with the settings
``make venv`` installs) serves a scratch folder holding the released exercises and a chapter,
with its own config, settings and runtime folders. Chromium, with a fresh profile and every
request to another host blocked, then does what a student does:

- opens each released exercise (English and Korean): it opens unmodified (no unsaved-changes
  mark; saved as it opened, it is the released file, byte for byte);
- types the answers into the answer cells, runs all cells and presses *Validate*: a notebook
  with a known mistake gets the misconception's words under the answer, the message first and
  alone (no traceback), Run All goes on past it to the last cell, which lists every check (an
  inherited mistake named as inherited), and no "Success!"; the same notebook put right passes,
  every check saying so;
- double-clicks a chapter in the file browser: it opens as a notebook with a Python kernel,
  runs top to bottom without an error, and shows its plots and its explorer; its prose reads
  as on the site (jupyterlab-myst): no MyST role or label shows raw, and the figures and words
  the chapter computes stand in the text as rooflinekit gives them (in English);
- uses the live explorer: a catalog chip shows its own figures (rooflinekit's, to the digits
  shown) and stays chosen, another chip too, a dragged slider gives custom figures labelled so,
  "back to" returns to the chip, and the chip's typical achieved share of the peak (marked in
  its menu) gives the figures under that lower roof, labelled so;
- in Korean: Settings > Language offers JupyterLab's Korean interface (its language pack), and a
  second server, started as ``make lab-ko`` starts it (jupyter-config/ko), shows its menus in
  Korean; there a Korean student opens the Korean release of exercise 1, reads the check's
  Korean words for a known mistake under the answer, puts it right, and *Validate* agrees.

The interface's words the test reads in Korean come from the language pack's own catalog, and
the notebook's from roofline_grading's, so no translation is typed into the test.
Every assertion reads what the page shows. Screenshots go to ``_build/screenshots/jupyterlab-*``.
"""

from __future__ import annotations

import gettext
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import nbformat
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import rooflinekit as rk
from roofline_grading.fingerprints import SAYS
from roofline_grading.i18n import translator
from rooflinekit.catalog import chip
from rooflinekit.explorer.model import chip_figures, evaluate, level_note, on_level
from rooflinekit.fmt import num, pct, si
from tests.support.browsers import CHROMIUM, CHROMIUM_ARGS
from tests.support.slips import SLIPS, answered

pytestmark = [pytest.mark.lab, pytest.mark.browser, pytest.mark.xdist_group("jupyterlab")]

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SCREENSHOTS = ROOT / "_build" / "screenshots"
CHAPTER = "03-roofline-plots.md"  # a chapter with plots, glued numbers and the live explorer
EXERCISES = sorted(p.stem for p in (ROOT / "exercises" / "roofline").glob("*.ipynb"))
TOKEN = "roofline-course-test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


Words = Callable[..., str]
"""The interface's word for an English label: ``words("File", "menu")`` (with a gettext context),
``words("Discard")``."""


def interface_words(language: str) -> Words:
    """JupyterLab's labels as a student sees them in ``language``: English as written, another
    language from the catalog of its installed language pack (the one the server hands out)."""
    if language == "en":
        return lambda message, context=None: message
    (pack,) = entry_points(group="jupyterlab.languagepack", name=language)
    locale_dir = Path(str(pack.load().__file__)).parent / "locale"
    catalog = gettext.translation("jupyterlab", locale_dir, languages=[language])
    return lambda message, context=None: (
        catalog.pgettext(context, message) if context else catalog.gettext(message)
    )


@dataclass
class Lab:
    url: str
    root: Path
    words: Words


@contextmanager
def _serve(base: Path, root: Path, language: str = "en", bin_dir: Path = BIN) -> Iterator[Lab]:
    """``make lab`` (or, for Korean, ``make lab-ko``) on ``root``, with its own config, settings
    and runtime folders under ``base``; JupyterLab from the environment of ``bin_dir`` (this
    one's by default; tests/e2e/test_public_edition.py serves the student environment's)."""
    # Every cell of a notebook stays rendered (not only those on screen), so the test can read them all.
    tracker = base / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text('{"windowingMode": "none"}')
    port = _free_port()
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "JUPYTER_CONFIG_DIR": str(base / "config"),  # nothing from ~/.jupyter
        "JUPYTERLAB_SETTINGS_DIR": str(base / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
    }
    if language == "ko":  # what `make lab-ko` adds: the interface's language, as a default setting
        env["JUPYTER_CONFIG_PATH"] = str(ROOT / "jupyter-config" / "ko")
    log = (base / "server.log").open("w")
    server = subprocess.Popen(
        [
            str(bin_dir / "jupyter"),
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
        yield Lab(url, root, interface_words("ko_KR" if language == "ko" else "en"))
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """A JupyterLab server on a scratch folder: the exercises as released, and a chapter."""
    base = tmp_path_factory.mktemp("jupyterlab")
    root = base / "work"
    (root / "roofline").mkdir(parents=True)
    for name in EXERCISES:
        shutil.copy(ROOT / "exercises" / "roofline" / f"{name}.ipynb", root / "roofline")
    shutil.copy(ROOT / "book" / "chapters" / CHAPTER, root)
    with _serve(base, root) as served:
        yield served


@dataclass
class Browser:
    page: Any
    errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)


@contextmanager
def _browse(lab: Lab, profile: Path, playwright_session: Any) -> Iterator[Browser]:
    """Chromium on ``lab`` with a fresh profile; requests to any other host are blocked and kept."""
    context = playwright_session.chromium.launch_persistent_context(
        str(profile),
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
    try:
        yield seen
    finally:
        context.close()


@pytest.fixture(scope="module")
def browser(lab: Lab, tmp_path_factory: pytest.TempPathFactory, playwright_session: Any) -> Iterator[Browser]:
    with _browse(lab, tmp_path_factory.mktemp("chromium-profile"), playwright_session) as seen:
        yield seen


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
    item = page.locator(".jp-DirListing-item").filter(
        has=page.locator(".jp-DirListing-itemText", has_text=re.compile(f"^{re.escape(name)}$"))
    )
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


def _run_all(page: Any, words: Words) -> None:
    """*Restart the kernel and run all cells* (the notebook toolbar's button), as the exercises
    ask; wait until the kernel is done (it goes on past a test cell that fails: they are tagged
    raises-exception; it stops at any other failing cell). The outputs of an earlier
    run are cleared first, so that what is read afterwards is this run's."""
    page.locator(".lm-MenuBar-item", has_text=words("Edit", "menu")).click()
    page.locator(".lm-Menu-item:visible", has_text=words("Clear Outputs of All Cells")).first.click()
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


def _cell(page: Any, index: int) -> Any:
    """The ``index``-th cell of the open notebook."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").nth(index)


def _grade_index(notebook: Any, grade_id: str) -> int:
    return next(
        i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id
    )


def _close_all(page: Any, words: Words) -> None:
    page.locator(".lm-MenuBar-item", has_text=words("File", "menu")).click()
    page.locator(".lm-Menu-item:visible", has_text=words("Close All Tabs")).first.click()
    dont_save = page.locator(".jp-Dialog button", has_text=words("Discard"))
    for _ in range(10):
        if not dont_save.count():
            break
        dont_save.first.click()


# --- The exercises --------------------------------------------------------------------


def _known_mistake_named_then_put_right(browser: Browser, lab: Lab, language: str) -> None:
    """Exercise 1 of the ``language`` release, as a student works it: a known mistake in the bytes
    read is named under the answer in the notebook's language and *Validate* fails with it; put
    right, the check finds no known mistake (it never says "right") and *Validate* passes."""
    page = browser.page
    says = translator(language)
    slip = "ex1-two-bytes"
    misconception = SLIPS[slip].misconception.text(language)
    named = says(SAYS["mistake"]).format(name="bytes_read", mistake=misconception)
    prefix = "" if language == "en" else f"{language}-"
    _open(page, lab, "roofline/ex1_int8_matmul.ipynb")
    notebook = answered("ex1_int8_matmul", slip, language)
    _type_answers(page, notebook)
    _run_all(page, lab.words)  # it goes on past each failing check, to the last cell
    shown = _outputs(page)
    assert _words(named) in shown, shown[-3000:]
    if language != "en":
        assert _words(SLIPS[slip].misconception.message) not in shown  # the English words
    # Under the answer, the check's message comes first, alone: no traceback, no checking code.
    check = _cell(page, _grade_index(notebook, "ex1_bytes_read"))
    check.scroll_into_view_if_needed()
    _screenshot(page, f"{prefix}known-mistake")
    error = _words(check.locator(".jp-OutputArea-output").last.inner_text())
    where = says(SAYS["where"]).format(line=6, code='assert no_known_mistake("bytes_read", bytes_read)')
    assert error == _words(f"{named} {where}"), error
    # The last cell ran and lists every check: intensity's names the mistake it inherits.
    listing = _cell(page, len(notebook.cells) - 1)
    listing.scroll_into_view_if_needed()
    _screenshot(page, f"{prefix}every-check")
    listed = _words(listing.locator(".jp-OutputArea-output").inner_text())
    inherited = says(SAYS["inherited"]).format(name="intensity", source="bytes_read", mistake=misconception)
    assert listed.startswith(_words(says(SAYS["every"]))) and _words(f"✗ intensity: {inherited}") in listed
    assert "✓ ops" in listed and _words(SLIPS["ex1-no-factor-two"].misconception.text(language)) not in listed
    result = _validate(page)
    _screenshot(page, f"{prefix}validate-known-mistake")
    assert "Success" not in result and _words(misconception) in _words(result), result[:3000]
    _close_dialog(page)

    _type_answers(page, answered("ex1_int8_matmul", language=language))
    _run_all(page, lab.words)
    shown = _outputs(page)
    assert _words(named.split(misconception)[0]) not in shown  # "bytes_read makes a known mistake."
    assert _words(says(SAYS["none"]).format(name="bytes_read")) in shown, shown[-3000:]
    result = _validate(page)
    assert "Success! Your notebook passes all the tests." in result, result[:3000]
    _close_dialog(page)
    _close_all(page, lab.words)


def test_a_known_mistake_is_named_before_submission_and_validate_fails_then_passes_when_put_right(
    browser: Browser, lab: Lab
) -> None:
    _known_mistake_named_then_put_right(browser, lab, "en")


@pytest.mark.parametrize("name", [n for n in EXERCISES if n != "ex1_int8_matmul"])
def test_each_exercise_answered_right_validates(browser: Browser, lab: Lab, name: str) -> None:
    page = browser.page
    _open(page, lab, f"roofline/{name}.ipynb")
    notebook = answered(name)
    _type_answers(page, notebook)
    _run_all(page, lab.words)
    shown = _outputs(page)
    assert "no known mistake found" in shown and "makes a known mistake" not in shown
    for index, cell in enumerate(notebook.cells):  # every check says so when it passes
        if cell.metadata.get("nbgrader", {}).get("grade"):
            said = _words(_cell(page, index).locator(".jp-OutputArea").inner_text())
            assert said.endswith("That does not make it right: the hidden tests decide."), (index, said)
    result = _validate(page)
    _screenshot(page, f"validate-{name}")
    assert "Success! Your notebook passes all the tests." in result, result[:3000]
    _close_dialog(page)
    _close_all(page, lab.words)


def _opens_unmodified(browser: Browser, lab: Lab, release: Path) -> None:
    """Open a copy of the released notebook ``release`` as a student does; once its kernel is up,
    it has no unsaved changes, and saved as it is, it is the released file, byte for byte.

    JupyterLab writes the kernel's ``language_info`` into the notebook, its Python version
    included, and the release records the course's (make exercises): on a machine whose Python is
    another version, JupyterLab would mark the notebook modified for that one field, so there
    the copy records this machine's version, and nothing else may change."""
    page = browser.page
    language = "ko" if "ko" in release.relative_to(ROOT).parts else "en"
    copy = lab.root / "opened" / language / release.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    released = nbformat.read(release, as_version=4)
    if released.metadata.language_info.version == platform.python_version():
        shutil.copy(release, copy)
    else:
        released.metadata.language_info.version = platform.python_version()
        nbformat.write(released, copy)
    before, written = copy.read_bytes(), copy.stat().st_mtime_ns
    _open(page, lab, str(copy.relative_to(lab.root)))
    page.wait_for_timeout(2000)  # what JupyterLab writes once the kernel is up: its info, its spec
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    name = f"{release.name} ({language})"
    assert "jp-mod-dirty" not in (tab.get_attribute("class") or ""), f"{name} opens modified"
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) [data-command='docmanager:save']").click()
    deadline = time.monotonic() + 30
    while copy.stat().st_mtime_ns == written and time.monotonic() < deadline:
        page.wait_for_timeout(200)  # not time.sleep: the page's requests pass through this process
    assert copy.stat().st_mtime_ns != written, "the notebook was not saved"
    assert copy.read_bytes() == before, f"{name}: saved as it opened, it differs from the release"
    _close_all(page, lab.words)


@pytest.mark.parametrize("name", EXERCISES)
def test_a_released_notebook_opens_unmodified(browser: Browser, lab: Lab, name: str) -> None:
    _opens_unmodified(browser, lab, ROOT / "exercises" / "roofline" / f"{name}.ipynb")


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
    _run_all(page, lab.words)
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
    # Words the chapter composes (rooflinekit.words) read in English here, as on the English site.
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
    _screenshot(page, "chapter-explorer-smem")
    _select(levels, "L2 cache")
    page.wait_for_function(
        "e => e.querySelector('.rk-level').textContent.includes('has no bandwidth figure')",
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
    _close_all(page, lab.words)


# --- In Korean --------------------------------------------------------------------------


def test_settings_language_offers_korean_and_the_lab_starts_in_english(browser: Browser, lab: Lab) -> None:
    page = browser.page
    page.goto(f"{lab.url}/lab/workspaces/language?reset&token={TOKEN}")
    page.locator(".lm-MenuBar-item", has_text="Settings").click()
    page.locator(".lm-Menu-item:visible", has_text="Language").click()
    languages = page.locator("#jp-mainmenu-settings-language .lm-Menu-itemLabel")
    languages.first.wait_for(timeout=30_000)
    offered = languages.all_inner_texts()
    _screenshot(page, "settings-language")
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    assert any("한국어" in label for label in offered), offered
    assert page.locator(".lm-MenuBar-item").first.inner_text() == "File"


@pytest.fixture(scope="module")
def lab_ko(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """``make lab-ko``'s JupyterLab on a scratch folder holding the Korean release of exercise 1."""
    base = tmp_path_factory.mktemp("jupyterlab-ko")
    root = base / "work"
    (root / "roofline").mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / "ko" / "roofline" / "ex1_int8_matmul.ipynb", root / "roofline")
    with _serve(base, root, "ko") as served:
        yield served


@pytest.fixture(scope="module")
def browser_ko(
    lab_ko: Lab, tmp_path_factory: pytest.TempPathFactory, playwright_session: Any
) -> Iterator[Browser]:
    with _browse(lab_ko, tmp_path_factory.mktemp("chromium-profile-ko"), playwright_session) as seen:
        yield seen


def test_make_lab_ko_shows_jupyterlab_in_korean(browser_ko: Browser, lab_ko: Lab) -> None:
    page = browser_ko.page
    menus = ("File", "Edit", "View", "Run", "Kernel", "Tabs", "Settings", "Help")
    korean = [lab_ko.words(menu, "menu") for menu in menus]
    assert all(re.search("[가-힣]", label) for label in korean), korean  # the pack translates them all
    page.wait_for_function(  # every menu is in (they come with their plugins' settings)
        f"() => document.querySelectorAll('.lm-MenuBar-item').length >= {len(menus)}", timeout=60_000
    )
    shown = [_words(label) for label in page.locator(".lm-MenuBar-item").all_inner_texts()]
    _screenshot(page, "ko-menus")
    assert [label for label in shown if label in korean] == korean, shown
    assert not set(menus) & set(shown), shown
    page.locator(".lm-MenuBar-item", has_text=lab_ko.words("Settings", "menu")).click()
    language = page.locator(".lm-Menu-item:visible", has_text=lab_ko.words("Language", "menu"))
    assert language.count() == 1
    page.keyboard.press("Escape")


def test_a_korean_release_opens_unmodified(browser_ko: Browser, lab_ko: Lab) -> None:
    for path in sorted((ROOT / "exercises" / "ko" / "roofline").glob("*.ipynb")):
        _opens_unmodified(browser_ko, lab_ko, path)


def test_a_korean_student_reads_the_known_mistake_in_korean_and_validate_agrees(
    browser_ko: Browser, lab_ko: Lab
) -> None:
    _known_mistake_named_then_put_right(browser_ko, lab_ko, "ko")
    assert not browser_ko.errors, browser_ko.errors
    assert not browser_ko.blocked, browser_ko.blocked
