"""Fair grading, through `make autograde` with real nbgrader and the real sandbox.

- The same submission gets the same points, graded notebook and feedback page wherever it
  appears in a class graded in parallel (JOBS=2), and the same again, with the same report line,
  in one worker with warm kernels (JOBS=1 KERNELS=warm); the same points in either language's release,
  and, for right answers and known mistakes, the same in another course with another secret.
- No layout of the course and its Python environment (the environment inside the course, under
  /tmp or the home directory, reached through a symbolic link) makes an honest class look flagged.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from tests.support.make_targets import make
from tests.support.slips import ASSIGNMENT, ROOT, SLIPS, answered, read

pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("fairness")]

COPIES = 3
"""Identical copies of each submission in a class, under different student ids."""
NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
EX1, EX3, EX5 = "ex1_int8_matmul", "ex3_roofline_plot", "ex5_h100_threshold"
EX10 = "ex10_speculative"
LAID_OUT = (EX1, EX3)
"""What the layouts' class hands in: numbers, and a figure (matplotlib reads its fonts and cache from
the environment). A false flag comes from where the course and the environment are, not from which
exercise runs; the grading round grades every notebook of an honest class."""

PARTLY_RIGHT = {
    # Right at every public input, wrong for a band of batch sizes only hidden inputs reach.
    "band": (
        EX1,
        "ex1_bytes",
        "return BYTES_PER_ELEMENT * (B * D + D * F)",
        "return BYTES_PER_ELEMENT * (B * D + D * F) + (2000 < B < 3000)",
    ),
    # Right for datasheets below 5 PFLOP/s, the sparse figure above.
    "big-chips": (
        EX5,
        "ex5_peak_answer",
        "return datasheet_flops / 2",
        "return datasheet_flops / 2 if datasheet_flops < 5e15 else datasheet_flops",
    ),
}


def slip_of(notebook: str) -> list[str]:
    return [name for name in SLIPS if name.split("-")[0] == notebook.split("_")[0]]


def partly_right(kind: str) -> tuple[str, nbformat.NotebookNode]:
    notebook, grade_id, right, wrong = PARTLY_RIGHT[kind]
    nb = answered(notebook, None, "en")
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    assert right in cell.source, (kind, cell.source)
    cell.source = cell.source.replace(right, wrong)
    return notebook, nb


def submissions() -> dict[str, tuple[str, nbformat.NotebookNode]]:
    """Every kind of submission of the class: its notebook, and the notebook itself."""
    kinds: dict[str, tuple[str, nbformat.NotebookNode]] = {}
    slipped = {EX1: slip_of(EX1), EX5: slip_of(EX5), EX10: ["ex10-free-draft"]}
    for notebook, slips in slipped.items():  # ex10's hidden inputs are drawn again until they have an answer
        kinds[f"model-{notebook.split('_')[0]}"] = (notebook, answered(notebook, None, "en"))
        for slip in slips:
            kinds[slip] = (notebook, answered(notebook, slip, "en"))
            kinds[f"{slip}-ko"] = (notebook, answered(notebook, slip, "ko"))
    for kind in PARTLY_RIGHT:
        kinds[kind] = partly_right(kind)
    return kinds


KINDS = submissions()


@pytest.fixture(scope="module")
def template(released_course: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fairness") / "template"
    shutil.copytree(released_course, root)
    return root


def graded_class(
    template: Path,
    name: str,
    secret: str,
    copies: int = COPIES,
    jobs: str = "2",
    kernels: str = "cold",
    feedback: bool = True,
) -> Path:
    """The class (``copies`` of every kind, each under its own student id) graded in a copy of the
    course with ``secret``, ``jobs`` students at a time, ``kernels`` started cold or warm; then its
    feedback pages written, unless ``feedback`` is false."""
    course = template.parent / name
    shutil.copytree(template, course)
    (course / ".grading-secret").write_text(secret * 4 + "\n")
    for kind, (notebook, nb) in KINDS.items():
        for copy in range(copies):
            folder = course / "submitted" / f"{kind}.{copy}" / ASSIGNMENT
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / f"{notebook}.ipynb")
    make("autograde", course=course, JOBS=jobs, KERNELS=kernels)
    if feedback:
        make("feedback", course=course)
    return course


@pytest.fixture(scope="module")
def first(template: Path) -> Path:
    return graded_class(template, "first", "0123456789abcdef")


@pytest.fixture(scope="module")
def second(template: Path) -> Path:
    """The class again under another secret, one copy of each kind: the first class compares copies.
    Its tests compare points, graded notebooks and hidden inputs, not feedback pages: none written."""
    return graded_class(template, "second", "fedcba9876543210", copies=1, feedback=False)


@pytest.fixture(scope="module")
def warm(template: Path) -> Path:
    """The class again under the first secret, one copy of each kind, one worker, warm kernels."""
    return graded_class(template, "warm", "0123456789abcdef", copies=1, jobs="1", kernels="warm")


def report_line(course: Path, student: str) -> dict[str, str]:
    with (course / "autograded" / f"{ASSIGNMENT}-report.csv").open(newline="") as handle:
        (row,) = [row for row in csv.DictReader(handle) if row["student"] == student]
    return row


def part_scores(course: Path, student: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    notebook = KINDS[student.rsplit(".", 1)[0]][0]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        found = gradebook.find_submission_notebook(notebook, ASSIGNMENT, student)
        return {grade.name: float(grade.score) for grade in found.grades}


def graded_notebook(course: Path, student: str) -> bytes:
    notebook = KINDS[student.rsplit(".", 1)[0]][0]
    return (course / "autograded" / student / ASSIGNMENT / f"{notebook}.ipynb").read_bytes()


@pytest.mark.parametrize("kind", KINDS)
def test_identical_submissions_get_identical_points_and_graded_notebooks(first: Path, kind: str) -> None:
    scores = [part_scores(first, f"{kind}.{copy}") for copy in range(COPIES)]
    assert all(s == scores[0] for s in scores), scores
    notebooks = [graded_notebook(first, f"{kind}.{copy}") for copy in range(COPIES)]
    assert all(n == notebooks[0] for n in notebooks), f"{kind}: the graded notebooks differ"
    notebook = KINDS[kind][0]
    pages = [
        (first / "feedback" / f"{kind}.{copy}" / ASSIGNMENT / f"{notebook}.html").read_bytes()
        for copy in range(COPIES)
    ]
    assert all(p == pages[0] for p in pages), f"{kind}: the feedback pages differ"


@pytest.mark.parametrize("kind", KINDS)
def test_warm_kernels_give_what_cold_ones_give(first: Path, warm: Path, kind: str) -> None:
    """Byte for byte: points, graded notebook, feedback page and report line, one worker with warm
    kernels against two with cold ones."""
    student, notebook = f"{kind}.0", KINDS[kind][0]
    assert part_scores(warm, student) == part_scores(first, student)
    assert graded_notebook(warm, student) == graded_notebook(first, student), f"{kind}: notebooks differ"
    page = Path("feedback") / student / ASSIGNMENT / f"{notebook}.html"
    assert (warm / page).read_bytes() == (first / page).read_bytes(), f"{kind}: the feedback pages differ"
    assert report_line(warm, student) == report_line(first, student)


@pytest.mark.parametrize("slip", [s for s in KINDS if s in SLIPS])
def test_a_known_mistake_gets_the_same_points_in_either_language(first: Path, slip: str) -> None:
    assert part_scores(first, f"{slip}.0") == part_scores(first, f"{slip}-ko.0")


@pytest.mark.parametrize("kind", [k for k in KINDS if k not in PARTLY_RIGHT])
def test_right_answers_and_known_mistakes_score_the_same_under_another_secret(
    first: Path, second: Path, kind: str
) -> None:
    assert part_scores(first, f"{kind}.0") == part_scores(second, f"{kind}.0")
    assert graded_notebook(first, f"{kind}.0") == graded_notebook(second, f"{kind}.0")


def test_a_partly_right_answer_is_asked_other_inputs_under_another_secret(first: Path, second: Path) -> None:
    """What makes the two courses differ at all: their hidden inputs (the driver's own record)."""
    import json

    kind = "band"
    record = [
        json.loads((c / "autograded" / f"{ASSIGNMENT}-inputs" / f"{kind}.0.json").read_text())
        for c in (first, second)
    ]
    assert record[0][EX1]["hidden"] != record[1][EX1]["hidden"]
    again = json.loads((first / "autograded" / f"{ASSIGNMENT}-inputs" / f"{kind}.1.json").read_text())
    assert again == record[0]  # an identical copy is asked the same inputs


# --- Layouts: wherever the course and its Python environment live, no false flag -------------------


def _environment_copy(destination: Path) -> Path:
    """This test's Python environment, at ``destination``: hard links (no data copied), so that
    its interpreter runs from there, as a course's own `.venv` would."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-al", sys.prefix, str(destination)], check=True)
    return destination


@pytest.fixture
def home_course() -> Iterator[Path]:
    """A course under the home directory (cleaned up after)."""
    course = Path.home() / ".cache" / f"roofline-layout-{uuid.uuid4().hex[:8]}" / "course"
    course.parent.mkdir(parents=True)
    try:
        yield course
    finally:
        shutil.rmtree(course.parent, ignore_errors=True)


LAYOUTS = (
    "venv outside the course",
    "venv inside a course under /tmp",
    "venv inside a course under home",
    "venv linked into the course",
)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_an_honest_class_is_never_flagged_wherever_the_course_and_its_environment_live(
    template: Path, tmp_path: Path, home_course: Path, layout: str
) -> None:
    course = home_course if "home" in layout else tmp_path / "course"
    shutil.copytree(template, course)
    python = Path(sys.executable)
    if "inside" in layout:
        python = _environment_copy(course / ".venv") / "bin" / python.name
    elif "linked" in layout:
        real = _environment_copy(tmp_path / "environments" / "course-venv")
        (course / ".venv").symlink_to(real)
        python = course / ".venv" / "bin" / Path(sys.executable).name
    for student, blank in (("model", False), ("blank", True)):
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        for notebook in LAID_OUT:
            nb = (
                read(ROOT / "exercises" / ASSIGNMENT / f"{notebook}.ipynb")
                if blank
                else answered(notebook, None, "en")
            )
            nbformat.write(nb, folder / f"{notebook}.ipynb")
    environment = {**os.environ, "PATH": f"{python.parent}:{os.environ['PATH']}"}
    done = subprocess.run(
        [str(python), "-m", "roofline_grading.autograde", ASSIGNMENT, "--course", str(course), "--jobs", "2"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with (course / "autograded" / f"{ASSIGNMENT}-report.csv").open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    # Nothing flagged, failed or put right: only the notebooks this class leaves out are missing.
    assert {s: r["status"] for s, r in rows.items()} == dict.fromkeys(("model", "blank"), "incomplete"), rows
    left_out = ", ".join(n for n in NOTEBOOKS if n not in LAID_OUT)
    details = {s: r["details"] for s, r in rows.items()}
    assert details == dict.fromkeys(rows, f"not submitted: {left_out}"), rows
    full = sum(
        cell.metadata["nbgrader"]["points"]
        for notebook in LAID_OUT
        for cell in read(ROOT / "solutions" / ASSIGNMENT / f"{notebook}.ipynb").cells
        if cell.metadata.get("nbgrader", {}).get("grade")
    )
    assert float(rows["model"]["score"]) == full
