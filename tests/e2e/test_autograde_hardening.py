"""A hostile class, graded through `make autograde` with real nbgrader and the real sandbox.

One class of crafted students, each submitting (mostly) one notebook with one problem: answers
of the wrong kind, code that raises, loops, sleeps, exits, crashes the kernel, floods its
output, forks or eats memory, files that are not notebooks, edited test cells and metadata, and
every way to credit without the right answer the course has met: numbers copied from the book,
code that reaches for the answer key past a scanner (an indented cell, doctest prompts,
``string.Formatter``, type hints, ``sys.modules``), objects that pretend to be numbers, forged
records, reads of the course and the grader's environment, signals, the network, HTML and
scripts in outputs and Markdown. Beside them, control students (model answers, the untouched
release, one honest slip) and an honest student whose functions print their own names. The
class is data: tests/e2e/crafted/class.toml says what each student submits and what must come of
it, with the longer code in crafted/*.ipy; this module builds the submissions from it.

The class is graded in parallel (JOBS=2) with a made-up secret in the grader's environment and
session keyring, and the controls again alone and sequentially (JOBS=1). The tests then check
part by part that no answer earned credit it should not and no honest one lost any, that every
attempt is named in the report and nothing of the instructor's reaches a graded notebook or
feedback page, that every process is gone, that the controls' grades do not depend on the others
nor on the number of workers, that the gradebook is intact and that no submitted file changed.
"""

from __future__ import annotations

import base64
import copy
import csv
import functools
import hashlib
import json
import os
import re
import shutil
import sqlite3
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

import nbformat
import pytest

from roofline_grading import answer_key as key
from roofline_grading.exercises.ex1_int8_matmul import answers as ex1
from roofline_grading.exercises.ex2_int8_weights import answers as ex2
from roofline_grading.exercises.ex3_roofline_plot import answers as ex3
from roofline_grading.exercises.ex5_h100_threshold import answers as ex5
from roofline_grading.exercises.ex5_h100_threshold import given as ex5_given
from roofline_grading.questions import FunctionQuestion, public_cases
from rooflinekit import exercises
from tests.support import processes
from tests.support.browsers import note_requests_elsewhere
from tests.support.formgrader_server import Formgrader, api, start_formgrader
from tests.support.make_targets import command, make

pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("hardening")]

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "roofline"
NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
TIMEOUT, BUDGET, MEMORY_GB = 5, 25, 1.5  # a cell, a notebook, a kernel's tree: small, so the class is quick
TOKEN = "canvas-" + hashlib.sha256(b"a made-up token").hexdigest()[:24]
"""A secret of the instructor's, in the grader's environment and session keyring: it must reach no student."""


# --- Building submissions ------------------------------------------------------------------

CRAFTED = Path(__file__).with_name("crafted")
"""The crafted students as data: class.toml, and the longer code they submit, one cell's source a
file (IPython: ``*.ipy``)."""


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


EX5 = "ex5_h100_threshold"
DENSE, HBM, CRITICAL, GLOBAL = "ex5_dense_peak", "ex5_hbm_bandwidth", "ex5_critical_batch", "ex5_global_batch"
EX5_PARTS = frozenset({DENSE, HBM, CRITICAL, GLOBAL})


def parts(notebook: str) -> frozenset[str]:
    return frozenset(
        _grade_id(c)
        for c in _read(ROOT / "solutions" / ASSIGNMENT / f"{notebook}.ipynb").cells
        if c.metadata.get("nbgrader", {}).get("grade")
    )


ALL_PARTS = frozenset().union(*(parts(n) for n in NOTEBOOKS))


# --- What students submit, and what must come of it (crafted/class.toml) -------------------


@dataclass(frozen=True)
class Craft:
    """A crafted student: the files they submit (built for a course directory), the parts that
    must score full points or nothing, whether the report must flag what their code tried, and
    words their report line must contain."""

    id: str
    build: Callable[[Path], dict[str, bytes | Path]]
    full: frozenset[str] = frozenset()
    zero: frozenset[str] = frozenset()
    flagged: bool = False
    says: tuple[str, ...] = ()
    never: tuple[str, ...] = ()
    control: bool = False


CLASS = tomllib.loads((CRAFTED / "class.toml").read_text(encoding="utf-8"))
"""The crafted students, as data: what each submits and what must come of it (its header says how)."""
NUMBERS = {
    "ex1_critical_batch": ex1.critical_batch(),
    "ex1_limited_by": ex1.roofline(*exercises.EX1_SHAPE).bound,
    "ex2_compute_peak": exercises.EX2_CHIP.peak("bf16"),
    "ex2_critical_batch": ex2.critical_batch(),
    "ex3_crossover_4096": ex3.crossover(4096),
    "ex3_crossover_1024": ex3.crossover(1024),
    "ex5_dense_peak": ex5.dense_peak(ex5_given.DATASHEET_BF16),
    "ex5_hbm_bandwidth": ex5_given.CHIP.hbm_bandwidth,
    "ex5_critical_batch": ex5.critical_batch(),
    "ex5_global_batch": ex5.global_batch(),
}
"""The numbers the book and the source print, which students copy: ``${name}`` in class.toml."""


def text(value: str | list[str], course: Path) -> str:
    """A text of class.toml for ``course``: its templates filled, its ``@file.ipy`` items read."""
    pieces = [value] if isinstance(value, str) else value
    filled = {"course": str(course), **{name: repr(number) for name, number in NUMBERS.items()}}
    return "".join(
        crafted(p[1:].removesuffix(".ipy")) if p.startswith("@") else Template(p).substitute(filled)
        for p in pieces
    )


def _delete(nb: nbformat.NotebookNode, *grade_ids: str) -> None:
    nb.cells = [c for c in nb.cells if _grade_id(c) not in grade_ids]


def _edit_tests(nb: nbformat.NotebookNode) -> None:
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.source = "assert True  # nothing to check"


def _points(nb: nbformat.NotebookNode, points: str) -> None:
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata.nbgrader.points = int(points)


def _metadata(nb: nbformat.NotebookNode) -> None:
    cell_of(nb, DENSE).metadata.nbgrader.update(grade=False, solution=True, locked=False)
    cell_of(nb, DENSE).source = "dense_peak"
    bonus = cell_of(nb, GLOBAL)
    bonus.metadata.nbgrader.update(grade_id="bonus", points=50)
    bonus.source = "assert True"


def _garbled(nb: nbformat.NotebookNode) -> None:
    for metadata in ([], {"grade": True, "points": 100}, {"grade_id": 7, "solution": True}):
        nb.cells.append(nbformat.v4.new_code_cell("extra = 1", metadata={"nbgrader": metadata}))


def _duplicate(nb: nbformat.NotebookNode, grade_id: str) -> None:
    fake = copy.deepcopy(cell_of(nb, grade_id))
    fake.id = "fake-test"
    fake.source = "assert True"
    nb.cells.insert(nb.cells.index(cell_of(nb, grade_id)) + 1, fake)


def _kernelspec(nb: nbformat.NotebookNode) -> None:
    nb.metadata.kernelspec = {"name": "evil", "display_name": "Evil", "language": "python"}


def _script_in_markdown(nb: nbformat.NotebookNode) -> None:
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("My notes <script>alert('MARK-MARKDOWN')</script>"))


MARKUP = 'x`` <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> **bold** $x$'
"""Markup as a student can write it wherever a notebook carries text: backticks that would close a
code span, HTML that sets ``window.__pwned`` if it ever runs, Markdown, math."""
SHOWN = '<img src=x onerror="window.__pwned='
"""What of :data:`MARKUP` (and of the markup a student prints) a page must show as text."""
SVG = (
    "<svg xmlns='http://www.w3.org/2000/svg' onload='window.__pwned=6'>"
    "<script>window.__pwned=7</script></svg>"
)


def _markup_kernelspec(nb: nbformat.NotebookNode) -> None:
    nb.metadata.kernelspec = {"name": [MARKUP], "display_name": MARKUP, "language": "python"}


def _markup_tags(nb: nbformat.NotebookNode) -> None:
    nb.cells[0].metadata["tags"] = MARKUP


def _markup_everywhere(nb: nbformat.NotebookNode) -> None:
    part = {"grade_id": MARKUP, "grade": True, "solution": False, "locked": True, "points": 5}
    notes = nbformat.v4.new_markdown_cell(f"My notes {MARKUP}\n\n![plot](attachment:plot.svg)")
    notes.attachments = {"plot.svg": {"image/svg+xml": base64.b64encode(SVG.encode()).decode()}}
    nb.cells[1:1] = [
        notes,
        nbformat.v4.new_raw_cell(MARKUP, metadata={"raw_mimetype": "text/html"}),
        nbformat.v4.new_code_cell("assert True", metadata={"nbgrader": part, "tags": [SHOWN]}),
    ]
    state = {"state": {}, "</script><script>window.__pwned=8</script>": {}}
    nb.metadata.update(title=MARKUP, widgets={"application/vnd.jupyter.widget-state+json": state})


CHANGES: dict[str, Callable[..., None]] = {
    "delete": _delete,
    "edit-tests": _edit_tests,
    "points": _points,
    "metadata": _metadata,
    "garbled": _garbled,
    "duplicate": _duplicate,
    "kernelspec": _kernelspec,
    "script-in-markdown": _script_in_markdown,
    "markup-kernelspec": _markup_kernelspec,
    "markup-tags": _markup_tags,
    "markup-everywhere": _markup_everywhere,
}
"""The edits class.toml's ``changes`` name, each given the notebook and the change's arguments."""


def _answers(student: dict[str, Any], notebook: str, course: Path) -> dict[str, str]:
    """Each answer cell of ``notebook`` the student does not leave as ``start`` has it."""
    model, found = model_answers(notebook), {}
    for grade_id, old, new in student.get("replaced", []):
        if grade_id in model:
            found[grade_id] = model[grade_id] = model[grade_id].replace(old, new)
    appended = student.get("appended", {})
    for grade_id in model:
        after = appended.get(grade_id, appended.get("*"))
        if after is not None:
            found[grade_id] = model[grade_id] + "\n" + text(after, course)
        if grade_id in student.get("prepended", {}):
            found[grade_id] = text(student["prepended"][grade_id], course) + model[grade_id]
        if grade_id in student.get("answers", {}):
            found[grade_id] = text(student["answers"][grade_id], course)
    return found


def _notebook(student: dict[str, Any], notebook: str, course: Path) -> nbformat.NotebookNode:
    nb = released(notebook) if student.get("start") == "released" else answered(notebook)
    for cell in nb.cells:
        cell.source = _answers(student, notebook, course).get(_grade_id(cell), cell.source)
    for change in student.get("changes", []):
        name, *arguments = change.split()
        CHANGES[name](nb, *arguments)
    return nb


def _submission(student: dict[str, Any], course: Path) -> dict[str, bytes | Path]:
    """The files ``student`` submits in ``course``, by their path in the submission."""
    notebooks = student.get("notebooks", [EX5])
    files: dict[str, bytes | Path] = {
        f"{name}.ipynb": file(_notebook(student, name, course))
        for name in (NOTEBOOKS if notebooks == "*" else notebooks)
    }
    files |= {path: text(content, course).encode() for path, content in student.get("files", {}).items()}
    files |= {path: course / target for path, target in student.get("links", {}).items()}
    return files


def _parts(listed: list[str]) -> frozenset[str]:
    """The parts class.toml's ``full`` or ``zero`` names (see its header)."""
    found: set[str] = set()
    for item in listed:
        name = item.removeprefix("-")
        if name == "*":
            named = set(ALL_PARTS)
        elif name == "scalar":
            named = set(CLASS["scalar"])
        elif name.endswith(":*"):
            named = {p for p in ALL_PARTS if p.startswith(name[:-1].replace(":", "_"))}
        else:
            named = {name}
        assert named <= ALL_PARTS, f"class.toml names no part {item!r}"
        found = found - named if item.startswith("-") else found | named
    return frozenset(found)


def craft(student: dict[str, Any]) -> Craft:
    """The crafted student of a table of class.toml."""
    return Craft(
        student["id"],
        functools.partial(_submission, student),
        full=_parts(student.get("full", [])),
        zero=_parts(student.get("zero", [])),
        flagged=student.get("flagged", False),
        says=tuple(student.get("says", ())),
        never=tuple(student.get("never", ())),
        control=student.get("control", False),
    )


CRAFTS = [craft(student) for student in CLASS["student"]]
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


def grade_class(
    template: Path, name: str, crafts: list[Craft], jobs: int, options: str = "", *, feedback: bool = False
) -> Run:
    """``make autograde`` on ``crafts`` in a copy of ``template``, then ``make feedback`` if asked
    (only the tests of the parallel run read feedback pages; the others compare grades, reports
    and files, which feedback does not touch)."""
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
    keys = {"canvas-token": TOKEN}  # in the grader's session keyring, as a login or a service holds one
    done = make(
        "autograde", course=course, environment=secret, keys=keys, JOBS=str(jobs), AUTOGRADE_OPTIONS=options
    )
    if feedback:
        make("feedback", course=course, environment=secret)
    with (course / "autograded" / f"{ASSIGNMENT}-report.csv").open(newline="") as handle:
        report = {row["student"]: row for row in csv.DictReader(handle)}
    run = Run(course, done.stdout, report, before, tree_hashes(course / "submitted"))
    read_gradebook(run)
    return run


@pytest.fixture(scope="module")
def parallel(course_template: Path) -> Run:
    """The whole class, two workers, cold kernels (each in a sandbox of its own)."""
    return grade_class(course_template, "parallel", CRAFTS, jobs=2, options="--kernels cold", feedback=True)


@pytest.fixture(scope="module")
def warm(course_template: Path) -> Run:
    """The whole class again, one worker, warm kernels (each forked from the worker's template)."""
    return grade_class(course_template, "warm", CRAFTS, jobs=1, options="--kernels warm")


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
    for name in (
        "rooflinekit",
        "roofline_grading.matmuls",
        "roofline_grading.answer_key",
        "roofline_grading.exercises.ex5_h100_threshold.answers",  # an exercise folder's model answers
    ):
        assert found[name] == "ImportError", name  # the stub that says the course is not there


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


def notes_of(run: Run, student: str, notebook: str = EX5) -> str:
    """The grading notes that head a student's graded notebook (empty if it has none)."""
    first = graded(run, student, notebook).cells[0]
    return str(first.source) if first.metadata.get("roofline", {}).get("grading_notes") else ""


def test_the_student_is_told_what_the_notebook_tried_and_nothing_its_copies_did_at_the_hidden_inputs(
    parallel: Run,
) -> None:
    """A copy that answers the hidden inputs can pick what it does from them: what it did is in the
    instructor's report, and never in the student's notes, which are settled before the hidden
    inputs are handed out. What the notebook's cells tried is in both, seen from outside the
    kernel even where its monitor was silenced."""
    tried = "Your code tried something the grading sandbox does not allow"
    assert parallel.report["hidden-phase"]["status"] == "flagged"
    assert tried not in notes_of(parallel, "hidden-phase")
    for student in ("mute-guard", "mute-class", "ctypes-kill", "refused"):
        assert tried in notes_of(parallel, student), student


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


def _answer_errors(run: Run, student: str, notebook: str = EX5) -> dict[str, str]:
    """Each graded part's error text, as the feedback shows it (wrapped lines joined)."""
    return {
        _grade_id(cell): " ".join(
            f"{out.get('ename', '')}: {' '.join(out.get('evalue', '').split())}"
            for out in cell.get("outputs", [])
            if out.get("output_type") == "error"
        )
        for cell in graded(run, student, notebook).cells
        if cell.metadata.get("nbgrader", {}).get("grade")
    }


def test_whatever_fails_at_the_hidden_inputs_a_part_reads_one_sentence(parallel: Run) -> None:
    """Two students right in the kernel whose copies go wrong in a way picked from each hidden
    input (an error class, NaN or a string, a lost copy, a wrong number; a time-out, a class named
    after the input, an array far too big, NaN): each part reads the one sentence for the hidden
    inputs, the same for both students, and so do their grading notes."""
    said = {student: _answer_errors(parallel, student) for student in ("hidden-bits", "hidden-bits-2")}
    assert said["hidden-bits"] == said["hidden-bits-2"]
    for part in EX5_PARTS:
        question = key.question(part.replace("_", ".", 1))
        assert isinstance(question, FunctionQuestion)
        count = len(public_cases(question))
        assert said["hidden-bits"][part] == (
            f"AnswerError: {question.name} is right at the {count} inputs every notebook is checked at, "
            "but not at every input chosen at grading time (they are not shown). Make it work for any "
            "figures and sizes, computing the answer from its arguments."
        ), said["hidden-bits"][part]
    notes = {
        student: [c.source for c in graded(parallel, student, EX5).cells if "Grading notes" in c.source]
        for student in said
    }
    assert notes["hidden-bits"] == notes["hidden-bits-2"]


def test_no_script_a_student_writes_reaches_the_feedback_or_the_formgrader(parallel: Run) -> None:
    feedback = (parallel.course / "feedback" / "html" / ASSIGNMENT / f"{EX5}.html").read_text()
    assert "<script>alert(" not in feedback and "<script>document.title" not in feedback
    assert "&lt;script&gt;alert('MARK-MARKDOWN')" in feedback  # the student's Markdown, shown as text
    nb = graded(parallel, "html", EX5)
    (notes,) = [c for c in nb.cells if "MARK-MARKDOWN" in c.source]
    assert notes.source.startswith("````text\n")
    kinds = {kind for c in nb.cells for out in c.get("outputs", []) for kind in out.get("data", {})}
    assert kinds <= {"text/plain", "image/png", "image/jpeg"}


# --- The class's pages in a browser: no script of a student's runs, markup shows as text ----------

MARKUP_STUDENTS = sorted(c.id for c in CRAFTS if c.id.startswith("markup-"))
STEPS = (
    ".assign, .release, .collect, .autograde, .generate-feedback, .release-feedback, "
    ".glyphicon-education, .glyphicon-flash, .glyphicon-comment, .glyphicon-envelope"
)
"""nbgrader's buttons for the steps the course runs with make (their cells and their icons)."""


@dataclass
class Watched:
    """A chromium page on which every dialog and page error is noted (``seen``), and every request
    to another address (``requests``)."""

    page: Any
    seen: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def ran(self) -> str:
        """What a student's script set, if any ran on the page ('' if none did)."""
        return str(self.page.evaluate("typeof window.__pwned === 'undefined' ? '' : String(window.__pwned)"))


@contextmanager
def watched(chromium: Any, local: str) -> Iterator[Watched]:
    """A page in a context of its own, every request but to ``local`` (an address's start) noted (the
    browser reaches no host but 127.0.0.1)."""
    context = chromium.new_context(viewport={"width": 1200, "height": 900})
    browsed = Watched(context.new_page())
    page, seen = browsed.page, browsed.seen
    note_requests_elsewhere(page, local, browsed.requests, in_the_page=("data:",))
    page.on("dialog", lambda d: (seen.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("pageerror", lambda e: seen.append(f"page error: {e}"))
    try:
        yield browsed
    finally:
        context.close()


@pytest.mark.browser
def test_no_feedback_page_of_the_class_runs_a_students_script_and_markup_shows_as_text(
    parallel: Run, chromium: Any
) -> None:
    """Every feedback page of the class, opened from the disk as a student opens it: no dialog, no
    page error, no request, and ``window.__pwned`` never set; the markup students' pages show
    their markup as text."""
    pages = sorted((parallel.course / "feedback").rglob("*.html"))
    assert len(pages) > len(CRAFTS)
    with watched(chromium, "file://") as browsed:
        for path in pages:
            browsed.page.goto(path.as_uri(), wait_until="load")
            assert browsed.ran() == "", path
            student = path.relative_to(parallel.course / "feedback").parts[0]
            if student in MARKUP_STUDENTS:
                assert SHOWN in browsed.page.inner_text("body"), path
    assert browsed.seen == [] and browsed.requests == []


LOADED = "() => !document.body.innerText.includes('Loading, please wait')"
"""A formgrader list has its rows (each asks nbgrader's API once the page is there)."""
MATHJAX = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js?config=TeX-AMS_CHTML-full,Safe"
"""The MathJax nbgrader's formgrader loads on the page of a submission."""


@pytest.fixture(scope="module")
def class_formgrader(parallel: Run, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Formgrader]:
    """``make formgrader`` on the graded class, as the instructor starts it."""
    scratch = tmp_path_factory.mktemp("formgrader")
    running = start_formgrader(command("formgrader", course=parallel.course), parallel.course, scratch)
    try:
        yield running
    finally:
        running.stop()


def formgrader_views(running: Formgrader) -> list[tuple[str, str | None]]:
    """Every view formgrader has of the class: its lists, each student's, each submitted notebook's
    (with the student whose notebook it shows)."""
    views = ["manage_assignments", f"manage_submissions/{ASSIGNMENT}", "gradebook", f"gradebook/{ASSIGNMENT}"]
    views += [f"gradebook/{ASSIGNMENT}/{notebook}" for notebook in NOTEBOOKS] + ["manage_students"]
    views += [f"manage_students/{s}{tail}" for s in sorted(BY_ID) for tail in ("", f"/{ASSIGNMENT}")]
    found: list[tuple[str, str | None]] = [(view, None) for view in views]
    for notebook in NOTEBOOKS:
        listed = f"{running.url}/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{notebook}"
        found += [(f"submissions/{s['id']}/", s["student"]) for s in api(listed, running.token)]
    return found


@pytest.mark.browser
def test_no_formgrader_view_of_the_class_runs_a_students_script_or_offers_a_step_outside_the_sandbox(
    class_formgrader: Formgrader, chromium: Any
) -> None:
    """Each view formgrader has of the hostile class, in chromium: no student's script runs, the
    markup students' notebooks show their markup as text, and no list offers nbgrader's generate,
    autograde or feedback buttons; the API refuses those steps, naming the make target."""
    url, token = class_formgrader.url, class_formgrader.token
    views = formgrader_views(class_formgrader)
    assert sum(student is not None for _, student in views) >= len(CRAFTS)
    with watched(chromium, url) as browsed:
        page = browsed.page
        page.goto(f"{url}/formgrader/manage_assignments?token={token}", wait_until="load")
        for view, student in views:
            page.goto(f"{url}/formgrader/{view}", wait_until="load")
            if student is not None:
                assert student not in MARKUP_STUDENTS or SHOWN in page.inner_text("body"), view
            else:
                page.wait_for_function(LOADED, timeout=90_000)
                assert page.locator(STEPS).count() == 0, view
                headers = {h.strip() for h in page.locator("th").all_inner_texts()}
                assert not headers & {"Generate", "Autograde", "Generate Feedback", "Release Feedback"}, view
            assert browsed.ran() == "", view
    # nbgrader's own MathJax, from a CDN (none here): its script then fails
    assert set(browsed.requests) <= {MATHJAX}, sorted(set(browsed.requests))
    assert set(browsed.seen) <= {"page error: MathJax is not defined"}, sorted(set(browsed.seen))
    refused = api(f"{url}/formgrader/api/submission/{ASSIGNMENT}/model/autograde", token, "POST", {})
    assert not refused["success"] and "make autograde" in refused["error"]
    refused = api(f"{url}/formgrader/api/assignment/{ASSIGNMENT}/generate_feedback", token, "POST", {})
    assert not refused["success"] and "make feedback" in refused["error"]


def stray_kernels() -> list[str]:
    """This checkout's grading kernels that outlived what started them. A kernel still running
    under this test run (the other worker of a parallel run grading another module's class) is
    that run's; a kernel left behind has lost every process it was started from, so none of its
    ancestors is this run's, and it stays (:func:`tests.support.processes.stray_kernels`)."""
    run = os.getppid() if os.environ.get("PYTEST_XDIST_WORKER") else os.getpid()  # pytest's first process
    return processes.stray_kernels(run)


def test_every_process_of_the_class_is_gone(parallel: Run) -> None:
    assert stray_kernels() == []


# --- Nobody else's grades change, nothing is lost or spoiled ----------------------------------


def test_warm_kernels_give_every_hostile_submission_the_grades_and_report_cold_ones_give(
    parallel: Run, warm: Run
) -> None:
    """Whatever a submission does to its kernel (and to the copies answering its hidden inputs), a
    warm kernel grades it as a cold one does, part by part and clause by clause; and leaves nothing."""
    assert "kernels: warm (forked from a template" in warm.output.splitlines()[0]
    assert warm.grades == parallel.grades
    assert details(warm) == details(parallel)
    assert stray_kernels() == []


def details(run: Run) -> dict[str, str]:
    """Each student's report details, the course's folder named alike, and the process numbers
    left out (which of the memory hog's two processes the system stops is the system's choice)."""
    return {
        student: re.sub(r"process \d+", "process N", row["details"].replace(str(run.course), "COURSE"))
        for student, row in run.report.items()
    }


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


def test_a_grading_process_killed_by_a_student_takes_no_one_else_with_it(course_template: Path) -> None:
    """Without the sandbox a student's code can kill the worker grading it: the driver grades the
    others again and reports the culprit."""
    killer, honest = (craft(student) for student in CLASS["without_sandbox"])
    run = grade_class(course_template, "worker-death", [killer, honest], jobs=2, options="--sandbox off")
    assert "kernels: cold (each started in a new process, without a sandbox)" in run.output.splitlines()[0]
    assert all(
        score == run.max_scores[part]
        for (s, _, part), (score, _) in run.grades.items()
        if s == "model" and part in EX5_PARTS
    )
    assert run.report["killer"]["status"] == "failed"
    assert "the grading process died while grading this submission" in run.report["killer"]["details"]
    assert all(score == 0 for (s, _, _), (score, _) in run.grades.items() if s == "killer")
    assert run.after == run.before
    assert stray_kernels() == [], "kernels outlived their worker"
