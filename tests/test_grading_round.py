"""A whole grading round with real nbgrader, through the Makefile, in a temporary course.

Synthetic students submit through a learning-management-system zip: the model answers, the
untouched student version, and model answers with one known misconception written into
each notebook. One ``nbgrader autograde`` grades them all; the tests then check each part's
score, the feedback's words, the gradebook export, and that the committed ``exercises/`` is
what ``nbgrader generate_assignment`` makes from ``solutions/``.
"""

from __future__ import annotations

import copy
import csv
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from make_targets import make

from roofline_grading import answer_key as key
from roofline_grading.questions import Misconception
from rooflinekit.dtypes import dtype_bytes
from rooflinekit.reference import EX1_CHIP, EX2_CHIP

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "roofline"
NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))


@dataclass(frozen=True)
class Slip:
    """A misconception written into the model answer: regex replacements in its answer cells,
    the graded parts (grade ids) it must cost, those whose feedback must name it, and those it
    may cost or not, depending on the random inputs drawn (a word answer that the slip changes
    only for some shapes)."""

    misconception: Misconception
    replace: tuple[tuple[str, str], ...]
    fails: frozenset[str]
    named_in: frozenset[str] | None = None
    may_fail: frozenset[str] = frozenset()

    @property
    def named(self) -> frozenset[str]:
        return self.fails if self.named_in is None else self.named_in


def _parts(prefix: str, *names: str) -> frozenset[str]:
    return frozenset(f"{prefix}_{name}" for name in names)


BF16_BYTES = f"{dtype_bytes('bf16'):g}"
SLIPS: dict[str, Slip] = {
    # Exercise 1, each misconception it exists for.
    "ex1-two-bytes": Slip(
        key.INT8_TWO_BYTES,
        ((r"BYTES_PER_ELEMENT = 1\b", f"BYTES_PER_ELEMENT = {BF16_BYTES}"),),
        _parts(
            "ex1",
            "bytes_read",
            "bytes_written",
            "intensity",
            "critical_batch",
            "t_comms",
            "t_lower",
            "t_upper",
        ),
        may_fail=_parts("ex1", "limited_by"),
    ),
    "ex1-bf16-peak": Slip(
        key.BF16_PEAK_FOR_INT8,
        (
            (r"INT8_PEAK = [0-9.e]+", f"INT8_PEAK = {EX1_CHIP.peak('bf16')!r}"),
            (r"return int8_peak / hbm_bandwidth", "return bf16_peak / hbm_bandwidth"),
        ),
        _parts("ex1", "critical_batch", "t_math", "t_lower", "t_upper", "limited_by"),
    ),
    "ex1-no-factor-two": Slip(
        key.NO_FACTOR_TWO,
        ((r"OPS_PER_MULTIPLY_ADD = 2", "OPS_PER_MULTIPLY_ADD = 1"),),
        _parts("ex1", "ops", "intensity", "critical_batch", "t_math", "t_lower", "t_upper"),
        may_fail=_parts("ex1", "limited_by"),
    ),
    # Exercise 2.
    "ex2-int8-peak": Slip(
        key.INT8_PEAK_FOR_BF16,
        ((r"return bf16_peak  #", "return int8_peak  #"),),
        _parts("ex2", "compute_peak", "critical_batch"),
    ),
    "ex2-two-byte-weights": Slip(
        key.TWO_BYTE_WEIGHTS,
        ((r"WEIGHT_BYTES = 1\b", f"WEIGHT_BYTES = {BF16_BYTES}"),),
        _parts("ex2", "bytes_read", "intensity", "critical_batch"),
    ),
    # Exercise 3: the misconception it exists for, and the int8 peak carried over from exercise 2.
    "ex3-approximate-bytes": Slip(
        key.APPROXIMATE_BYTES,
        ((r"bytes_moved = .*", "bytes_moved = WEIGHT_BYTES * D * F  # only the weights"),),
        _parts("ex3", "attainable", "crossover", "figure_data"),
    ),
    "ex3-int8-peak": Slip(
        key.INT8_PEAK_FOR_BF16,
        ((r"COMPUTE_PEAK = [0-9.e]+", f"COMPUTE_PEAK = {EX2_CHIP.peak('int8')!r}"),),
        _parts("ex3", "attainable", "crossover", "figure_data"),
    ),
    # Exercise 4: the misconception it exists for, and no factor 2 (whose intensity has no name).
    "ex4-shared-weights": Slip(
        key.SHARED_WEIGHTS,
        ((r"B \* D \+ B \* D \* F", "B * D + D * F"),),
        _parts("ex4", "bytes_read", "intensity", "critical_batch"),
    ),
    "ex4-no-factor-two": Slip(
        key.NO_FACTOR_TWO,
        ((r"OPS_PER_MULTIPLY_ADD = 2", "OPS_PER_MULTIPLY_ADD = 1"),),
        _parts("ex4", "ops", "intensity", "critical_batch"),
        named_in=_parts("ex4", "ops"),
    ),
    # Exercise 5: the misconception it exists for, and three more.
    "ex5-sparse-peak": Slip(
        key.SPARSE_PEAK,
        ((r"return datasheet_flops / 2", "return datasheet_flops"),),
        _parts("ex5", "dense_peak", "critical_batch", "global_batch"),
    ),
    "ex5-per-replica": Slip(
        key.PER_REPLICA,
        ((r"return replicas \* critical_batch", "return critical_batch"),),
        _parts("ex5", "global_batch"),
    ),
    "ex5-halved-twice": Slip(
        key.HALVED_TWICE,
        (
            (
                r"dense_peak\(datasheet_flops\) / hbm_bandwidth",
                "dense_peak(datasheet_flops) / (2 * hbm_bandwidth)",
            ),
        ),
        _parts("ex5", "critical_batch", "global_batch"),
        named_in=_parts("ex5", "critical_batch"),
    ),
    "ex5-binary-terabytes": Slip(
        key.BINARY_TERABYTES,
        ((r"terabytes_per_second \* 1e12", "terabytes_per_second * 2**40"),),
        _parts("ex5", "hbm_bandwidth"),
    ),
}


@dataclass(frozen=True)
class Student:
    """A synthetic student: the name the LMS gives their files, and a slip per notebook."""

    id: str
    file_prefix: str
    slips: dict[str, str] = field(default_factory=dict)  # notebook -> key of SLIPS
    blank: bool = False


STUDENTS = (
    Student("model", "model_"),
    Student("blank", "blank_123_456_", blank=True),
    Student(
        "slip1",
        "slip1_late_123456_7890123_",
        {
            "ex1_int8_matmul": "ex1-two-bytes",
            "ex2_int8_weights": "ex2-int8-peak",
            "ex3_roofline_plot": "ex3-approximate-bytes",
            "ex4_batched_matmul": "ex4-shared-weights",
            "ex5_h100_threshold": "ex5-sparse-peak",
        },
    ),
    Student(
        "slip2",
        "slip2_654321_",
        {
            "ex1_int8_matmul": "ex1-bf16-peak",
            "ex2_int8_weights": "ex2-two-byte-weights",
            "ex3_roofline_plot": "ex3-int8-peak",
            "ex4_batched_matmul": "ex4-no-factor-two",
            "ex5_h100_threshold": "ex5-per-replica",
        },
    ),
    Student(
        "j.doe-3",
        "j.doe-3_",
        {"ex1_int8_matmul": "ex1-no-factor-two", "ex5_h100_threshold": "ex5-halved-twice"},
    ),
    Student("bytes", "bytes_", {"ex5_h100_threshold": "ex5-binary-terabytes"}),
)
SLIPPED = [(s.id, notebook, slip) for s in STUDENTS for notebook, slip in s.slips.items()]


def test_every_slip_is_used_and_every_named_misconception_is_covered() -> None:
    used = {slip for _, _, slip in SLIPPED}
    assert used == set(SLIPS)
    covered = {(notebook, SLIPS[slip].misconception) for _, notebook, slip in SLIPPED}
    for notebook, exercise in key.EXERCISES.items():
        for misconception in exercise.misconceptions:
            assert (notebook, misconception) in covered, f"{notebook}: no student shows {misconception.name}"


# --- Building the course and the submissions -------------------------------------------


def grade_ids(notebook: nbformat.NotebookNode, *, tests: bool) -> dict[str, float]:
    """Grade ids of the test cells (with their points) or of the answer cells."""
    found = {}
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if tests and meta.get("grade") and not meta.get("solution"):
            found[meta["grade_id"]] = float(meta["points"])
        elif not tests and meta.get("solution"):
            found[meta["grade_id"]] = 0.0
    return found


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def student_notebook(student: Student, notebook: str) -> nbformat.NotebookNode:
    """The student version with each answer cell holding the model answer, slip applied."""
    release = read(ROOT / "exercises" / ASSIGNMENT / f"{notebook}.ipynb")
    if student.blank:
        return release
    answers = {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in read(ROOT / "solutions" / ASSIGNMENT / f"{notebook}.ipynb").cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    slip = SLIPS[student.slips[notebook]] if notebook in student.slips else None
    replaced = dict.fromkeys(slip.replace if slip else (), 0)
    submitted = copy.deepcopy(release)
    for cell in submitted.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("solution"):
            continue
        source = "\n".join(
            line
            for line in answers[meta["grade_id"]].splitlines()
            if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line
        )
        for pattern, replacement in replaced:
            source, count = re.subn(pattern, replacement, source)
            replaced[(pattern, replacement)] += count
        cell.source = source
    assert all(replaced.values()), f"{student.id}/{notebook}: a slip's pattern matched nothing: {replaced}"
    return submitted


def lms_zip(path: Path) -> Path:
    """Submissions as an LMS hands them out: one zip, files named <student>_..._<notebook>.ipynb,
    in a folder, beside files that are not submissions."""
    with zipfile.ZipFile(path, "w") as archive:
        for student in STUDENTS:
            for notebook in NOTEBOOKS:
                resubmitted = "-1" if student.id == "slip2" else ""
                name = f"submissions/{student.file_prefix}{notebook}{resubmitted}.ipynb"
                archive.writestr(name, nbformat.writes(student_notebook(student, notebook)))
        archive.writestr("submissions/__MACOSX/._model_ex1_int8_matmul.ipynb", "resource fork")
        archive.writestr("submissions/index.html", "<html>the LMS's own index</html>")
    return path


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course directory with the repository's config and solutions; `make exercises` in it."""
    root = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "solutions", root / "solutions")
    make("exercises", course=root)
    return root


@pytest.fixture(scope="module")
def graded(course: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The whole round on the LMS zip: collect, autograde, feedback, grades."""
    archive = lms_zip(tmp_path_factory.mktemp("lms") / "roofline-submissions.zip")
    subprocess.run([sys.executable, "-c", "import matplotlib.pyplot"], check=True)  # font cache, once
    make("grading-round", course=course, ZIP=str(archive), GRADES="export/grades.csv")
    yield course


# --- Generating the student version ---------------------------------------------------


def test_committed_exercises_are_what_generate_assignment_makes(course: Path) -> None:
    generated = sorted(
        p.relative_to(course / "exercises") for p in (course / "exercises").rglob("*") if p.is_file()
    )
    committed = sorted(
        p.relative_to(ROOT / "exercises") for p in (ROOT / "exercises").rglob("*") if p.is_file()
    )
    assert generated == committed, "run `make exercises` and commit exercises/"
    for relative in generated:
        assert (course / "exercises" / relative).read_bytes() == (
            ROOT / "exercises" / relative
        ).read_bytes(), (
            f"exercises/{relative} differs from what nbgrader generates from solutions/: run `make exercises`"
        )


def test_student_version_hides_solutions_and_hidden_tests() -> None:
    for notebook in NOTEBOOKS:
        text = (ROOT / "exercises" / ASSIGNMENT / f"{notebook}.ipynb").read_text()
        for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "roofline_recorder", "record("):
            assert marker not in text, f"{notebook}: the student version contains {marker!r}"


# --- Collecting ----------------------------------------------------------------------


def test_a_late_zip_replaces_only_the_notebooks_it_holds(course: Path, tmp_path: Path) -> None:
    """A student who sends one notebook again keeps the others collected before."""
    late = tmp_path / "late-course"
    shutil.copytree(course, late, ignore=shutil.ignore_patterns("submitted", "downloaded", "autograded"))
    first, second = tmp_path / "first.zip", tmp_path / "late.zip"
    model = next(s for s in STUDENTS if s.id == "model")
    with zipfile.ZipFile(first, "w") as archive:
        for notebook in NOTEBOOKS:
            archive.writestr(
                f"{model.file_prefix}{notebook}.ipynb", nbformat.writes(student_notebook(model, notebook))
            )
    with zipfile.ZipFile(second, "w") as archive:
        archive.writestr(
            f"{model.file_prefix}{NOTEBOOKS[0]}-1.ipynb", nbformat.writes(released(NOTEBOOKS[0]))
        )
    make("collect", course=late, ZIP=str(first))
    done = make("collect", course=late, ZIP=str(second))
    folder = late / "submitted" / "model" / ASSIGNMENT
    assert sorted(p.stem for p in folder.glob("*.ipynb")) == NOTEBOOKS
    assert read(folder / f"{NOTEBOOKS[0]}.ipynb") == released(NOTEBOOKS[0])
    assert f"model: {NOTEBOOKS[0]}.ipynb collected; " in done.stdout


def released(notebook: str) -> nbformat.NotebookNode:
    return read(ROOT / "exercises" / ASSIGNMENT / f"{notebook}.ipynb")


def test_collect_takes_each_students_notebooks_and_skips_the_rest(graded: Path) -> None:
    submitted = graded / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == sorted(s.id for s in STUDENTS)
    for student in STUDENTS:
        files = sorted(p.stem for p in (submitted / student.id / ASSIGNMENT).glob("*.ipynb"))
        assert files == NOTEBOOKS, student.id


# --- Scores --------------------------------------------------------------------------


def scores(course: Path, student: str, notebook: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission_notebook(notebook, ASSIGNMENT, student)
        return {grade.name: float(grade.score) for grade in submission.grades}


def points(notebook: str) -> dict[str, float]:
    return grade_ids(read(ROOT / "solutions" / ASSIGNMENT / f"{notebook}.ipynb"), tests=True)


def expected_total(course: Path, student: Student) -> float:
    """Full points for every part the student's slips cannot cost, and what the gradebook says for
    those a slip may cost (checked part by part above)."""
    total = 0.0
    for notebook in NOTEBOOKS:
        if student.blank:
            continue
        slip = SLIPS[student.slips[notebook]] if notebook in student.slips else None
        lost = slip.fails if slip else frozenset()
        maybe = slip.may_fail if slip else frozenset()
        got = scores(course, student.id, notebook)
        total += sum(
            got[part] if part in maybe else p for part, p in points(notebook).items() if part not in lost
        )
    return total


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_model_answers_score_full_marks(graded: Path, notebook: str) -> None:
    assert scores(graded, "model", notebook) == points(notebook)


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_untouched_student_version_scores_zero(graded: Path, notebook: str) -> None:
    got = scores(graded, "blank", notebook)
    assert set(got) == set(points(notebook))
    assert all(score == 0 for score in got.values()), got


@pytest.mark.parametrize(("student", "notebook", "slip"), SLIPPED)
def test_a_misconception_costs_exactly_the_parts_it_touches(
    graded: Path, student: str, notebook: str, slip: str
) -> None:
    got = scores(graded, student, notebook)
    full = points(notebook)
    lost = {part for part, score in got.items() if score != full[part]}
    assert set(SLIPS[slip].fails) <= lost <= set(SLIPS[slip].fails | SLIPS[slip].may_fail)
    assert all(got[part] == 0 for part in lost)


# --- Feedback ------------------------------------------------------------------------


def cell_outputs(course: Path, student: str, notebook: str) -> dict[str, str]:
    """Each graded cell's error text in the autograded notebook."""
    autograded = read(course / "autograded" / student / ASSIGNMENT / f"{notebook}.ipynb")
    texts = {}
    for cell in autograded.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade"):
            text = " ".join(
                f"{out.get('ename', '')}: {out.get('evalue', '')}"
                for out in cell.outputs
                if out.output_type == "error"
            )
            texts[meta["grade_id"]] = " ".join(text.split())  # messages are wrapped to fit the page
    return texts


def feedback_text(course: Path, student: str, notebook: str) -> str:
    html = (course / "feedback" / student / ASSIGNMENT / f"{notebook}.html").read_text()
    return " ".join(BeautifulSoup(html, "html.parser").get_text().split())


@pytest.mark.parametrize(("student", "notebook", "slip"), SLIPPED)
def test_feedback_names_the_misconception(graded: Path, student: str, notebook: str, slip: str) -> None:
    message = SLIPS[slip].misconception.message
    outputs = cell_outputs(graded, student, notebook)
    for part in SLIPS[slip].named:
        assert "AnswerError" in outputs[part], part
        assert message in outputs[part], f"{part}: {outputs[part]}"
    for part in SLIPS[slip].may_fail:
        assert not outputs[part] or message in outputs[part], f"{part}: {outputs[part]}"
    assert message in feedback_text(graded, student, notebook)


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_model_answers_write_nothing_to_stderr(graded: Path, notebook: str) -> None:
    autograded = read(graded / "autograded" / "model" / ASSIGNMENT / f"{notebook}.ipynb")
    for cell in autograded.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", (cell.source, out)
            assert not (out.output_type == "stream" and out.name == "stderr"), (cell.source, out.text)


def test_feedback_exists_for_every_submission(graded: Path) -> None:
    for student in STUDENTS:
        for notebook in NOTEBOOKS:
            assert (graded / "feedback" / student.id / ASSIGNMENT / f"{notebook}.html").is_file()


# --- Export --------------------------------------------------------------------------


def test_export_writes_one_row_per_student_with_the_right_totals(graded: Path) -> None:
    with (graded / "export" / "grades.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["student_id"] for row in rows) == sorted(s.id for s in STUDENTS)
    max_score = sum(sum(points(notebook).values()) for notebook in NOTEBOOKS)
    for student in STUDENTS:
        (row,) = [row for row in rows if row["student_id"] == student.id]
        assert row["assignment"] == ASSIGNMENT
        assert float(row["max_score"]) == max_score
        assert float(row["score"]) == expected_total(graded, student), student.id
