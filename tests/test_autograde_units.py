"""The grading driver's parts, each on its own and without grading a class.

The static scan passes every model answer and catches each way around the grading; the plan
puts back deleted and edited cells exactly as the release has them; the pre-check names what is
wrong with a file; records round-trip exactly and a record that was tampered with or is missing
does not verify; the sandbox denies what it must; the command line says what is wrong.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest

from rooflinekit import answer_key, grading, records, reference
from rooflinekit.autograde.precheck import read_submission
from rooflinekit.autograde.scan import ALLOWED_MODULES, scan_notebook, scan_source
from rooflinekit.autograde.structure import NotebookStructure, SourceCell, apply_plan, plan
from rooflinekit.autograde.verify import hidden_checks, verify_records

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions" / "roofline"
RELEASE = ROOT / "exercises" / "roofline"
NOTEBOOKS = sorted(p.stem for p in SOLUTIONS.glob("*.ipynb"))


def structure_of(name: str) -> NotebookStructure:
    """What the gradebook holds for a notebook, built from the solution and release files."""
    solution = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)
    release = nbformat.read(RELEASE / f"{name}.ipynb", as_version=4)
    released = {
        c.metadata["nbgrader"]["grade_id"]: c.source for c in release.cells if "nbgrader" in c.metadata
    }
    cells = []
    for cell in solution.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta:
            continue
        cells.append(
            SourceCell(
                grade_id=meta["grade_id"],
                cell_type=cell.cell_type,
                locked=meta.get("locked", False) or not meta.get("solution", False),
                grade=meta.get("grade", False),
                solution=meta.get("solution", False),
                task=meta.get("task", False),
                points=float(meta["points"]) if "points" in meta else None,
                source=released[meta["grade_id"]] if meta.get("solution") else cell.source,
                released=released[meta["grade_id"]],
            )
        )
    return NotebookStructure(name, tuple(cells), kernelspec=None)


def model(name: str) -> nbformat.NotebookNode:
    """The release with the model answers written in."""
    answers = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    nb = nbformat.read(RELEASE / f"{name}.ipynb", as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    return nb


# --- The static scan ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_model_answers_pass_the_scan(name: str) -> None:
    structure = structure_of(name)
    nb = model(name)
    assert scan_notebook(nb, structure, plan(nb.cells, structure)) == []


ATTACKS = {
    "import numpy as np\nnp.isclose = lambda *a, **k: True": "assigns to np.isclose",
    "import math\nmath.isfinite = lambda x: True": "assigns to math.isfinite",
    "import rooflinekit.grading as g\ng.assert_function = print": "imports rooflinekit.grading",
    "from rooflinekit import answer_key": "imports from rooflinekit",
    "from rooflinekit.reference import ex1_ops": "imports from rooflinekit.reference",
    "import builtins\nbuiltins.float = int": "imports builtins",
    "__builtins__['isinstance'] = print": "uses __builtins__",
    "class Liar(float):\n    def __eq__(self, other):\n        return True": "defines the special method",
    "class Array(np.ndarray):\n    pass": "a subclass of something it did not define",
    "Liar = type('Liar', (float,), {})": "creates a class with type",
    "def is_number(value):\n    return True": "redefines 'is_number'",
    "np = None": "rebinds 'np'",
    "def f():\n    global is_number\n    is_number = print": "rebinds 'is_number'",
    "open('/etc/passwd')": "uses open",
    "text = __import__('o' + 's')": "uses __import__",
    "getattr(np, 'is' + 'close')": "uses getattr",
    "vars(np)['isclose'] = 1": "uses vars",
    "np.__dict__['isclose'] = 1": "uses the special attribute np.__dict__",
    "(1.0).__class__.__eq__": "uses the special attribute",
    "np._core": "uses the private attribute np._core",
    "import matplotlib\nmatplotlib.os.system('true')": "uses matplotlib.os",
    "np.ctypeslib": "uses np.ctypeslib",
    "np.savetxt('rooflinekit.py', [1])": "uses np.savetxt",
    "np.loadtxt('answers.txt')": "uses np.loadtxt",
    "x = np.ones(3)\nx.tofile('data')": "uses x.tofile",
    "import sys\nsys.exit(0)": "imports sys",
    "exit()": "uses exit",
    "!cat ../../solutions/roofline/ex1_int8_matmul.ipynb": "shell command or magic",
    "%%time\nimport os": "runs the IPython magic %time",
    "%run ../../solutions/solve.py": "runs the IPython magic %run",
    "get_ipython().run_cell('import os')": "uses get_ipython",
    "fig.savefig('/tmp/elsewhere.png')": "saves a figure to a path other than a plain file name",
    "from operator import attrgetter": "imports attrgetter from operator",
    "display({'application/vnd.rooflinekit.check+json': {}}, raw=True)": "mentions the grading records",
    "x = " + "+".join(["1"] * 2000): "nested too deeply to be checked",  # compiles, too deep to read
}


@pytest.mark.parametrize(("source", "reason"), ATTACKS.items(), ids=list(range(len(ATTACKS))))
def test_the_scan_names_each_way_around_the_grading(source: str, reason: str) -> None:
    found = scan_source(source, "cell", _protected())
    assert any(reason in f.reason for f in found), [str(f) for f in found]


ALLOWED = [
    "import numpy as np\nimport math\nimport matplotlib.pyplot as plt\nfrom matplotlib.figure import Figure",
    "%matplotlib inline\nx = 1",
    "import time\ntime.sleep(0.1)",
    "import warnings\nwarnings.warn('careful')",
    "from dataclasses import dataclass\n\n\n@dataclass\nclass Chip:\n    peak: float\n\n"
    "    def __post_init__(self):\n        self.half = self.peak / 2",
    "plt.rcParams['figure.dpi'] = 120\nfig.savefig('roofline.png')",
    "def attainable(B, D):\n    B = np.asarray(B, dtype=float)\n    B[B < 1] = 1\n    return B",
    # shadows a built-in: the hidden checks run in the grading module, not in this namespace
    "sum = 0\nfor value in [1, 2]:\n    sum += value",
    "raise SystemExit(3)",
    "labels = ['a', 'b']\ncurve = 3",  # names a test cell assigns for itself
    "if __name__ == '__main__':\n    pass",
]


@pytest.mark.parametrize("source", ALLOWED, ids=list(range(len(ALLOWED))))
def test_the_scan_lets_ordinary_code_through(source: str) -> None:
    assert scan_source(source, "cell", _protected()) == []


def test_only_harmless_modules_may_be_imported() -> None:
    assert {"numpy", "math", "matplotlib"} <= ALLOWED_MODULES
    assert not ALLOWED_MODULES & {
        "os",
        "sys",
        "builtins",
        "importlib",
        "rooflinekit",
        "subprocess",
        "ctypes",
        "io",
    }


def _protected() -> Any:
    from rooflinekit.autograde.scan import protected_names

    structure = structure_of("ex3_roofline_plot")
    code = [c for c in structure.cells if c.locked and c.cell_type == "code"]
    return protected_names([c.source for c in code if not c.grade], [c.source for c in code if c.grade])


# --- Planning and sanitizing --------------------------------------------------------------------


EX5 = "ex5_h100_threshold"


def sanitized(nb: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, tuple[str, ...]]:
    structure = structure_of(EX5)
    the_plan = plan(nb.cells, structure)
    nb = copy.deepcopy(nb)
    apply_plan(nb, the_plan)
    return nb, the_plan.problems


ROLE = ("grade", "grade_id", "locked", "solution", "task", "points")


def known_cells(nb: nbformat.NotebookNode) -> list[tuple[str, str, dict[str, Any]]]:
    """Each cell with nbgrader metadata: its grade id, type and role (what nbgrader grades by)."""
    return [
        (
            c.metadata.nbgrader.grade_id,
            c.cell_type,
            {k: v for k, v in c.metadata.nbgrader.items() if k in ROLE},
        )
        for c in nb.cells
        if "nbgrader" in c.metadata
    ]


def test_an_untouched_submission_needs_nothing_put_right() -> None:
    nb = model(EX5)
    fixed, problems = sanitized(nb)
    assert problems == ()
    assert known_cells(fixed) == known_cells(nb)


def test_deleted_edited_and_relabelled_cells_are_put_back_as_released() -> None:
    release = nbformat.read(RELEASE / f"{EX5}.ipynb", as_version=4)
    nb = model(EX5)
    by_id = {c.metadata.nbgrader.grade_id: c for c in nb.cells if "nbgrader" in c.metadata}
    by_id["ex5_dense_peak"].source = "assert True"
    by_id["ex5_dense_peak"].metadata.nbgrader.points = 100
    by_id["ex5_hbm_bandwidth"].metadata.nbgrader.update(grade=False, locked=False, solution=True)
    by_id["ex5_global_batch"].metadata.nbgrader.grade_id = "bonus"
    nb.cells.remove(by_id["ex5_critical_answer"])
    nb.cells.remove(by_id["ex5_critical_batch"])
    fixed, problems = sanitized(nb)
    assert known_cells(fixed) == known_cells(release)
    joined = " | ".join(problems)
    for words in (
        "test cell 'ex5_dense_peak' was edited (restored)",
        "test cell 'ex5_dense_peak' had its points changed to 100 (restored)",
        "test cell 'ex5_hbm_bandwidth' had its nbgrader flags changed (grade, locked, solution; restored)",
        "unknown part ('bonus'; ignored)",
        "answer cell 'ex5_critical_answer' was deleted (put back, empty)",
        "test cell 'ex5_critical_batch' was deleted (put back)",
        "test cell 'ex5_global_batch' was deleted (put back)",
    ):
        assert words in joined
    restored = [
        c for c in fixed.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex5_critical_answer"
    ]
    assert restored[0].source == structure_of(EX5).cell("ex5_critical_answer").released
    nbformat.validate(fixed)


def test_of_two_cells_with_one_id_the_last_keeps_it_and_the_other_runs_as_written() -> None:
    nb = model(EX5)
    fake = copy.deepcopy(
        next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex5_dense_peak")
    )
    fake.source = "assert True"
    nb.cells.append(fake)
    the_plan = plan(nb.cells, structure_of(EX5))
    last = len(nb.cells) - 1
    assert the_plan.kept[last] == "ex5_dense_peak" and not the_plan.runs_as_written(last, fake)
    (earlier,) = the_plan.stripped
    assert the_plan.runs_as_written(earlier, nb.cells[earlier])
    assert (
        "2 cells carry the id of test cell 'ex5_dense_peak' (only the last one keeps it)" in the_plan.problems
    )


def test_malformed_nbgrader_metadata_is_dropped_and_the_cell_runs_as_written() -> None:
    nb = model(EX5)
    weird = [[], {}, "grade", {"grade": True, "points": 100}, {"grade_id": 7}]
    for metadata in weird:
        nb.cells.append(nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": metadata}))
    fixed, problems = sanitized(nb)
    assert all("nbgrader" not in c.metadata for c in fixed.cells[-len(weird) :])
    assert sum("unknown part" in p for p in problems) == 3  # the empty ones go without a word
    assert known_cells(fixed) == known_cells(model(EX5))


def test_the_plan_tells_which_cells_run_as_the_student_wrote_them() -> None:
    nb = model(EX5)
    nb.cells.insert(3, nbformat.v4.new_code_cell("scratch = 1"))
    the_plan = plan(nb.cells, structure_of(EX5))
    running = [
        c.metadata.get("nbgrader", {}).get("grade_id", "added")
        for i, c in enumerate(nb.cells)
        if the_plan.runs_as_written(i, c)
    ]
    assert running == [
        "added",
        "ex5_figures",
        "ex5_peak_answer",
        "ex5_bandwidth_answer",
        "ex5_critical_answer",
        "ex5_global_answer",
    ]


# --- Reading submitted files --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "not a notebook: the file is empty"),
        (b"{not json", "not a notebook: invalid JSON (line 1, column 2"),
        (b"\xff\xfe\x00", "not a notebook: not UTF-8 text"),
        (b'{"cells": 3}', "not a notebook: JSON without a list of cells"),
        (b"[1, 2]", "not a notebook: JSON without a list of cells"),
        (b'{"cells": [], "nbformat": 4, "nbformat_minor": 5}', "not a valid notebook"),
    ],
)
def test_a_file_that_is_not_a_notebook_is_named_for_what_it_is(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "ex1.ipynb"
    path.write_bytes(content)
    result = read_submission(path)
    assert result.notebook is None and result.problem is not None and result.problem.startswith(problem)


def test_a_link_or_a_special_file_is_never_read(tmp_path: Path) -> None:
    (tmp_path / "link.ipynb").symlink_to(SOLUTIONS / f"{EX5}.ipynb")
    assert read_submission(tmp_path / "link.ipynb").problem == "not read: a symbolic link, not a file"
    os.mkfifo(tmp_path / "fifo.ipynb")  # reading it would block the grader
    assert read_submission(tmp_path / "fifo.ipynb").problem == "not read: not a regular file"
    (tmp_path / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    assert read_submission(tmp_path / "deep.ipynb").problem == "not a notebook: JSON nested too deeply"


def test_a_notebook_with_format_slips_is_repaired_in_memory_only(tmp_path: Path) -> None:
    data = json.loads((RELEASE / f"{EX5}.ipynb").read_text())
    data["cells"][0]["bogus"] = True
    path = tmp_path / "ex5.ipynb"
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    result = read_submission(path)
    assert result.problem is None and result.notes == ("notebook format slips repaired",)
    assert len(result.notebook.cells) == len(data["cells"])
    assert path.read_bytes() == before
    assert read_submission(tmp_path / "absent.ipynb").problem == "missing"


# --- Records and checking them outside the kernel ----------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        0.1,
        -0.0,
        float("inf"),
        7,
        2**70,
        "memory",
        None,
        True,
        np.arange(5),
        np.array(2.5),
        np.full((2, 3), 1e300),
    ],
    ids=repr,
)
def test_records_round_trip_exactly(value: Any) -> None:
    back = records.decode(json.loads(json.dumps(records.encode(value))))
    if isinstance(value, np.ndarray):
        assert (
            back.shape == value.shape and back.dtype.kind == value.dtype.kind and np.array_equal(back, value)
        )
    else:
        assert back == value and type(back) is type(value)
    assert records.decode(records.encode(float("nan"))) != records.decode(records.encode(float("nan")))


@pytest.mark.parametrize(
    "data", [{"t": "pickle"}, {"t": "array", "dtype": "object", "shape": [1], "data": ""}, "x", None]
)
def test_anything_else_is_not_a_record(data: Any) -> None:
    with pytest.raises(records.RecordError):
        records.decode(data)


SEED = "5eed"


def function_record(question: grading.FunctionQuestion, function: Any, seed: str = SEED) -> dict[str, Any]:
    cases = grading.function_cases(question, records.grading_rng(question.name, seed))
    results = [grading.as_array(function(*case), "r") for case in cases]
    return {
        "kind": "function",
        "question": question.name,
        "fields": records.encode({"cases": cases, "results": results}),
    }


def value_record(question: grading.ValueQuestion, answer: Any) -> dict[str, Any]:
    return {"kind": "value", "question": question.name, "fields": records.encode({"answer": answer})}


BYTES_READ = hidden_checks("assert_function(bytes_read, EX1.bytes_read)")
CRITICAL = hidden_checks("assert_value(critical_batch, EX1.critical_batch)")


def test_a_right_answer_checks_out_outside_the_kernel() -> None:
    assert (
        verify_records(
            BYTES_READ, [function_record(answer_key.EX1.bytes_read, reference.ex1_bytes_read)], SEED
        )
        is None
    )
    assert (
        verify_records(
            CRITICAL, [value_record(answer_key.EX1.critical_batch, reference.ex1_critical_batch())], SEED
        )
        is None
    )


def test_a_wrong_answer_recorded_as_passed_does_not_check_out() -> None:
    wrong = function_record(answer_key.EX1.bytes_read, lambda B, D, F: 2 * reference.ex1_bytes_read(B, D, F))
    assert "not when checked outside it (bytes_read(" in str(verify_records(BYTES_READ, [wrong], SEED))
    right = value_record(answer_key.EX1.critical_batch, reference.ex1_critical_batch())
    doubled = value_record(answer_key.EX1.critical_batch, 2 * reference.ex1_critical_batch())
    assert "critical_batch = " in str(verify_records(CRITICAL, [right, doubled], SEED))


def test_a_check_that_left_no_record_did_not_run() -> None:
    assert "left no record" in str(verify_records(BYTES_READ, [], SEED))
    other = value_record(answer_key.EX1.critical_batch, reference.ex1_critical_batch())
    assert "left no record" in str(verify_records(BYTES_READ, [other], SEED))


def test_a_record_must_hold_the_sizes_drawn_for_this_student_and_plain_numbers() -> None:
    elsewhere = function_record(answer_key.EX1.bytes_read, reference.ex1_bytes_read, seed="07e4")
    assert "other sizes" in str(verify_records(BYTES_READ, [elsewhere], SEED))
    as_int = value_record(answer_key.EX1.critical_batch, round(reference.ex1_critical_batch()))
    assert verify_records(CRITICAL, [as_int], SEED) is not None  # the kernel records floats only


def test_records_hold_the_checked_sizes_even_when_the_function_changes_its_arguments() -> None:
    def vandal(B: Any, D: int) -> Any:
        if isinstance(B, np.ndarray):
            B[...] = 10**6
        return np.full(np.shape(B), reference.EX2_CHIP.peak("bf16"))

    with pytest.raises(grading.AnswerError):
        grading.assert_function(vandal, answer_key.EX3.attainable, np.random.default_rng(0))
    assert reference.EX3_BATCHES[-1] == 511 and not reference.EX3_BATCHES.flags.writeable


# --- The sandbox and the command line -----------------------------------------------------------


@pytest.mark.skipif(
    __import__("rooflinekit.autograde.sandbox", fromlist=["x"]).landlock_abi() < 6,
    reason="needs Linux Landlock ABI 6 (files from Linux 5.13, signals from 6.12)",
)
def test_a_confined_process_reads_and_writes_only_what_it_is_given(tmp_path: Path) -> None:
    secret, allowed = tmp_path / "secret.txt", tmp_path / "run"
    secret.write_text("the model answers")
    allowed.mkdir()
    program = textwrap.dedent(
        f"""
        import os, socket, sys
        from rooflinekit.autograde import sandbox
        from rooflinekit.autograde.kernel import readable_paths
        sandbox.confine(read=readable_paths([]), write=[{str(allowed)!r}])
        def attempt(what, action):
            try:
                action()
                print(what, "allowed")
            except OSError as error:
                print(what, "denied", type(error).__name__)
        attempt("read secret", lambda: open({str(secret)!r}).read())
        attempt("write run", lambda: open({str(allowed / "x.txt")!r}, "w").write("x"))
        attempt("write secret dir", lambda: open({str(tmp_path / "y.txt")!r}, "w").write("y"))
        attempt("signal parent", lambda: os.kill(os.getppid(), 0))
        attempt("connect", lambda: socket.create_connection(("127.0.0.1", 9), timeout=1))
        import numpy
        print("numpy", numpy.ones(2).sum())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.splitlines() == [
        "read secret denied PermissionError",
        "write run allowed",
        "write secret dir denied PermissionError",
        "signal parent denied PermissionError",
        "connect denied PermissionError",
        "numpy 2.0",
    ]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rooflinekit.autograde", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_command_line_says_what_is_missing(tmp_path: Path) -> None:
    done = run_cli("roofline", "--course", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip().startswith("autograde: no gradebook at")
    assert "make exercises" in done.stderr and "Traceback" not in done.stderr
    done = run_cli("roofline", "--jobs", "two")
    assert done.returncode == 2 and "should be a whole number, not 'two'" in done.stderr


def test_the_guide_states_the_time_limits_grading_uses() -> None:
    from traitlets.config.loader import PyFileConfigLoader

    from rooflinekit.autograde.driver import BUDGET_FACTOR

    timeout = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config().Execute.timeout
    guide = " ".join((ROOT / "book" / "instructor-guide.md").read_text().split())
    assert f"A cell may run `c.Execute.timeout` seconds ({timeout}, in `nbgrader_config.py`)" in guide
    assert f"a notebook {BUDGET_FACTOR} times that" in guide


def test_importing_rooflinekit_loads_no_grading_machinery() -> None:
    heavy = ("nbgrader", "rooflinekit.autograde", "IPython")
    probe = f"import rooflinekit.grading, sys; print(sorted(m for m in sys.modules if m.startswith({heavy})))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
