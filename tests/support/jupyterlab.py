"""A course's JupyterLab and the chromium that drives it, as a student uses them (Playwright).

:func:`lab_with` serves a scratch folder with ``make lab``'s JupyterLab (or ``make lab-ko``'s, or
the student environment's), with its own config, settings and runtime folders; :func:`browse`
opens it in chromium with a fresh profile, every request to another host blocked and kept. The
rest are the steps a student takes there (open a file with a double click, restart and run all,
type the answers, press *Validate*), each waiting on what the page shows. Used by
tests/e2e/test_jupyterlab.py and test_jupyterlab_ko.py (the course's environment) and
test_public_edition.py (the student environment). Screenshots go to
``_build/screenshots/jupyterlab-*``.
"""

from __future__ import annotations

import difflib
import gettext
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import nbformat
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from roofline_grading.fingerprints import SAYS
from roofline_grading.i18n import translator
from tests.support.browsers import CHROMIUM, CHROMIUM_ARGS, note_requests_elsewhere
from tests.support.ports import free_port
from tests.support.slips import SLIPS, answered

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SCREENSHOTS = ROOT / "_build" / "screenshots"
CHAPTER = "03-roofline-plots.md"  # a chapter with plots, glued numbers and the live explorer
TOKEN = "roofline-course-test"


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
def serve(base: Path, root: Path, language: str = "en", bin_dir: Path = BIN) -> Iterator[Lab]:
    """``make lab`` (or, for Korean, ``make lab-ko``) on ``root``, with its own config, settings
    and runtime folders under ``base``; JupyterLab from the environment of ``bin_dir`` (this
    one's by default; tests/e2e/test_public_edition.py serves the student environment's)."""
    # Every cell of a notebook stays rendered (not only those on screen), so the test can read them all.
    tracker = base / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text('{"windowingMode": "none"}')
    port = free_port()
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
            "--expose-app-in-browser",  # window.jupyterapp, for :func:`wait_kernel`; nothing else
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


@contextmanager
def lab_with(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    files: Mapping[str, Path],
    language: str = "en",
    bin_dir: Path = BIN,
) -> Iterator[Lab]:
    """:func:`serve` on a new scratch folder (``name``) holding ``files``: each relative path,
    copied from its source (a file or a folder)."""
    base = tmp_path_factory.mktemp(name)
    root = base / "work"
    root.mkdir()
    for relative, source in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, root / relative)
        else:
            shutil.copy(source, root / relative)
    with serve(base, root, language, bin_dir) as served:
        yield served


@dataclass
class Browser:
    page: Any
    errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)


@contextmanager
def browse(lab: Lab, profile: Path, playwright_session: Any) -> Iterator[Browser]:
    """Chromium on ``lab`` with a fresh profile; requests to any other address are noted (the browser
    reaches no host but 127.0.0.1)."""
    context = playwright_session.chromium.launch_persistent_context(
        str(profile),
        executable_path=CHROMIUM,
        args=CHROMIUM_ARGS,
        viewport={"width": 1400, "height": 1000},
    )
    page = context.new_page()
    seen = Browser(page)
    note_requests_elsewhere(page, lab.url, seen.blocked)
    page.on("console", lambda m: m.type == "error" and seen.errors.append(m.text))
    page.on("pageerror", lambda e: seen.errors.append(f"page error: {e}"))
    page.goto(f"{lab.url}/lab?token={TOKEN}", wait_until="load")
    page.locator(".jp-DirListing-content").wait_for(timeout=60_000)
    page.wait_for_function("() => !!window.jupyterapp", timeout=60_000)  # (serve's --expose-app-in-browser)
    try:
        yield seen
    finally:
        context.close()


def screenshot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"jupyterlab-{name}.png"))


def open_path(page: Any, lab: Lab, path: str) -> Any:
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
        screenshot(page, "open-failed")
        raise
    item.dblclick()
    panel = page.locator(".jp-NotebookPanel:visible")
    panel.wait_for(timeout=60_000)
    wait_kernel(page)
    return panel


def wait_idle(page: Any, timeout: float = 180_000) -> None:
    """The current notebook's execution indicator reads idle: the check for a Lab that does not
    expose its app (JupyterHub's, tests/e2e/test_hub.py). The indicator starts out idle, before the
    notebook has a kernel at all; a Lab of :func:`serve`'s waits on :func:`wait_kernel` instead."""
    page.wait_for_function(
        """() => { const s = document.querySelector(
                       '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator');
                   return s && s.getAttribute('data-status') === 'idle'; }""",
        timeout=timeout,
    )


CURRENT_PANEL = """(() => { const app = window.jupyterapp;
    const node = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
    return app && node && [...app.shell.widgets('main')].find(w => w.node === node);
})()"""
"""In the page: the current notebook's panel (JupyterLab's ``NotebookPanel``), or nothing."""

KERNEL_READY = """written => {
    const panel = """ + CURRENT_PANEL + """;
    if (!panel || !panel.context.isReady) return false;
    const session = panel.sessionContext;
    const kernel = session.session && session.session.kernel;
    if (!session.isReady || session.isRestarting || session.isTerminating || session.pendingInput
        || !kernel || kernel.connectionStatus !== 'connected' || kernel.status !== 'idle') return false;
    const replies = window.labKernelReplies = window.labKernelReplies || new WeakMap();
    if (!replies.has(kernel)) {  // handlers added after JupyterLab's own, so they run after them
        const got = {};
        replies.set(kernel, got);
        kernel.info.then(info => { got.info = info; }, () => {});
        kernel.spec.then(spec => { got.spec = spec || {}; }, () => {});
    }
    const got = replies.get(kernel);
    if (!got.info || !got.spec) return false;
    if (!written) return true;
    const canon = v => JSON.stringify(v, (k, x) => x && typeof x === 'object' && !Array.isArray(x)
        ? Object.fromEntries(Object.entries(x).sort()) : x);
    const spec = {name: kernel.name, display_name: got.spec.display_name, language: got.spec.language};
    const tab = document.querySelector('.lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current');
    return canon(panel.model.getMetadata('language_info')) === canon(got.info.language_info)
        && canon(panel.model.getMetadata('kernelspec')) === canon(spec)
        && !!tab && tab.classList.contains('jp-mod-dirty') === panel.model.dirty;
}"""
"""In the page: the current notebook's kernel is really up (JupyterLab's ``window.jupyterapp``).
Its session context is ready and not restarting; its session has a kernel (a session still
starting has none, and then Run All runs nothing: each cell fails with "Session has no kernel",
as JupyterLab's run guard checks the kernel's name, not the kernel; jupyterlab issue 8490, a cell
run before the kernel is ready, open), connected and idle; the kernel has answered its info and
its spec. With ``written``, also what JupyterLab writes into the notebook from them (its
``language_info``; its ``kernelspec``: name, display name, language) is there, and the tab's
unsaved mark shows the model's state."""


def wait_kernel(page: Any, *, written: bool = False, timeout: float = 300_000) -> None:
    """Wait until :data:`KERNEL_READY`; on a timeout, a screenshot (``jupyterlab-kernel-failed``)."""
    try:
        page.wait_for_function(KERNEL_READY, arg=written, timeout=timeout)
    except PlaywrightTimeout:
        screenshot(page, "kernel-failed")
        raise


RESTART_NOISE = re.compile(
    r"Canceled future for \w+ message before replies were done|Comm not found for comm id [-0-9a-f]+$"
)
"""What JupyterLab logs when a kernel restarts with its own requests still unanswered: the
debugger's and the subshells' at a kernel's start; and the previous kernel's late ``comm_close``
answering ipywidgets' control-comm probe (a kernel that has not imported ipywidgets refuses the
comm), which arrives after the restart has dropped every comm (on a loaded machine, when a notebook
opened on a running kernel is restarted at once). The console's, never shown to the student."""


def page_errors(browser: Any) -> list[str]:
    """The page's errors, less a restart's own noise (:data:`RESTART_NOISE`)."""
    return [e for e in browser.errors if not RESTART_NOISE.search(e)]


def run_all(page: Any, words: Words, *, restart: bool = True) -> None:
    """*Restart the kernel and run all cells* (the notebook toolbar's button), as the exercises
    ask; wait until the kernel is done (it goes on past a test cell that fails: they are tagged
    raises-exception; it stops at any other failing cell). The outputs of an earlier
    run are cleared first, so that what is read afterwards is this run's. It starts once the
    notebook's first kernel is really up (:func:`wait_kernel`; the execution indicator alone reads
    idle before there is a kernel), as a student waits for it before pressing the button: a restart
    requested while that kernel is still starting can leave JupyterLab's restart-and-run-all waiting
    for good on a loaded machine (the status reads Unknown; jupyterlab issue 9008).

    Without ``restart``, *Run All Cells* from the Run menu, for a notebook just opened on a kernel
    of its own that nothing has run in: a restart a moment after that kernel's first idle, while
    JupyterLab's own first requests to it (the debugger's) are unanswered, left the Korean Lab
    starting for good (the same JupyterLab race, seen every time there)."""
    wait_kernel(page)
    page.locator(".lm-MenuBar-item", has_text=words("Edit", "menu")).click()
    page.locator(".lm-Menu-item:visible", has_text=words("Clear Outputs of All Cells")).first.click()
    if restart:
        notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
        notebook.locator("[data-command='notebook:restart-run-all']").click()
        page.locator(".jp-Dialog .jp-mod-accept").click()
    else:
        page.locator(".lm-MenuBar-item", has_text=words("Run", "menu")).click()
        page.locator(".lm-Menu-item:visible[data-command='runmenu:run-all']").click()
    try:
        page.wait_for_function(  # the first code cell has run, and none is running or waiting
            """() => { const prompts = [...document.querySelectorAll(
                           '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')];
                       return prompts.length && /\\[1\\]/.test(prompts[0].textContent)
                              && !prompts.some(p => p.textContent.includes('*')); }""",
            timeout=300_000,
        )
    except PlaywrightTimeout:
        screenshot(page, "run-all-failed")
        raise
    wait_kernel(page)


def type_answers(page: Any, notebook: Any) -> None:
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


def validate(page: Any) -> str:
    """Press Validate; return the dialog's text (and close it)."""
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .validate-button").click()
    dialog = page.locator(".jp-Dialog")
    dialog.locator(".validation-success, .validation-failed").wait_for(timeout=300_000)
    text = str(dialog.inner_text())
    return text


def close_dialog(page: Any) -> None:
    page.locator(".jp-Dialog .jp-Dialog-button").last.click()
    page.locator(".jp-Dialog").wait_for(state="detached")


def flat(text: str) -> str:
    return " ".join(text.split())


def outputs(page: Any) -> str:
    return flat(
        " ".join(page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea").all_inner_texts())
    )


def cell_at(page: Any, index: int) -> Any:
    """The ``index``-th cell of the open notebook."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").nth(index)


def grade_index(notebook: Any, grade_id: str) -> int:
    return next(
        i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id
    )


def close_all(page: Any, words: Words) -> None:
    page.locator(".lm-MenuBar-item", has_text=words("File", "menu")).click()
    page.locator(".lm-Menu-item:visible", has_text=words("Close All Tabs")).first.click()
    dont_save = page.locator(".jp-Dialog button", has_text=words("Discard"))
    for _ in range(10):
        if not dont_save.count():
            break
        dont_save.first.click()


def known_mistake_named_then_put_right(browser: Browser, lab: Lab, language: str) -> None:
    """Exercise 1 of the ``language`` release, as a student works it: a known mistake in the bytes
    read is named under the answer in the notebook's language and *Validate* fails with it; put
    right, the check finds no known mistake (it never says "right") and *Validate* passes."""
    page = browser.page
    says = translator(language)
    slip = "ex1-two-bytes"
    misconception = SLIPS[slip].misconception.text(language)
    named = says(SAYS["mistake"]).format(name="bytes_read", mistake=misconception)
    prefix = "" if language == "en" else f"{language}-"
    open_path(page, lab, "roofline/ex1_int8_matmul.ipynb")
    notebook = answered("ex1_int8_matmul", slip, language)
    type_answers(page, notebook)
    run_all(page, lab.words)  # it goes on past each failing check, to the last cell
    shown = outputs(page)
    assert flat(named) in shown, shown[-3000:]
    if language != "en":
        assert flat(SLIPS[slip].misconception.message) not in shown  # the English words
    # Under the answer, the check's message comes first, alone: no traceback, no checking code.
    check = cell_at(page, grade_index(notebook, "ex1_bytes_read"))
    check.scroll_into_view_if_needed()
    screenshot(page, f"{prefix}known-mistake")
    error = flat(check.locator(".jp-OutputArea-output").last.inner_text())
    where = says(SAYS["where"]).format(line=6, code='assert no_known_mistake("bytes_read", bytes_read)')
    assert error == flat(f"{named} {where}"), error
    # The last cell ran and lists every check: intensity's names the mistake it inherits.
    listing = cell_at(page, len(notebook.cells) - 1)
    listing.scroll_into_view_if_needed()
    screenshot(page, f"{prefix}every-check")
    listed = flat(listing.locator(".jp-OutputArea-output").inner_text())
    inherited = says(SAYS["inherited"]).format(name="intensity", source="bytes_read", mistake=misconception)
    assert listed.startswith(flat(says(SAYS["every"]))) and flat(f"✗ intensity: {inherited}") in listed
    assert "✓ ops" in listed and flat(SLIPS["ex1-no-factor-two"].misconception.text(language)) not in listed
    result = validate(page)
    screenshot(page, f"{prefix}validate-known-mistake")
    assert "Success" not in result and flat(misconception) in flat(result), result[:3000]
    close_dialog(page)

    type_answers(page, answered("ex1_int8_matmul", language=language))
    run_all(page, lab.words)
    shown = outputs(page)
    assert flat(named.split(misconception)[0]) not in shown  # "bytes_read makes a known mistake."
    assert flat(says(SAYS["none"]).format(name="bytes_read")) in shown, shown[-3000:]
    result = validate(page)
    assert "Success! Your notebook passes all the tests." in result, result[:3000]
    close_dialog(page)
    close_all(page, lab.words)


def save(page: Any, timeout: float = 300_000) -> None:
    """Press the notebook toolbar's *Save*; wait until JupyterLab has the server's answer (the file's
    new time, and no unsaved change). Not the file's time: the server writes the file in place
    (jupyter_server's atomic writing keeps a copy aside, not a new file), so the file's time
    changes before all its bytes are there; on a loaded machine a read then found it empty."""
    last = page.evaluate(f"() => {CURRENT_PANEL}.context.contentsModel.last_modified")
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) [data-command='docmanager:save']").click()
    try:
        page.wait_for_function(
            f"""last => {{ const panel = {CURRENT_PANEL};
                           return panel && panel.context.contentsModel.last_modified !== last
                                  && !panel.context.model.dirty; }}""",
            arg=last,
            timeout=timeout,
        )
    except PlaywrightTimeout:
        screenshot(page, "save-failed")
        raise


def opens_unmodified(browser: Browser, lab: Lab, release: Path) -> None:
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
    open_path(page, lab, str(copy.relative_to(lab.root)))
    wait_kernel(page, written=True)  # what JupyterLab writes once the kernel is up: its info, its spec
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    name = f"{release.name} ({language})"
    assert "jp-mod-dirty" not in (tab.get_attribute("class") or ""), f"{name} opens modified"
    save(page)
    assert copy.stat().st_mtime_ns != written, "the notebook was not saved"
    after = copy.read_bytes()
    assert after == before, f"{name}: saved as it opened, it differs from the release:\n" + "".join(
        difflib.unified_diff(before.decode().splitlines(True), after.decode().splitlines(True), n=2)
    )[:3000]
    close_all(page, lab.words)


INSTRUCTOR_COMMANDS = ("Assignment List", "Course List", "Formgrader", "Create assignment")
"""nbgrader's commands for instructors and its exchange: none is in the student's Lab."""


def palette_labels(page: Any, words: Words, query: str) -> list[str]:
    """The command palette's entries for ``query``, as a student finds them there (menu View)."""
    page.locator(".lm-MenuBar-item", has_text=words("View", "menu")).click()
    page.locator(".lm-Menu-item:visible[data-command='apputils:activate-command-palette']").click()
    search = page.locator(".lm-CommandPalette-input:visible")
    search.wait_for(timeout=30_000)
    search.fill(query)
    page.wait_for_timeout(500)
    labels = [flat(t) for t in page.locator(".lm-CommandPalette-item:visible .lm-CommandPalette-itemLabel")
              .all_inner_texts()]
    search.fill("")
    page.keyboard.press("Escape")
    return labels


def only_students_tools(browser: Browser, lab: Lab, exercise: str, chapter: str, prefix: str = "") -> None:
    """The student's Lab: no Nbgrader menu, no Create Assignment sidebar, none of nbgrader's
    instructor or exchange commands in the command palette; *Validate* in an exercise's toolbar
    and not in a chapter's (which opens as a notebook too)."""
    page = browser.page
    page.goto(f"{lab.url}/lab/workspaces/palette?reset&token={TOKEN}")
    page.locator(".jp-DirListing-content").wait_for(timeout=60_000)
    for query in ("nbgrader", "Formgrader", "Assignment", "Course"):
        offered = palette_labels(page, lab.words, query)
        assert not [c for c in INSTRUCTOR_COMMANDS if c in offered], (query, offered)
    open_path(page, lab, exercise)
    validate = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .validate-button")
    validate.wait_for(state="visible", timeout=30_000)
    menus = [flat(t) for t in page.locator(".lm-MenuBar-item").all_inner_texts()]
    assert len(menus) >= 8 and not any("nbgrader" in m.lower() for m in menus), menus
    tabs = [flat(t.get_attribute("title") or t.inner_text()) for t in page.locator(".lm-TabBar-tab").all()]
    assert not any("Assignment" in t for t in tabs), tabs  # nbgrader's Create Assignment sidebar
    assert page.locator("#nbgrader-create_assignemnt").count() == 0  # (nbgrader's id, spelt so)
    screenshot(page, f"{prefix}student-tools")
    close_all(page, lab.words)
    open_path(page, lab, chapter)
    hidden = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .validate-button")
    page.wait_for_timeout(1000)  # the notebook has been read: an exercise's Validate would show now
    assert hidden.count() == 1 and not hidden.is_visible(), "Validate shows on a chapter"
    screenshot(page, f"{prefix}chapter-toolbar")
    close_all(page, lab.words)


def fresh_run_all_reaches_the_last_cell(browser: Browser, lab: Lab, path: str, language: str) -> None:
    """A released exercise as a student gets it: Run All goes past every unanswered part to the last
    cell; an unanswered cell of its own (the figures) says so in one line, each check under an
    unanswered function says in one line that it is not answered yet (no traceback), and
    *Validate* lists them the same way."""
    page = browser.page
    says = translator(language)
    prefix = "" if language == "en" else f"{language}-"
    notebook = nbformat.read(lab.root / path, as_version=4)
    exercise = notebook.cells[0].metadata["nbgrader"]["grade_id"].split("_")[0]
    meta = [c.metadata.get("nbgrader", {}) for c in notebook.cells]
    tests = [m["grade_id"] for m in meta if m.get("grade")]
    open_path(page, lab, path)
    run_all(page, lab.words, restart=False)  # a fresh notebook on a kernel of its own
    figures = cell_at(page, grade_index(notebook, f"{exercise}_figures"))
    assert flat(figures.locator(".jp-OutputArea").inner_text()) == flat(says(SAYS["todo"]))
    figures.scroll_into_view_if_needed()
    screenshot(page, f"{prefix}fresh-figures")
    unanswered = says(SAYS["unanswered"]).split("}", 1)[1]  # " is not answered yet: ..."
    for grade_id in tests:
        cell = cell_at(page, grade_index(notebook, grade_id))
        said = cell.locator(".jp-OutputArea-output").all_inner_texts()
        assert len(said) == 1 and flat(said[0]).endswith(flat(unanswered)), (grade_id, said)
    last = cell_at(page, len(notebook.cells) - 1)
    last.scroll_into_view_if_needed()
    screenshot(page, f"{prefix}fresh-run-all")
    listed = flat(last.locator(".jp-OutputArea-output").inner_text())
    assert listed.startswith(flat(says(SAYS["every"]))), listed
    assert flat(says(SAYS["tally"]).format(passed=0, total=len(tests))) in listed, listed
    assert "Traceback" not in outputs(page) and "NotImplementedError" not in outputs(page)
    result = validate(page)
    screenshot(page, f"{prefix}fresh-validate")
    assert "Traceback" not in result and flat(result).count(flat(unanswered)) == len(tests), result[:3000]
    close_dialog(page)
    close_all(page, lab.words)
