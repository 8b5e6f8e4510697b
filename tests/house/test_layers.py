"""The packages' layers (README, "How rooflinekit is built") are enforced by import-linter.

The contracts live in pyproject.toml ([tool.importlinter]); `make lint` runs them on the
packages as they are. These tests show that each contract catches what it is for: import-linter
runs on two copies of the packages, one with a wrong-way import for each contract, the other
with an import cycle in two packages and a module outside every layer (one run each).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # import-linter over two copies of the packages (a second each)

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


def copy_with(folder: Path, added: list[tuple[str, str]]) -> Path:
    """A copy of the packages and their contracts in ``folder``, with each (module, line) of
    ``added`` appended to its module (a path inside a package; ``rooflinekit``'s when it names
    no package)."""
    skip = shutil.ignore_patterns("__pycache__", "locale")
    for name, source in PACKAGES.items():
        shutil.copytree(source, folder / name, ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", folder / "pyproject.toml")
    for module, line in added:
        package = module.split("/", 1)[0]
        target = folder / (module if package in PACKAGES else f"rooflinekit/{module}")
        with target.open("a", encoding="utf-8") as file:
            file.write(f"\n{line}\n")
    return folder


def caught(folder: Path) -> str:
    """What import-linter says of the copy in ``folder`` (its lines joined: it wraps them), which
    must break a contract."""
    done = lint_imports(folder)
    assert done.returncode == 1, done.stdout + done.stderr
    return " ".join(done.stdout.split())


WRONG_WAYS = {
    "wrong way": ("errors.py", "from rooflinekit import cli  # a low layer importing the top",
                  "rooflinekit.errors is not allowed to import rooflinekit.cli"),
    "between siblings": ("network.py", "from rooflinekit import transformer  # siblings of one layer",
                         "rooflinekit.network is not allowed to import rooflinekit.transformer"),
    "inside measure": ("measure/timing.py", "from rooflinekit.measure import run  # inside a subpackage",
                       "rooflinekit.measure.timing is not allowed to import rooflinekit.measure.run"),
    "the grading machinery": ("analysis.py", "import roofline_grading.answer_key  # the grading machinery",
                              "rooflinekit.analysis -> roofline_grading"),
    "the words below every user": (
        "words.py", "from rooflinekit import glue  # the words serve every layer above them",
        "rooflinekit.words is not allowed to import rooflinekit.glue"),
    "grading: wrong way": (
        "roofline_grading/questions.py", "from roofline_grading import judge  # the judge is above",
        "roofline_grading.questions is not allowed to import roofline_grading.judge"),
    "autograde: wrong way": (
        "roofline_grading/autograde/results.py", "from roofline_grading.autograde import driver",
        "roofline_grading.autograde.results is not allowed to import roofline_grading.autograde.driver"),
    "the recorder knows no grader": (
        "roofline_recorder/encode.py", "import roofline_grading.answer_key  # the answer key in the kernel",
        "roofline_recorder.encode -> roofline_grading"),
    "the recorder imports only what the kernel has": (
        "roofline_recorder/audit.py", "import nbformat  # not in the grading kernel",
        "roofline_recorder.audit -> nbformat"),
    "an exercise folder: its figures know no answer": (
        "roofline_grading/exercises/ex9_memory_hierarchy/given.py", "from . import answers  # above it",
        "roofline_grading.exercises.ex9_memory_hierarchy.given is not allowed to import "
        "roofline_grading.exercises.ex9_memory_hierarchy.answers"),
    "an exercise folder knows no other": (
        "roofline_grading/exercises/ex9_memory_hierarchy/key.py",
        "from roofline_grading.exercises.ex6_ring_threshold import answers as ex6  # another folder",
        "roofline_grading.exercises.ex9_memory_hierarchy is not allowed to import "
        "roofline_grading.exercises.ex6_ring_threshold"),
    "the book's extension: wrong way": (
        "roofline_book/translations.py", "from roofline_book import downloads  # the book's extension",
        "roofline_book.translations is not allowed to import roofline_book.downloads"),
}
"""A wrong-way import for each contract: where it is added, the line, and what import-linter says."""
CYCLES = {
    "rooflinekit": (
        "costs.py", "from rooflinekit import analysis  # analysis imports costs",
        "No cycles are allowed in rooflinekit. It could be made acyclic by removing 1 dependency: "
        "- .costs -> .analysis"),
    "roofline_grading.autograde": ("roofline_grading/autograde/pipeline.py",
                                   "from roofline_grading.autograde import worker",
                                   "No cycles are allowed in roofline_grading.autograde."),
}


@pytest.fixture(scope="module")
def wrong_ways(tmp_path_factory: pytest.TempPathFactory) -> str:
    added = [(module, line) for module, line, _ in WRONG_WAYS.values()]
    return caught(copy_with(tmp_path_factory.mktemp("wrong-ways"), added))


@pytest.fixture(scope="module")
def cycles_and_a_newcomer(tmp_path_factory: pytest.TempPathFactory) -> str:
    added = [(module, line) for module, line, _ in CYCLES.values()]
    copy = copy_with(tmp_path_factory.mktemp("cycles"), added)
    (copy / "rooflinekit" / "newcomer.py").write_text('"""A module nobody placed in a layer."""\n')
    return caught(copy)


@pytest.mark.parametrize("case", WRONG_WAYS)
def test_a_wrong_way_import_is_caught(wrong_ways: str, case: str) -> None:
    assert WRONG_WAYS[case][2] in wrong_ways


@pytest.mark.parametrize("package", CYCLES)
def test_an_import_cycle_is_caught(cycles_and_a_newcomer: str, package: str) -> None:
    assert CYCLES[package][2] in cycles_and_a_newcomer


def test_a_module_outside_every_layer_is_caught(cycles_and_a_newcomer: str) -> None:
    assert "rooflinekit.newcomer" in cycles_and_a_newcomer


@pytest.mark.parametrize(
    ("contract", "table"),
    [
        ("layers", "| modules, top to bottom |"),  # rooflinekit's
        ("grading-layers", "| `roofline_grading`, top to bottom |"),
        ("collect-layers", "| `roofline_grading.collect`, top to bottom |"),
        ("autograde-layers", "| `roofline_grading.autograde`, top to bottom |"),
        ("recorder-layers", "| `roofline_recorder`, top to bottom |"),
        ("book-layers", "| `roofline_book`, top to bottom |"),
    ],
)
def test_the_readme_writes_down_the_layers(contract: str, table: str) -> None:
    """Each layered package's table in the README lists its contract's layers, top to bottom, a row
    each (the modules of one layer in one row)."""
    import re
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == contract)["layers"]
    enforced = [[m.strip() for m in layer.split("|")] for layer in layers]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert table in readme, f"the README has no table headed {table}"
    written_table = readme[readme.index(table) :].split("\n\n", 1)[0]
    rows = re.findall(r"^\| (`.*?`) \| ", written_table, flags=re.M)
    written = [re.findall(r"`([\w.]+)`", row) for row in rows]
    assert written == enforced
