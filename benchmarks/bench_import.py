"""How much does `import rooflinekit` cost over `import numpy`, its only hard dependency?

A grading kernel imports rooflinekit once per notebook per student, so the package must
not drag in matplotlib or ipywidgets. Each import runs in a fresh interpreter; the two are
interleaved so that machine noise hits both alike. Aim: ratio at most 1.2.

    python benchmarks/bench_import.py [--runs 31]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

STATEMENTS = {"numpy": "import numpy", "rooflinekit": "import rooflinekit", "python": "pass"}


def time_once(statement: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31, help="fresh processes per statement")
    runs = parser.parse_args().runs
    for statement in STATEMENTS.values():  # warm the OS file cache
        time_once(statement)
    samples: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    for _ in range(runs):
        for name, statement in STATEMENTS.items():
            samples[name].append(time_once(statement))
    medians = {name: statistics.median(times) for name, times in samples.items()}
    print(f"fresh-process import time, median of {runs} interleaved runs")
    for name, median in medians.items():
        print(f"  {STATEMENTS[name]:<20} {median * 1e3:8.1f} ms")
    bare = medians["python"]
    ratio = medians["rooflinekit"] / medians["numpy"]
    extra = (medians["rooflinekit"] - medians["numpy"]) / (medians["numpy"] - bare)
    print(f"  ratio rooflinekit / numpy:        {ratio:.3f}  (aim: <= 1.2)")
    print(f"  ratio beyond the interpreter's start: {1 + extra:.3f}")
    probe = (
        "import rooflinekit, sys; print(sorted(m for m in ('matplotlib', 'ipywidgets') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    print(f"  heavy modules loaded by `import rooflinekit`: {loaded.stdout.strip()}")


if __name__ == "__main__":
    main()
