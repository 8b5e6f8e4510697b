"""A whole grading round with real nbgrader, through the Makefile, in a temporary course.

Synthetic students submit through a learning-management-system zip: the model answers, the
untouched student version, and model answers with one known misconception written into
each notebook. One ``nbgrader autograde`` grades them all; the tests then check each part's
score, the feedback's words, the gradebook export, and that the committed ``exercises/`` is
what ``nbgrader generate_assignment`` makes from ``solutions/``.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
import urllib.error
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest
from bs4 import BeautifulSoup

from roofline_grading import answer_key as key
from roofline_grading import misconceptions as shared
from roofline_grading.fingerprints import SAYS
from roofline_grading.i18n import translator
from roofline_grading.questions import FunctionQuestion, Misconception, draw_cases
from tests.support.formgrader_server import (
    EXCHANGE_PLUGINS,
    INSTRUCTOR_PLUGINS,
    Formgrader,
    api,
    lab_page_config,
    page_text,
    start_formgrader,
)
from tests.support.make_targets import command, make
from tests.support.slips import ASSIGNMENT, ROOT, SLIPS, answered, read

pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("grading-round")]

NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))


@dataclass(frozen=True)
class Student:
    """A synthetic student: the name the LMS gives their files, and a slip per notebook."""

    id: str
    file_prefix: str
    slips: dict[str, str] = field(default_factory=dict)  # notebook -> key of SLIPS
    blank: bool = False
    language: str = "en"
    """The release the student works in (``ko``: the Korean notebooks of exercises/ko/)."""


SLIP1 = {
    "ex1_int8_matmul": "ex1-two-bytes",
    "ex2_int8_weights": "ex2-int8-peak",
    "ex3_roofline_plot": "ex3-approximate-bytes",
    "ex4_batched_matmul": "ex4-shared-weights",
    "ex5_h100_threshold": "ex5-sparse-peak",
    "ex6_ring_threshold": "ex6-no-n-minus-one",
    "ex7_serving_decisions": "ex7-query-heads",
    "ex8_measured_kernel": "ex8-sparse-peak",
    "ex9_memory_hierarchy": "ex9-untiled",
    "ex10_speculative": "ex10-free-draft",
}
"""A slip in every notebook: the student "slip1" makes them in English, "slip1-ko" in Korean."""

STUDENTS = (
    Student("model", "model_"),
    Student("blank", "blank_123_456_", blank=True),
    Student("slip1", "slip1_late_123456_7890123_", SLIP1),
    Student(
        "slip2",
        "slip2_654321_",
        {
            "ex1_int8_matmul": "ex1-bf16-peak",
            "ex2_int8_weights": "ex2-two-byte-weights",
            "ex3_roofline_plot": "ex3-int8-peak",
            "ex4_batched_matmul": "ex4-no-factor-two",
            "ex5_h100_threshold": "ex5-per-replica",
            "ex6_ring_threshold": "ex6-bits-as-bytes",
            "ex7_serving_decisions": "ex7-kv-once",
            "ex8_measured_kernel": "ex8-percent",
            "ex9_memory_hierarchy": "ex9-scores-once",
            "ex10_speculative": "ex10-independent-guesses",
        },
    ),
    Student(
        "j.doe-3",
        "j.doe-3_",
        {
            "ex1_int8_matmul": "ex1-no-factor-two",
            "ex5_h100_threshold": "ex5-halved-twice",
            "ex6_ring_threshold": "ex6-one-phase",
            "ex7_serving_decisions": "ex7-token-by-token",
            "ex8_measured_kernel": "ex8-micro-as-milli",
            "ex9_memory_hierarchy": "ex9-kv-not-per-block",
            "ex10_speculative": "ex10-no-bonus-token",
        },
    ),
    Student(
        "bytes",
        "bytes_",
        {
            "ex5_h100_threshold": "ex5-binary-terabytes",
            "ex6_ring_threshold": "ex6-both-directions",
            "ex7_serving_decisions": "ex7-no-weights",
            "ex8_measured_kernel": "ex8-binary-terabytes",
            "ex9_memory_hierarchy": "ex9-elements-not-bytes",
            "ex10_speculative": "ex10-verify-as-steps",
        },
    ),
    Student("tiles", "tiles_", {
        "ex9_memory_hierarchy": "ex9-inner-bandwidth",
        "ex10_speculative": "ex10-infinite-draft",
    }),
    Student("output", "output_", {"ex9_memory_hierarchy": "ex9-no-output"}),
    # The Korean release: the same answers as "model" and "slip1", graded the same, told in Korean.
    Student("model-ko", "model-ko_", language="ko"),
    Student("slip1-ko", "slip1-ko_", SLIP1, language="ko"),
)
TWINS = (("model-ko", "model"), ("slip1-ko", "slip1"))
"""A Korean student and the English one who submitted the same answers."""
KNOWN_MISTAKE_SAYS = {"en": "makes a known mistake", "ko": "알려진 실수가 있습니다"}
SLIPPED = [(s.id, notebook, slip) for s in STUDENTS for notebook, slip in s.slips.items()]
LANGUAGE = {s.id: s.language for s in STUDENTS}
ABSENT = ("absent1", "absent2")
"""Students on the class list who submit nothing."""


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


def student_notebook(student: Student, notebook: str) -> nbformat.NotebookNode:
    """The student version with each answer cell holding the model answer, slip applied."""
    if student.blank:
        return read(ROOT / "exercises" / ASSIGNMENT / f"{notebook}.ipynb")
    return answered(notebook, student.slips.get(notebook), student.language)


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
def course(released_course: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the released course (the repository's config and solutions, `make exercises`)."""
    root = tmp_path_factory.mktemp("course") / "course"
    shutil.copytree(released_course, root)
    return root


@pytest.fixture(scope="module")
def graded(course: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The class list (with students who submit nothing), then the whole round on the LMS zip:
    collect, autograde, feedback, grades."""
    roster = tmp_path_factory.mktemp("roster") / "students.csv"
    rows = [(s.id, f"First{i}", f"Last{i}", f"{s.id}@example.edu") for i, s in enumerate(STUDENTS)]
    rows += [(absent, "Absent", absent.title(), "") for absent in ABSENT]
    roster.write_text("id,first_name,last_name,email\n" + "".join(",".join(r) + "\n" for r in rows))
    make("roster", course=course, ROSTER=str(roster))
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
    assert f"model: {NOTEBOOKS[0]}.ipynb replaced; {len(NOTEBOOKS) - 1} files kept from before" in done.stdout


def test_a_late_submission_gets_the_penalty_the_course_configures(course: Path, tmp_path: Path) -> None:
    """nbgrader's due date and late-submission plugin, as an instructor sets them, decide the
    penalty: with ``penalty_method = "zero"`` a late student's export row scores 0 and an
    on-time student keeps every point."""
    late = tmp_path / "late-course"
    shutil.copytree(course, late, ignore=shutil.ignore_patterns("submitted", "downloaded", "autograded"))
    with (late / "nbgrader_config.py").open("a") as config:
        config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    subprocess.run(
        [nbgrader, "db", "assignment", "add", ASSIGNMENT, "--duedate=2026-03-01 12:00:00 UTC"],
        cwd=late,
        check=True,
        capture_output=True,
    )
    model = next(s for s in STUDENTS if s.id == "model")
    for student, stamp in (("on-time", "2026-03-01 11:59:00 UTC"), ("after", "2026-03-02 09:00:00 UTC")):
        folder = late / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / NOTEBOOKS[0]).with_suffix(".ipynb").write_text(
            nbformat.writes(student_notebook(model, NOTEBOOKS[0]))
        )
        (folder / "timestamp.txt").write_text(stamp)
    make("autograde", "grades", course=late, GRADES="grades.csv")
    with (late / "grades.csv").open(newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    full = sum(points(NOTEBOOKS[0]).values())
    assert float(rows["on-time"]["raw_score"]) == full and float(rows["on-time"]["score"]) == full
    assert float(rows["on-time"]["late_submission_penalty"]) == 0
    assert float(rows["after"]["raw_score"]) == full
    assert float(rows["after"]["late_submission_penalty"]) == full and float(rows["after"]["score"]) == 0


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


def expected_total(student: Student) -> float:
    """Full points for every part the student's slips cannot cost, none for the others."""
    total = 0.0
    for notebook in NOTEBOOKS:
        if student.blank:
            continue
        slip = SLIPS[student.slips[notebook]] if notebook in student.slips else None
        lost = slip.fails if slip else frozenset()
        total += sum(p for part, p in points(notebook).items() if part not in lost)
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
    assert lost == set(SLIPS[slip].fails)
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
    """In the language of the notebook the student submitted."""
    language = LANGUAGE[student]
    message = " ".join(SLIPS[slip].misconception.text(language).split())
    outputs = cell_outputs(graded, student, notebook)
    for part in SLIPS[slip].named:
        # the known-mistake check under the answer names it first, or else the judge does
        assert "AnswerError" in outputs[part] or KNOWN_MISTAKE_SAYS[language] in outputs[part], part
        assert message in outputs[part], f"{part}: {outputs[part]}"
    feedback = feedback_text(graded, student, notebook)
    assert message in feedback
    if language != "en":
        assert SLIPS[slip].misconception.message not in feedback


@pytest.mark.parametrize(("student", "language"), [("slip1", "en"), ("slip1-ko", "ko")])
def test_in_the_graded_notebook_a_failing_check_shows_its_message_first_and_an_inherited_mistake_so(
    graded: Path, student: str, language: str
) -> None:
    """Only the bytes constant wrong (exercise 1 of slip1): the visible checks' errors, as the
    graded notebook and the feedback page keep them, are their messages, with no traceback through
    the checking code; intensity's names the mistake it inherits from bytes_read, and neither it
    nor critical_batch's names the factor of two (ops is right)."""
    says = translator(language)
    two_bytes, one_op = shared.INT8_TWO_BYTES.text(language), shared.NO_FACTOR_TWO.text(language)
    autograded = read(graded / "autograded" / student / ASSIGNMENT / "ex1_int8_matmul.ipynb")
    errors = {
        cell.metadata["nbgrader"]["grade_id"]: [o for o in cell.outputs if o.output_type == "error"]
        for cell in autograded.cells
        if cell.metadata.get("nbgrader", {}).get("grade")
    }
    (bytes_read,) = errors["ex1_bytes_read"]
    named = says(SAYS["mistake"]).format(name="bytes_read", mistake=two_bytes)
    assert bytes_read.ename == "CheckFailed"
    assert " ".join(bytes_read.evalue.split()) == " ".join(named.split())
    assert " ".join(" ".join(bytes_read.traceback[:-1]).split()) == " ".join(named.split())
    helpers = ("Traceback", "File ", "---->", "mistake_check", "def ", "raise ")
    assert not any(h in line for line in bytes_read.traceback for h in helpers), bytes_read.traceback
    (intensity,) = errors["ex1_intensity"]
    inherited = says(SAYS["inherited"]).format(name="intensity", source="bytes_read", mistake=two_bytes)
    assert " ".join(intensity.evalue.split()) == " ".join(inherited.split())
    assert not any(one_op in " ".join(o.evalue.split()) for outs in errors.values() for o in outs)
    feedback = feedback_text(graded, student, "ex1_int8_matmul")  # (the known-mistakes cell lists all)
    assert " ".join(inherited.split()) in feedback


@pytest.mark.parametrize(("korean", "english"), TWINS)
def test_the_same_answers_in_the_korean_release_get_the_same_points(
    graded: Path, korean: str, english: str
) -> None:
    for notebook in NOTEBOOKS:
        assert scores(graded, korean, notebook) == scores(graded, english, notebook), notebook


def test_korean_feedback_is_in_korean_and_restores_the_korean_notebook(graded: Path) -> None:
    """The feedback page shows the Korean release's text (locked cells restored from it, not from
    the English one), the judge's own sentences in Korean, and no "was edited" note for the student."""
    text = feedback_text(graded, "slip1-ko", "ex1_int8_matmul")
    assert "연습 문제 1" in text and "Exercise 1: an int8 matmul" not in text
    assert "반환했으며, 이는 맞지 않습니다" in text or "알려진 실수가 있습니다" in text
    report = (graded / "autograded" / f"{ASSIGNMENT}-report.txt").read_text()
    lines = [line for line in report.splitlines() if "model-ko" in line or "slip1-ko" in line]
    assert lines and not any("edited" in line for line in lines), lines


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
    assert sorted(row["student_id"] for row in rows) == sorted([s.id for s in STUDENTS] + list(ABSENT))
    max_score = sum(sum(points(notebook).values()) for notebook in NOTEBOOKS)
    for student in STUDENTS:
        (row,) = [row for row in rows if row["student_id"] == student.id]
        assert row["assignment"] == ASSIGNMENT
        assert float(row["max_score"]) == max_score
        assert float(row["score"]) == expected_total(student), student.id
    for absent in ABSENT:  # on the class list, nothing submitted: a row with 0
        (row,) = [row for row in rows if row["student_id"] == absent]
        assert float(row["score"]) == 0 and float(row["max_score"]) == max_score
        assert row["first_name"] == "Absent" and row["last_name"] == absent.title()


def test_export_rows_are_sorted_by_student_id_with_nbgraders_columns(graded: Path) -> None:
    """nbgrader lists students by last name (the roster's names put "model" before "blank"); the
    export orders its rows by student id instead, with nbgrader's columns."""
    with (graded / "export" / "grades.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        ids = [row["student_id"] for row in reader]
    assert reader.fieldnames == [
        "assignment",
        "duedate",
        "timestamp",
        "student_id",
        "last_name",
        "first_name",
        "email",
        "raw_score",
        "late_submission_penalty",
        "score",
        "max_score",
    ]
    assert ids == sorted(ids) and len(ids) == len(STUDENTS) + len(ABSENT), ids


# --- The misconception summary -----------------------------------------------------------


def questions_of(notebook: str) -> dict[str, str]:
    """Grade id of each test cell -> the question id its hidden test records."""
    found = {}
    for cell in read(ROOT / "solutions" / ASSIGNMENT / f"{notebook}.ipynb").cells:
        meta = cell.metadata.get("nbgrader", {})
        for qid in re.findall(r'record\("([\w.]+)"', cell.source):
            found[meta["grade_id"]] = qid
    return found


def same_values(question: Any, first: Misconception, other: Misconception) -> bool:
    """The answer key's mistakes for ``first`` and ``other`` give the same values at the fixed cases
    and at random ones (so the judge, which draws random cases too, names both)."""
    if not isinstance(question, FunctionQuestion):
        return first == other
    cases = draw_cases(question, np.random.default_rng(0)) + draw_cases(question, np.random.default_rng(1))

    def values(m: Misconception) -> list[list[Any]]:
        mistakes = [k for k in question.mistakes if k.misconception == m]
        return [[k.answer(*case) for case in cases] for k in mistakes]

    def same(a: list[Any], b: list[Any]) -> bool:
        if question.returns == "word":
            return [str(x) for x in a] == [str(y) for y in b]
        return all(np.allclose(x, y, rtol=1e-9) for x, y in zip(a, b, strict=True))

    return any(same(a, b) for a in values(first) for b in values(other))


def told_apart(notebook: str, part: str, made: Misconception, other: Misconception) -> bool:
    """An earlier part of the notebook knows one of the two mistakes: its verdict (showing the one
    made, or right where the other would show) tells the judge which of the two was made."""
    parts = list(questions_of(notebook).items())
    earlier = [key.question(qid) for grade_id, qid in parts[: [g for g, _ in parts].index(part)]]
    return any(m.misconception in (made, other) for q in earlier for m in getattr(q, "mistakes", ()))


def test_misconception_summary_counts_the_class_part_by_part(graded: Path) -> None:
    """A part counts the mistake its student made, and another that gives the same values only
    when no earlier part tells the two apart (the judge names the one an earlier part shows)."""
    with (graded / "autograded" / f"{ASSIGNMENT}-misconceptions.csv").open(newline="") as handle:
        rows = {(r["question"], r["misconception"]): r for r in csv.DictReader(handle)}
    expected: dict[tuple[str, str], int] = dict.fromkeys(rows, 0)
    for _, notebook, slip in SLIPPED:
        parts = questions_of(notebook)
        for part in SLIPS[slip].named:
            question = key.question(parts[part])
            made = SLIPS[slip].misconception
            for misconception in {m.misconception for m in getattr(question, "mistakes", ())} | {made}:
                counted = (question.id, misconception.name)
                if counted not in rows or not same_values(question, made, misconception):
                    continue
                if misconception != made and told_apart(notebook, part, made, misconception):
                    continue
                expected[counted] += 1
    for row_key, row in rows.items():
        assert int(row["graded"]) == len(STUDENTS), row  # every one who submitted, not the absent
        assert int(row["students"]) == expected[row_key], (row_key, row["students"], expected[row_key])
    assert sum(expected.values()) >= len(SLIPPED)
    assert (graded / "autograded" / f"{ASSIGNMENT}-misconceptions.png").read_bytes()[:4] == b"\x89PNG"


# --- Grading by hand in formgrader ---------------------------------------------------------

HELD, BROKEN = "erinq", NOTEBOOKS[0]  # a name that appears nowhere else on a page
"""A student whose first notebook is not a notebook (held for grading by hand), the others right."""


@pytest.fixture(scope="module")
def formgrader(graded: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Formgrader]:
    """A copy of the graded course with one more student, held for grading by hand (a file that is
    not a notebook), and ``make formgrader`` running on it."""
    scratch = tmp_path_factory.mktemp("formgrader")
    course = scratch / "course"
    shutil.copytree(graded, course)
    archive = scratch / "held.zip"
    model = next(s for s in STUDENTS if s.id == "model")
    with zipfile.ZipFile(archive, "w") as zipped:
        for notebook in NOTEBOOKS:
            text = (
                "my answers are in the PDF"
                if notebook == BROKEN
                else nbformat.writes(student_notebook(model, notebook))
            )
            zipped.writestr(f"{HELD}_{notebook}.ipynb", text)
    make("collect", course=course, ZIP=str(archive))
    make("autograde", course=course, AUTOGRADE_OPTIONS=f"--student {HELD}")
    running = start_formgrader(command("formgrader", course=course), course, scratch)
    try:
        yield running
    finally:
        running.stop()


def test_make_formgrader_lists_the_assignment_without_warnings(formgrader: Formgrader) -> None:
    """``make formgrader`` starts (as root too: the tests run as root in CI); formgrader lists the
    assignment ``roofline`` and not the Korean release's folder ``solutions/ko/``; its page shows
    no warning about nbgrader's exchange (which the course does not use), offers no release or
    collect, and the server logs no exchange error. Its JupyterLab has nbgrader's menu, Formgrader
    and Create Assignment (jupyter-config/instructor), which the student's Lab has not, and no
    Assignment List or Course List, in neither Lab: they serve nbgrader's exchange."""
    url, token = formgrader.url, formgrader.token
    assignments = api(f"{url}/formgrader/api/assignments", token)
    assert [a["name"] for a in assignments] == [ASSIGNMENT], assignments
    (assignment,) = assignments
    assert assignment["source_path"] == f"solutions/{ASSIGNMENT}" and not assignment["releaseable"]
    # The page formgrader opens on (Manage Assignments): nbgrader's warnings are its alerts.
    page = BeautifulSoup(page_text(f"{url}/formgrader/manage_assignments", token), "html.parser")
    assert page.find(id="warning-exchange") is None
    assert not page.select(".alert"), [alert.get_text(" ", strip=True) for alert in page.select(".alert")]
    disabled = lab_page_config(url, token)["disabledExtensions"]
    assert not set(INSTRUCTOR_PLUGINS) & set(disabled), disabled
    assert set(EXCHANGE_PLUGINS) <= set(disabled), disabled
    with pytest.raises(urllib.error.HTTPError) as missing:  # no Assignment List's server extension
        api(f"{url}/assignments?course_id=roofline", token)
    missing.value.close()
    assert missing.value.code == 404
    log = formgrader.log.read_text()  # nbgrader's exchange logs "Unwritable directory ...exchange"
    assert "Unwritable directory" not in log and "exchange directory" not in log, log[-3000:]


@pytest.mark.browser
def test_formgraders_own_address_shows_its_lists_in_a_fresh_browser(
    formgrader: Formgrader, chromium: Any
) -> None:
    """Formgrader's own address (``make formgrader``'s printed one with ``formgrader`` for ``lab``),
    at the page of a notebook's submissions, opened first in a browser that never saw the Lab:
    the page lists the class, its script reaching formgrader's API with the login the token gave
    (nbgrader's handlers once set that login for the page's folder only, and the list stayed at
    "Loading, please wait...")."""
    url, token = formgrader.url, formgrader.token
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}/formgrader/gradebook/{ASSIGNMENT}/{BROKEN}?token={token}", wait_until="load")
        loaded = "() => !document.body.innerText.includes('Loading, please wait')"
        page.wait_for_function(loaded, timeout=60_000)
        assert "/login" not in page.url
        listed = page.locator("table tbody tr").count()
        expected = len(api(f"{url}/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{BROKEN}", token))
        assert listed == expected > 1, page.inner_text("body")[:2000]
    finally:
        context.close()


def test_a_notebook_held_for_grading_by_hand_is_graded_in_formgrader_and_exported(
    formgrader: Formgrader,
) -> None:
    """A submission nbgrader cannot grade (a file that is not a notebook) is held: its parts score
    0 and wait for a grader. In formgrader (``make formgrader``) the grader gives them points;
    ``make grades`` then exports them with the rest of the student's work."""
    course, url, token = formgrader.course, formgrader.url, formgrader.token
    assert scores(course, HELD, BROKEN) == dict.fromkeys(points(BROKEN), 0.0)
    # What the formgrader lists for the notebook: the held submission, marked for grading by hand.
    listed = api(f"{url}/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{BROKEN}", token)
    (submission,) = [s for s in listed if s["student"] == HELD]
    assert submission["needs_manual_grade"], submission
    # Its grading page opens: the released notebook, headed by the note its student reads too (why
    # it could not be graded, in the student's terms), with no name or path: graders see it anonymised.
    page = page_text(f"{url}/formgrader/submissions/{submission['id']}/", token)
    text = " ".join(BeautifulSoup(page, "html.parser").get_text().split())
    assert "could not be graded automatically: not a notebook: invalid JSON" in text, text[:2000]
    shown = read(course / "autograded" / HELD / ASSIGNMENT / f"{BROKEN}.ipynb")  # what the page renders
    assert not any(HELD in c.source or "submitted/" in c.source for c in shown.cells)  # (formgrader links it)
    answers = [c.source for c in shown.cells if c.metadata.get("nbgrader", {}).get("solution")]
    assert answers and all("file you submitted" in a and "NotImplementedError" not in a for a in answers)
    given = {}
    for grade in api(f"{url}/formgrader/api/grades?submission_id={submission['id']}", token):
        assert grade["needs_manual_grade"], grade
        given[grade["name"]] = grade["max_score"] / 2  # half marks, by hand
        saved = api(
            f"{url}/formgrader/api/grade/{grade['id']}", token, "PUT", {"manual_score": given[grade["name"]]}
        )
        assert saved["manual_score"] == given[grade["name"]] and not saved["needs_manual_grade"], saved
    assert set(given) == set(points(BROKEN))
    formgrader.stop()  # then make grades, as the guide says

    assert scores(course, HELD, BROKEN) == given
    make("feedback", course=course)  # the student reads why, and the points given by hand
    feedback = feedback_text(course, HELD, BROKEN)
    assert "could not be graded automatically" in feedback and "submitted/" not in feedback
    make("grades", course=course, GRADES="export/grades.csv")
    with (course / "export" / "grades.csv").open(newline="") as handle:
        (row,) = [r for r in csv.DictReader(handle) if r["student_id"] == HELD]
    others = sum(sum(points(notebook).values()) for notebook in NOTEBOOKS if notebook != BROKEN)
    assert float(row["score"]) == others + sum(given.values())
