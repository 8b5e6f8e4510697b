"""How long from ``make hub`` to a student's first fetch on the class's JupyterHub?

What an instructor waits for before the class can start, and what a student waits for after
logging in. Run as root (it creates two system users, an instructor and a student, and removes
them): each run starts ``make hub`` on a free loopback port with a course folder of its own, the
instructor releases (``make hub-release``), and the student logs in with a password, starts the
Lab and fetches the assignment through the Assignment List's API. The split, medians over the runs:

- start: ``make hub`` until the hub answers (the environment already installed: make's stamp);
- release: ``make hub-release`` as the instructor;
- spawn: the student's login and Lab start, until the Lab's page answers;
- fetch: the Assignment List's *Fetch*;
- total: ``make hub`` to the fetched notebooks (start + release + spawn + fetch).

With ``--cold``, the first run installs the student environment and the proxy first (the hub's
folder removed), and that install is printed on a line of its own (once: it is what a first
``make hub`` on a new machine adds).

    sudo python benchmarks/bench_hub.py [--runs 3] [--cold]
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.hub import (  # noqa: E402
    HUB_DIR,
    Login,
    instructor_environment,
    running_hub,
    system_users,
)
from tests.support.make_targets import command  # noqa: E402

INSTRUCTOR, STUDENT = "rkbench-prof", "rkbench-ann"
STEPS = ("start", "release", "spawn", "fetch", "total")


def course_folder(base: Path) -> Path:
    """A course folder of the instructor's own, private: the checkout's config and released notebooks."""
    course = base / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "exercises", course / "exercises")
    subprocess.run(["chown", "-R", f"{INSTRUCTOR}:", str(course)], check=True)
    course.chmod(0o700)
    return course


def one_run(passwords: dict[str, str]) -> dict[str, float]:
    """The seconds of each step of one run (see the module's docstring)."""
    base = Path(tempfile.mkdtemp(prefix="rkbench-", dir="/tmp"))
    base.chmod(0o755)
    try:
        course, instructor_bin = course_folder(base), instructor_environment(base / "instructor-env")
        started = time.perf_counter()
        with running_hub(base, course, instructor_bin) as hub:
            up = time.perf_counter()
            release = command("hub-release", course=course, EXCHANGE=str(hub.exchange))
            release = [f"BIN={instructor_bin}" if part.startswith("BIN=") else part for part in release]
            subprocess.run(["runuser", "-u", INSTRUCTOR, "--", *release], check=True, capture_output=True)
            released = time.perf_counter()
            student = Login(hub, STUDENT, passwords[STUDENT])
            student.spawn()
            spawned = time.perf_counter()
            fetched = student.post(
                "assignments/fetch", {"course_id": "roofline", "assignment_id": "roofline"}
            )
            assert fetched.json()["success"] is True, fetched.text
            done = time.perf_counter()
        return {
            "start": up - started,
            "release": released - up,
            "spawn": spawned - released,
            "fetch": done - spawned,
            "total": done - started,
        }
    finally:
        shutil.rmtree(base, ignore_errors=True)


def cold_install() -> float:
    """Seconds ``make hub-install`` takes into an empty hub folder."""
    shutil.rmtree(HUB_DIR, ignore_errors=True)
    started = time.perf_counter()
    install = command("hub-install", HUB_DIR=str(HUB_DIR))
    subprocess.run(install, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--cold", action="store_true", help="install the hub's environment first, and time it"
    )
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench_hub: run as root (it creates system users and starts the hub): sudo python ...")
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} (1 min)")
    if args.cold:
        print(f"install (make hub-install, once, into an empty {HUB_DIR}): {cold_install():.1f} s")
    passwords = {INSTRUCTOR: secrets.token_urlsafe(12), STUDENT: secrets.token_urlsafe(12)}
    with system_users(passwords, {STUDENT: "nbgrader-roofline"}):
        runs = [one_run(passwords) for _ in range(args.runs)]
    for step in STEPS:
        values = [run[step] for run in runs]
        each = ", ".join(f"{v:.2f}" for v in values)
        print(f"{step:>8}: median {statistics.median(values):6.2f} s  (runs: {each})")
    total = statistics.median(run["total"] for run in runs)
    spawn = statistics.median(run["spawn"] for run in runs)
    print(f"the student's Lab start is {spawn / total:.0%} of the time from make hub to the first fetch")


if __name__ == "__main__":
    main()
