"""Autograding a class with bad and hostile submissions, through `make autograde`, with real nbgrader.

One class of crafted students, each submitting (mostly) one notebook with one problem: answers of
the wrong kind, code that raises, loops, sleeps, warns, exits, crashes the kernel or eats memory,
files that are not notebooks, edited test cells and metadata, and attempts to pass without the
right answer (patching numpy, math or the grading code, a float that equals everything, overriding
built-ins, reading the solutions, importing the reference, shadowing modules with files). Beside
them, control students (model answers, the untouched release) are graded in the same run.

The class is graded in parallel (JOBS=2), and the controls again alone and sequentially (JOBS=1,
in a copy of the course with the same grading secret). The tests then check, part by part, that
every wrong answer scored nothing, that every attempt either failed its test or held the notebook
for manual grading with a reason in the report, that the controls' grades do not depend on the
bad submissions nor on the number of workers, that the gradebook is intact and that no submitted
file changed.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import pytest
from make_targets import make

from rooflinekit import reference
from rooflinekit.autograde.sandbox import landlock_abi

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "roofline"
NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
TIMEOUT, BUDGET = 5, 25  # seconds a cell, a notebook: short, so the stalling students cost little


# --- Building submissions ------------------------------------------------------------------


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _grade_id(cell: Any) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def model_answers(notebook: str) -> dict[str, str]:
    """Each answer cell's model answer, without nbgrader's solution markers."""
    found = {}
    for cell in _read(ROOT / "solutions" / ASSIGNMENT / f"{notebook}.ipynb").cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            lines = [line for line in cell.source.splitlines() if "### BEGIN SOLUTION" not in line]
            found[_grade_id(cell)] = "\n".join(line for line in lines if "### END SOLUTION" not in line)
    return found


def answered(notebook: str, **answers: str) -> nbformat.NotebookNode:
    """The released notebook with the model answers, except ``answers`` (grade id -> source)."""
    nb = _read(ROOT / "exercises" / ASSIGNMENT / f"{notebook}.ipynb")
    model = model_answers(notebook)
    for cell in nb.cells:
        grade_id = _grade_id(cell)
        if grade_id in model:
            cell.source = answers.pop(grade_id, model[grade_id])
    assert not answers, f"no answer cells {sorted(answers)} in {notebook}"
    return nb


def released(notebook: str) -> nbformat.NotebookNode:
    return _read(ROOT / "exercises" / ASSIGNMENT / f"{notebook}.ipynb")


def cell_of(nb: nbformat.NotebookNode, grade_id: str) -> Any:
    (cell,) = [c for c in nb.cells if _grade_id(c) == grade_id]
    return cell


def file(nb: nbformat.NotebookNode) -> bytes:
    return nbformat.writes(nb).encode()


EX5 = "ex5_h100_threshold"
EX1 = "ex1_int8_matmul"
EX3 = "ex3_roofline_plot"
EX5_MODEL = model_answers(EX5)
DENSE, HBM, CRITICAL, GLOBAL = "ex5_dense_peak", "ex5_hbm_bandwidth", "ex5_critical_batch", "ex5_global_batch"
EX5_PARTS = frozenset({DENSE, HBM, CRITICAL, GLOBAL})
EX1_PARTS = frozenset(
    c.metadata.nbgrader.grade_id
    for c in _read(ROOT / "solutions" / ASSIGNMENT / f"{EX1}.ipynb").cells
    if c.metadata.get("nbgrader", {}).get("grade")
)
SPARSE_SLIP = {"ex5_peak_answer": "dense_peak = DATASHEET_BF16  # the sparse figure"}
RIGHT_DENSE = repr(reference.ex5_dense_peak())
RIGHT_HBM = repr(reference.EX5_CHIP.hbm_bandwidth)
RIGHT_CRITICAL = reference.ex5_critical_batch()
RIGHT_GLOBAL = repr(reference.ex5_accepted_global_batches()[0])
CRASH = (
    "np.lib.stride_tricks.as_strided(np.zeros(1), shape=(2,), strides=(2**44,))[1]  # reads unmapped memory"
)


def ex5(**answers: str) -> Callable[[Path], dict[str, bytes]]:
    return lambda course: {f"{EX5}.ipynb": file(answered(EX5, **answers))}


def ex5_with(
    change: Callable[[nbformat.NotebookNode, Path], None], **answers: str
) -> Callable[[Path], dict[str, bytes]]:
    def build(course: Path) -> dict[str, bytes]:
        nb = answered(EX5, **answers)
        change(nb, course)
        return {f"{EX5}.ipynb": file(nb)}

    return build


def appended(grade_id: str, code: str) -> dict[str, str]:
    """The model answer of ``grade_id`` followed by ``code``."""
    return {grade_id: EX5_MODEL[grade_id] + "\n" + code}


# --- What students submit, and what must come of it ----------------------------------------


@dataclass(frozen=True)
class Craft:
    """A crafted student: the files they submit (built for a course directory), the parts that
    must score full points or nothing, whether the submission must be held for manual grading,
    and words the report line must contain."""

    id: str
    build: Callable[[Path], dict[str, bytes]]
    full: frozenset[str] = frozenset()
    zero: frozenset[str] = frozenset()
    held: bool = False
    says: tuple[str, ...] = ()
    control: bool = False


def _delete(grade_ids: set[str]) -> Callable[[nbformat.NotebookNode, Path], None]:
    def change(nb: nbformat.NotebookNode, course: Path) -> None:
        nb.cells = [c for c in nb.cells if _grade_id(c) not in grade_ids]

    return change


def _edit_tests(nb: nbformat.NotebookNode, course: Path) -> None:
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.source = "assert True  # nothing to check"


def _points(nb: nbformat.NotebookNode, course: Path) -> None:
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata.nbgrader.points = 100


def _metadata(nb: nbformat.NotebookNode, course: Path) -> None:
    cell_of(nb, DENSE).metadata.nbgrader.update(grade=False, solution=True, locked=False)
    cell_of(nb, DENSE).source = "dense_peak"
    bonus = cell_of(nb, GLOBAL)
    bonus.metadata.nbgrader.update(grade_id="bonus", points=50)
    bonus.source = "assert True"


def _garbled(nb: nbformat.NotebookNode, course: Path) -> None:
    for metadata in ([], {"grade": True, "points": 100}, {"grade_id": 7, "solution": True}):
        nb.cells.append(nbformat.v4.new_code_cell("extra = 1", metadata={"nbgrader": metadata}))


def _duplicate(nb: nbformat.NotebookNode, course: Path) -> None:
    fake = copy.deepcopy(cell_of(nb, GLOBAL))
    fake.id = "fake-test"
    fake.source = "assert True"
    nb.cells.insert(nb.cells.index(cell_of(nb, GLOBAL)) + 1, fake)


def _kernelspec(nb: nbformat.NotebookNode, course: Path) -> None:
    nb.metadata.kernelspec = {"name": "evil", "display_name": "Evil", "language": "python"}


def _shadow_modules(course: Path) -> dict[str, bytes]:
    files = ex5(**SPARSE_SLIP)(course)
    files["numpy.py"] = b"raise SystemExit('a fake numpy')\n"
    files["rooflinekit/__init__.py"] = b""
    files["rooflinekit/grading.py"] = b"def assert_value(*args, **kwargs):\n    return None\n"
    return files


def _read_course(course: Path) -> dict[str, bytes]:
    solutions = course / "solutions" / ASSIGNMENT / f"{EX5}.ipynb"
    return ex5(
        ex5_peak_answer=f"dense_peak = len(open({str(solutions)!r}).read())",
        ex5_bandwidth_answer=f"hbm_bandwidth = len(open({str(course / 'gradebook.db')!r}, 'rb').read())",
    )(course)


def _magic(course: Path) -> dict[str, bytes]:
    solutions = course / "solutions" / ASSIGNMENT / f"{EX5}.ipynb"
    return ex5(**appended("ex5_figures", f"!cat {solutions}"))(course)


def _function_kinds(course: Path) -> dict[str, bytes]:
    nb = answered(
        EX1,
        ex1_bytes=(
            "def bytes_read(B, D, F):\n    return str(BYTES_PER_ELEMENT * (B * D + D * F))\n\n\n"
            "def bytes_written(B, D, F):\n    return None"
        ),
        ex1_ops_answer="def ops(B, D, F):\n    return [OPS_PER_MULTIPLY_ADD * B * D * F]",
        ex1_intensity_answer="def intensity(B, D, F):\n    return float('nan')",
        ex1_times=(
            "def t_math(B, D, F):\n    return np.float64(2 * B * D * F / INT8_PEAK)\n\n\n"
            "def t_comms(B, D, F):\n    return math.inf\n\n\n"
            "def t_lower(B, D, F):\n    return max(t_math(B, D, F), t_comms(B, D, F))\n\n\n"
            "def t_upper(B, D, F):\n    return t_math(B, D, F) + t_comms(B, D, F)"
        ),
    )
    return {f"{EX1}.ipynb": file(nb)}


def _warns(course: Path) -> dict[str, bytes]:
    nb = answered(
        EX1,
        ex1_figures=model_answers(EX1)["ex1_figures"]
        + "\nimport warnings\nwarnings.warn('these are my figures')",
        ex1_ops_answer=(
            "import warnings\n\n\ndef ops(B, D, F):\n    warnings.warn('counting operations')\n"
            "    np.float64(1.0) / np.float64(0.0)  # a RuntimeWarning\n"
            "    return OPS_PER_MULTIPLY_ADD * B * D * F"
        ),
    )
    return {f"{EX1}.ipynb": file(nb)}


def _slow(course: Path) -> dict[str, bytes]:
    sleepy = (
        "import time\n\n\ndef bytes_read(B, D, F):\n    time.sleep(60)\n"
        "    return BYTES_PER_ELEMENT * (B * D + D * F)\n\n\n"
        "def bytes_written(B, D, F):\n    time.sleep(60)\n    return BYTES_PER_ELEMENT * B * F"
    )
    return {f"{EX1}.ipynb": file(answered(EX1, ex1_bytes=sleepy))}


def _numpy_patch(course: Path) -> dict[str, bytes]:
    figures = model_answers(EX1)["ex1_figures"].replace("BYTES_PER_ELEMENT = 1", "BYTES_PER_ELEMENT = 3")
    nb = answered(EX1, ex1_figures=figures + "\nnp.isclose = lambda *args, **kwargs: np.True_")
    return {f"{EX1}.ipynb": file(nb)}


def _mutate_arguments(course: Path) -> dict[str, bytes]:
    attainable = (
        "def attainable(B, D):\n"
        "    if isinstance(B, np.ndarray):\n"
        "        B[...] = 10**6  # if the checker's own array came in, its reference would be all peak\n"
        "    return np.full(np.shape(B), COMPUTE_PEAK)"
    )
    return {f"{EX3}.ipynb": file(answered(EX3, ex3_attainable_answer=attainable))}


def _everything(notebook_files: Callable[[str], nbformat.NotebookNode]) -> Callable[[Path], dict[str, bytes]]:
    return lambda course: {f"{name}.ipynb": file(notebook_files(name)) for name in NOTEBOOKS}


UNINTERRUPTIBLE = (
    "import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except BaseException:\n        pass"
)
CRAFTS = [
    # Controls: graded alike with and without the others.
    Craft("model", _everything(answered), control=True),
    Craft("blank", _everything(released), control=True),
    Craft(
        "partial",
        ex5(**SPARSE_SLIP),
        full=frozenset({HBM}),
        zero=frozenset({DENSE, CRITICAL, GLOBAL}),
        control=True,
    ),
    # Answers of the wrong kind.
    Craft(
        "kinds-a",
        ex5(
            ex5_peak_answer=f"dense_peak = {str(RIGHT_DENSE)!r}  # a string",
            ex5_bandwidth_answer="hbm_bandwidth = None",
            ex5_critical_answer="critical_batch = float('nan')",
            ex5_global_answer="global_batch = math.inf",
        ),
        zero=EX5_PARTS,
    ),
    Craft(
        "kinds-b",
        ex5(
            ex5_peak_answer=f"dense_peak = [{RIGHT_DENSE}]  # a list",
            ex5_bandwidth_answer=f"hbm_bandwidth = np.array([{RIGHT_HBM}])",
            ex5_critical_answer="critical_batch = True",
            ex5_global_answer=f"global_batch = np.float64({RIGHT_GLOBAL})",
        ),
        full=frozenset({GLOBAL}),
        zero=frozenset({DENSE, HBM, CRITICAL}),
    ),
    Craft(
        "kinds-c",
        ex5(
            ex5_peak_answer=f"dense_peak = np.float32({RIGHT_DENSE})  # a numpy scalar",
            ex5_bandwidth_answer=f"hbm_bandwidth = np.int64({int(reference.EX5_CHIP.hbm_bandwidth)})",
            ex5_critical_answer=f"critical_batch = {round(RIGHT_CRITICAL)}  # an int, not a float",
            ex5_global_answer=f"global_batch = np.array({RIGHT_GLOBAL})  # a 0-d array",
        ),
        full=frozenset({DENSE, HBM, CRITICAL}),
        zero=frozenset({GLOBAL}),
    ),
    Craft(
        "kinds-fn",
        _function_kinds,
        full=frozenset({"ex1_t_math", "ex1_critical_batch"}),
        zero=frozenset(
            {
                "ex1_bytes_read",
                "ex1_bytes_written",
                "ex1_ops",
                "ex1_intensity",
                "ex1_t_comms",
                "ex1_t_lower",
                "ex1_t_upper",
            }
        ),
    ),
    # Code that raises, stalls, warns, exits or takes the kernel down.
    Craft(
        "raises",
        ex5(ex5_critical_answer="raise ValueError('I give up')"),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
    ),
    Craft(
        "stalls",
        ex5(
            **appended("ex5_peak_answer", "while True:\n    pass  # after the answer"),
            ex5_bandwidth_answer="import time\ntime.sleep(10**6)\nhbm_bandwidth = 3.35e12",
        ),
        full=frozenset({DENSE}),
        zero=frozenset({HBM, CRITICAL, GLOBAL}),
        says=("ran past the time limit in ex5_peak_answer, ex5_bandwidth_answer",),
    ),
    Craft(
        "uninterruptible",
        ex5(**appended("ex5_global_answer", UNINTERRUPTIBLE)),
        full=frozenset({DENSE, HBM, CRITICAL}),
        zero=frozenset({GLOBAL}),
        says=("kernel lost in ex5_global_answer", "could not be interrupted"),
    ),
    Craft(
        "slow",
        _slow,
        full=frozenset({"ex1_ops", "ex1_critical_batch", "ex1_t_math"}),
        zero=frozenset({"ex1_bytes_read", "ex1_bytes_written", "ex1_t_upper", "ex1_limited_by"}),
        says=("ran past the time limit in ex1_bytes_read, ex1_bytes_written", "code cells did not run"),
    ),
    Craft(
        "crash",
        ex5(ex5_global_answer=CRASH),
        full=frozenset({DENSE, HBM, CRITICAL}),
        zero=frozenset({GLOBAL}),
        says=("kernel lost in ex5_global_answer (the kernel died while running this cell)",),
    ),
    Craft(
        "memory",
        ex5(
            ex5_peak_answer="hog = [np.ones(2**27) for _ in range(64)]  # 64 GiB\n"
            + EX5_MODEL["ex5_peak_answer"]
        ),
        full=frozenset({HBM}),
        zero=frozenset({DENSE, CRITICAL, GLOBAL}),
    ),
    Craft("warns", _warns, full=EX1_PARTS),
    Craft(
        "system-exit",
        ex5(ex5_critical_answer="raise SystemExit(3)"),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
    ),
    Craft(
        "sys-exit",
        ex5(ex5_critical_answer="import sys\nsys.exit(1)"),
        zero=EX5_PARTS,
        held=True,
        says=("imports sys",),
    ),
    Craft(
        "os-exit",
        ex5(ex5_critical_answer="import os\nos._exit(1)"),
        zero=EX5_PARTS,
        held=True,
        says=("imports os", "kernel lost in ex5_critical_answer"),
    ),
    # Files that are not notebooks.
    Craft("bad-json", lambda course: {f"{EX5}.ipynb": b"{not json"}, zero=EX5_PARTS, says=("invalid JSON",)),
    Craft("empty-file", lambda course: {f"{EX5}.ipynb": b""}, zero=EX5_PARTS, says=("the file is empty",)),
    Craft(
        "not-a-notebook",
        lambda course: {f"{EX5}.ipynb": json.dumps({"cells": 3}).encode()},
        zero=EX5_PARTS,
        says=("JSON without a list of cells",),
    ),
    Craft(
        "nothing",
        lambda course: {"notes.txt": b"I ran out of time"},
        zero=EX5_PARTS,
        says=("not submitted", "ignored notes.txt"),
    ),
    Craft(
        "bad-timestamp",
        lambda course: {**ex5()(course), "timestamp.txt": b"the day before the deadline"},
        full=EX5_PARTS,
        says=("ignored timestamp.txt",),
    ),
    # Edits to what the student may not change.
    Craft(
        "deleted-test",
        ex5_with(_delete({CRITICAL})),
        full=EX5_PARTS,
        says=(f"test cell '{CRITICAL}' was deleted (put back)",),
    ),
    Craft(
        "edited-tests",
        ex5_with(_edit_tests, **SPARSE_SLIP),
        full=frozenset({HBM}),
        zero=frozenset({DENSE, CRITICAL, GLOBAL}),
        says=(f"test cell '{DENSE}' was edited (restored)",),
    ),
    Craft("points", ex5_with(_points), full=EX5_PARTS, says=("had its points changed to 100 (restored)",)),
    Craft(
        "metadata",
        ex5_with(
            _metadata,
            ex5_peak_answer=SPARSE_SLIP["ex5_peak_answer"],
            ex5_global_answer="global_batch = critical_batch",
        ),
        full=frozenset({HBM}),
        zero=frozenset({DENSE, CRITICAL, GLOBAL}),
        says=(
            "had its nbgrader flags changed",
            "unknown part ('bonus'",
            f"test cell '{GLOBAL}' was deleted (put back)",
        ),
    ),
    Craft(
        "deleted-answer",
        ex5_with(_delete({"ex5_critical_answer", CRITICAL})),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
        says=("answer cell 'ex5_critical_answer' was deleted (put back, empty)",),
    ),
    Craft(
        "duplicate-test",
        ex5_with(_duplicate, ex5_global_answer="global_batch = critical_batch"),
        full=frozenset({DENSE, HBM, CRITICAL}),
        zero=frozenset({GLOBAL}),
        says=(f"2 cells carry the id of test cell '{GLOBAL}'",),
    ),
    Craft("kernelspec", ex5_with(_kernelspec), full=EX5_PARTS),
    Craft(
        "garbled-metadata",
        ex5_with(_garbled),
        full=EX5_PARTS,
        says=("carries nbgrader metadata for an unknown part",),
    ),
    # Attempts to pass without the right answer.
    Craft(
        "patch-numpy",
        _numpy_patch,
        zero=EX1_PARTS,
        held=True,
        says=(
            "assigns to np.isclose",
            "EX1.bytes_read passed in the kernel, but not when checked outside it",
        ),
    ),
    Craft(
        "patch-math",
        ex5(**SPARSE_SLIP, **appended("ex5_figures", "math.isclose = lambda *args, **kwargs: True")),
        zero=EX5_PARTS,
        held=True,
        says=("assigns to math.isclose",),
    ),
    Craft(
        "patch-grading",
        ex5(
            **SPARSE_SLIP,
            **appended(
                "ex5_figures",
                "import rooflinekit.grading\nrooflinekit.grading.assert_value = lambda *args, **kwargs: None",
            ),
        ),
        zero=EX5_PARTS,
        held=True,
        says=(
            "imports rooflinekit.grading",
            "EX5.dense_peak passed in the kernel but left no record of its check",
        ),
    ),
    Craft(
        "patch-answer-key",
        ex5(
            **SPARSE_SLIP,
            **appended(
                "ex5_figures",
                "from rooflinekit import answer_key\nfrom rooflinekit.grading import Tolerance\n"
                "object.__setattr__(answer_key.EX5.dense_peak, 'tolerance', Tolerance(rtol=10.0))",
            ),
        ),
        zero=EX5_PARTS,
        held=True,
        says=(
            "imports from rooflinekit",
            "EX5.dense_peak passed in the kernel, but not when checked outside it",
        ),
    ),
    Craft(
        "always-equal",
        ex5(
            ex5_critical_answer=(
                "class Agreeable(float):\n    def __eq__(self, other):\n        return True\n\n"
                "    __hash__ = float.__hash__\n\n\ncritical_batch = Agreeable(7.0)"
            )
        ),
        zero=EX5_PARTS,
        held=True,
        says=("defines the special method Agreeable.__eq__",),
    ),
    Craft(
        "patch-builtins",
        ex5(
            ex5_critical_answer="import builtins\nbuiltins.isinstance = lambda *a: True\n"
            "critical_batch = '295'"
        ),
        zero=EX5_PARTS,
        held=True,
        says=("imports builtins",),
    ),
    Craft(
        "shadow-builtin",
        ex5(
            **appended("ex5_figures", "isinstance = lambda *args, **kwargs: True"),
            ex5_critical_answer="critical_batch = '295'",
        ),
        zero=EX5_PARTS,  # is_number now says no to everything: the visible checks fail
    ),
    Craft(
        "shadow-helper",
        ex5(**appended("ex5_figures", "def is_number(value):\n    return True")),
        zero=EX5_PARTS,
        held=True,
        says=("redefines 'is_number', which the tests rely on",),
    ),
    Craft("read-course", _read_course, zero=EX5_PARTS, held=True, says=("uses open",)),
    Craft(
        "link-to-solutions",
        lambda course: {f"{EX5}.ipynb": course / "solutions" / ASSIGNMENT / f"{EX5}.ipynb"},  # type: ignore[dict-item]
        zero=EX5_PARTS,
        says=("not read: a symbolic link, not a file",),
    ),
    Craft(
        "reference",
        ex5(
            ex5_critical_answer="from rooflinekit.reference import ex5_critical_batch as ref\n"
            "critical_batch = ref()"
        ),
        zero=EX5_PARTS,
        held=True,
        says=("imports from rooflinekit.reference",),
    ),
    Craft(
        "obfuscated",
        ex5(**appended("ex5_figures", "getattr(__import__('o' + 's'), 'system')('true')")),
        zero=EX5_PARTS,
        held=True,
        says=("uses getattr", "uses __import__"),
    ),
    Craft("shell", _magic, zero=EX5_PARTS, held=True, says=("runs an IPython shell command or magic",)),
    Craft(
        "shadow-modules",
        _shadow_modules,
        full=frozenset({HBM}),
        zero=frozenset({DENSE, CRITICAL, GLOBAL}),
        says=("ignored numpy.py", "ignored rooflinekit/grading.py"),
    ),
    Craft(
        "mutate-arguments",
        _mutate_arguments,
        zero=frozenset({"ex3_attainable"}),
        full=frozenset({"ex3_axis_labels"}),
    ),
    Craft(
        "kill-grader",
        ex5(
            ex5_peak_answer="import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
            + EX5_MODEL["ex5_peak_answer"]
        ),
        zero=EX5_PARTS,
        held=True,
        says=("imports os",),
    ),
]
BY_ID = {c.id: c for c in CRAFTS}
CONTROLS = [c for c in CRAFTS if c.control]


# --- Grading the class --------------------------------------------------------------------


def tree_hashes(directory: Path) -> dict[str, str]:
    return {
        p.relative_to(directory).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


@dataclass
class Run:
    """One grading run of a class: its course, console output, report rows and file hashes."""

    course: Path
    output: str
    report: dict[str, dict[str, str]]
    before: dict[str, str]
    after: dict[str, str]
    grades: dict[tuple[str, str, str], tuple[float | None, bool]] = field(default_factory=dict)
    max_scores: dict[str, float] = field(default_factory=dict)
    flagged: dict[tuple[str, str], bool] = field(default_factory=dict)


def read_gradebook(run: Run) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{run.course / 'gradebook.db'}", "roofline") as gb:
        for student in gb.students:
            for notebook in gb.find_submission(ASSIGNMENT, student.id).notebooks:
                run.flagged[(student.id, notebook.name)] = bool(notebook.flagged)
                for grade in notebook.grades:
                    score = None if grade.auto_score is None else float(grade.auto_score)
                    run.grades[(student.id, notebook.name, grade.name)] = (
                        score,
                        bool(grade.needs_manual_grade),
                    )
                    run.max_scores[grade.name] = float(grade.max_score)


@pytest.fixture(scope="module")
def course_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course with the repository's config and solutions, generated, with a fixed grading secret."""
    root = tmp_path_factory.mktemp("hardening") / "template"
    root.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "solutions", root / "solutions")
    make("exercises", course=root)
    (root / ".grading-secret").write_text("0123456789abcdef" * 4 + "\n")
    subprocess.run([sys.executable, "-c", "import matplotlib.pyplot"], check=True)  # font cache, once
    return root


def grade_class(template: Path, name: str, crafts: list[Craft], jobs: int, options: str = "") -> Run:
    course = template.parent / name
    shutil.copytree(template, course)
    for craft in crafts:
        folder = course / "submitted" / craft.id / ASSIGNMENT
        for relative, content in craft.build(course).items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                (folder / relative).symlink_to(content)
            else:
                (folder / relative).write_bytes(content)
    before = tree_hashes(course / "submitted")
    options = f"--timeout {TIMEOUT} --notebook-budget {BUDGET} {options}"
    done = make("autograde", course=course, JOBS=str(jobs), AUTOGRADE_OPTIONS=options)
    with (course / "autograded" / f"{ASSIGNMENT}-report.csv").open(newline="") as handle:
        report = {row["student"]: row for row in csv.DictReader(handle)}
    run = Run(course, done.stdout, report, before, tree_hashes(course / "submitted"))
    read_gradebook(run)
    return run


@pytest.fixture(scope="module")
def parallel(course_template: Path) -> Run:
    return grade_class(course_template, "parallel", CRAFTS, jobs=2)


@pytest.fixture(scope="module")
def controls_alone(course_template: Path) -> Run:
    """The controls without the others, and with one worker."""
    return grade_class(course_template, "controls", CONTROLS, jobs=1)


def notebook_of(part: str) -> str:
    (name,) = [n for n in NOTEBOOKS if part.startswith(n.split("_")[0] + "_")]
    return name


# --- Every submission is graded, and reported in one line -------------------------------------


def test_every_student_is_graded_reported_and_shown_in_the_progress(parallel: Run) -> None:
    assert sorted(parallel.report) == sorted(BY_ID)
    assert {student for student, _, _ in parallel.grades} == set(BY_ID)
    shown = re.findall(rf"^\[\s*(\d+)/{len(CRAFTS)}\] ([\w.-]+): ", parallel.output, flags=re.MULTILINE)
    assert sorted(int(n) for n, _ in shown) == list(range(1, len(CRAFTS) + 1))
    assert sorted(student for _, student in shown) == sorted(BY_ID)
    assert "held for manual grading" in parallel.output.splitlines()[-1]


@pytest.mark.parametrize("craft", [c for c in CRAFTS if c.full or c.zero], ids=lambda c: c.id)
def test_each_part_scores_what_its_answer_deserves(parallel: Run, craft: Craft) -> None:
    for part in craft.full:
        score, _ = parallel.grades[(craft.id, notebook_of(part), part)]
        assert score == parallel.max_scores[part], f"{craft.id}: {part} should score full points, got {score}"
    for part in craft.zero:
        score, _ = parallel.grades[(craft.id, notebook_of(part), part)]
        assert score == 0, f"{craft.id}: {part} should score nothing, got {score}"


def test_controls_score_what_the_answers_are_worth(parallel: Run) -> None:
    assert all(
        score == parallel.max_scores[part]
        for (s, _, part), (score, _) in parallel.grades.items()
        if s == "model"
    )
    assert all(score == 0 for (s, _, _), (score, _) in parallel.grades.items() if s == "blank")
    assert parallel.report["model"]["status"] == "ok"


@pytest.mark.parametrize("craft", [c for c in CRAFTS if c.held], ids=lambda c: c.id)
def test_an_attempt_to_get_around_the_grading_is_held_for_manual_grading(parallel: Run, craft: Craft) -> None:
    row = parallel.report[craft.id]
    assert row["status"] == "held" and "held for manual grading" in row["summary"]
    held = {nb for (s, nb), flagged in parallel.flagged.items() if s == craft.id and flagged}
    assert held, f"{craft.id}: no notebook flagged in the gradebook"
    for (student, notebook, part), (score, manual) in parallel.grades.items():
        if student == craft.id and notebook in held:
            assert score == 0 and manual, f"{craft.id}: {part} scored {score} before anyone looked at it"


@pytest.mark.parametrize("craft", [c for c in CRAFTS if not c.held], ids=lambda c: c.id)
def test_honest_mistakes_and_accidents_are_not_held(parallel: Run, craft: Craft) -> None:
    assert parallel.report[craft.id]["status"] != "held", parallel.report[craft.id]["summary"]
    assert not any(flagged for (s, _), flagged in parallel.flagged.items() if s == craft.id)


@pytest.mark.parametrize("craft", [c for c in CRAFTS if c.says], ids=lambda c: c.id)
def test_the_report_says_in_one_line_what_went_wrong(parallel: Run, craft: Craft) -> None:
    line = parallel.report[craft.id]["summary"]
    assert "\n" not in line
    for words in craft.says:
        assert words in line, f"{craft.id}: {words!r} not in {line!r}"
    text = (parallel.course / "autograded" / f"{ASSIGNMENT}-report.txt").read_text()
    assert f"{craft.id}: {line}" in text.splitlines()


# --- Nobody else's grades change, nothing is lost or spoiled ----------------------------------


def test_grades_depend_neither_on_the_bad_submissions_nor_on_the_number_of_workers(
    parallel: Run, controls_alone: Run
) -> None:
    """The controls graded with the whole class by 2 workers, and alone by 1, get the same
    scores, part by part (random sizes included: they derive from the course's secret)."""
    controls = {c.id for c in CONTROLS}
    with_them = {key: value for key, value in parallel.grades.items() if key[0] in controls}
    assert with_them == controls_alone.grades
    assert len(with_them) == len(controls) * len(parallel.max_scores)
    summaries = {s: r["summary"] for s, r in parallel.report.items() if s in controls}
    assert summaries == {s: r["summary"] for s, r in controls_alone.report.items()}


def test_submitted_files_are_never_modified(parallel: Run, controls_alone: Run) -> None:
    for run in (parallel, controls_alone):
        assert run.after == run.before


def test_the_gradebook_is_intact(parallel: Run) -> None:
    from nbgrader.api import Gradebook

    with sqlite3.connect(parallel.course / "gradebook.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Gradebook(f"sqlite:///{parallel.course / 'gradebook.db'}", "roofline") as gb:
        assert sorted(s.id for s in gb.students) == sorted(BY_ID)
        for student in gb.students:
            (submission,) = student.submissions
            assert sorted(n.name for n in submission.notebooks) == NOTEBOOKS
            assert submission.max_score == sum(parallel.max_scores.values()) - 0  # restored points, not 100s


@pytest.mark.skipif(
    landlock_abi() < 6, reason="needs Linux Landlock ABI 6 (5.13+ for files, 6.12+ for signals)"
)
def test_the_sandbox_keeps_the_course_and_the_grader_out_of_reach(parallel: Run) -> None:
    def answer_errors(student: str) -> list[str]:
        nb = _read(parallel.course / "autograded" / student / ASSIGNMENT / f"{EX5}.ipynb")
        return [
            f"{out.ename}: {out.evalue}"
            for cell in nb.cells
            if cell.metadata.get("nbgrader", {}).get("solution")
            for out in cell.get("outputs", [])
            if out.output_type == "error"
        ]

    read = answer_errors("read-course")
    assert len([e for e in read if e.startswith("PermissionError")]) == 2, read
    assert any("solutions" in e for e in read) and any("gradebook.db" in e for e in read)
    assert any(e.startswith("PermissionError") and "not permitted" in e for e in answer_errors("kill-grader"))


def test_a_grading_process_killed_by_a_student_takes_no_one_else_with_it(course_template: Path) -> None:
    """Without the sandbox a student's code can kill the worker grading it: the driver grades the
    others again and reports the culprit."""
    killer = Craft(
        "killer", ex5(ex5_peak_answer="import os\nos.kill(os.getppid(), 9)\ndense_peak = DATASHEET_BF16 / 2")
    )
    honest = Craft("model", ex5())
    run = grade_class(course_template, "worker-death", [killer, honest], jobs=2, options="--sandbox off")
    assert all(
        score == run.max_scores[part]
        for (s, _, part), (score, _) in run.grades.items()
        if s == "model" and part in EX5_PARTS
    )
    assert run.report["killer"]["status"] == "failed"
    assert "the grading process died while grading this submission" in run.report["killer"]["summary"]
    assert all(score == 0 for (s, _, _), (score, _) in run.grades.items() if s == "killer")
    assert run.after == run.before
