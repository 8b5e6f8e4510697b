"""Is the DRAM level of ``rooflinekit measure --levels`` what a plain numpy copy reaches here?

Side by side, in one run: the DRAM level's copy bandwidth
(:func:`rooflinekit.measure.measure_cache_levels`: one thread, a working set of
``DRAM_OVER_LLC`` times the last-level cache, half of it copied onto the other half, bytes
counted as read + written) against a plain ``np.copyto(dst, src)`` of two float32 arrays of the
same size each (half that working set, so far larger than the last cache), timed on its own
(``2 x array bytes`` a call). Both run on one thread.

The machine is shared and noisy, so each round times the plain copy and then the module's whole
level measurement (every cache level, then DRAM, as the command runs it), back to back; the table
gives medians over rounds and the per-round ratios. The band is chapter 11's: two measurements
of the same thing count as the same within ``SAME`` (5 %, ``rooflinekit.claims.compare``); the
line after it says whether the median ratio lies in it, and whether it meets
``benchmarks/bench_measure.py``'s aim (module / plain at least 0.9).

    python benchmarks/bench_cache_levels.py [--rounds 9] [--repeats 5] [--budget 3]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
from bench_measure import median_seconds  # benchmarks/bench_measure.py: the same timing, one place

from rooflinekit import measure
from rooflinekit.claims import compare
from rooflinekit.measure.run import DRAM_OVER_LLC

SAME = 0.05
"""Chapter 11's band: two bandwidths within this share of each other are the same."""
AIM = 0.9
"""benchmarks/bench_measure.py's aim for module / plain."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="rounds of plain copy, then module")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per figure per round")
    parser.add_argument("--budget", type=float, default=3.0, help="seconds of each round's level measurement")
    args = parser.parse_args()

    info = measure.machine.describe_machine()
    array_bytes = DRAM_OVER_LLC * info.last_level_cache_bytes // 2
    src = np.full(array_bytes // 4, 1.0, dtype=np.float32)
    dst = np.zeros_like(src)

    plain, module, caches = [], [], []
    for _ in range(args.rounds):
        plain.append(2 * dst.nbytes / median_seconds(lambda: np.copyto(dst, src), args.repeats))
        levels = measure.measure_cache_levels(repeats=args.repeats, budget=args.budget, progress=False)
        module.append(levels[-1].bandwidth)
        caches.append(levels)

    med = statistics.median
    ratio = med(module) / med(plain)
    print("rooflinekit measure --levels, DRAM level, against a plain np.copyto:"
          f" medians over {args.rounds} rounds")
    print(f"  {info.cpu}; last-level cache {info.last_level_cache_bytes / 2**20:.1f} MiB; arrays of"
          f" {array_bytes / 2**20:.0f} MiB each ({array_bytes / info.last_level_cache_bytes:.0f}x the last"
          f" cache), one thread both")
    print(f"  {'':28} {'module':>10} {'plain':>10} {'ratio':>7}   per-round ratios")
    rounds = ", ".join(f"{x / y:.2f}" for x, y in zip(module, plain, strict=True))
    print(f"  {'DRAM copy bandwidth (GB/s)':<28} {med(module) / 1e9:10.2f} {med(plain) / 1e9:10.2f}"
          f" {ratio:7.2f}   {rounds}")
    for i, lv in enumerate(caches[0][:-1]):
        cache = med(levels[i].bandwidth for levels in caches)
        print(f"  the module's {lv.level:<4} level: {cache / 1e9:8.1f} GB/s (working set"
              f" {lv.working_set_bytes / 2**10:.0f} KiB of a {(lv.cache_bytes or 0) / 2**10:.0f} KiB cache),"
              f" {cache / med(module):.1f}x DRAM's")
    verdict = compare(med(module), med(plain), same_within=SAME)
    band = "yes" if verdict == "same" else f"no, the module's is {verdict}"
    print(f"  within chapter 11's band (the same within {SAME:.0%}): {band};"
          f" bench_measure's aim (ratio >= {AIM}): {'met' if ratio >= AIM else 'missed'}")


if __name__ == "__main__":
    main()
