"""The grading driver's parts, each on its own and without grading a class.

The plan puts back deleted and edited cells exactly as the release has them; the pre-check names
what is wrong with a file; records round-trip exactly and anything else is refused; the audit
hook reports what cell code tries and nothing the kernel does itself; the sandbox (the real
launcher and bubblewrap) hides the course, the grader's environment, other processes and the
network; memory and process limits hold for a whole process tree, with a cgroup and with the
watchdog, and no process outlives its notebook; the command line says what is wrong.
"""

from __future__ import annotations

import ast
import copy
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest

import roofline_recorder
from roofline_grading.autograde.events import EventChannel
from roofline_grading.autograde.judging import recorded_questions
from roofline_grading.autograde.precheck import read_submission
from roofline_grading.autograde.structure import NotebookStructure, SourceCell, apply_plan, plan
from roofline_grading.sandbox import bwrap, launch, limits
from roofline_recorder.audit import Monitor
from roofline_recorder.encode import RecordError, decode, encode

ROOT = Path(__file__).resolve().parents[2]
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


def test_a_test_cell_moved_above_the_cells_it_needs_is_put_back_after_them() -> None:
    """A student who moves a hidden test above its answer (or above a helper the answer needs)
    would lose the part to a NameError: the test cell goes back where the release runs it."""
    nb = model(EX5)
    by_id = {c.metadata.nbgrader.grade_id: c for c in nb.cells if "nbgrader" in c.metadata}
    nb.cells.remove(by_id["ex5_critical_batch"])
    nb.cells.insert(nb.cells.index(by_id["ex5_peak_answer"]), by_id["ex5_critical_batch"])
    extra = nbformat.v4.new_code_cell("note = 'a cell of my own'")
    nb.cells.insert(nb.cells.index(by_id["ex5_global_answer"]) + 1, extra)
    fixed, problems = sanitized(nb)
    order = [c.metadata.get("nbgrader", {}).get("grade_id", c.source) for c in fixed.cells]
    position = order.index
    assert position("ex5_critical_answer") < position("ex5_critical_batch") < position("ex5_global_answer")
    assert order.index("ex5_global_answer") + 1 == order.index(extra.source)  # the student's own cell stays
    moved = "test cell 'ex5_critical_batch' was moved above answer cell 'ex5_critical_answer'"
    assert f"{moved} (put back after it)" in problems


def test_of_two_cells_with_one_id_the_last_keeps_it_and_the_other_loses_its_role() -> None:
    nb = model(EX5)
    fake = copy.deepcopy(
        next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex5_dense_peak")
    )
    fake.source = "assert True"
    nb.cells.append(fake)
    the_plan = plan(nb.cells, structure_of(EX5))
    assert the_plan.kept[len(nb.cells) - 1] == "ex5_dense_peak"
    assert len(the_plan.stripped) == 1
    assert (
        "2 cells carry the id of test cell 'ex5_dense_peak' (only the last one keeps it)" in the_plan.problems
    )


def test_malformed_nbgrader_metadata_is_dropped() -> None:
    nb = model(EX5)
    weird = [[], {}, "grade", {"grade": True, "points": 100}, {"grade_id": 7}]
    for metadata in weird:
        nb.cells.append(nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": metadata}))
    fixed, problems = sanitized(nb)
    assert all("nbgrader" not in c.metadata for c in fixed.cells[-len(weird) :])
    assert sum("unknown part" in p for p in problems) == 3  # the empty ones go without a word
    assert known_cells(fixed) == known_cells(model(EX5))


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


# --- Records --------------------------------------------------------------------------------


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
    back = decode(json.loads(json.dumps(encode(value))))
    if isinstance(value, np.ndarray):
        assert (
            back.shape == value.shape and back.dtype.kind == value.dtype.kind and np.array_equal(back, value)
        )
    else:
        assert back == value and type(back) is type(value)
    assert decode(encode(float("nan"))) != decode(encode(float("nan")))


def nested(depth: int) -> Any:
    data: Any = {"t": "none"}
    for _ in range(depth):
        data = {"t": "list", "v": [data]}
    return data


@pytest.mark.parametrize(
    "data",
    [
        {"t": "pickle"},
        {"t": "array", "dtype": "object", "shape": [1], "data": ""},
        {"t": "array", "dtype": "float64", "shape": [10**9], "data": ""},
        {"t": "int", "v": 7},
        nested(50),
        "x",
        None,
    ],
    ids=["pickle", "object array", "huge array", "int not text", "deep", "text", "none"],
)
def test_anything_else_is_not_a_record(data: Any) -> None:
    with pytest.raises(RecordError):
        decode(data)


def test_the_hidden_tests_name_the_questions_they_record() -> None:
    structure = structure_of(EX5)
    asked = [recorded_questions(c.source) for c in structure.cells if c.grade]
    assert asked == [["ex5.dense_peak"], ["ex5.hbm_bandwidth"], ["ex5.critical_batch"], ["ex5.global_batch"]]


def test_an_event_channel_reads_what_the_kernel_writes_and_keeps_at_most_its_share(tmp_path: Path) -> None:
    channel = EventChannel.fifo(tmp_path / "events")
    writer = os.open(tmp_path / "events", os.O_WRONLY)
    line = json.dumps({"what": "file", "detail": "read /course/gradebook.db", "cell": 3, "line": 1})
    os.write(writer, (line + "\n").encode() + b"not json\n" + b"x" * 2_000_000)
    os.close(writer)
    events = channel.close()
    assert events[0]["detail"] == "read /course/gradebook.db"
    assert events[-1]["what"] == "more"


def test_the_audit_hook_reports_what_cell_code_tries_and_nothing_the_kernel_does_itself() -> None:
    events: list[dict[str, Any]] = []
    monitor = Monitor(events.append, readable=("/usr",), writable=("/tmp",), own_pid=os.getpid(), library=())
    monitor.active = True
    for event, args in (
        ("open", ("/course/gradebook.db", "r", 0)),
        ("open", ("/usr/lib/x.py", "r", 0)),
        ("open", ("/tmp/notes.txt", "w", 0)),
        ("open", ("/usr/lib/x.py", None, os.O_WRONLY)),
        ("open", ("/proc/1/environ", "rb", 0)),
        ("os.kill", (os.getpid(), 2)),
        ("os.kill", (1, 15)),
        ("subprocess.Popen", ("sleep", ["sleep", "9"], None, None)),
        ("socket.connect", (None, ("10.0.0.1", 80))),
        ("import", ("roofline_grading.reference", None, None, None, None)),
        ("import", ("numpy", None, None, None, None)),
    ):
        monitor.hook(event, args)
    assert [e["detail"] for e in events] == [
        "read /course/gradebook.db",
        "write /usr/lib/x.py",
        "reads /proc/1/environ, which belongs to another process",
        "sent signal 15 to process 1",
        "subprocess.Popen(sleep)",
        "socket.connect(('10.0.0.1', 80))",
        "imports roofline_grading.reference (not available when grading)",
    ]
    machinery = Monitor(events.append, readable=(), writable=(), own_pid=1, library=("/",))
    machinery.active = True
    machinery.hook("open", ("/course/gradebook.db", "r", 0))  # only library frames: the kernel's own
    assert len(events) == 7


# --- The sandbox, its limits and the command line ---------------------------------------------


def sandboxed(tmp_path: Path, program: str, *, group: Any = None, sandbox: bool = True) -> str:
    """Run ``program`` as a grading kernel is run (the launcher, then bubblewrap), and return what
    it printed. A variable of the grader's, GRADER_TOKEN, is set for the launcher."""
    runtime, recorder = tmp_path / "runtime", Path(roofline_recorder.__file__).parent
    runtime.mkdir()
    session = tmp_path / "session.json"
    session.write_text("{}")
    prefixes = bwrap.python_prefixes()
    layout = bwrap.Layout(
        python=sys.executable,
        prefixes=prefixes,
        runtime=str(runtime),
        recorder=str(recorder),
        session=str(session),
        masks=bwrap.masks(prefixes, str(bwrap.write_stub(tmp_path / "stub"))),
    )
    run = [sys.executable, "-c", textwrap.dedent(program)]
    settings = {
        "cgroup_procs": group.procs_files() if group else [],
        "rlimits": limits.Limits().rlimits(memory=group is None or group.kind == "watchdog"),
        "log": str(tmp_path / "log.txt"),
        "environment": {"PATH": os.defpath, "PYTHONPATH": str(recorder.parent)},
    }
    (tmp_path / "launch.json").write_text(json.dumps(settings))
    command = bwrap.command(layout, run) if sandbox else run
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", launch.__file__, str(tmp_path / "launch.json"), "--", *command],
        env={**os.environ, "GRADER_TOKEN": "s3cret-token"},
    )
    if group:
        group.watch(process.pid)
    process.wait(timeout=120)
    return (tmp_path / "log.txt").read_text()


def test_bubblewrap_is_here() -> None:
    assert bwrap.available() is None, "install bubblewrap (.ci/run does): the sandbox tests need it"


def test_a_sandboxed_kernel_sees_no_course_no_grader_and_no_network(tmp_path: Path) -> None:
    secret = tmp_path / "solutions.txt"
    secret.write_text("the model answers")
    program = f"""
        import os, socket
        def attempt(what, action):
            try:
                print(what, "->", action())
            except Exception as error:
                print(what, "-> denied", type(error).__name__)
        attempt("read next to the course", lambda: open({str(secret)!r}).read())
        attempt("read the repository", lambda: len(open({str(ROOT / "README.md")!r}).read()))
        attempt("import rooflinekit", lambda: __import__("rooflinekit").__name__)
        attempt("import roofline_grading", lambda: __import__("roofline_grading.answer_key").__name__)
        attempt("token in environment", lambda: "GRADER_TOKEN" in os.environ)
        attempt("token in /proc/1", lambda: b"s3cret-token" in open("/proc/1/environ", "rb").read())
        attempt("processes", lambda: sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
        attempt("connect", lambda: socket.create_connection(("1.1.1.1", 53), timeout=2))
        attempt("write /usr", lambda: open("/usr/x", "w"))
        attempt("write home", lambda: open("notes.txt", "w").write("ok"))
        import numpy
        print("numpy", numpy.ones(2).sum())
    """
    printed = sandboxed(tmp_path, program).splitlines()
    assert printed == [
        "read next to the course -> denied FileNotFoundError",
        "read the repository -> denied FileNotFoundError",
        "import rooflinekit -> denied ModuleNotFoundError",
        "import roofline_grading -> denied ModuleNotFoundError",
        "token in environment -> False",
        "token in /proc/1 -> False",
        "processes -> [1]",  # itself alone: the sandbox's first process (its keeper, when a kernel)
        "connect -> denied OSError",
        "write /usr -> denied OSError",
        "write home -> 2",
        "numpy 2.0",
    ]


def test_a_course_package_installed_beside_numpy_is_masked_with_a_clear_message(tmp_path: Path) -> None:
    fake_site = tmp_path / "site"
    (fake_site / "course_answers").mkdir(parents=True)
    (fake_site / "course_answers" / "__init__.py").write_text("ANSWER = 42\n")
    stub = bwrap.write_stub(tmp_path / "stub")
    sys.path.insert(0, str(fake_site))
    try:
        found = bwrap.masks([str(fake_site)], str(stub), names=["course_answers"])
    finally:
        sys.path.remove(str(fake_site))
    assert found == ((str(stub), str((fake_site / "course_answers").resolve())),)
    argv = bwrap.command(
        bwrap.Layout(
            python="/usr/bin/python3",
            prefixes=(str(fake_site),),
            runtime="/r",
            recorder="/x",
            session="/s",
            masks=found,
        )
    )
    assert ["--ro-bind", str(stub), str((fake_site / "course_answers").resolve())] == argv[
        argv.index(str(stub)) - 1 : argv.index(str(stub)) + 2
    ]
    done = subprocess.run([sys.executable, "-c", "import stub"], cwd=tmp_path, capture_output=True, text=True)
    assert "not available when grading: answers may use numpy, math and matplotlib" in done.stderr


@pytest.mark.grading
@pytest.mark.parametrize("prefer", ["auto", "watchdog"])
def test_memory_is_limited_for_the_whole_process_tree(tmp_path: Path, prefer: str) -> None:
    group = limits.open_group("test", limits.Limits(memory_bytes=600 * 2**20), prefer=prefer)
    if prefer == "auto":
        assert group.kind.startswith("cgroup"), "this machine lets root make a cgroup: the tests use one"
    program = """
        import multiprocessing, time
        def hog():
            block = bytearray(400 * 2**20)  # 400 MB each: two of them are over the 600 MB the tree may use
            for i in range(0, len(block), 4096):
                block[i] = 1
            time.sleep(5)
        if __name__ == "__main__":
            children = [multiprocessing.Process(target=hog) for _ in range(2)]
            for child in children:
                child.start()
            for child in children:
                child.join()
            print("exit codes", sorted(child.exitcode for child in children))
    """
    started = time.monotonic()
    printed = sandboxed(tmp_path, program, group=group)
    events = group.close()
    assert any(e.startswith("memory limit hit") for e in events), (events, printed)
    assert time.monotonic() - started < 30


@pytest.mark.grading
@pytest.mark.parametrize("prefer", ["auto", "watchdog"])
def test_processes_are_limited_for_the_whole_tree_and_none_outlives_it(tmp_path: Path, prefer: str) -> None:
    group = limits.open_group("test", limits.Limits(processes=8), prefer=prefer)
    program = """
        import subprocess, time
        started = 0
        for _ in range(30):
            try:
                subprocess.Popen(["sleep", "600"], start_new_session=True)
                started += 1
            except OSError:
                pass
        print("started", started)
        time.sleep(3)  # long enough for a watchdog to look
    """
    sandboxed(tmp_path, program, group=group)
    events = group.close()
    assert any(e.startswith("process limit hit") for e in events), events
    sleeping = subprocess.run(["pgrep", "-f", "sleep 600"], capture_output=True, text=True)
    assert sleeping.stdout == "", "a process outlived its notebook"


def run_cli(*args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path} if path is not None else None
    return subprocess.run(
        [sys.executable, "-m", "roofline_grading.autograde", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


@pytest.mark.grading
def test_the_command_line_says_what_is_missing(tmp_path: Path) -> None:
    done = run_cli("roofline", "--course", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip().startswith("autograde: no gradebook at")
    assert "make exercises" in done.stderr and "Traceback" not in done.stderr
    done = run_cli("roofline", "--jobs", "two")
    assert done.returncode == 2 and "should be a whole number, not 'two'" in done.stderr
    done = run_cli("roofline", "--memory-gb", "0")
    assert done.returncode == 2 and "should be from 0.25 to 1024, not 0" in done.stderr
    done = run_cli("roofline", "--processes", "8")  # the kernel alone needs about 15
    assert done.returncode == 2 and "should be from 32 to 100000, not 8" in done.stderr
    done = run_cli("roofline", "--timeout", "0")
    assert done.returncode == 2 and "should be from 1 to" in done.stderr


@pytest.fixture
def deep_tmp(tmp_path: Path) -> Path:
    """A folder whose path alone is longer than a Unix socket's path may be (108 bytes)."""
    deep = tmp_path / ("a-course-folder-deep-in-the-instructors-home-" * 3)
    deep.mkdir()
    assert len(os.fsencode(deep)) > 108
    return deep


@pytest.mark.grading
def test_a_kernel_that_cannot_start_is_reported_with_its_own_words(tmp_path: Path, deep_tmp: Path) -> None:
    """The driver starts one kernel before grading anyone: a sandbox that cannot start one (here,
    the recorder's folder is missing) stops the run with bubblewrap's own complaint. A run folder
    deeper than a socket's path may be is no such reason: the kernel's sockets live elsewhere."""
    from roofline_grading.autograde import kernels

    settings = {
        "mode": "bwrap",
        "recorder": str(tmp_path / "no-such-recorder"),
        "prefixes": list(bwrap.python_prefixes()),
    }
    why = kernels.check_start(settings, "ex5_h100_threshold", deep_tmp / "run", timeout=30)
    assert why is not None and why.startswith("the grading kernel did not start")
    assert "no-such-recorder" in why  # bwrap says which path it could not bind
    good = {**settings, "recorder": str(Path(roofline_recorder.__file__).parent)}
    assert kernels.check_start(good, "ex5_h100_threshold", deep_tmp / "run2") is None
    assert sorted(p.name for p in (deep_tmp / "run2").iterdir()) == []  # each kernel's folder, removed


def test_with_no_short_folder_for_the_sockets_the_run_is_refused_saying_what_to_set(
    deep_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from roofline_grading.autograde import kernels

    anywhere = kernels.runtime_folder
    monkeypatch.setattr(kernels, "runtime_folder", lambda: anywhere((str(deep_tmp),)))  # as if /tmp were deep
    settings = {"mode": "bwrap", "recorder": str(Path(roofline_recorder.__file__).parent)}
    why = kernels.check_start(settings, "ex5_h100_threshold", deep_tmp / "run")
    assert why is not None and why.startswith("the grading kernel cannot start: no folder to hold")
    assert str(deep_tmp) in why and "set TMPDIR to a short writable folder" in why


@pytest.mark.grading
def test_without_bubblewrap_grading_is_refused_unless_told_and_says_what_that_risks(tmp_path: Path) -> None:
    done = run_cli("roofline", "--course", str(tmp_path), path=str(Path(sys.executable).parent))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "bubblewrap (bwrap) is not installed" in done.stderr
    assert "--sandbox off" in done.stderr and "can read and change your files" in done.stderr
    done = run_cli(
        "roofline", "--course", str(tmp_path), "--sandbox", "off", path=str(Path(sys.executable).parent)
    )
    assert done.returncode == 2 and "no gradebook at" in done.stderr  # past the sandbox check


def test_the_guide_states_the_time_limits_grading_uses() -> None:
    from traitlets.config.loader import PyFileConfigLoader

    from roofline_grading.autograde.driver import BUDGET_FACTOR

    timeout = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config().Execute.timeout
    guide = " ".join((ROOT / "book" / "instructor-guide.md").read_text().split())
    assert f"A cell may run `c.Execute.timeout` seconds ({timeout}, in `nbgrader_config.py`)" in guide
    assert f"a notebook {BUDGET_FACTOR} times that" in guide


def test_rooflinekit_never_loads_the_grading_machinery() -> None:
    heavy = ("nbgrader", "roofline_grading", "roofline_recorder", "IPython")
    probe = (
        f"import rooflinekit.exercises, sys; print(sorted(m for m in sys.modules if m.startswith({heavy})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    for path in (ROOT / "rooflinekit").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.split(".")[0] in heavy for n in names), f"{path} imports {names}"
