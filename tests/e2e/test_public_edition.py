"""The public edition, as students and readers get it: no answer in it, and one student environment.

``make public-edition`` is run as an instructor runs it, from this checkout with a grading secret
beside it (as after a grading round), once for the module. Then, in that edition alone:

- it holds no answer: no ``solutions/`` nor ``grading/``, no code of a solution cell or hidden
  test (read from ``solutions/``, both languages), no name of the answer key or of the exercise
  folders (``roofline_grading.exercises``) and no line of their model answers' code, no grading secret;
- the student environment is made with the README's one recipe, as a student would, in the
  edition's folder (pip's cache makes it take about a minute): every package it installs is the
  lock's pin, every file of rooflinekit is installed (the wheel pip builds holds its data files),
  JupyterLab's extensions are all compatible (jupyterlab-myst, nbgrader's), the Korean
  language pack and rooflinekit's explorer are there, and the clone is left clean;
- in it, every released exercise (English and Korean) runs with its visible checks (nbclient):
  the model answers pass them, a known mistake is named; the site builds (``make book``, which
  runs every chapter), with the repository's buttons for its address on a host of its own, and
  offers the same environment as a download, which resolves to the same pinned packages;
- that site, in Debian's chromium at a phone's width (390 px), every page of both editions: no
  sideways scroll, every header button on the screen, nothing wider than its column, no
  violation of axe-core's WCAG 2.1 A and AA rules in what sets it apart from the instructor's
  page (which tests/book/test_browser.py audits whole at the same width), and none in the whole
  page for a page of each kind of header in each language (screenshots in
  _build/screenshots/public-phone/);
- in its JupyterLab (Debian's chromium), a chapter opens as a notebook on a double click and runs,
  and *Validate* on a released notebook with a known mistake fails naming it, and passes once it
  is put right (the steps of tests/e2e/test_jupyterlab.py).

The edition, the student environment and the site are made once for the module.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
import json
import os
import re
import secrets
import subprocess
import textwrap
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

import jupytext
import nbformat
import pytest

from roofline_grading.exercises import FOLDERS
from roofline_grading.exercises.ex1_int8_matmul import answers as EX1_ANSWERS
from roofline_grading.fingerprints import SAYS
from roofline_grading.i18n import translator
from rooflinekit.languages import CODES
from tests.support.book_site import toc_docnames
from tests.support.jupyterlab import (
    CHAPTER,
    Browser,
    Lab,
    close_all,
    flat,
    known_mistake_named_then_put_right,
    lab_with,
    only_students_tools,
    open_path,
    run_all,
)
from tests.support.make_targets import command
from tests.support.site_pages import (
    HEADER_CONTROLS,
    OVERFLOW,
    accessibility_violations,
    browser_context,
    open_page,
    served,
)
from tests.support.slips import SLIPS, answered

# Its module-scoped fixtures are built once, on one worker, and that worker is the one of
# tests/e2e/test_jupyterlab*.py, so that two JupyterLab servers never run at once: in a parallel
# run, a kernel restart in the student JupyterLab once stayed "Starting" past 300 s (alone, the
# same test takes under two minutes, environment and server included).
pytestmark = pytest.mark.xdist_group("jupyterlab")

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY_URL = "https://git.example.edu/teaching/roofline-course"
"""The public repository, on a host of its own (a university's forge): sphinx-book-theme knows
GitHub, GitLab and Bitbucket only, and the site must work on any host (roofline_book.home)."""
RECIPE = "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt"
"""The student environment's one command, as the README, the exercises page and the guide give it."""
ASSIGNMENT = "roofline"
NOTEBOOKS = sorted(p.stem for p in (ROOT / "exercises" / ASSIGNMENT).glob("*.ipynb"))
CHAPTERS = sorted(p.stem for p in (ROOT / "book" / "chapters").glob("*.md"))
FORBIDDEN_NAMES = ("answer_key", "roofline_grading.matmuls", "roofline_grading.exercises")
"""The grading package's answer key and model answers (the hidden tests' import of the recorder is
looked for with their code)."""


@dataclass(frozen=True)
class Edition:
    path: Path
    secret: str
    """The grading secret that was beside the instructor's checkout when the edition was written."""


def _make(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``make`` in this checkout with this environment, as tests/support/make_targets.py runs it
    (a failure is the test's to read: a refusal is what some tests expect)."""
    return subprocess.run(command(*arguments), capture_output=True, text=True, timeout=600, check=False)


def _student_shell() -> dict[str, str]:
    """A shell of a student's: no variable of this test's environment, nothing of this checkout's
    on PATH (pip's own settings, such as its index, stay)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST"))}
    environment["PATH"] = os.pathsep.join(
        p for p in environment.get("PATH", "").split(os.pathsep) if p and not p.startswith(str(ROOT))
    )
    return environment


def _run(command: list[str] | str, cwd: Path, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command,
        cwd=cwd,
        shell=isinstance(command, str),
        env=_student_shell(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    shown = command if isinstance(command, str) else " ".join(command)
    assert done.returncode == 0, f"{shown} failed in {cwd}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def edition(tmp_path_factory: pytest.TempPathFactory) -> Edition:
    """``make public-edition`` into a new folder, with a grading secret beside this checkout."""
    secret_file = ROOT / ".grading-secret"
    planted = not secret_file.exists()
    if planted:
        secret_file.write_text(secrets.token_hex(32) + "\n")
    try:
        secret = secret_file.read_text().strip()
        dest = tmp_path_factory.mktemp("public") / "roofline-public"
        done = _make("public-edition", f"DEST={dest}", f"REPOSITORY_URL={REPOSITORY_URL}")
    finally:
        if planted:
            secret_file.unlink()
    assert done.returncode == 0, done.stdout + done.stderr
    return Edition(dest, secret)


@pytest.fixture(scope="module")
def student(edition: Edition) -> Path:
    """The student environment, made in the edition's folder with the README's recipe; its bin/."""
    _run(RECIPE, edition.path)
    return edition.path / ".venv" / "bin"


@pytest.fixture(scope="module")
def site(edition: Edition, student: Path) -> Path:
    """``make book`` in the public edition, as its README says; the built site."""
    _run(["make", "book"], edition.path, timeout=3600)
    return edition.path / "_build" / "html"


# --- What the edition holds ----------------------------------------------------------------


@pytest.mark.slow  # runs make five times (seconds)
def test_make_public_edition_wants_a_new_or_empty_folder(tmp_path: Path) -> None:
    missing = _make("public-edition")
    assert missing.returncode == 2 and "name a new or empty folder" in missing.stderr, missing.stderr
    (tmp_path / "notes.txt").write_text("mine")
    taken = _make("public-edition", f"DEST={tmp_path}")
    assert taken.returncode == 2 and f"{tmp_path} is not empty" in taken.stderr, taken.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]  # nothing written
    inside = _make("public-edition", f"DEST={ROOT / '_build' / 'public'}")
    assert inside.returncode == 2 and "inside the instructor's repository" in inside.stderr, inside.stderr
    address = _make("public-edition", f"DEST={tmp_path / 'new'}", "REPOSITORY_URL=github.com/org/x")
    assert address.returncode == 2 and "is not a repository's address" in address.stderr
    said = [line for line in address.stderr.splitlines() if line.startswith("public-edition:")]
    assert len(said) == 1 and "http(s)://host/path" in said[0], address.stderr  # one line (then make's own)
    no_path = _make("public-edition", f"DEST={tmp_path / 'new'}", "REPOSITORY_URL=https://example.org")
    assert no_path.returncode == 2 and "'https://example.org' is not a repository's address" in no_path.stderr
    assert not (tmp_path / "new").exists()


def _text(path: Path) -> str | None:
    """A file's text (a notebook's cells' sources), or None for a binary file."""
    if path.suffix == ".ipynb":
        return "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None


def _normalized(text: str) -> str:
    """Code lines without comments or spacing, one a line: how a copy is compared, whatever its layout."""
    lines = (" ".join(line.split("#", 1)[0].split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def _edition_texts(root: Path) -> dict[str, str]:
    skipped = {".venv", "_build", "node_modules"}
    return {
        str(path.relative_to(root)): text
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and not skipped & set(path.relative_to(root).parts)
        and (text := _text(path)) is not None
    }


def _answers() -> dict[str, str]:
    """Every solution cell's model answer and every hidden test of ``solutions/`` (both languages),
    as pieces to look for: each block's single line, or each pair of consecutive lines, that names
    something the answers define (``bytes_read``, ``INT8_PEAK``, ``datasheet_flops``, ``record``...)
    or holds a number other than 0, 1 or 2. A pair such as ``low = middle``, ``else:`` is any bisection's."""
    cells = [
        (path, cell.source)
        for path in sorted((ROOT / "solutions").rglob("*.ipynb"))
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "code" and "### BEGIN" in cell.source
    ]
    defined = {"record", "roofline_recorder"}  # what every hidden test calls
    for _, source in cells:
        tree = ast.parse("\n".join(line for line in source.splitlines() if "### " not in line))
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            defined |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if isinstance(node, ast.FunctionDef):  # and its arguments but B, D, F: datasheet_flops...
                defined |= {node.name} | {a.arg for a in node.args.args if len(a.arg) > 1}
    distinctive = re.compile(rf"\b(?:{'|'.join(sorted(defined))})\b|(?<![\w.])(?:[3-9]|\d\d|\d+\.\d|\d+e)")
    pieces: dict[str, str] = {}
    for path, source in cells:
        for _, block in re.findall(r"### BEGIN (SOLUTION|HIDDEN TESTS)\n(.*?)### END \1", source, re.S):
            lines = _normalized(block).splitlines()
            windows = lines if len(lines) == 1 else ["\n".join(pair) for pair in itertools.pairwise(lines)]
            for piece in windows:
                if distinctive.search(piece):
                    pieces.setdefault(piece, f"{path.relative_to(ROOT)}: {piece!r}")
    assert len(pieces) > 50 and "fig" in defined and "dense_peak" in defined
    return pieces


def _calls_the_library(body: list[ast.stmt], module: ModuleType) -> bool:
    """Whether a model answer's body only returns a call of one of rooflinekit's functions with the
    answer's own arguments (``return ring_all_reduce_bytes(payload_bytes, n_chips)``): the same line
    may well be in the library, which computes every answer."""
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
        return False
    function = body[0].value.func
    called = getattr(module, function.id, None) if isinstance(function, ast.Name) else None
    return called is not None and getattr(called, "__module__", "").startswith("rooflinekit.")


def _docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _answer_modules() -> list[tuple[ModuleType, bool]]:
    """The modules of model answers, and whether their functions' names are secret: an exercise
    folder's are named like its parts, which its statement names (``tiled_bytes``), so only their
    code is looked for."""
    folders = [importlib.import_module(f"roofline_grading.exercises.{name}.answers") for name in FOLDERS]
    return [(module, False) for module in folders]


def _model_answers() -> dict[str, str]:
    """The model answers' functions (each exercise folder's answers, with what they take from the
    grading package's shared modules): each function's name, and its body's code as pieces to look
    for (the same pieces as :func:`_answers`)."""
    found: dict[str, str] = {}
    for module, secret_names in _answer_modules():
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if not function.__module__.startswith("roofline_grading."):
                continue  # the library's general functions (their code is public by design)
            if secret_names:
                found[rf"\b{name}\b"] = f"the model answer {name}"
            tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
            (definition,) = tree.body
            assert isinstance(definition, ast.FunctionDef)
            body = [n for n in definition.body if not _docstring(n)]
            if _calls_the_library(body, module):
                continue  # the library's general function, public by design: the student's kernel has none
            code = _normalized("\n".join(ast.unparse(n) for n in body))
            label = name if secret_names else f"{module.__name__}.{name}"
            found[re.escape(code)] = f"the code of the model answer {label}"
    assert len(found) >= 20
    return found


@pytest.mark.book  # make public-edition
def test_the_public_edition_holds_no_answer(edition: Edition) -> None:
    root = edition.path
    for gone in (
        "solutions",
        "grading",
        "tests",
        "instructor.mk",
        "nbgrader_config.py",
        ".grading-secret",
        "gradebook.db",
        "book/instructor-guide.md",
        "locale/ko/LC_MESSAGES/book/instructor-guide.po",
        "requirements.in",
        "public",
    ):
        assert not (root / gone).exists(), f"the public edition holds {gone}"
    texts = _edition_texts(root)
    assert any(name.startswith("rooflinekit/") for name in texts) and "book/chapters/10-errata.md" in texts

    assert not (found := _answers_in(texts, edition.secret)), "\n".join(found)


def _answers_in(texts: dict[str, str], secret: str) -> list[str]:
    """What of the instructor's edition each text holds: the grading secret, a name of the answer
    key or the model answers, a piece of a solution's or a model answer's code."""
    answers, model_answers = _answers(), _model_answers()
    found = [f"{name}: the grading secret" for name, text in texts.items() if secret in text]
    for name, text in texts.items():
        found += [
            f"{name}: names {word}" for word in FORBIDDEN_NAMES if re.search(rf"\b{re.escape(word)}\b", text)
        ]
        code = _normalized(text)
        found += [f"{name}: {what}" for piece, what in answers.items() if _holds(code, piece)]
        found += [f"{name}: {what}" for pattern, what in model_answers.items() if re.search(pattern, code)]
    return found


def test_the_search_finds_an_answer_wherever_it_is_written() -> None:
    """The search of :func:`test_the_public_edition_holds_no_answer`, on texts with one answer each."""
    solution = nbformat.read(ROOT / "solutions" / ASSIGNMENT / "ex5_h100_threshold.ipynb", as_version=4)
    (peak,) = [
        c.source
        for c in solution.cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == "ex5_peak_answer"
    ]
    planted = {
        "book/chapters/a.md": "Prose.\n\n```{code-cell} ipython3\n"
        + peak.replace("### BEGIN SOLUTION\n", "")
        + "```\n",
        "rooflinekit/reference.py": inspect.getsource(EX1_ANSWERS),  # the model answers back in the library
        "book/chapters/b.md": "from roofline_grading.answer_key import question",
        "_config.yml": "secret: 0123abcd\n",
        "book/chapters/c.md": "middle = (low + high) // 2\nlow = middle\nelse:\nhigh = middle",  # a bisection
    }
    found = _answers_in(planted, "0123abcd")
    assert {line.split(":", 1)[0] for line in found} == {
        "book/chapters/a.md",
        "rooflinekit/reference.py",
        "book/chapters/b.md",
        "_config.yml",
    }, found
    assert any(
        "the code of the model answer" in line and line.endswith("dense_peak")
        for line in found
        if line.startswith("book/")
    )


def _holds(code: str, piece: str) -> bool:
    """Whether normalized ``code`` holds ``piece`` as whole names (``HBM_BANDWIDTH = 8.1e11`` is not
    in ``EXERCISE_1_HBM_BANDWIDTH = 8.1e11``)."""
    return re.search(rf"(?<![\w.]){re.escape(piece)}(?!\w)", code) is not None


@pytest.mark.book  # make public-edition
def test_the_public_edition_is_the_instructors_less_the_answers(edition: Edition) -> None:
    root = edition.path
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True)
    for name in tracked.stdout.split():
        if name.startswith(("rooflinekit/", "exercises/", "book/_ext/")) and (ROOT / name).is_file():
            assert (root / name).read_bytes() == (ROOT / name).read_bytes(), name
    assert (root / "README.md").read_bytes() == (ROOT / "public" / "README.md").read_bytes()
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text())
    assert config["repository"]["url"] == REPOSITORY_URL and config["repository"]["branch"] == "main"
    toc = (root / "_toc.yml").read_text()
    assert "instructor-guide" not in toc and toc == (ROOT / "_toc.yml").read_text().replace(
        "      - file: book/instructor-guide\n", ""
    )
    # Chapter 10 without its one cell that asks the answer key; every other cell as it is.
    instructor = jupytext.read(ROOT / "book" / "chapters" / "10-errata.md")
    public = jupytext.read(root / "book" / "chapters" / "10-errata.md")
    kept = [c for c in instructor.cells if "instructor-only" not in c.metadata.get("tags", [])]
    (left_out,) = [c for c in instructor.cells if c not in kept]
    assert "answer_key" in left_out.source and "remove-cell" in left_out.metadata["tags"]
    assert [(c.cell_type, c.source) for c in public.cells] == [(c.cell_type, c.source) for c in kept]
    manifest = (root / "locale" / "ko" / "pages.yml").read_text()
    assert "book/instructor-guide" not in manifest


# --- The student environment -------------------------------------------------------------


@pytest.mark.lab
def test_the_student_environment_is_one_pinned_command_everywhere(edition: Edition, student: Path) -> None:
    for page in (
        edition.path / "README.md",
        ROOT / "README.md",
        ROOT / "book" / "exercises.md",
        ROOT / "book" / "instructor-guide.md",
        ROOT / "requirements.txt",
    ):
        assert RECIPE in page.read_text(), f"{page} does not give the recipe {RECIPE!r}"
    assert (edition.path / "binder" / "requirements.txt").read_text().splitlines()[
        -1
    ] == "-r ../requirements.txt"
    assert (edition.path / "binder" / "runtime.txt").read_text().strip() == "python-3.11"

    # Every package is the lock's pin; rooflinekit comes from the folder, and leaves nothing in it.
    lock = {
        _canonical(line) for line in (ROOT / "requirements.lock").read_text().splitlines() if "==" in line
    }
    frozen = _installed(student, edition.path)
    assert [line for line in frozen if " @ " in line] == [f"rooflinekit @ {edition.path.as_uri()}"]
    assert any(line.startswith("wheel==") for line in frozen)  # sphinx-togglebutton's: pinned too
    unpinned = [line for line in frozen if " @ " not in line and _canonical(line) not in lock]
    assert not unpinned, f"installed, not as requirements.lock pins them: {unpinned}"
    versions = dict(line.split("==") for line in frozen if "==" in line)
    assert tuple(int(n) for n in versions["jsonschema"].split(".")[:2]) < (4, 25)
    assert not any(_canonical(line).startswith("rfc3987-syntax==") for line in frozen)
    left = [p.name for p in edition.path.iterdir() if p.name == "build" or p.name.endswith(".egg-info")]
    assert not left, f"pip install left {left} in the clone"

    # JupyterLab: every extension compatible, nbgrader's Validate and jupyterlab-myst among them.
    listed = _run([str(student / "jupyter"), "labextension", "list"], edition.path)
    shown = re.sub(r"\x1b\[[0-9;]*m", "", listed.stdout + listed.stderr)
    assert "not compatible" not in shown and " X" not in shown, shown
    for extension in (
        "jupyterlab-myst",
        "@jupyter/nbgrader",
        "jupyterlab-jupytext",
        "@jupyter-widgets/jupyterlab-manager",
        "roofline-course",  # the course's plugin: Validate on the exercises only
    ):
        assert re.search(rf"{re.escape(extension)} v\S+ enabled OK", shown), (extension, shown)
    # A student's nbgrader: Validate, none of its instructor or exchange plugins.
    disabled = shown.split("Disabled extensions:", 1)[-1].split()
    for plugin in ("menu", "formgrader", "create-assignment", "assignment-list", "course-list"):
        assert f"@jupyter/nbgrader:{plugin}" in disabled, shown
    probe = """
        import json, sys
        from importlib.metadata import entry_points, files
        import rooflinekit, rooflinekit.exercises
        from rooflinekit.explorer import explorer
        view = explorer("tpu-v5e", B=256, D=8192)
        settings = sys.prefix + "/etc/jupyter/labconfig/default_setting_overrides.json"
        try:
            import roofline_grading
            grading = True
        except ImportError:
            grading = False
        print(json.dumps({
            "packs": sorted(e.name for e in entry_points(group="jupyterlab.languagepack")),
            "explorer": type(view).__name__,
            "viewers": json.load(open(settings))["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"],
            "grading": grading,
            "reference": hasattr(rooflinekit, "reference") or "reference" in dir(rooflinekit),
            "installed": sorted(str(f) for f in files("rooflinekit")),
        }))
    """
    found = json.loads(_run([str(student / "python"), "-c", textwrap.dedent(probe)], edition.path).stdout)
    assert "ko_KR" in found["packs"], found
    assert found["explorer"] == "Explorer", found
    assert found["viewers"] == {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}, found
    assert found["grading"] is False and found["reference"] is False, found
    # The wheel pip built (hatchling) held every file of the package: its code, the catalog's data
    # files, the explorer's assets, py.typed (an installed rooflinekit without them has no chips).
    package = edition.path / "rooflinekit"
    shipped = {p.relative_to(edition.path).as_posix() for p in package.rglob("*") if p.is_file()}
    missing = {p for p in shipped if "__pycache__" not in p} - set(found["installed"])
    assert not missing, f"not installed from the wheel: {sorted(missing)}"


BUNDLED = ("pip==", "setuptools==")
"""A virtual environment's own packages, which the lock leaves to it (jupyterlab and nbgrader take any
setuptools)."""


def _installed(student: Path, cwd: Path) -> list[str]:
    """``pip freeze --all`` of the student environment (wheel included), but :data:`BUNDLED`."""
    frozen = _run([str(student / "pip"), "freeze", "--all"], cwd).stdout.splitlines()
    return [line for line in frozen if not line.startswith(BUNDLED)]


def _canonical(pin: str) -> str:
    name, _, version = pin.strip().partition("==")
    return f"{re.sub(r'[-_.]+', '-', name).lower()}=={version}"


RUN_NOTEBOOKS = """
import json, sys, tempfile
from pathlib import Path
from types import ModuleType
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from traitlets.config import Config

results = {}
for path in map(Path, sys.argv[1:]):
    notebook = nbformat.read(path, as_version=4)
    # the kernel's channels on Unix sockets (tests/support/kernels.py says why)
    with tempfile.TemporaryDirectory(prefix="nb-", dir="/tmp") as sockets:
        channels = Config({"KernelManager": {"transport": "ipc", "ip": f"{sockets}/kernel"}})
        try:
            NotebookClient(notebook, timeout=120, kernel_name="python3", config=channels,
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            error = None
        except CellExecutionError as failed:
            error = str(failed)
    outputs = [o for c in notebook.cells for o in c.get("outputs", [])]
    printed = [o.get("text", "") for o in outputs if o.get("name") == "stdout"]
    # A test cell is tagged raises-exception, so Run All goes on past a failing check: its error
    # is an output of the cell, not an exception of the run.
    shown = [f"{o['ename']}: {o['evalue']}" for o in outputs if o.get("output_type") == "error"]
    results[path.name] = {"error": error or "\\n".join(shown) or None, "printed": "".join(printed)}
print(json.dumps(results))
"""


@pytest.mark.lab
def test_every_released_exercise_runs_with_its_visible_checks(
    edition: Edition, student: Path, tmp_path: Path
) -> None:
    """Each released notebook of the edition, both languages, with the model answers typed in, runs
    in the student environment and every visible check passes saying so; with a known mistake, the
    check under the answer names it."""
    written = []
    for language in CODES:
        release = Path("exercises") / (ASSIGNMENT if language == "en" else f"{language}/{ASSIGNMENT}")
        for name in NOTEBOOKS:
            assert (edition.path / release / f"{name}.ipynb").read_bytes() == (
                ROOT / release / f"{name}.ipynb"
            ).read_bytes()
            path = tmp_path / f"{language}-{name}.ipynb"
            nbformat.write(answered(name, None, language), path)
            written.append(path)
    slipped = tmp_path / "en-slip-ex1_int8_matmul.ipynb"
    nbformat.write(answered("ex1_int8_matmul", "ex1-two-bytes", "en"), slipped)
    ran = _run([str(student / "python"), "-c", RUN_NOTEBOOKS, *map(str, [*written, slipped])], tmp_path)
    results = json.loads(ran.stdout)
    for path in written:
        result = results[path.name]
        assert result["error"] is None, f"{path.name}: {result['error']}"
        language = path.name.split("-", 1)[0]
        confirmed = translator(language)(SAYS["none"]).split("{name}")[-1].strip()
        assert confirmed in result["printed"], (path.name, result["printed"][-2000:])
    error = results[slipped.name]["error"] or ""
    assert flat(SLIPS["ex1-two-bytes"].misconception.text("en")) in flat(error), error[-3000:]


@pytest.mark.lab
def test_the_korean_chapters_are_written_in_the_student_environment(edition: Edition, student: Path) -> None:
    """``make lab`` writes the chapters in Korean first, and Binder's build (``binder/postBuild``,
    with the environment's python first on PATH, as repo2docker runs it): the tool runs there from
    the edition alone."""
    _run(f"PATH={student}:$PATH binder/postBuild", edition.path)
    written = sorted(p.stem for p in (edition.path / "locale" / "ko" / "chapters").glob("*.md"))
    assert written == CHAPTERS
    errata = (edition.path / "locale" / "ko" / "chapters" / "10-errata.md").read_text()
    assert "answer_key" not in errata and "연습 문제 5" in errata


# --- The public site ----------------------------------------------------------------------


@pytest.mark.lab
def test_the_public_site_builds_in_the_student_environment(edition: Edition, site: Path) -> None:
    for prefix in ("", "ko/"):
        for chapter in CHAPTERS:  # make book ran every chapter (a failing cell fails the build)
            assert (site / prefix / "book" / "chapters" / f"{chapter}.html").is_file(), (prefix, chapter)
        for name in NOTEBOOKS:
            assert (site / prefix / "exercises" / ASSIGNMENT / f"{name}.html").is_file(), (prefix, name)
        assert not (site / prefix / "book" / "instructor-guide.html").exists()
        errata = (site / prefix / "book" / "chapters" / "10-errata.html").read_text()
        assert f'href="{REPOSITORY_URL}"' in errata and "fa-git-alt" in errata  # the repository button
        # the launch button: Binder's generic git provider, the address escaped whole
        assert f"https://mybinder.org/v2/git/{quote(REPOSITORY_URL, safe='')}/main?" in errata
        # ...which opens the page in its edition's language: the chapter binder/postBuild writes,
        # an exercise's release in that language
        chapter = {"": "book/chapters", "ko/": "locale/ko/chapters"}[prefix]
        assert f"urlpath=lab/tree/{chapter}/10-errata.md" in errata, prefix
        exercise = (site / prefix / "exercises" / ASSIGNMENT / f"{NOTEBOOKS[0]}.html").read_text()
        release = {"": f"exercises/{ASSIGNMENT}", "ko/": f"exercises/ko/{ASSIGNMENT}"}[prefix]
        assert f"urlpath=lab/tree/{release}/{NOTEBOOKS[0]}.ipynb" in exercise, prefix
        exercises = (site / prefix / "book" / "exercises.html").read_text()
        assert re.search(r'href="[^"]*/roofline-student\.zip"', exercises), prefix
        assert RECIPE in flat(re.sub(r"<[^>]+>", "", exercises)).replace("&amp;", "&"), prefix
    english_errata = flat(
        re.sub(r"<[^>]+>", "", (site / "book" / "chapters" / "10-errata.html").read_text())
    )
    assert "it accepts an answer within one token of" in english_errata
    assert not (site / "jupyter_execute").exists()  # a translation's build leaves nothing beside it
    leaks = [
        str(path.relative_to(site))
        for path in site.rglob("*")
        if path.is_file()
        and path.suffix in {".html", ".js", ".txt", ".ipynb", ".md"}
        and (edition.secret in (text := path.read_text(errors="ignore")) or "answer_key" in text)
    ]
    assert not leaks, leaks


@pytest.mark.lab
def test_the_sites_download_is_the_same_environment(
    edition: Edition, site: Path, student: Path, tmp_path: Path
) -> None:
    """roofline-student.zip, from the built site: the edition's environment files, and the recipe,
    run in its folder, resolves to exactly the student environment's packages."""
    (archive,) = site.glob("_downloads/*/roofline-student.zip")
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(tmp_path)
    kit = tmp_path / "roofline-student"
    for path in kit.rglob("*"):
        if path.is_file():
            relative = path.relative_to(kit)
            source = Path("student/README.md") if relative == Path("README.md") else relative
            assert path.read_bytes() == (edition.path / source).read_bytes(), path
    # Its README is the folder's own: no step that needs the repository's Makefile or folders.
    readme = (kit / "README.md").read_text(encoding="utf-8")
    assert "pip install -r requirements.txt" in readme and "make " not in readme
    assert sorted(p.name for p in kit.iterdir()) == [
        "README.md",
        "jupyter-config",
        "pyproject.toml",
        "requirements.lock",
        "requirements.txt",
        "rooflinekit",
    ]
    # The recipe's pip, in the kit's folder, resolving everything afresh without installing it.
    report = _run(
        [
            str(student / "python"),
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--quiet",
            "--ignore-installed",
            "--report",
            "-",
            "-r",
            "requirements.txt",
        ],
        kit,
    )
    resolved = {
        _canonical(f"{item['metadata']['name']}=={item['metadata']['version']}")
        for item in json.loads(report.stdout)["install"]
    }
    installed = {_canonical(line) for line in _installed(student, edition.path) if " @ " not in line}
    assert {p for p in resolved if not p.startswith(BUNDLED)} == installed | {"rooflinekit==0.1.0"}


PHONE = 390
"""A phone's width in CSS pixels (an iPhone 12 to 15's)."""
PHONE_SHOTS = ROOT / "_build" / "screenshots" / "public-phone"
PUBLIC_PARTS = (".bd-header-article", ".bd-sidebar-primary", ".prev-next-area")
"""What of a public page is not the instructor's page (the public edition is the instructor's less
the answers, test_the_public_edition_is_the_instructors_less_the_answers, built with the same pins):
the header with the repository's and launch buttons, the contents without the instructor's guide,
the links to the pages on either side. The rest is the page tests/book/test_browser.py audits with
axe-core at the same width; the chapter it leaves a cell out of shows none of that cell."""
WHOLE = ("chapters/10-errata.html", "ex1_int8_matmul.html")
"""A chapter and an exercise: the pages whose buttons the test reads, audited whole in each language."""


@pytest.mark.lab
@pytest.mark.browser
def test_every_page_of_the_public_site_fits_a_phone_with_its_repositorys_buttons(
    edition: Edition, site: Path, chromium: Any, axe_script: str
) -> None:
    """The site as published, its address on a host GitHub is not, in a phone's browser: every
    page of both editions, the header's buttons (launch, repository, download, full screen, colour
    mode, search, contents) all on the screen and the page never wider than the screen. axe-core
    audits every page's :data:`PUBLIC_PARTS`, and the whole of :data:`WHOLE` and of the first page
    of each kind of header (its buttons) in each language: whatever a phone's browser (touch, a
    dense screen) changes in a page's template, and what the header's buttons do to the rest."""
    pages = [f"{prefix}{docname}.html" for prefix in ("", "ko/") for docname in toc_docnames(edition.path)]
    PHONE_SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    headers: set[tuple[bool, tuple[str, ...]]] = set()  # the kinds of header audited whole, per language
    phone = browser_context(chromium, PHONE, touch=True)  # one for every page: each is opened afresh
    with served(site) as url:
        for path in pages:
            seen = open_page(chromium, url, path, PHONE, context=phone)
            page = seen.page
            page.screenshot(path=str(PHONE_SHOTS / f"{path.replace('/', '_')}.png"), scale="css")
            layout = page.evaluate(OVERFLOW)
            controls = page.evaluate(HEADER_CONTROLS)
            if path.endswith(WHOLE):
                repository = page.locator(".btn-source-repository-button")
                assert repository.get_attribute("href") == REPOSITORY_URL, path
                assert page.locator(".dropdown-launch-buttons").count() == 1, path
            if layout["page"] > layout["window"] or layout["wide"]:
                problems.append(f"{path} scrolls sideways: {layout}")
            problems += [f"{path}: {name} is off the screen" for name, on_screen in controls if not on_screen]
            header = (path.startswith("ko/"), tuple(name for name, _ in controls))
            whole = path.endswith(WHOLE) or header not in headers
            headers.add(header)
            parts = () if whole else PUBLIC_PARTS
            problems += [f"{path}: {v}" for v in accessibility_violations(page, axe_script, parts)]
            problems += [f"{path}: {e}" for e in seen.errors + seen.blocked]
            page.close()
    phone.close()
    assert not problems, "\n".join(problems) + f"\n(screenshots in {PHONE_SHOTS.relative_to(ROOT)})"


# --- Validate, in the student environment's JupyterLab ------------------------------------


@pytest.fixture(scope="module")
def lab(edition: Edition, student: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """The student environment's JupyterLab on a folder of the edition's released exercises (its
    chromium: tests/e2e/conftest.py's ``browser``)."""
    files = {ASSIGNMENT: edition.path / "exercises" / ASSIGNMENT}
    files[CHAPTER] = edition.path / "book" / "chapters" / CHAPTER
    with lab_with(tmp_path_factory, "student-lab", files, bin_dir=student) as served:
        yield served


@pytest.mark.lab
@pytest.mark.browser
def test_every_extension_of_the_student_jupyterlab_loads(browser: Browser) -> None:
    browser.page.wait_for_timeout(2000)  # every extension has loaded, or said why not
    assert not _errors(browser), _errors(browser)  # e.g. one built for another JupyterLab


@pytest.mark.lab
@pytest.mark.browser
def test_validate_in_the_student_jupyterlab_names_a_known_mistake_then_passes(
    browser: Browser, lab: Lab
) -> None:
    known_mistake_named_then_put_right(browser, lab, "en")
    assert not browser.blocked, browser.blocked


def _errors(browser: Browser) -> list[str]:
    """The console's errors but jupyterlab-myst's about references to other chapters (a chapter
    alone in JupyterLab cannot resolve them; the site does)."""
    return [e for e in browser.errors if not e.startswith("Cross reference target was not found")]


@pytest.mark.lab
@pytest.mark.browser
def test_a_chapter_opens_as_a_notebook_and_runs_in_the_student_jupyterlab(
    browser: Browser, lab: Lab
) -> None:
    """A double click opens a chapter as a notebook with a Python kernel (jupytext's extension and
    the setting rooflinekit installs), it runs, and jupyterlab-myst shows its computed figures."""
    from rooflinekit.catalog import chip
    from rooflinekit.fmt import si

    page = browser.page
    open_path(page, lab, CHAPTER)
    notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    kernel = notebook.locator(".jp-Toolbar-kernelName")
    page.wait_for_function(
        "k => k.textContent.includes('Python 3')", arg=kernel.element_handle(), timeout=60_000
    )
    assert not _errors(browser), _errors(browser)  # before a restart's own noise
    run_all(page, lab.words)
    stderr = notebook.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert stderr.count() == 0, stderr.all_inner_texts()
    peak = si(chip("tpu-v5e").peak("bf16"), "FLOP/s")  # glued in code, shown in the prose
    page.wait_for_function(
        "([cells, text]) => [...document.querySelectorAll(cells)].some(c => c.innerText.includes(text))",
        arg=[".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell .jp-Cell-inputArea", peak],
        timeout=60_000,
    )
    assert notebook.locator(".jp-OutputArea-output img").count() >= 2  # the chapter's plots
    close_all(page, lab.words)


@pytest.mark.lab
@pytest.mark.browser
def test_the_student_jupyterlab_offers_validate_on_an_exercise_and_no_instructors_tool(
    browser: Browser, lab: Lab
) -> None:
    # (last in the module: closing a notebook whose kernel has just started leaves JupyterLab's own
    # noise in the console, which the tests above check is empty)
    only_students_tools(browser, lab, f"{ASSIGNMENT}/ex1_int8_matmul.ipynb", CHAPTER, "student-env-")
