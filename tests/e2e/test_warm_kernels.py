"""Warm kernels (``make autograde KERNELS=warm``), with real nbgrader and the real sandbox: what a
notebook does to its kernel never reaches the next student's, and a template that ends leaves
grading to cold kernels.

A meddling student patches numpy and a builtin, leaves a global, writes under /tmp, /dev/shm, /dev
and the home folder, starts a background process, changes directory, ignores a signal and leaves a
key in the session keyring (the grader holds one, as a login or a service does); the student
graded after them on the same worker (one worker: the order is the driver's, largest submission
first) looks for all of it, and gets a graded notebook byte-identical to the one a cold run gives
them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from roofline_grading.sandbox import bwrap
from tests.support.make_targets import make
from tests.support.slips import ASSIGNMENT, answered

pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("warm")]

EX1 = "ex1_int8_matmul"
KEYRING_CALLS = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {"x86_64": (248, 250), "aarch64": (217, 219)}[os.uname().machine]
"""
"""The system calls of the kernel's keyrings, as a notebook reaches them."""
MEDDLE = (
    KEYRING_CALLS
    + """
import builtins, math, os, signal, subprocess
import numpy as np
np.sum = lambda *a, **k: 42
math.sqrt = lambda x: 7
builtins.LEFT_BEHIND = "meddler"
for place in ("/tmp", "/dev/shm", os.path.expanduser("~"), "/dev"):
    with open(os.path.join(place, "left-behind.txt"), "w") as handle:
        handle.write("meddler")
subprocess.Popen(["sleep", "300"], start_new_session=True)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
os.chdir("/tmp")
libc.syscall(add_key, b"user", b"left-behind", b"meddler", 7, -3)  # -3: the session keyring
# padding, so that this submission is the larger one and graded first:
"""
    + "\n".join(f"# {'x' * 70}" for _ in range(40))
)
LOOK = (
    KEYRING_CALLS
    + """
import builtins, os, random
import numpy as np
processes = [p for p in os.listdir("/proc") if p.isdigit()]
commands = sorted(open(f"/proc/{p}/cmdline", "rb").read().split(b"\\0")[0].decode() for p in processes)
import math
print("numpy sum:", np.sum([1, 2]), "| sqrt:", math.sqrt(4), "| global:", hasattr(builtins, "LEFT_BEHIND"))
print("tmp:", sorted(os.listdir("/tmp")), "| home:", sorted(os.listdir(os.path.expanduser("~"))))
print("shm:", sorted(n for n in os.listdir("/dev/shm") if not n.startswith("rk-")))
print("dev:", sorted(os.listdir("/dev")))
print("cwd:", os.getcwd(), "| processes:", len(processes), "sleep" in " ".join(commands))
import subprocess, sys
print("argv:", sys.argv[0], len(sys.argv), "| environment:", sorted(os.environ))
print("a program's exit status:", subprocess.run(["sh", "-c", "exit 3"]).returncode)
print("keyring:", libc.syscall(keyctl, 10, -3, b"user", b"left-behind", 0) > 0)  # 10: KEYCTL_SEARCH
"""
)


def with_cell(source: str) -> nbformat.NotebookNode:
    nb = answered(EX1, None, "en")
    nb.cells.append(nbformat.v4.new_code_cell(source, id=f"appended-{len(source)}"))
    return nb


def graded(template: Path, name: str, kernels: str) -> Path:
    course = template.parent / name
    shutil.copytree(template, course)
    for student, source in (("meddler", MEDDLE), ("next", LOOK)):
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(with_cell(source), folder / f"{EX1}.ipynb")
    done = make("autograde", course=course, keys={"grader-session": "x"}, JOBS="1", KERNELS=kernels)
    (course / "first-line.txt").write_text(done.stdout.splitlines()[0])
    return course


@pytest.fixture(scope="module")
def template(released_course: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("warm") / "template"
    shutil.copytree(released_course, root)
    return root


@pytest.fixture(scope="module")
def warm(template: Path) -> Path:
    return graded(template, "warm", "warm")


@pytest.fixture(scope="module")
def cold(template: Path) -> Path:
    return graded(template, "cold", "cold")


def output_of_last_cell(course: Path, student: str) -> str:
    nb = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{EX1}.ipynb", as_version=4)
    return "".join(o.get("text", "") for o in nb.cells[-1].outputs)


def test_the_run_says_its_kernels_are_warm(warm: Path, cold: Path) -> None:
    assert "kernels: warm (forked from a template" in (warm / "first-line.txt").read_text()
    assert "kernels: cold (each started in a sandbox of its own)" in (cold / "first-line.txt").read_text()


def test_nothing_a_notebook_does_reaches_the_next_students_kernel(warm: Path) -> None:
    seen = output_of_last_cell(warm, "next")
    assert "numpy sum: 3 | sqrt: 2.0 | global: False" in seen
    # /tmp is fresh, but for the way to a Python environment that lives under it (mounted read-only
    # at its own path, as in a cold kernel's sandbox); home has IPython's folder and the font cache.
    under_tmp = sorted({Path(p).parts[2] for p in bwrap.python_prefixes() if Path(p).parts[1:2] == ("tmp",)})
    assert f"tmp: {under_tmp} | home: ['.ipython', '.matplotlib']" in seen
    assert "shm: []" in seen
    devices = ["core", "fd", "full", "null", "ptmx", "pts", "random", "shm", "stderr", "stdin", "stdout"]
    assert f"dev: {[*devices, 'tty', 'urandom', 'zero']}" in seen  # bubblewrap's, without the meddler's file
    assert "cwd: /home/student" in seen and "False" in seen.split("processes:")[1]
    assert "a program's exit status: 3" in seen  # its children are its own to wait for
    assert "keyring: False" in seen


def test_the_next_students_graded_notebook_is_the_one_a_cold_kernel_gives(warm: Path, cold: Path) -> None:
    for student in ("meddler", "next"):
        path = Path("autograded") / student / ASSIGNMENT / f"{EX1}.ipynb"
        assert (warm / path).read_bytes() == (cold / path).read_bytes(), student
    report = Path("autograded") / f"{ASSIGNMENT}-report.txt"  # after its first line and the time taken
    assert (warm / report).read_text().splitlines()[2:] == (cold / report).read_text().splitlines()[2:]
