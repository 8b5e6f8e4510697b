"""The sandbox (roofline_grading.sandbox: the real launcher and bubblewrap) hides the course, the
grader's environment, other processes and the network; memory and process limits hold for a
whole process tree, with a cgroup and with the watchdog, and no process outlives its notebook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

import roofline_recorder
from roofline_grading.sandbox import bwrap, fork, launch, limits
from tests.support.graded_notebooks import ROOT


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
    # A duration no other test sleeps for: the hostile class graded beside this test (another
    # worker) starts `sleep 600` in its own sandbox, and pgrep looks at the whole machine.
    duration = f"600.{os.getpid()}"
    program = f"""
        import subprocess, time
        started = 0
        for _ in range(30):
            try:
                subprocess.Popen(["sleep", "{duration}"], start_new_session=True)
                started += 1
            except OSError:
                pass
        print("started", started)
        time.sleep(3)  # long enough for a watchdog to look
    """
    sandboxed(tmp_path, program, group=group)
    events = group.close()
    assert any(e.startswith("process limit hit") for e in events), events
    sleeping = subprocess.run(["pgrep", "-f", f"sleep {duration}"], capture_output=True, text=True)
    assert sleeping.stdout == "", "a process outlived its notebook"


def test_the_warm_launcher_run_as_jupyter_runs_it_writes_only_to_the_kernels_log(tmp_path: Path) -> None:
    # fork.py run with -I -S (autograde/kernels.py) finds the cold launcher's start beside it: its
    # failure to reach a template that is not there goes to the kernel's log, not to the grader.
    settings = {"log": str(tmp_path / "log.txt"), "parent": os.getpid(), "handed": []}
    settings |= {"runtime": str(tmp_path), "template": str(tmp_path / "no-template.sock")}
    (tmp_path / "launch.json").write_text(json.dumps(settings))
    done = subprocess.run(
        [sys.executable, "-I", "-S", fork.__file__, str(tmp_path / "launch.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "")
    assert "FileNotFoundError" in (tmp_path / "log.txt").read_text()
