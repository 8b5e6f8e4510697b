"""A hostile class, graded through `make autograde` with real nbgrader and the real sandbox.

One class of crafted students, each submitting (mostly) one notebook with one problem: answers
of the wrong kind, code that raises, loops, sleeps, exits, crashes the kernel, floods its
output, forks or eats memory, files that are not notebooks, edited test cells and metadata, and
every way to credit without the right answer the course has met: numbers copied from the book,
code that reaches for the answer key past a scanner (an indented cell, doctest prompts,
``string.Formatter``, type hints, ``sys.modules``), objects that pretend to be numbers, forged
records, reads of the course and the grader's environment, signals, the network, HTML and
scripts in outputs and Markdown. Beside them, control students (model answers, the untouched
release, one honest slip) and an honest student whose functions print their own names.

The class is graded in parallel (JOBS=2) with a made-up secret in the grader's environment, and
the controls again alone and sequentially (JOBS=1). The tests then check part by part that no
answer earned credit it should not and no honest one lost any, that every attempt is named in
the report and nothing of the instructor's reaches a graded notebook or feedback page, that
every process is gone, that the controls' grades do not depend on the others nor on the number
of workers, that the gradebook is intact and that no submitted file changed.
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

from roofline_grading import reference
from rooflinekit import exercises
from tests.support.make_targets import make

pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("hardening")]

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "roofline"
NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
TIMEOUT, BUDGET, MEMORY_GB = 5, 25, 1.5  # a cell, a notebook, a kernel's tree: small, so the class is quick
TOKEN = "canvas-" + hashlib.sha256(b"a made-up token").hexdigest()[:24]
"""A secret of the instructor's, in the grader's environment: it must reach no student."""


# --- Building submissions ------------------------------------------------------------------

CRAFTED = Path(__file__).with_name("crafted")
"""The longer code the crafted students submit, one cell's source a file (IPython: ``*.ipy``)."""


def crafted(name: str) -> str:
    """The code in ``crafted/<name>.ipy``, as a student typed it into a cell."""
    return (CRAFTED / f"{name}.ipy").read_text(encoding="utf-8")



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


EX1, EX3, EX5 = "ex1_int8_matmul", "ex3_roofline_plot", "ex5_h100_threshold"
EX5_MODEL = model_answers(EX5)
DENSE, HBM, CRITICAL, GLOBAL = "ex5_dense_peak", "ex5_hbm_bandwidth", "ex5_critical_batch", "ex5_global_batch"
EX5_PARTS = frozenset({DENSE, HBM, CRITICAL, GLOBAL})


def parts(notebook: str) -> frozenset[str]:
    return frozenset(
        _grade_id(c)
        for c in _read(ROOT / "solutions" / ASSIGNMENT / f"{notebook}.ipynb").cells
        if c.metadata.get("nbgrader", {}).get("grade")
    )


ALL_PARTS = frozenset().union(*(parts(n) for n in NOTEBOOKS))
SPARSE_SLIP = {"ex5_peak_answer": "def dense_peak(datasheet_flops):\n    return datasheet_flops  # sparse"}
PER_REPLICA = (
    "def global_batch(replicas, datasheet_flops, hbm_bandwidth):\n"
    "    return critical_batch(datasheet_flops, hbm_bandwidth)"
)
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


def ex5_in(course_code: Callable[[Path], dict[str, str]]) -> Callable[[Path], dict[str, bytes]]:
    """Answers that need the course's path (what a student would try to read)."""
    return lambda course: ex5(**course_code(course))(course)


def appended(grade_id: str, code: str, notebook: str = EX5) -> dict[str, str]:
    """The model answer of ``grade_id`` followed by ``code``."""
    return {grade_id: model_answers(notebook)[grade_id] + "\n" + code}


# --- What students submit, and what must come of it ----------------------------------------


@dataclass(frozen=True)
class Craft:
    """A crafted student: the files they submit (built for a course directory), the parts that
    must score full points or nothing, whether the report must flag what their code tried, and
    words their report line must contain."""

    id: str
    build: Callable[[Path], dict[str, bytes]]
    full: frozenset[str] = frozenset()
    zero: frozenset[str] = frozenset()
    flagged: bool = False
    says: tuple[str, ...] = ()
    never: tuple[str, ...] = ()
    control: bool = False


def _everything(notebook_files: Callable[[str], nbformat.NotebookNode]) -> Callable[[Path], dict[str, bytes]]:
    return lambda course: {f"{name}.ipynb": file(notebook_files(name)) for name in NOTEBOOKS}


# Numbers the book and the source print, as rooflinekit computes them.
PRINTED = {
    "ex1_critical_answer": f"critical_batch = {reference.ex1_critical_batch()!r}",
    "ex1_limited_answer": f"limited_by = {reference.ex1_roofline(*exercises.EX1_SHAPE).bound!r}",
    "ex2_peak_answer": f"compute_peak = {exercises.EX2_CHIP.peak('bf16')!r}",
    "ex2_critical_answer": f"critical_batch = {reference.ex2_critical_batch()!r}",
    "ex3_crossover_answer": (
        f"crossover_4096 = {reference.ex3_crossover(4096)!r}\ncrossover_1024 = {reference.ex3_crossover(1024)!r}"
    ),
    "ex4_critical_answer": "critical_batch = math.inf",
    "ex5_peak_answer": f"dense_peak = {reference.ex5_dense_peak()!r}",
    "ex5_bandwidth_answer": f"hbm_bandwidth = {exercises.EX5_CHIP.hbm_bandwidth!r}",
    "ex5_critical_answer": f"critical_batch = {reference.ex5_critical_batch()!r}",
    "ex5_global_answer": f"global_batch = {reference.ex5_global_batch()!r}",
}
SCALAR_PARTS = frozenset(
    {
        "ex1_critical_batch",
        "ex1_limited_by",
        "ex2_compute_peak",
        "ex2_critical_batch",
        "ex3_crossover",
        "ex4_critical_batch",
        *EX5_PARTS,
    }
)


def _book_numbers(notebook: str) -> nbformat.NotebookNode:
    return answered(
        notebook, **{k: v for k, v in PRINTED.items() if k.startswith(notebook.split("_")[0] + "_")}
    )


def _numbers_in_functions(notebook: str) -> nbformat.NotebookNode:
    """Each scalar answer as a function that returns the printed number whatever it is given."""
    functions = {}
    for grade_id, assignment in PRINTED.items():
        if not grade_id.startswith(notebook.split("_")[0] + "_") or grade_id == "ex3_crossover_answer":
            continue
        name, value = assignment.split(" = ")
        functions[grade_id] = f"def {name}(*arguments):\n    return {value}"
    if notebook == EX3:
        functions["ex3_crossover_answer"] = (
            f"def crossover(D):\n    return {{4096: {reference.ex3_crossover(4096)!r}, "
            f"1024: {reference.ex3_crossover(1024)!r}}}.get(D, 100.0)"
        )
    return answered(notebook, **functions)


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


def _html(nb: nbformat.NotebookNode, course: Path) -> None:
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("My notes <script>alert('MARK-MARKDOWN')</script>"))


def _shadow_modules(course: Path) -> dict[str, bytes]:
    files = ex5(**SPARSE_SLIP)(course)
    files["numpy.py"] = b"raise SystemExit('a fake numpy')\n"
    files["roofline_recorder/__init__.py"] = b"def record(*args):\n    pass\n"
    return files


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


def _name_printer(course: Path) -> dict[str, bytes]:
    """Honest code that prints its functions' names and docstrings while it works."""
    answers = {
        grade_id: source + "\n\nfor function in list(globals().values()):\n"
        "    if callable(function) and getattr(function, '__module__', '') == '__main__':\n"
        "        print(function.__name__, function.__qualname__, (function.__doc__ or '')[:20])"
        for grade_id, source in model_answers(EX1).items()
    }
    answers["ex1_bytes"] = answers["ex1_bytes"].replace(
        "    return BYTES_PER_ELEMENT * B * F",
        "    print('in', bytes_written.__name__)\n    return BYTES_PER_ELEMENT * B * F",
    )
    return {f"{EX1}.ipynb": file(answered(EX1, **answers))}


def _slow(course: Path) -> dict[str, bytes]:
    sleepy = (
        "import time\n\n\ndef bytes_read(B, D, F):\n    time.sleep(60)\n"
        "    return BYTES_PER_ELEMENT * (B * D + D * F)\n\n\n"
        "def bytes_written(B, D, F):\n    time.sleep(60)\n    return BYTES_PER_ELEMENT * B * F"
    )
    return {f"{EX1}.ipynb": file(answered(EX1, ex1_bytes=sleepy))}


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


def _snoop(course: Path) -> dict[str, str]:
    targets = {
        "gradebook": course / "gradebook.db",
        "solutions": course / "solutions" / ASSIGNMENT / f"{EX5}.ipynb",
        "a classmate": course / "submitted" / "model" / ASSIGNMENT / f"{EX5}.ipynb",
        "the grading secret": course / ".grading-secret",
    }
    code = ["import os"]
    for what, path in targets.items():
        code.append(
            f"try:\n    print({what!r}, len(open({str(path)!r}, 'rb').read()))\nexcept OSError as e:\n    print({what!r}, 'denied', type(e).__name__)"
        )
    for path in (targets["gradebook"], targets["a classmate"]):
        code.append(
            f"try:\n    open({str(path)!r}, 'wb').write(b'overwritten')\nexcept OSError as e:\n    print('write denied', type(e).__name__)"
        )
    code.append(
        f"try:\n    print(os.listdir({str(course)!r}))\nexcept OSError as e:\n    print('list denied', type(e).__name__)"
    )
    return appended("ex5_figures", "\n".join(code))


PROBE = crafted("probe")

FORGED_RECORDS = crafted("forged-records")

FORK_BOMB = crafted("fork-bomb")

MEMORY_HOG = crafted("memory-hog")

FLOOD_TRICKS = crafted("flood-tricks")

REPORT_INJECTION = crafted("report-injection")

HONEST_TMP = crafted("honest-tmp")

UNINTERRUPTIBLE = crafted("uninterruptible")

CRAFTS = [
    # Controls: graded alike with and without the others.
    Craft("model", _everything(answered), full=ALL_PARTS, control=True),
    Craft("blank", _everything(released), zero=ALL_PARTS, control=True),
    Craft("partial", ex5(**SPARSE_SLIP), full=frozenset({HBM}), zero=EX5_PARTS - {HBM}, control=True),
    # An honest student whose code looks at its own functions: nothing to hold, nothing lost.
    Craft("name-printer", _name_printer, full=parts(EX1)),
    # Numbers copied from the book earn nothing, whatever form they come in.
    Craft("book-numbers", _everything(_book_numbers), full=ALL_PARTS - SCALAR_PARTS, zero=SCALAR_PARTS),
    Craft(
        "book-numbers-in-functions",
        _everything(_numbers_in_functions),
        full=ALL_PARTS - SCALAR_PARTS,
        zero=SCALAR_PARTS,
    ),
    # Reaching for the answer key: it is not in the kernel, whatever the code looks like.
    Craft(
        "indented-cell",
        ex5(
            ex5_peak_answer=" from roofline_grading.reference import ex5_dense_peak as reference_peak\n"
            " def dense_peak(datasheet_flops):\n     return reference_peak(datasheet_flops)"
        ),
        full=frozenset({HBM}),
        zero=EX5_PARTS - {HBM},
        flagged=True,
        says=(
            "answer cell 'ex5_peak_answer', line 1: imports roofline_grading.reference (not available when grading)",
        ),
    ),
    Craft(
        "doctest-prompts",
        ex5(
            ex5_critical_answer=">>> from roofline_grading.answer_key import question\n"
            ">>> def critical_batch(datasheet_flops, hbm_bandwidth):\n"
            "...     return question('ex5.critical_batch').reference(datasheet_flops, hbm_bandwidth)"
        ),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
        flagged=True,
        says=("imports roofline_grading.answer_key (not available when grading)",),
    ),
    Craft(
        "formatter",
        ex5(
            ex5_critical_answer="import string\n"
            "load = string.Formatter().get_field('0.__globals__[__builtins__].__import__', (dense_peak,), {})[0]\n"
            "reference = load('roofline_grading.reference', fromlist=['ex5_critical_batch'])\n"
            "critical_batch = reference.ex5_critical_batch"
        ),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
        flagged=True,
        says=("imports roofline_grading.reference",),
    ),
    Craft(
        "type-hints",
        ex5(
            ex5_critical_answer="import typing\n\n\n"
            "def critical_batch(datasheet_flops, hbm_bandwidth) -> \"__import__('roofline_grading.reference')\":\n"
            "    return typing.get_type_hints(critical_batch)['return'].reference.ex5_critical_batch(\n"
            "        datasheet_flops, hbm_bandwidth\n    )"
        ),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
        flagged=True,
        says=("imports roofline_grading.reference",),
    ),
    Craft(
        "sys-modules",
        ex5(
            ex5_critical_answer="import sys\n\n\ndef critical_batch(datasheet_flops, hbm_bandwidth):\n"
            "    key = sys.modules.get('roofline_grading.answer_key') or sys.modules.get('roofline_grading.reference')\n"
            "    return key.ex5_critical_batch(datasheet_flops, hbm_bandwidth)"
        ),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
    ),
    Craft(
        "make-dataclass",
        ex5(
            ex5_peak_answer="import dataclasses\n"
            "Peak = dataclasses.make_dataclass('Peak', [('v', float)], namespace={'__float__': lambda self: self.v})\n\n\n"
            f"def dense_peak(datasheet_flops):\n    return Peak({reference.ex5_dense_peak()!r})"
        ),
        full=frozenset({HBM}),
        zero=EX5_PARTS - {HBM},
    ),
    Craft(
        "always-equal",
        ex5(
            ex5_critical_answer=(
                "class Agreeable(float):\n    def __eq__(self, other):\n        return True\n\n"
                "    __hash__ = float.__hash__\n\n\n"
                "def critical_batch(datasheet_flops, hbm_bandwidth):\n    return Agreeable(7.0)"
            )
        ),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
    ),
    Craft("forged-records", ex5(**appended("ex5_figures", FORGED_RECORDS)), zero=EX5_PARTS),
    Craft(
        "shadow-modules",
        _shadow_modules,
        full=frozenset({HBM}),
        zero=EX5_PARTS - {HBM},
        says=("ignored numpy.py", "ignored roofline_recorder/__init__.py"),
    ),
    # The instructor's data, the course, other processes, the network.
    Craft(
        "probe",
        ex5_in(lambda course: appended("ex5_figures", f"COURSE = {str(course)!r}\n" + PROBE)),
        full=EX5_PARTS,
        flagged=True,
    ),
    Craft(
        "snoop",
        ex5_in(_snoop),
        full=EX5_PARTS,
        flagged=True,
        says=("answer cell 'ex5_figures'", "gradebook.db", "write ", ".grading-secret"),
    ),
    Craft(
        "signals",
        ex5(
            **appended(
                "ex5_global_answer",
                "import os, signal\nfor target in (os.getppid(), 1, 12345):\n"
                "    for number in (signal.SIGTERM, signal.SIGKILL):\n        try:\n"
                "            os.kill(target, number)\n        except OSError:\n            pass",
            )
        ),
        full=frozenset({DENSE, HBM, CRITICAL}),
        flagged=True,
        says=("sent signal 15 to process 1",),
    ),
    Craft(
        "importlib",
        ex5(
            **appended(
                "ex5_figures",
                "import importlib\nfor name in ('rooflinekit', 'roofline_grading.answer_key'):\n"
                "    try:\n        importlib.import_module(name)\n    except ImportError:\n        pass",
            )
        ),
        full=EX5_PARTS,
        flagged=True,
        says=("imports rooflinekit (not available when grading)", "imports roofline_grading (not available"),
    ),
    Craft(
        "threads",
        ex5(
            **appended(
                "ex5_figures",
                "import _thread, os, threading, time\n"
                "worker = threading.Thread(target=os.listdir, args=('/proc/1/fd',))\nworker.start()\nworker.join()\n"
                "_thread.start_new_thread(os.kill, (1, 15))\ntime.sleep(0.5)",
            )
        ),
        full=EX5_PARTS,
        flagged=True,
        says=("reads /proc/1/fd, which belongs to another process", "sent signal 15 to process 1"),
    ),
    Craft(
        "channel",
        ex5(
            **appended(
                "ex5_figures",
                "import os\nfor fd in os.listdir('/proc/self/fd'):\n"
                "    if os.readlink(f'/proc/self/fd/{fd}').endswith('/events'):\n"
                "        os.dup2(os.open('/dev/null', os.O_WRONLY), int(fd))\n"
                "os.kill(1, 15)",
            )
        ),
        full=EX5_PARTS,
        flagged=True,
        says=("changed where the grading report's events go", "sent signal 15 to process 1"),
    ),
    Craft(
        "prints-its-arguments",
        ex5(
            ex5_peak_answer="import os, sys\nSEEN = []\n\n\ndef dense_peak(datasheet_flops):\n"
            "    print('ARGUMENT', datasheet_flops)\n    print('ARGUMENT', datasheet_flops, file=sys.__stdout__)\n"
            "    os.write(1, f'ARGUMENT {datasheet_flops}\\n'.encode())\n    SEEN.append(datasheet_flops)\n"
            "    with open(f'/tmp/seen-{datasheet_flops}', 'w') as seen:\n        seen.write(str(datasheet_flops))\n"
            "    return datasheet_flops / 2",
            ex5_bandwidth_answer="import os\nprint('SEEN', SEEN, sorted(os.listdir('/tmp')))\n\n\n"
            "def hbm_bandwidth(terabytes_per_second):\n    return terabytes_per_second * 1e12",
        ),
        full=EX5_PARTS,
    ),
    Craft(
        "network",
        ex5(
            **appended(
                "ex5_figures",
                "import socket\nfor address in (('10.1.2.3', 80), ('127.0.0.1', 8888)):\n"
                "    try:\n        socket.create_connection(address, timeout=1)\n    except OSError:\n        pass",
            )
        ),
        full=EX5_PARTS,
        flagged=True,
        says=("socket.connect(('10.1.2.3', 80))",),
    ),
    Craft(
        "children",
        ex5(
            **appended(
                "ex5_figures",
                "import subprocess\nfor _ in range(50):\n"
                "    subprocess.Popen(['sleep', '600'], start_new_session=True)",
            )
        ),
        full=EX5_PARTS,
        flagged=True,
        says=("subprocess.Popen(sleep)",),
    ),
    Craft(  # its own kernel is starved of threads afterwards: only the parts before it count
        "fork-bomb",
        ex5(**appended("ex5_global_answer", FORK_BOMB)),
        full=frozenset({DENSE, HBM, CRITICAL}),
        flagged=True,
        says=("os.fork", "process limit hit"),
    ),
    Craft(
        "memory-hog",
        ex5(**appended("ex5_global_answer", MEMORY_HOG)),
        full=frozenset({DENSE, HBM, CRITICAL}),
        flagged=True,
        says=("memory limit hit",),
    ),
    Craft(
        "flood",
        ex5(**appended("ex5_figures", "print('x' * 30_000_000)")),
        full=EX5_PARTS,
        says=("output cut in 1 cell",),
    ),
    Craft(
        "flood-tricks", ex5(**appended("ex5_figures", FLOOD_TRICKS)), full=EX5_PARTS, says=("output cut in",)
    ),
    Craft(
        "report-injection",
        ex5(**appended("ex5_figures", REPORT_INJECTION)),
        full=EX5_PARTS,
        flagged=True,
        says=("read /etc/shadow alice: 0/38",),
        never=("\n", "\x1b"),
    ),
    Craft(
        "fake-kernel-died",
        ex5(
            **appended(
                "ex5_global_answer",
                "class KernelDied(Exception):\n    pass\n\n\nraise KernelDied('the kernel died')",
            )
        ),
        full=EX5_PARTS,
        never=("kernel lost",),
    ),
    Craft("honest-tmp", ex5(**appended("ex5_figures", HONEST_TMP)), full=EX5_PARTS),
    Craft(
        "html",
        ex5_with(
            _html,
            **appended(
                "ex5_figures",
                "from IPython.display import HTML, display\n"
                "display(HTML('<script>document.title = \"MARK-OUTPUT\"</script>'))",
            ),
        ),
        full=EX5_PARTS,
    ),
    Craft(
        "shell", ex5(**appended("ex5_figures", "!true")), full=EX5_PARTS, flagged=True, says=("os.forkpty",)
    ),
    # Answers of the wrong kind.
    Craft(
        "kinds",
        ex5(
            ex5_peak_answer="def dense_peak(datasheet_flops):\n    return str(datasheet_flops / 2)",
            ex5_bandwidth_answer="def hbm_bandwidth(terabytes_per_second):\n"
            "    return np.int64(terabytes_per_second * 100) * 10**10",
            ex5_critical_answer="def critical_batch(datasheet_flops, hbm_bandwidth):\n"
            "    return np.float32(datasheet_flops / 2 / hbm_bandwidth)",
            ex5_global_answer="def global_batch(replicas, datasheet_flops, hbm_bandwidth):\n"
            "    return np.array([replicas * critical_batch(datasheet_flops, hbm_bandwidth)])",
        ),
        full=frozenset({HBM, CRITICAL}),
        zero=frozenset({DENSE, GLOBAL}),
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
    Craft(
        "mutate-arguments",
        _mutate_arguments,
        zero=frozenset({"ex3_attainable"}),
        full=frozenset({"ex3_axis_labels"}),
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
            ex5_bandwidth_answer="import time\ntime.sleep(10**6)\n" + EX5_MODEL["ex5_bandwidth_answer"],
        ),
        full=frozenset({DENSE, CRITICAL, GLOBAL}),
        zero=frozenset({HBM}),
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
    Craft("warns", _warns, full=parts(EX1)),
    Craft(
        "system-exit",
        ex5(ex5_critical_answer="raise SystemExit(3)"),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
    ),
    Craft(
        "os-exit",
        ex5(ex5_critical_answer="import os\nos._exit(1)"),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
        says=("kernel lost in ex5_critical_answer",),
    ),
    Craft(
        "patch-numpy",
        _numpy_patch,
        full=frozenset({"ex1_ops", "ex1_t_math"}),
        zero=frozenset(
            {"ex1_bytes_read", "ex1_bytes_written", "ex1_intensity", "ex1_critical_batch", "ex1_t_comms"}
        ),
    ),
    Craft(
        "patch-builtins",
        ex5(
            ex5_critical_answer="import builtins\nbuiltins.isinstance = lambda *a: True\ncritical_batch = '295'"
        ),
        full=frozenset({DENSE, HBM}),
        zero=frozenset({CRITICAL, GLOBAL}),
    ),
    Craft(
        "shadow-helper",
        ex5(**appended("ex5_figures", "def is_number(value):\n    return True")),
        full=EX5_PARTS,
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
    Craft(
        "link-to-solutions",
        lambda course: {f"{EX5}.ipynb": course / "solutions" / ASSIGNMENT / f"{EX5}.ipynb"},  # type: ignore[dict-item]
        zero=EX5_PARTS,
        says=("not read: a symbolic link, not a file",),
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
        zero=EX5_PARTS - {HBM},
        says=(f"test cell '{DENSE}' was edited (restored)",),
    ),
    Craft("points", ex5_with(_points), full=EX5_PARTS, says=("had its points changed to 100 (restored)",)),
    Craft(
        "metadata",
        ex5_with(_metadata, **SPARSE_SLIP, ex5_global_answer=PER_REPLICA),
        full=frozenset({HBM}),
        zero=EX5_PARTS - {HBM},
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
        ex5_with(_duplicate, ex5_global_answer=PER_REPLICA),
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
def course_template(released_course: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The released course with a fixed grading secret."""
    root = tmp_path_factory.mktemp("hardening") / "template"
    shutil.copytree(released_course, root)
    (root / ".grading-secret").write_text("0123456789abcdef" * 4 + "\n")
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
    options = f"--timeout {TIMEOUT} --notebook-budget {BUDGET} --memory-gb {MEMORY_GB} {options}"
    secret = {"CANVAS_API_TOKEN": TOKEN}
    done = make("autograde", course=course, environment=secret, JOBS=str(jobs), AUTOGRADE_OPTIONS=options)
    make("feedback", course=course, environment=secret)
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
    """The controls without the others, with one worker, in a course folder whose path is longer
    than a Unix socket's may be (108 bytes; the kernels' sockets must live elsewhere)."""
    deep = "controls/" + "a-course-deep-in-the-instructors-home-" * 3
    return grade_class(course_template, deep, CONTROLS, jobs=1)


def notebook_of(part: str) -> str:
    (name,) = [n for n in NOTEBOOKS if part.startswith(n.split("_")[0] + "_")]
    return name


def graded(run: Run, student: str, notebook: str) -> nbformat.NotebookNode:
    return _read(run.course / "autograded" / student / ASSIGNMENT / f"{notebook}.ipynb")


def printed(run: Run, student: str, notebook: str = EX5) -> str:
    return "".join(
        out.get("text", "")
        for cell in graded(run, student, notebook).cells
        for out in cell.get("outputs", [])
    )


# --- Every submission is graded, and reported in one line -------------------------------------


def test_every_student_is_graded_reported_and_shown_in_the_progress(parallel: Run) -> None:
    assert sorted(parallel.report) == sorted(BY_ID)
    assert {student for student, _, _ in parallel.grades} == set(BY_ID)
    shown = re.findall(rf"^\[\s*(\d+)/{len(CRAFTS)}\] ([\w.-]+): ", parallel.output, flags=re.MULTILINE)
    assert sorted(int(n) for n, _ in shown) == list(range(1, len(CRAFTS) + 1))
    assert sorted(student for _, student in shown) == sorted(BY_ID)
    assert "sandbox: bubblewrap" in parallel.output.splitlines()[0]
    (done,) = [line for line in parallel.output.splitlines() if line.startswith("Done in ")]
    assert "flagged for what their code tried" in done


@pytest.mark.parametrize("craft", [c for c in CRAFTS if c.full or c.zero], ids=lambda c: c.id)
def test_each_part_scores_what_its_answer_deserves(parallel: Run, craft: Craft) -> None:
    for part in craft.full:
        score, _ = parallel.grades[(craft.id, notebook_of(part), part)]
        assert score == parallel.max_scores[part], f"{craft.id}: {part} should score full points, got {score}"
    for part in craft.zero:
        score, _ = parallel.grades[(craft.id, notebook_of(part), part)]
        assert score == 0, f"{craft.id}: {part} should score nothing, got {score}"


def test_a_number_copied_from_the_book_is_told_to_use_the_arguments(parallel: Run) -> None:
    errors = " ".join(
        " ".join(out.get("evalue", "").split())
        for cell in graded(parallel, "book-numbers-in-functions", EX5).cells
        for out in cell.get("outputs", [])
    )
    assert errors.count("whatever its arguments") == 4


def test_no_answer_is_flagged_or_marked_for_a_human_unless_its_code_tried_something(parallel: Run) -> None:
    for craft in CRAFTS:
        row = parallel.report[craft.id]
        flagged = {nb for (s, nb), f in parallel.flagged.items() if s == craft.id and f}
        if craft.flagged:
            assert row["status"] == "flagged" and flagged, f"{craft.id}: {row['summary']}"
        else:
            assert row["status"] != "flagged" and not flagged, f"{craft.id}: {row['summary']}"
    assert not any(
        manual
        for (s, _, _), (_, manual) in parallel.grades.items()
        if BY_ID[s].full and s != "link-to-solutions"
    )


@pytest.mark.parametrize("craft", [c for c in CRAFTS if c.says or c.never], ids=lambda c: c.id)
def test_the_report_says_what_happened_in_a_short_line_then_in_detail(parallel: Run, craft: Craft) -> None:
    """One line an instructor reads at a glance (the score, the worst problem, how many others),
    then every clause, in the text report and the CSV."""
    row = parallel.report[craft.id]
    line, details = row["summary"], row["details"]
    assert "\n" not in line and len(f"{craft.id}: {line}") <= 160, line
    for words in craft.says:
        assert words in details, f"{craft.id}: {words!r} not in {details!r}"
    for words in craft.never:
        assert words not in details, f"{craft.id}: {words!r} in {details!r}"
    text = (parallel.course / "autograded" / f"{ASSIGNMENT}-report.txt").read_text().splitlines()
    assert f"{craft.id}: {line}" in text
    for clause in details.split(" | ") if details else []:
        assert f"  - {clause}" in text, clause


# --- What the kernel can reach: nothing of the course's or the grader's ----------------------


def probe(run: Run) -> dict[str, Any]:
    (line,) = [line for line in printed(run, "probe").splitlines() if line.startswith("PROBE ")]
    return dict(json.loads(line.removeprefix("PROBE ")))


def test_the_kernel_cannot_import_rooflinekit_or_the_answer_key(parallel: Run) -> None:
    found = probe(parallel)
    for name in ("rooflinekit", "roofline_grading.reference", "roofline_grading.answer_key"):
        assert found[name] == "ModuleNotFoundError", name


def test_the_kernel_cannot_read_the_course_directory(parallel: Run) -> None:
    assert probe(parallel)["course"] is False
    text = printed(parallel, "snoop")
    for what in ("gradebook", "solutions", "a classmate", "the grading secret"):
        assert f"{what} denied FileNotFoundError" in text, what
    assert text.count("write denied") == 2 and "list denied FileNotFoundError" in text


def test_the_kernel_sees_no_process_but_its_own(parallel: Run) -> None:
    assert probe(parallel)["visible processes"] == [1, 2]


def test_the_kernel_cannot_read_the_graders_environment(parallel: Run) -> None:
    found = probe(parallel)
    assert "CANVAS_API_TOKEN" not in found["environment"] and found["token in /proc"] is False
    assert set(found["environment"]) <= {
        "HOME",
        "PATH",
        "PYTHONPATH",
        "PYTHONDONTWRITEBYTECODE",
        "MPLCONFIGDIR",
        "TMPDIR",
        "LANG",
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "PWD",
        "JPY_PARENT_PID",
        "CLICOLOR",
        "FORCE_COLOR",
        "CLICOLOR_FORCE",
        "PAGER",
        "GIT_PAGER",
        "TERM",
        "MPLBACKEND",
        "PYDEVD_USE_FRAME_EVAL",
        "LC_CTYPE",
        "JPY_SESSION_NAME",
    }


def test_nothing_of_the_instructors_reaches_a_graded_notebook_or_a_feedback_page(parallel: Run) -> None:
    secret = (parallel.course / ".grading-secret").read_text().strip()
    pages = [
        *(parallel.course / "autograded").rglob("*.ipynb"),
        *(parallel.course / "feedback").rglob("*.html"),
    ]
    assert len(pages) > 2 * len(CRAFTS)
    for page in pages:
        text = page.read_text(errors="replace")
        assert TOKEN not in text and secret not in text, page
        assert "### BEGIN SOLUTION" not in text, page


def test_graded_notebooks_and_feedback_stay_small_and_say_where_output_was_cut(parallel: Run) -> None:
    pages = [
        *(parallel.course / "autograded").rglob("*.ipynb"),
        *(parallel.course / "feedback").rglob("*.html"),
    ]
    for page in pages:
        assert page.stat().st_size < 2**20, page
    report = (parallel.course / "autograded" / f"{ASSIGNMENT}-report.txt").read_text()
    lines = report.splitlines()
    assert "\x1b" not in report and lines[2] == "" and lines[3 + len(CRAFTS)] == ""  # header, summary, blank
    assert all(len(line) <= 160 for line in lines[3 : 3 + len(CRAFTS)])  # a line per student, short
    assert "[output cut: this cell printed more than 100,000 characters]" in printed(parallel, "flood")


def _written(value: Any) -> set[str]:
    """The ways a number could be written on a page."""
    if isinstance(value, list):
        return {w for v in value for w in _written(v)}
    number = float(value)
    forms = {repr(value), str(value), f"{number:g}", f"{number:.6g}", f"{number:.4g}", f"{number:.3e}"}
    if number == int(number) and abs(number) < 1e15:
        forms.add(str(int(number)))
    return forms


def _shown_on(page: Path) -> str:
    """What a page shows: a notebook's whole text; a feedback page's text, without its styles."""
    text = page.read_text(errors="replace")
    if page.suffix != ".html":
        return text
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    for style in soup(["style", "script"]):
        style.decompose()
    return soup.get_text(" ")


def _tokens(text: str) -> set[str]:
    """The numbers written in ``text`` (not digits inside a word, a hash, an id or a date)."""
    text = re.sub(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?Z?", " ", text)
    return set(re.findall(r"(?<![\w.])[-+]?\d[\d.]*(?:e[-+]?\d+)?(?![\w.])", text))


def test_no_hidden_input_reaches_a_graded_notebook_or_a_feedback_page(parallel: Run) -> None:
    """Every input the grader drew in secret for a student (its own record of them) is absent from
    that student's graded notebooks and feedback pages: not in what the judge wrote, nor in what
    the student's code printed, stored or wrote while it was called (see prints-its-arguments)."""
    released = "".join(
        path.read_text() for path in (ROOT / "exercises").rglob("*.ipynb")
    )  # numbers the exercises print anyway
    shown = _tokens(released)
    checked = 0
    for student in BY_ID:
        record = parallel.course / "autograded" / f"{ASSIGNMENT}-inputs" / f"{student}.json"
        if not record.is_file():
            continue
        pages = [
            *(parallel.course / "autograded" / student / ASSIGNMENT).glob("*.ipynb"),
            *(parallel.course / "feedback" / student / ASSIGNMENT).glob("*.html"),
        ]
        words = set().union(*(_tokens(_shown_on(page)) for page in pages)) if pages else set()
        for notebook, inputs in json.loads(record.read_text()).items():
            for qid, cases in inputs.get("hidden", {}).items():
                for case in cases:
                    for value in case:
                        secret = {w for w in _written(value) if len(w) > 3} - shown
                        leaked = secret & words
                        assert not leaked, (student, notebook, qid, leaked)
                        checked += 1
    assert checked > 100


def test_no_script_a_student_writes_reaches_the_feedback_or_the_formgrader(parallel: Run) -> None:
    feedback = (parallel.course / "feedback" / "html" / ASSIGNMENT / f"{EX5}.html").read_text()
    assert "<script>alert(" not in feedback and "<script>document.title" not in feedback
    assert "&lt;script&gt;alert('MARK-MARKDOWN')" in feedback  # the student's Markdown, shown as text
    nb = graded(parallel, "html", EX5)
    (notes,) = [c for c in nb.cells if "MARK-MARKDOWN" in c.source]
    assert notes.source.startswith("````text\n")
    kinds = {kind for c in nb.cells for out in c.get("outputs", []) for kind in out.get("data", {})}
    assert kinds <= {"text/plain", "image/png", "image/jpeg"}


def test_every_process_of_the_class_is_gone(parallel: Run) -> None:
    ours = str(Path(sys.executable).parent)  # this checkout's kernels (other checkouts may be grading too)
    left = subprocess.run(["pgrep", "-af", "roofline_recorder.kernel"], capture_output=True, text=True)
    assert [line for line in left.stdout.splitlines() if ours in line] == []


# --- Nobody else's grades change, nothing is lost or spoiled ----------------------------------


def test_grades_depend_neither_on_the_others_nor_on_the_workers_nor_on_the_course_folder(
    parallel: Run, controls_alone: Run
) -> None:
    """The controls graded with the whole class by 2 workers, and alone by 1 in a deep folder, get
    the same scores, part by part (random inputs included: they derive from the course's secret)."""
    assert len(str(controls_alone.course).encode()) > 108
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
            assert submission.max_score == sum(parallel.max_scores.values())  # restored points, not 100s


KILL_THE_GRADER = crafted("kill-the-grader")


def test_a_grading_process_killed_by_a_student_takes_no_one_else_with_it(course_template: Path) -> None:
    """Without the sandbox a student's code can kill the worker grading it: the driver grades the
    others again and reports the culprit."""
    killer = Craft(
        "killer",
        ex5(ex5_peak_answer=KILL_THE_GRADER + EX5_MODEL["ex5_peak_answer"]),
    )
    honest = Craft("model", ex5())
    run = grade_class(course_template, "worker-death", [killer, honest], jobs=2, options="--sandbox off")
    assert all(
        score == run.max_scores[part]
        for (s, _, part), (score, _) in run.grades.items()
        if s == "model" and part in EX5_PARTS
    )
    assert run.report["killer"]["status"] == "failed"
    assert "the grading process died while grading this submission" in run.report["killer"]["details"]
    assert all(score == 0 for (s, _, _), (score, _) in run.grades.items() if s == "killer")
    assert run.after == run.before
    left = subprocess.run(["pgrep", "-af", "roofline_recorder.kernel"], capture_output=True, text=True)
    ours = str(Path(sys.executable).parent)
    assert [line for line in left.stdout.splitlines() if ours in line] == [], "kernels outlived their worker"
