"""How long does `make book` take from clean, with nothing changed, and after one chapter changes?

A writer rebuilds the book after every edit, so a rebuild must cost a fraction of a full
build: execution is cached (jupyter-cache) and Sphinx re-reads only what changed. Each
scenario runs ``make book`` (the reader's command) and is repeated; medians are printed with
their ratio to the full build. Aims: no-op at most 10%, one touched chapter at most 35%.

- full: ``_build`` removed first (node_modules and the vendored assets stay: they are
  installed once per checkout, not per build); both editions, English and Korean;
- full, English only: the same with the Korean edition left out (``BOOK_TRANSLATIONS=""``,
  tools/build_book.py itself), to show what the second language costs (aim: full at most
  1.6 times this);
- no-op: nothing changed since the last build (make sees every input older than the site);
- no-op, Sphinx: the build command itself (tools/build_book.py: jupyter-book build) with
  nothing changed, as when make cannot tell, e.g. after an install into the environment;
- touch: one chapter's modification time changed (Sphinx re-reads it, the cache serves it);
- edit: one chapter's code changed (it is executed again); the file is restored afterwards.

    python benchmarks/bench_build.py [--runs 3] [--chapter book/chapters/04-matrix-multiplication.md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
DEFAULT_CHAPTER = "book/chapters/04-matrix-multiplication.md"


def make_book(command: tuple[str, ...] = ("make", "--no-print-directory", "book")) -> float:
    """Seconds one ``make book`` (or ``command``) takes; fails loudly if the build fails."""
    start = time.perf_counter()
    done = subprocess.run(list(command), cwd=ROOT, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"make book failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed


def full() -> float:
    shutil.rmtree(BUILD, ignore_errors=True)
    return make_book()


def full_english_only() -> float:
    shutil.rmtree(BUILD, ignore_errors=True)
    python = str(ROOT / ".venv" / "bin" / "python")
    start = time.perf_counter()
    done = subprocess.run([python, "tools/build_book.py"], cwd=ROOT, capture_output=True, text=True,
                          check=False, env={**os.environ, "BOOK_TRANSLATIONS": ""})
    elapsed = time.perf_counter() - start
    shutil.rmtree(BUILD, ignore_errors=True)  # the next `make book` must build both editions
    if done.returncode != 0:
        sys.exit(f"the English-only build failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed


def noop() -> float:
    return make_book()


def noop_sphinx() -> float:
    return make_book((str(ROOT / ".venv" / "bin" / "python"), "tools/build_book.py"))


def touch(chapter: Path) -> float:
    os.utime(chapter)
    return make_book()


def edit(chapter: Path, run: int) -> float:
    original = chapter.read_text(encoding="utf-8")
    try:
        chapter.write_text(
            original + f"\n```{{code-cell}} ipython3\n# benchmark edit {run}: {time.time()}\n```\n",
            encoding="utf-8",
        )
        return make_book()
    finally:
        chapter.write_text(original, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="repetitions of each scenario")
    parser.add_argument("--chapter", default=DEFAULT_CHAPTER, help="the chapter to touch and edit")
    args = parser.parse_args()
    chapter = ROOT / args.chapter
    if not chapter.is_file():
        sys.exit(f"no chapter at {args.chapter}")
    make_book()  # the environment, node_modules and vendored assets exist before timing
    samples: dict[str, list[float]] = {
        "full": [], "full, English only": [], "no-op": [], "no-op, Sphinx": [], "touch": [], "edit": []
    }
    for run in range(args.runs):
        samples["full, English only"].append(full_english_only())
        samples["full"].append(full())
        samples["no-op"].append(noop())
        samples["no-op, Sphinx"].append(noop_sphinx())
        samples["touch"].append(touch(chapter))
        samples["edit"].append(edit(chapter, run))
        make_book()  # rebuild the restored chapter so the next round starts clean
    medians = {name: statistics.median(times) for name, times in samples.items()}
    aims = {"no-op": 0.10, "no-op, Sphinx": 0.10, "touch": 0.35, "edit": None, "full, English only": None}
    print(f"`make book`, median of {args.runs} runs (chapter: {args.chapter})")
    for name, median in medians.items():
        line = f"  {name:<18} {median:7.2f} s"
        if name != "full":
            ratio = median / medians["full"]
            aim = aims[name]
            line += f"   ratio to full {ratio:5.3f}" + (f"  (aim: <= {aim:.2f})" if aim else "")
        print(line)
    english = medians["full, English only"]
    print(f"  second language: full {medians['full']:.2f} s / English only {english:.2f} s = "
          f"{medians['full'] / english:.3f}  (aim: <= 1.60)")
    spread = {name: (min(t), max(t)) for name, t in samples.items()}
    print("  range: " + ", ".join(f"{n} {lo:.2f}-{hi:.2f} s" for n, (lo, hi) in spread.items()))


if __name__ == "__main__":
    main()
