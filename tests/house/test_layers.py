"""The package's layers (README, "How rooflinekit is built") are enforced by import-linter.

The contracts live in pyproject.toml ([tool.importlinter]); `make lint` runs them. These tests
run `lint-imports` on the package as it is, and on copies with one wrong import added, to show
that each contract catches what it is for.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # import-linter over the repository and over copies

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(cwd: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """Run import-linter in ``cwd``, which it puts first on sys.path: its rooflinekit is checked
    (and its book/_ext, where the book's extension lives in the repository, as make lint says)."""
    environment = {**os.environ, "PYTHONPATH": str(cwd / "book" / "_ext")}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *options], cwd=cwd, capture_output=True, text=True, timeout=120,
        check=False, env=environment,
    )


PACKAGES = {
    "rooflinekit": ROOT / "rooflinekit",
    "roofline_grading": ROOT / "grading" / "roofline_grading",
    "roofline_recorder": ROOT / "grading" / "roofline_recorder",
    "roofline_book": ROOT / "book" / "_ext" / "roofline_book",
}
"""Every package the contracts cover, and where it lives in the repository."""


def copy_with(tmp_path: Path, module: str, line: str) -> Path:
    """A copy of the packages and their contracts, with ``line`` appended to ``module`` (a path
    inside a package; ``rooflinekit``'s when it names no package)."""
    skip = shutil.ignore_patterns("__pycache__", "locale")
    for name, source in PACKAGES.items():
        shutil.copytree(source, tmp_path / name, ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    package = module.split("/", 1)[0]
    target = tmp_path / (module if package in PACKAGES else f"rooflinekit/{module}")
    with target.open("a", encoding="utf-8") as file:
        file.write(f"\n{line}\n")
    return tmp_path


def test_the_package_keeps_every_contract() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "caught"),
    [
        ("errors.py", "from rooflinekit import cli  # a low layer importing the top",
         "rooflinekit.errors is not allowed to import rooflinekit.cli"),
        ("network.py", "from rooflinekit import transformer  # siblings of one layer",
         "rooflinekit.network is not allowed to import rooflinekit.transformer"),
        ("measure/timing.py", "from rooflinekit.measure import run  # inside a subpackage",
         "rooflinekit.measure.timing is not allowed to import rooflinekit.measure.run"),
        ("analysis.py", "import roofline_grading.answer_key  # the grading machinery",
         "rooflinekit.analysis -> roofline_grading"),
        ("words.py", "from rooflinekit import glue  # the words serve every layer above them",
         "rooflinekit.words is not allowed to import rooflinekit.glue"),
        ("roofline_grading/questions.py", "from roofline_grading import judge  # the judge is above",
         "roofline_grading.questions is not allowed to import roofline_grading.judge"),
        ("roofline_grading/autograde/results.py", "from roofline_grading.autograde import driver",
         "roofline_grading.autograde.results is not allowed to import roofline_grading.autograde.driver"),
        ("roofline_recorder/encode.py", "import roofline_grading.answer_key  # the answer key in the kernel",
         "roofline_recorder.encode -> roofline_grading"),
        ("roofline_recorder/audit.py", "import nbformat  # not in the grading kernel",
         "roofline_recorder.audit -> nbformat"),
        ("roofline_book/translations.py", "from roofline_book import downloads  # the book's extension",
         "roofline_book.translations is not allowed to import roofline_book.downloads"),
    ],
    ids=[
        "wrong way",
        "between siblings",
        "inside measure",
        "the grading machinery",
        "the words below every user",
        "grading: wrong way",
        "autograde: wrong way",
        "the recorder knows no grader",
        "the recorder imports only what the kernel has",
        "the book's extension: wrong way",
    ],
)
def test_a_wrong_way_import_is_caught(tmp_path: Path, module: str, line: str, caught: str) -> None:
    done = lint_imports(copy_with(tmp_path, module, line))
    assert done.returncode == 1
    assert caught in " ".join(done.stdout.split())  # import-linter wraps its lines


@pytest.mark.parametrize(
    ("module", "line", "cycle"),
    [
        ("costs.py", "from rooflinekit import analysis  # analysis imports costs",
         "No cycles are allowed in rooflinekit. It could be made acyclic by removing 1 dependency: "
         "- .costs -> .analysis"),
        ("roofline_grading/autograde/pipeline.py", "from roofline_grading.autograde import worker",
         "No cycles are allowed in roofline_grading.autograde."),
    ],
    ids=["rooflinekit", "roofline_grading.autograde"],
)
def test_an_import_cycle_is_caught(tmp_path: Path, module: str, line: str, cycle: str) -> None:
    done = lint_imports(copy_with(tmp_path, module, line), "--contract", "acyclic")
    assert done.returncode == 1
    assert cycle in " ".join(done.stdout.split())


def test_a_module_outside_every_layer_is_caught(tmp_path: Path) -> None:
    copy = copy_with(tmp_path, "__init__.py", "")
    (copy / "rooflinekit" / "newcomer.py").write_text('"""A module nobody placed in a layer."""\n')
    done = lint_imports(copy, "--contract", "layers")
    assert done.returncode == 1
    assert "rooflinekit.newcomer" in done.stdout


@pytest.mark.parametrize(
    ("contract", "section", "after"),
    [
        ("layers", "## How rooflinekit is built", "## How roofline-grading is built"),
        ("grading-layers", "## How roofline-grading is built", "## How the book's extension and the tools"),
        ("book-layers", "## How the book's extension and the tools", "## Working on the course"),
    ],
)
def test_the_readme_writes_down_the_layers(contract: str, section: str, after: str) -> None:
    import re
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == contract)["layers"]
    enforced = [[m.strip() for m in layer.split("|")] for layer in layers]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    written_section = readme[readme.index(section) : readme.index(after)]
    rows = re.findall(r"^\| (`.*?`) \| ", written_section, flags=re.M)
    written = [re.findall(r"`([\w.]+)`", row) for row in rows]
    assert written == enforced
