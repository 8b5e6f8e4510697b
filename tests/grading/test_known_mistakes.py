"""Feedback before submission: the checks under each answer name the course's known mistakes.

Each exercise has a locked *known mistakes* cell that ``make exercises`` writes from the answer
key (roofline_grading/fingerprints.py): fingerprints of the mistaken values, never a right one.
These tests check that the committed cells are what the answer key makes, that a cell holds
nothing a student could read a right answer or a formula from, that the check names every
listed mistake and never a right answer (within the tolerance), that a mistake an answer
inherits from an earlier function is named as inherited, never as another one; in a kernel, as
Run All runs the released notebook, that a failing check shows its message first, alone, that
Run All goes on to the last cell, which lists every check, and that every passing check says so
(in English and in Korean); that a fresh released notebook runs to its last cell, each
unanswered part said in one line (nbgrader's code stub ``not_answered()``); and, through
``nbgrader validate`` on the released student version,
that each slip of the grading tests gets its misconception's words from the visible checks
alone while the model answers pass.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from roofline_grading import answer_key as key
from roofline_grading import misconceptions as shared
from roofline_grading.fingerprints import CELL_ID_SUFFIX, SAYS, cell_source, main, table
from roofline_grading.i18n import translator
from roofline_grading.questions import FunctionQuestion
from rooflinekit.languages import CODES
from tests.support.kernels import execute
from tests.support.slips import ASSIGNMENT, ROOT, SLIPS, answered

pytestmark = pytest.mark.xdist_group("known-mistakes")  # its module-scoped fixtures, built once: one worker

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
    standard_library = {
        "contextlib", "functools", "hashlib", "io", "linecache", "math", "sys", "types", "unicodedata",
    }
    assert imported <= standard_library
    assert not any(isinstance(n, ast.ImportFrom) for n in ast.walk(tree))
    assert "rooflinekit" not in source and "roofline_grading" not in source
    # Every number in it is an argument of a fixed case, a tolerance, or the check's own constant:
    # no right value (nor a mistaken one) is written down.
    entries = table(key.EXERCISES[name])
    allowed = {float(v) for e in entries.values() for case in e["cases"] for v in case}
    allowed |= {e["scale"][1] for e in entries.values()} | {0.0, 1.0, 2.0, 16.0, 76.0, 86.0, 88.0, 1000.0}
    numbers = {
        float(n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, int | float) and not isinstance(n.value, bool)
    }
    assert numbers <= allowed, sorted(numbers - allowed)


@pytest.mark.slow  # every question of every exercise through its check (seconds)
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


@pytest.mark.slow  # each mistake of each part through the notebook's own check (seconds an exercise)
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


# --- A mistake inherited from an earlier part ------------------------------------------


def student_kernel(notebook: str, slip: str | None, language: str = "en") -> dict[str, Any]:
    """The released notebook's setup, known-mistakes and answer cells (the model answers, with
    ``slip``) run in one namespace, as a student's kernel holds them: the checks' functions and
    the student's, side by side."""
    namespace: dict[str, Any] = {}
    for cell in answered(notebook, slip, language).cells:
        meta = cell.metadata.get("nbgrader", {})
        runs = cell.cell_type == "code" and not meta.get("grade")
        if runs and not meta["grade_id"].endswith("every_check"):
            exec(compile(cell.source, meta["grade_id"], "exec"), namespace)
    return namespace


@pytest.mark.parametrize("language", CODES)
def test_with_only_the_bytes_wrong_intensity_and_critical_batch_name_the_bytes_not_the_factor_two(
    language: str,
) -> None:
    """int8 counted as 2 bytes, and nothing else wrong: ops passes its check, so the checks of
    intensity (which calls bytes_read) and critical_batch (which does not), whose results also
    fit one operation per multiply-add, name the bytes, as inherited or as bytes_read's."""
    says = translator(language)
    two_bytes, one_op = shared.INT8_TWO_BYTES.text(language), shared.NO_FACTOR_TWO.text(language)
    kernel = student_kernel("ex1_int8_matmul", "ex1-two-bytes", language)
    assert kernel["diagnosis"]("ops", kernel["ops"]) is None
    intensity = kernel["diagnosis"]("intensity", kernel["intensity"])
    inherited, same = says(SAYS["inherited"]), says(SAYS["same"])
    assert intensity == inherited.format(name="intensity", source="bytes_read", mistake=two_bytes)
    critical = kernel["diagnosis"]("critical_batch", kernel["critical_batch"])
    assert critical == same.format(name="critical_batch", source="bytes_read", mistake=two_bytes)
    for said in (intensity, critical):
        assert one_op not in said
    # The times inherit it through t_comms, the function they call that makes it.
    assert kernel["diagnosis"]("t_lower", kernel["t_lower"]) == says(SAYS["inherited"]).format(
        name="t_lower", source="t_comms", mistake=two_bytes
    )


@pytest.mark.parametrize("language", CODES)
def test_with_only_the_factor_two_missing_the_checks_name_the_operations_not_the_bytes(language: str) -> None:
    kernel = student_kernel("ex1_int8_matmul", "ex1-no-factor-two", language)
    says, one_op = translator(language), shared.NO_FACTOR_TWO.text(language)
    intensity = kernel["diagnosis"]("intensity", kernel["intensity"])
    assert intensity == says(SAYS["inherited"]).format(name="intensity", source="ops", mistake=one_op)
    critical = kernel["diagnosis"]("critical_batch", kernel["critical_batch"])
    assert critical == says(SAYS["same"]).format(name="critical_batch", source="ops", mistake=one_op)
    assert shared.INT8_TWO_BYTES.text(language) not in intensity + critical


def test_when_no_earlier_part_tells_two_mistakes_that_fit_are_named_as_alternatives() -> None:
    """critical_batch alone, doubled (as both mistakes double it), with no earlier function to tell."""
    cell = loaded("ex1_int8_matmul")
    question = key.question("ex1.critical_batch")
    doubled = next(m for m in question.mistakes if m.misconception == shared.INT8_TWO_BYTES).answer
    said = cell["diagnosis"]("critical_batch", doubled)
    lines = said.split("\n")
    assert lines == [
        SAYS["several"].format(name="critical_batch"),
        f"- {shared.INT8_TWO_BYTES.message}",
        f"- {shared.NO_FACTOR_TWO.message}",
    ]


@pytest.mark.parametrize(
    ("slip", "part", "source"),
    [
        ("ex2-int8-peak", "critical_batch", "compute_peak"),
        ("ex2-two-byte-weights", "intensity", "bytes_read"),
        ("ex5-sparse-peak", "critical_batch", "dense_peak"),
        ("ex5-sparse-peak", "global_batch", "critical_batch"),
        ("ex5-halved-twice", "global_batch", "critical_batch"),
        ("ex6-no-n-minus-one", "critical_d", "all_reduce_bytes"),
        ("ex6-one-phase", "two_chip_critical_d", "all_reduce_bytes"),
        ("ex6-one-phase", "nodes_critical_d", "critical_d"),
        ("ex6-bits-as-bytes", "nodes_critical_d", "nic_bandwidth"),
        ("ex8-micro-as-milli", "mfu", "achieved_flops"),
        ("ex8-micro-as-milli", "mbu", "achieved_bandwidth"),
        ("ex9-untiled", "tiled_intensity", "tiled_bytes"),
        ("ex9-no-output", "fusion_ratio", "fused_attention_bytes"),
        ("ex9-scores-once", "fusion_ratio", "unfused_attention_bytes"),
        ("ex9-kv-not-per-block", "fusion_ratio", "fused_attention_bytes"),
    ],
)
def test_a_function_that_calls_an_earlier_mistaken_one_is_told_so(slip: str, part: str, source: str) -> None:
    notebook = next(n for n in NOTEBOOKS if n.startswith(slip.split("-")[0] + "_"))
    kernel = student_kernel(notebook, slip)
    mistake = SLIPS[slip].misconception.message
    assert kernel["diagnosis"](part, kernel[part]) == SAYS["inherited"].format(
        name=part, source=source, mistake=mistake
    )


# --- In a kernel, as Run All runs the released notebook ---------------------------------

ANSI = re.compile(r"\x1b\[[0-9;]*m")
HELPER_CODE = ("Traceback", "File ", "---->", "Cell In[", "mistake_check", "def ", "raise ", "CheckFailed(")


def run_all(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Run every cell as JupyterLab's Run All does: stopping at an error, except in a cell tagged
    raises-exception (nbclient, like JupyterLab, goes on past one)."""
    return execute(notebook, timeout=300)


def by_part(notebook: nbformat.NotebookNode) -> dict[str, Any]:
    code = [c for c in notebook.cells if c.cell_type == "code"]
    return {c.metadata["nbgrader"]["grade_id"].split("_", 1)[1]: c for c in code}


def errors(cell: Any) -> list[Any]:
    return [o for o in cell.outputs if o.output_type == "error"]


def printed(cell: Any) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


@pytest.fixture(scope="module")
def slipped_runs() -> dict[str, dict[str, Any]]:
    """Exercise 1 with only the bytes constant wrong, and with bytes_read returning no number,
    run as Run All runs it, in English and in Korean."""
    runs = {}
    for language in CODES:
        runs[language] = by_part(run_all(answered("ex1_int8_matmul", "ex1-two-bytes", language)))
    no_number = answered("ex1_int8_matmul", "ex1-two-bytes")
    for cell in no_number.cells:
        if cell.metadata["nbgrader"]["grade_id"] == "ex1_bytes":
            cell.source = cell.source.replace("return BYTES_PER_ELEMENT * (B * D + D * F)", 'return "many"')
    runs["no-number"] = by_part(run_all(no_number))
    return runs


@pytest.mark.grading
@pytest.mark.parametrize("language", CODES)
def test_a_failing_check_shows_its_message_first_alone_without_the_helpers_code(
    slipped_runs: dict[str, dict[str, Any]], language: str
) -> None:
    says = translator(language)
    cells = slipped_runs[language]
    (error,) = errors(cells["bytes_read"])
    shown = [ANSI.sub("", line) for line in "\n".join(error.traceback).split("\n")]
    named = says(SAYS["mistake"]).format(name="bytes_read", mistake=shared.INT8_TWO_BYTES.text(language))
    assert _words(" ".join(shown[:-1])) == _words(named), shown
    check = 'assert no_known_mistake("bytes_read", bytes_read)'
    assert shown[-1] == says(SAYS["where"]).format(line=6, code=check)
    assert len(shown) <= 5 and not any(code in line for line in shown for code in HELPER_CODE), shown
    assert error.ename == "CheckFailed" and _words(error.evalue) == _words(named)
    (intensity,) = errors(cells["intensity"])
    inherited = says(SAYS["inherited"]).format(
        name="intensity", source="bytes_read", mistake=shared.INT8_TWO_BYTES.text(language)
    )
    assert _words(" ".join(intensity.traceback[:-1])) == _words(inherited)
    said = " ".join(e.evalue for c in cells.values() for e in errors(c))
    assert shared.NO_FACTOR_TWO.text(language) not in said


@pytest.mark.grading
def test_a_plain_check_fails_with_its_message_first_too(slipped_runs: dict[str, dict[str, Any]]) -> None:
    (error,) = errors(slipped_runs["no-number"]["bytes_read"])
    assert error.traceback == [
        "bytes_read(B, D, F) should return a number",
        SAYS["where"].format(
            line=1,
            code="assert is_number(bytes_read(2, 3, 4))",
        ),
    ]


@pytest.mark.grading
@pytest.mark.parametrize("language", CODES)
def test_run_all_goes_on_past_a_failing_check_and_the_last_cell_lists_every_check(
    slipped_runs: dict[str, dict[str, Any]], language: str
) -> None:
    says = translator(language)
    cells = slipped_runs[language]
    failing = [part for part, cell in cells.items() if errors(cell)]
    assert failing == [
        "bytes_read", "bytes_written", "intensity", "critical_batch", "t_comms", "t_lower", "t_upper"
    ]
    listing = printed(cells["every_check"]).split("\n")
    assert listing[0] == says(SAYS["every"])
    parts = [c.metadata["nbgrader"]["grade_id"].split("_", 1)[1] for c in answered("ex1_int8_matmul").cells
             if c.metadata["nbgrader"].get("grade")]
    marks = {line[2:].split(":")[0]: line[0] for line in listing if line[:2] in ("✓ ", "✗ ")}
    assert marks == {part: "✗" if part in failing else "✓" for part in parts}
    for part in failing:  # each failing check's words, as under its answer
        said = _words(ANSI.sub("", " ".join(errors(cells[part])[0].traceback[:-1])))
        assert f"{part}: {said}" in _words("\n".join(listing)), part
    tally = " ".join((says(SAYS["tally"]).format(passed=3, total=len(parts)), says(SAYS["decide"])))
    assert _words("\n".join(listing)).endswith(_words(tally))


@pytest.fixture(scope="module")
def model_runs() -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (notebook, language): by_part(run_all(answered(notebook, language=language)))
        for notebook in NOTEBOOKS
        for language in CODES
    }


@pytest.mark.grading
@pytest.mark.parametrize("language", CODES)
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_every_check_says_so_when_it_passes(
    model_runs: dict[tuple[str, str], dict[str, Any]], notebook: str, language: str
) -> None:
    decide = translator(language)(SAYS["none"]).split(". ", 1)[1]  # "That does not make it right: ..."
    cells = model_runs[(notebook, language)]
    tests = [c for c in answered(notebook).cells if c.metadata["nbgrader"].get("grade")]
    assert tests
    for test in tests:
        part = test.metadata["nbgrader"]["grade_id"].split("_", 1)[1]
        assert not errors(cells[part]), part
        said = printed(cells[part])
        assert said.count("\n") == 1 and decide in said, (part, said)
    listing = printed(cells["every_check"]).split("\n")
    assert sum(line.startswith("✓ ") for line in listing) == len(tests), listing


# --- Through nbgrader validate, as a student runs it -------------------------------------


def _words(text: str) -> str:
    return " ".join(text.split())


VALIDATING = re.compile(r"^\[ValidateApp \| INFO\] Validating '.*/([^/]+)\.ipynb'$", re.MULTILINE)


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """``nbgrader validate``'s output for the model answers of each notebook and each slip.

    One ``nbgrader validate`` for them all, as it takes many notebooks (a kernel each, one
    process's start): its log names each notebook before what it prints of it, and unbuffered,
    on one pipe, the two stay in order."""
    folder = tmp_path_factory.mktemp("validate")
    names = {f"model-{n}": (n, None) for n in NOTEBOOKS}
    for slip in SLIPS:
        names[slip] = (next(n for n in NOTEBOOKS if n.startswith(slip.split("-")[0] + "_")), slip)
    for label, (notebook, slip) in names.items():
        nbformat.write(answered(notebook, slip), folder / f"{label}.ipynb")
    done = subprocess.run(
        [str(Path(sys.executable).parent / "nbgrader"), "validate", *(f"{label}.ipynb" for label in names)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800, check=False, cwd=folder,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    pieces = VALIDATING.split(done.stdout)  # [before, label, its output, label, its output, ...]
    outputs = dict(zip(pieces[1::2], pieces[2::2], strict=True))
    assert sorted(outputs) == sorted(names), done.stdout[-6000:]
    return outputs


@pytest.mark.grading
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_validate_passes_the_model_answers(validated: dict[str, str], notebook: str) -> None:
    output = validated[f"model-{notebook}"]
    assert "Success! Your notebook passes all the tests." in output, output[-3000:]


@pytest.mark.grading
@pytest.mark.parametrize("slip", sorted(SLIPS))
def test_validate_names_each_known_mistake_and_does_not_report_success(
    validated: dict[str, str], slip: str
) -> None:
    output = validated[slip]
    assert "Success!" not in output
    assert "VALIDATION FAILED" in output
    message = SLIPS[slip].misconception.message
    assert _words(message) in _words(output), output[-4000:]
    assert not any(code in output for code in HELPER_CODE[2:]), output[-4000:]  # no helper frames


@pytest.mark.grading
def test_validate_lists_every_failing_check_and_names_an_inherited_mistake_as_inherited(
    validated: dict[str, str],
) -> None:
    output = _words(validated["ex1-two-bytes"])
    visible = len(SLIPS["ex1-two-bytes"].fails) - 1  # limited_by (a word) fails only the hidden tests
    assert output.count("The following cell failed") == visible
    mistake = shared.INT8_TWO_BYTES.message
    inherited = SAYS["inherited"].format(name="intensity", source="bytes_read", mistake=mistake)
    assert _words(inherited) in output
    assert _words(shared.NO_FACTOR_TWO.message) not in output


# --- A fresh notebook: every part unanswered ----------------------------------------------


def test_an_unanswered_function_fails_in_one_line_naming_it_and_a_cell_of_its_own_only_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``not_answered()``, nbgrader's code stub here (nbgrader_config.py): in a function it fails
    the call with one line naming the function; at a cell's top level it prints one line and
    lets the cell end without an error."""
    namespace = loaded("ex1_int8_matmul")
    answer = "def ops(B, D, F):\n    # YOUR CODE HERE\n    not_answered()\n"
    exec(compile(answer, "answer", "exec"), namespace)
    with pytest.raises(NotImplementedError) as raised:
        namespace["ops"](2, 3, 4)
    assert raised.value._render_traceback_() == [SAYS["unanswered"].format(name="ops")]  # type: ignore[attr-defined]
    exec(compile("# YOUR CODE HERE\nnot_answered()\n", "figures", "exec"), namespace)
    assert capsys.readouterr().out == SAYS["todo"] + "\n"


@pytest.fixture(scope="module")
def fresh_runs() -> dict[tuple[str, str], nbformat.NotebookNode]:
    """Each released notebook as a student gets it, run as Run All runs it, in both languages."""
    runs = {}
    for language, folder in (("en", ROOT / "exercises"), ("ko", ROOT / "exercises" / "ko")):
        for notebook in NOTEBOOKS:
            released = nbformat.read(folder / ASSIGNMENT / f"{notebook}.ipynb", as_version=4)
            runs[(notebook, language)] = run_all(released)
    return runs


@pytest.mark.grading
@pytest.mark.parametrize("language", CODES)
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_run_all_on_a_fresh_notebook_reaches_the_last_cell_saying_what_is_unanswered_in_one_line(
    fresh_runs: dict[tuple[str, str], nbformat.NotebookNode], notebook: str, language: str
) -> None:
    says = translator(language)
    cells = by_part(fresh_runs[(notebook, language)])
    for part, cell in cells.items():
        meta = cell.metadata["nbgrader"]
        if meta.get("solution") and not cell.source.startswith("def "):  # the figures, a plot
            assert not errors(cell) and printed(cell) == says(SAYS["todo"]) + "\n", (part, cell.outputs)
        elif meta.get("grade"):
            (error,) = errors(cell)
            shown = [ANSI.sub("", line) for line in error.traceback]
            assert not any(code in line for line in shown for code in HELPER_CODE), (part, shown)
            if error.ename == "NotAnswered":
                (line,) = shown
                assert line.endswith(says(SAYS["unanswered"]).split("}", 1)[1]), (part, line)
            else:  # exercise 3's plot: no fig, said by its first check
                assert error.ename == "CheckFailed" and "fig" in shown[0] and len(shown) == 2, (part, shown)
    listing = printed(cells["every_check"]).split("\n")
    assert listing[0] == says(SAYS["every"]), listing
    tests = sum(1 for c in cells.values() if c.metadata["nbgrader"].get("grade"))
    assert _words("\n".join(listing)).endswith(_words(says(SAYS["tally"]).format(passed=0, total=tests)))
    unanswered = [line for line in listing if line.endswith(f": {says(SAYS['unanswered_here'])}")]
    assert len(unanswered) == tests - (3 if notebook.startswith("ex3") else 0), listing


@pytest.mark.grading
def test_validate_says_each_unanswered_part_in_one_line(tmp_path: Path) -> None:
    """``nbgrader validate`` (the Validate button) on a fresh exercise: each failing check's error is
    the one line that names the unanswered part, never a traceback."""
    shutil.copy(ROOT / "exercises" / ASSIGNMENT / "ex1_int8_matmul.ipynb", tmp_path)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "nbgrader"), "validate", "ex1_int8_matmul.ipynb"],
        capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
    )
    output = done.stdout
    failed = output.count("The following cell failed")
    parts = [c for c in answered("ex1_int8_matmul").cells if c.metadata["nbgrader"].get("grade")]
    assert failed == len(parts), output[-3000:]
    errors_shown = re.findall(r"The error was:\n\n((?:    .*\n)+)", output)
    assert len(errors_shown) == failed and all(e.count("\n") == 1 for e in errors_shown), errors_shown
    assert all("is not answered yet" in e for e in errors_shown)
    assert not any(code in output for code in HELPER_CODE[:4]), output[-3000:]
