"""Feedback before submission: the checks under each answer name the course's known mistakes.

Each exercise has a locked *known mistakes* cell that ``make exercises`` writes from the answer
key (roofline_grading/fingerprints.py): fingerprints of the mistaken values, never a right one.
These tests check that the committed cells are what the answer key makes, that a cell holds
nothing a student could read a right answer or a formula from, that the check names every
listed mistake and never a right answer (within the tolerance), and, through ``nbgrader
validate`` on the released student version, that each slip of the grading tests gets its
misconception's words from the visible checks alone while the model answers pass.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from slips import ASSIGNMENT, ROOT, SLIPS, answered

from roofline_grading import answer_key as key
from roofline_grading.fingerprints import CELL_ID_SUFFIX, cell_source, main, table
from roofline_grading.questions import FunctionQuestion

SOLUTIONS = ROOT / "solutions" / ASSIGNMENT
NOTEBOOKS = sorted(p.stem for p in SOLUTIONS.glob("*.ipynb"))
CHECK = re.compile(r'\nassert no_known_mistake\("(\w+)", (\w+)\)\n?$')
CONFIRM = re.compile(r'\nassert checks_pass\("(\w+)"\)\n?$')


def cells(name: str, folder: str = "solutions") -> list[Any]:
    return list(nbformat.read(ROOT / folder / ASSIGNMENT / f"{name}.ipynb", as_version=4).cells)


def known_mistakes_cell(name: str, folder: str = "solutions") -> Any:
    grade_id = f"{name.split('_')[0]}_{CELL_ID_SUFFIX}"
    (cell,) = [c for c in cells(name, folder) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return cell


def loaded(name: str) -> dict[str, Any]:
    """The known-mistakes cell run, as a student's kernel runs it."""
    namespace: dict[str, Any] = {}
    exec(compile(known_mistakes_cell(name).source, f"{name}: known mistakes", "exec"), namespace)
    return namespace


def test_the_committed_cells_are_what_the_answer_key_makes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check", str(SOLUTIONS)]) == 0, capsys.readouterr().out + " (run `make exercises`)"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_cell_is_locked_collapsed_and_released_as_it_is(name: str) -> None:
    cell = known_mistakes_cell(name)
    meta = cell.metadata["nbgrader"]
    assert meta["locked"] and not meta["grade"] and not meta["solution"]
    assert cell.metadata["jupyter"]["source_hidden"] is True  # JupyterLab shows it collapsed
    released = known_mistakes_cell(name, "exercises")
    assert released.source == cell.source == cell_source(key.EXERCISES[name])
    assert released.metadata["jupyter"]["source_hidden"] is True


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_cell_holds_only_fingerprints_the_standard_library_and_the_given_figures(name: str) -> None:
    source = known_mistakes_cell(name).source
    tree = ast.parse(source)
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert imported <= {"contextlib", "hashlib", "io", "linecache", "math", "sys", "types", "unicodedata"}
    assert not any(isinstance(n, ast.ImportFrom) for n in ast.walk(tree))
    assert "rooflinekit" not in source and "roofline_grading" not in source
    # Every number in it is an argument of a fixed case, a tolerance, or the check's own constant:
    # no right value (nor a mistaken one) is written down.
    entries = table(key.EXERCISES[name])
    allowed = {float(v) for e in entries.values() for case in e["cases"] for v in case}
    allowed |= {e["scale"][1] for e in entries.values()} | {0.0, 1.0, 2.0, 16.0, 88.0, 90.0, 1000.0}
    numbers = {
        float(n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, int | float) and not isinstance(n.value, bool)
    }
    assert numbers <= allowed, sorted(numbers - allowed)


def test_each_question_that_returns_a_number_is_checked_and_words_and_figures_are_not() -> None:
    checked = {q.id for e in key.EXERCISES.values() for q in e.questions if q.name in table(e)}
    numbers = {
        q.id for e in key.EXERCISES.values() for q in e.questions
        if isinstance(q, FunctionQuestion) and q.returns == "number"
    }
    assert checked == numbers
    assert "ex1.limited_by" not in checked and "ex3.fig_curves" not in checked


def _function_questions(name: str) -> list[FunctionQuestion]:
    return [q for q in key.EXERCISES[name].questions if isinstance(q, FunctionQuestion) and q.name in table(
        key.EXERCISES[name])]


def _nudged(function: Any, factor: float, shift: float) -> Any:
    return lambda *args: float(function(*args)) * factor + shift


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_check_names_each_listed_mistake_and_never_a_right_answer(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    cell = loaded(name)
    entries = table(key.EXERCISES[name])
    for question in _function_questions(name):
        kind, size = entries[question.name]["scale"]
        inside = (1 + 0.9 * size, 0.0) if kind == "rel" else (1.0, 0.9 * size)
        for answer in (question.reference, _nudged(question.reference, *inside)):
            assert cell["known_mistakes"](question.name, answer) == {}, question.id
            assert cell["diagnosis"](question.name, answer) is None, question.id
            assert cell["no_known_mistake"](question.name, answer) is True
            assert "the hidden tests decide" in capsys.readouterr().out
        listed = {m.message for _, m in entries[question.name]["mistakes"]}
        for mistake in question.mistakes:
            message = mistake.misconception.message
            if message not in listed:
                continue
            for answer in (mistake.answer, _nudged(mistake.answer, *inside)):
                found = cell["known_mistakes"](question.name, answer)
                assert found and found.get(mistake.misconception.name) == message, (
                    question.id, mistake.misconception.name
                )
                said = cell["diagnosis"](question.name, answer)  # no earlier part to tell: all that fit
                assert said is not None and message in said
            with pytest.raises(AssertionError) as raised:
                cell["no_known_mistake"](question.name, mistake.answer)
            assert message in " ".join(str(raised.value).split())


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_listed_misconception_of_the_exercise_is_checked_somewhere(name: str) -> None:
    listed = {m.message for e in table(key.EXERCISES[name]).values() for _, m in e["mistakes"]}
    for misconception in key.EXERCISES[name].misconceptions:
        assert misconception.message in listed, misconception.name


def test_a_far_off_answer_an_error_and_a_wrong_type_are_not_called_a_known_mistake() -> None:
    cell = loaded("ex1_int8_matmul")
    assert cell["known_mistakes"]("bytes_read", lambda B, D, F: 3 * (B * D + D * F)) == {}
    assert cell["known_mistakes"]("bytes_read", lambda B, D, F: 1 / 0) is None
    assert cell["known_mistakes"]("bytes_read", lambda B, D, F: "many") is None
    assert cell["known_mistakes"]("limited_by", lambda B, D, F: "memory") is None
    assert cell["diagnosis"]("bytes_read", lambda B, D, F: 1 / 0) is None


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_each_test_cell_of_a_checked_function_ends_in_its_check(name: str) -> None:
    entries = table(key.EXERCISES[name])
    seen = set()
    for cell in cells(name):
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("grade") or cell.cell_type != "code":
            continue
        recorded = re.findall(r'record\("\w+\.(\w+)", (\w+)\)', cell.source)
        check, confirm = CHECK.search(cell.source), CONFIRM.search(cell.source)
        if recorded and recorded[0][0] in entries:
            assert check, f"{meta['grade_id']}: end with assert no_known_mistake(...)"
            assert check.groups() == recorded[0], meta["grade_id"]
            seen.add(check.group(1))
        else:  # no known mistake to check (a word, a figure): it says that its checks pass
            assert check is None and confirm, f"{meta['grade_id']}: end with assert checks_pass(...)"
            assert confirm.group(1) == recorded[0][1], meta["grade_id"]
    assert seen == set(entries)


# --- Through nbgrader validate, as a student runs it -------------------------------------


def _words(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """``nbgrader validate``'s output for the model answers of each notebook and each slip."""
    folder = tmp_path_factory.mktemp("validate")
    names = {f"model-{n}": (n, None) for n in NOTEBOOKS}
    for slip in SLIPS:
        names[slip] = (next(n for n in NOTEBOOKS if n.startswith(slip.split("-")[0] + "_")), slip)
    outputs = {}
    for label, (notebook, slip) in names.items():
        path = folder / f"{label}.ipynb"
        nbformat.write(answered(notebook, slip), path)
        done = subprocess.run(
            [str(Path(sys.executable).parent / "nbgrader"), "validate", str(path)],
            capture_output=True, text=True, timeout=600, check=False, cwd=folder,
        )
        outputs[label] = done.stdout + done.stderr
    return outputs


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_validate_passes_the_model_answers(validated: dict[str, str], notebook: str) -> None:
    output = validated[f"model-{notebook}"]
    assert "Success! Your notebook passes all the tests." in output, output[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("slip", sorted(SLIPS))
def test_validate_names_each_known_mistake_and_does_not_report_success(
    validated: dict[str, str], slip: str
) -> None:
    output = validated[slip]
    assert "Success!" not in output
    assert "VALIDATION FAILED" in output
    message = SLIPS[slip].misconception.message
    assert _words(message) in _words(output), output[-4000:]
