"""How long does the suite take: `make test` and `make test-fast`, before and after, in one run.

Each revision is cloned afresh (what CI starts from), given its own `make venv` (not timed: pip's
cache makes it quick), then timed, interleaved over ``--repeat`` rounds so that machine noise
hits both alike: `make test` (every test, the book built from scratch by the suite itself) and
`make test-fast` (the unit tier). It prints each median side by side with the ratio after/before
and the aims of issue 35: the full suite no longer than when that issue was filed (1,609 s then,
at the default before revision: a ratio of at most 1.0), the unit tier under 60 s.

Each `make test` also writes a JUnit report, and the last lines add up its test times (the work
the workers shared) by test module: in the modules both revisions have, like for like, and in the
modules only the after revision has, with the modules in both that grew most. On a machine whose
cores the suite keeps busy, the wall time is that work divided by the cores. The two reports are
kept in ``_build/bench-suite/``, named by side and commit (``before-53347ee-junit.xml``).

    python benchmarks/bench_suite.py [--before REV] [--after REV] [--repeat 1] [--fast-only]

Both revisions must run on this machine as CI runs them (bubblewrap, chromium: `bash .ci/run`
installs them as root). A revision whose suite fails is reported, with its time, as failed.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import statistics
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "53347ee"
"""The revision whose `make test` took 1,609 s here when issue 35 was filed (issue 23's was 5f71c29)."""


def clone(revision: str, target: Path) -> Path:
    """A fresh clone of this repository at ``revision``, in ``target``, with its own environment."""
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(target)], check=True)
    subprocess.run(["git", "checkout", "--quiet", revision], cwd=target, check=True)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("VIRTUAL_ENV")}
    subprocess.run(["make", "venv"], cwd=target, check=True, env=environment, capture_output=True)
    return target


def junit_report(checkout: Path) -> Path:
    """Where a `make test` of ``checkout`` writes its JUnit report (beside the checkout)."""
    return checkout.parent / f"{checkout.name}-junit.xml"


def timed(checkout: Path, target: str) -> tuple[float, bool]:
    """Seconds ``make target`` takes in ``checkout`` (from a clean build), and whether it passed."""
    shutil.rmtree(checkout / "_build", ignore_errors=True)
    environment = dict(os.environ)
    if target == "test":
        environment["PYTEST_ADDOPTS"] = f"--junitxml={junit_report(checkout)}"
    start = time.perf_counter()
    done = subprocess.run(
        ["make", target], cwd=checkout, capture_output=True, text=True, check=False, env=environment
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        print(f"    {checkout.name}: make {target} failed:\n{done.stdout[-1500:]}", flush=True)
    return seconds, done.returncode == 0


def module_of(classname: str) -> str:
    """A JUnit test's module, named the same wherever the revision keeps its tests.

    >>> module_of("tests.e2e.test_grading_round"), module_of("tests.test_grading_round")
    ('test_grading_round', 'test_grading_round')
    >>> module_of("rooflinekit.explorer.transformer_static")  # a docstring's examples
    'rooflinekit.explorer.transformer_static'
    """
    return next((part for part in classname.split(".") if part.startswith("test_")), classname)


def work_by_module(report: Path) -> dict[str, float]:
    """Seconds of test time (setup, call and teardown) in each module of a JUnit report."""
    work: collections.defaultdict[str, float] = collections.defaultdict(float)
    for case in ElementTree.parse(report).iter("testcase"):
        work[module_of(case.get("classname", ""))] += float(case.get("time", "0"))
    return dict(work)


def print_work(before: Path, after: Path) -> None:
    """The test time of the last `make test` of each revision: all of it, like for like, and new."""
    if not (before.is_file() and after.is_file()):
        print("  (no JUnit report from one of the runs: no breakdown of the work)")
        return
    old, new = work_by_module(before), work_by_module(after)
    shared = old.keys() & new.keys()
    both = [sum(work[m] for m in shared) for work in (old, new)]
    print("\ntest time (the work the workers shared), last run of each:")
    print(f"  all of it        before {sum(old.values()):7.0f} s   after {sum(new.values()):7.0f} s")
    print(
        f"  modules in both  before {both[0]:7.0f} s   after {both[1]:7.0f} s   "
        f"ratio {both[1] / both[0]:.2f}"
    )
    grown = sorted(((new[m] - old[m], m) for m in shared if new[m] > old[m]), reverse=True)
    print("  modules in both that grew most:")
    for seconds, module in grown[:12]:
        print(f"    {seconds:+7.0f} s  {module} ({old[module]:.0f} s, then {new[module]:.0f} s)")
    only = sorted(((new[m], m) for m in new.keys() - shared), reverse=True)
    print(f"  modules only after has: {sum(w for w, _ in only):.0f} s")
    for seconds, module in only[:12]:
        print(f"    {seconds:7.0f} s  {module}")


def keep(reports: dict[str, Path], checkouts: dict[str, Path]) -> list[Path]:
    """Copies of the runs' JUnit reports in this checkout's ``_build/bench-suite/``, which outlives
    the scratch folder, named by side and commit (``before-53347ee-junit.xml``): for a closer look
    at any test's time."""
    kept_dir = ROOT / "_build" / "bench-suite"
    kept_dir.mkdir(parents=True, exist_ok=True)
    kept = []
    for side, report in reports.items():
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=checkouts[side], capture_output=True, text=True
        ).stdout.strip()
        if report.is_file():
            kept.append(Path(shutil.copy2(report, kept_dir / f"{side}-{commit}-junit.xml")))
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--after", default="HEAD")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--fast-only", action="store_true", help="time make test-fast only")
    args = parser.parse_args()
    targets = ["test-fast"] if args.fast_only else ["test-fast", "test"]
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as scratch:
        # The hub's tests log in as other users, who must read the checkout and its environment:
        # a temporary folder is its owner's alone (0700) until opened to them.
        os.chmod(scratch, 0o755)
        revisions = {"before": args.before, "after": args.after}
        checkouts = {name: clone(rev, Path(scratch) / name) for name, rev in revisions.items()}
        samples: dict[tuple[str, str], list[float]] = {}
        passed: dict[tuple[str, str], bool] = {}
        for round_ in range(args.repeat):
            order = list(checkouts) if round_ % 2 == 0 else list(reversed(checkouts))
            for target in targets:
                for name in order:
                    seconds, ok = timed(checkouts[name], target)
                    samples.setdefault((name, target), []).append(seconds)
                    passed[(name, target)] = passed.get((name, target), True) and ok
                    print(f"  round {round_ + 1}: {name} make {target}: {seconds:.0f} s", flush=True)
        reports = {name: junit_report(checkouts[name]) for name in ("before", "after")}
        kept = keep(reports, checkouts) if "test" in targets else []
        _print_times(args, targets, samples, passed)
        if "test" in targets:
            print_work(reports["before"], reports["after"])
            for report in kept:
                print(f"  kept: {report.relative_to(ROOT)}")


def _print_times(
    args: argparse.Namespace,
    targets: list[str],
    samples: dict[tuple[str, str], list[float]],
    passed: dict[tuple[str, str], bool],
) -> None:
    """Each target's median before and after, side by side, with their ratio and the aim."""
    print(
        f"\nmake test, {os.cpu_count()} cores, median of {args.repeat} "
        f"(before {args.before}, after {args.after}):"
    )
    for target in targets:
        before, after = (statistics.median(samples[(n, target)]) for n in ("before", "after"))
        status = ", ".join(
            f"{n} {'passed' if passed[(n, target)] else 'FAILED'}" for n in ("before", "after")
        )
        aim = "(aim: < 60 s)" if target == "test-fast" else "(aim: <= 1.0)"
        print(
            f"  make {target:<10} before {before:7.0f} s   after {after:7.0f} s   "
            f"ratio {after / before:.2f} {aim}; {status}"
        )


if __name__ == "__main__":
    main()
