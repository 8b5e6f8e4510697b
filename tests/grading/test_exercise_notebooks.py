"""The graded notebooks' structure, read without running them.

Each test cell's visible part ends in an assertion and its hidden part records answers, never
judges them (nbgrader gives full credit to a cell that ends in a bare value); hidden tests hold
no numbers and import nothing but the recorder, and record every question of their exercise
once; every answer is checked for rooflinekit before it is graded; the points add up; the
figures a problem states are the library's; nbgrader's configuration and the LMS file-name
pattern do what the guide says.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from traitlets.config import Config

from roofline_grading import answer_key as key
from roofline_grading import guide
from roofline_grading.questions import FunctionQuestion
from rooflinekit.fmt import num

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions" / "roofline"
NOTEBOOKS = sorted(p.stem for p in SOLUTIONS.glob("*.ipynb"))
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.DOTALL)


def notebook(name: str) -> nbformat.NotebookNode:
    return nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)


def nbgrader(cell: Any) -> dict[str, Any]:
    return dict(cell.metadata.get("nbgrader", {}))


def test_one_assignment_holds_the_five_exercises_of_the_answer_key() -> None:
    assert sorted(key.EXERCISES) == NOTEBOOKS
    # one assignment; ko/ holds its Korean release (the same notebooks, tools/exercise_translations.py)
    assert sorted(p.name for p in (ROOT / "solutions").iterdir()) == ["ko", "roofline"]
    assert [p.name for p in (ROOT / "solutions" / "ko").iterdir()] == ["roofline"]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_valid_with_unique_grade_ids_and_no_outputs(name: str) -> None:
    nb = notebook(name)
    nbformat.validate(nb)
    ids = [nbgrader(c)["grade_id"] for c in nb.cells if nbgrader(c)]
    assert len(ids) == len(set(ids))
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        "commit solutions without outputs"
    )
    assert nb.metadata.kernelspec.name == "python3"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_answer_cells_hold_a_solution_region(name: str) -> None:
    for cell in notebook(name).cells:
        meta = nbgrader(cell)
        if meta.get("solution"):
            assert not meta.get("grade"), "answer cells are graded by the test cells after them"
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source, meta["grade_id"]


def graded_cells(name: str) -> list[Any]:
    return [c for c in notebook(name).cells if nbgrader(c).get("grade") and c.cell_type == "code"]


def ends_in_an_assertion(source: str) -> bool:
    return isinstance(ast.parse(source).body[-1], ast.Assert)


def ends_in_a_record(source: str) -> bool:
    last = ast.parse(source).body[-1]
    return (
        isinstance(last, ast.Expr)
        and isinstance(last.value, ast.Call)
        and isinstance(last.value.func, ast.Name)
        and last.value.func.id == "record"
    )


KNOWN_MISTAKE_CHECK = re.compile(r'\nassert (no_known_mistake\("(\w+)", (\w+)\)|checks_pass\("(\w+)"\))\n?$')
"""The last line of every test cell: the known-mistake check, or (no known mistake to check: a
word, a figure) the line that says the checks pass. Either says so when it passes."""


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_test_cells_are_locked_score_points_and_end_in_an_assertion_or_a_record(name: str) -> None:
    cells = graded_cells(name)
    assert cells
    for cell in cells:
        meta = nbgrader(cell)
        assert meta["locked"] and meta["points"] > 0, meta["grade_id"]
        visible = HIDDEN.sub("", cell.source)
        assert ends_in_an_assertion(visible), (
            f"{meta['grade_id']}: the student's version must end in an assert"
        )
        # The hidden record comes before the known-mistake check, so that at grading time the
        # answer is recorded (and counted in the misconception summary) even when the check fails.
        assert KNOWN_MISTAKE_CHECK.search(cell.source), (
            f"{meta['grade_id']}: end with assert no_known_mistake(...) or assert checks_pass(...)"
        )
        graded = KNOWN_MISTAKE_CHECK.sub("", cell.source)
        assert ends_in_a_record(graded), (
            f"{meta['grade_id']}: the graded version must end in record(...), then the known-mistake check"
        )
        assert len(HIDDEN.findall(cell.source)) == 1, f"{meta['grade_id']}: one hidden region per test cell"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_visible_check_fails_with_its_message_alone_and_does_not_stop_run_all(name: str) -> None:
    """A check's message goes through fail(...), whose error shows the message, not a traceback
    (roofline_grading.mistake_check.CheckFailed); a test cell is tagged raises-exception, so Run
    All goes on past it to the next parts and to the last cell, which lists every check."""
    for cell in graded_cells(name):
        meta = nbgrader(cell)
        asserts = [n for n in ast.walk(ast.parse(cell.source)) if isinstance(n, ast.Assert)]
        for node in asserts:
            if node.msg is None:  # the last line: the known-mistake check, or checks_pass
                assert isinstance(node.test, ast.Call), meta["grade_id"]
                assert getattr(node.test.func, "id", "") in ("no_known_mistake", "checks_pass")
                continue
            assert isinstance(node.msg, ast.Call) and getattr(node.msg.func, "id", "") == "fail", (
                f"{meta['grade_id']}: write assert condition, fail(message): {ast.unparse(node)}"
            )
        assert "raises-exception" in cell.metadata.get("tags", []), meta["grade_id"]
    last = notebook(name).cells[-1]
    assert nbgrader(last)["grade_id"] == f"{name.split('_')[0]}_every_check" and nbgrader(last)["locked"]
    assert not nbgrader(last)["grade"]


def recorded(name: str) -> list[tuple[str, str, Any]]:
    """(grade id, question id, the answer's name) of each record(...) call of the hidden tests."""
    found = []
    for cell in graded_cells(name):
        (hidden,) = HIDDEN.findall(cell.source)
        for node in ast.walk(ast.parse(hidden)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "record":
                qid, answer = node.args
                assert isinstance(qid, ast.Constant) and isinstance(answer, ast.Name)
                found.append((nbgrader(cell)["grade_id"], qid.value, answer.id))
    return found


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_hidden_tests_hold_no_numbers_import_only_the_recorder_and_record_every_question_once(
    name: str,
) -> None:
    for cell in graded_cells(name):
        (hidden,) = HIDDEN.findall(cell.source)
        tree = ast.parse(hidden)
        numbers = [
            n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and not isinstance(n.value, str)
        ]
        assert not numbers, f"{nbgrader(cell)['grade_id']}: hidden tests hold no numbers: {numbers}"
        modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert modules == {"roofline_recorder"}
        assert not any(isinstance(n, ast.Import) for n in ast.walk(tree))
    asked = [qid for _, qid, _ in recorded(name)]
    assert sorted(asked) == sorted(q.id for q in key.EXERCISES[name].questions)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_function_answer_is_checked_for_rooflinekit_before_it_is_graded(name: str) -> None:
    cells = {nbgrader(c)["grade_id"]: c for c in graded_cells(name)}
    for grade_id, qid, answer in recorded(name):
        if isinstance(key.question(qid), FunctionQuestion):
            assert f"assert not uses_rooflinekit({answer}), fail(NO_ROOFLINEKIT)" in HIDDEN.sub(
                "", cells[grade_id].source
            )


def markdown(name: str) -> str:
    return "\n".join(c.source for c in notebook(name).cells if c.cell_type == "markdown")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stated_points_add_up(name: str) -> None:
    total = sum(nbgrader(c)["points"] for c in graded_cells(name))
    intro = notebook(name).cells[0].source
    assert f"*Graded exercise: {total:g} points.*" in intro
    part_points: dict[str, float] = {}
    current = None
    for cell in notebook(name).cells:
        heading = (
            re.match(r"## (\(\w\)).*\((\d+) points?", cell.source) if cell.cell_type == "markdown" else None
        )
        if heading:
            current = heading.group(1)
            part_points[current] = -float(heading.group(2))
        elif nbgrader(cell).get("grade") and current is not None:
            part_points[current] += nbgrader(cell)["points"]
    assert part_points and all(v == 0 for v in part_points.values()), part_points


def renderings(value: float) -> set[str]:
    """How a problem statement may write a given figure."""
    found = {num(value), num(value, 4), f"{value / 1e12:,g}"}
    if float(value).is_integer() and value < 1e6:
        found.add(str(int(value)))
    return found


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_problem_statement_states_the_librarys_figures(name: str) -> None:
    text = markdown(name)
    for value in key.EXERCISES[name].given:
        assert any(r in text for r in renderings(value)), f"{name}: no figure {sorted(renderings(value))}"


# --- nbgrader's configuration ----------------------------------------------------------


def config() -> Config:
    loaded = Config()
    code = (ROOT / "nbgrader_config.py").read_text()
    exec(compile(code, "nbgrader_config.py", "exec"), {"get_config": lambda: loaded})
    return loaded


def test_config_names_the_course_directories() -> None:
    c = config()
    assert c.CourseDirectory.source_directory == "solutions"
    assert c.CourseDirectory.release_directory == "exercises"


# --- The instructor's guide says what the code does -------------------------------------

GUIDE = ROOT / "book" / "instructor-guide.md"


def test_guide_states_each_notebooks_points_and_the_total() -> None:
    """The guide's table of points (made at each build, roofline_grading.guide) and its prose."""
    rows = {row[0][0]: row[2][0] for row in guide.table("points", ROOT, "en")[1]}
    total = 0.0
    for name in NOTEBOOKS:
        points = sum(nbgrader(c)["points"] for c in graded_cells(name))
        total += points
        assert rows[name] == f"{points:g}", name
    assert rows[""] == f"{total:g}"
    # The prose names no total, which a new exercise would make wrong: it points to the table.
    assert "`max_score` (the total of the table of\npoints, above)" in GUIDE.read_text()


def test_guide_names_every_misconception_and_tolerance_of_the_answer_key() -> None:
    """The guide's tables are made from the answer key (roofline_grading.guide, shown by the
    directive answer-key-table): every misconception an exercise exists to catch, every tolerance
    with its reason, and the points of every notebook."""
    text = GUIDE.read_text()
    for kind in guide.KINDS:
        assert f"```{{answer-key-table}} {kind}\n```" in text
    said = " ".join(cell for _, rows in [guide.table(k, ROOT, "en") for k in guide.KINDS]
                    for row in rows for cell, _ in row)
    for exercise in key.EXERCISES.values():
        for misconception in exercise.misconceptions:
            assert f"({misconception.name})" in said, misconception.name
    for tolerance in (key.COUNT, key.MODEL):
        assert f"relative {num(tolerance.rtol)}" in said
    assert f"{key.TOKENS.atol:g} token either way" in said
    assert f"relative {key.REPLICAS.rtol:.0%}" in said
    assert f"{key.WIDTH.atol:g} element either way" in said
    for tolerance in (key.COUNT, key.MODEL, key.TOKENS, key.REPLICAS, key.WIDTH, key.WORD):
        assert tolerance.why in said, f"the guide's tolerance table should give the reason: {tolerance.why}"
    points = guide.table("points", ROOT, "en")[1]
    assert [row[0][0] for row in points[:-1]] == list(key.EXERCISES)
    assert points[-1][2][0] == f"{sum(float(row[2][0]) for row in points[:-1]):g}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_intro_states_the_tolerances_its_questions_use(name: str) -> None:
    words = {
        key.COUNT: "must be exact",
        key.MODEL: f"relative {num(key.MODEL.rtol)}",
        key.TOKENS: f"within {key.TOKENS.atol:g} token",
        key.WIDTH: f"within {key.WIDTH.atol:g} element",
        key.REPLICAS: f"within {key.REPLICAS.rtol:.0%}",
    }
    intro = " ".join(notebook(name).cells[0].source.split())
    used = {q.tolerance for q in key.EXERCISES[name].questions}
    assert used & set(words)
    for tolerance in used & set(words):
        assert words[tolerance] in intro, f"{name}: the intro should say {words[tolerance]!r}"
