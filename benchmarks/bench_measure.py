"""Is rooflinekit.measure's roofline close to what one plain numpy call reaches on this machine?

Side by side, in one run:

- memory bandwidth: the module's figure (best STREAM kernel on all threads, bytes counted as
  reads + writes) against a single ``np.copyto(dst, src)`` of arrays of the same size, timed on
  its own (2 x array bytes per call);
- FLOP/s: the module's fp32 peak (best median numpy matmul over its sizes) against one
  ``a @ b`` of two float32 ``n x n`` matrices (2 n^3 FLOPs per call).

The machine is shared, so the run alternates: each round times the plain calls, then runs a
quick measurement; medians are taken over rounds (of per-round medians for the plain calls).
Aim: ratios module / plain of at least 0.9 (the measurement should not be far below one plain
call; above 1 where it uses threads a plain ufunc does not).

    python benchmarks/bench_measure.py [--rounds 3] [--repeats 7] [--n 4096]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from rooflinekit import measure


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternations of plain calls and measurement")
    parser.add_argument("--repeats", type=int, default=7, help="timed plain calls per round")
    parser.add_argument("--n", type=int, default=4096, help="size of the plain float32 matmul")
    args = parser.parse_args()

    plan = measure.plan_measurement(quick=True)
    elements = plan.array_bytes // 4
    src = np.full(elements, 1.0, dtype=np.float32)
    dst = np.zeros(elements, dtype=np.float32)
    a = np.full((args.n, args.n), 1.0, dtype=np.float32)
    b = np.full((args.n, args.n), 0.5, dtype=np.float32)

    plain_bw, plain_flops, module_bw, module_flops, module_triad = [], [], [], [], []
    for _ in range(args.rounds):
        plain_bw.append(2 * dst.nbytes / median_seconds(lambda: np.copyto(dst, src), args.repeats))
        plain_flops.append(2 * args.n**3 / median_seconds(lambda: a @ b, args.repeats))
        m = measure.measure_machine(quick=True, gpu=False, progress=False)
        module_bw.append(m.bandwidth)
        module_flops.append(m.peaks["fp32"])
        module_triad.append(m.stream("triad").bandwidth)

    def med(values: list[float]) -> float:
        return statistics.median(values)

    gb, gf = 1e9, 1e9
    print(f"rooflinekit.measure vs one plain numpy call: medians over {args.rounds} alternating rounds")
    print(f"  arrays of {plan.array_bytes / 2**20:.0f} MiB ({plan.threads} threads in the module);"
          f" plain matmul {args.n}x{args.n} float32")
    print(f"  {'':38} {'module':>12} {'plain':>12} {'ratio':>7}")
    rows = (
        ("memory bandwidth (GB/s), copy", med(module_bw) / gb, med(plain_bw) / gb),
        ("  module's triad vs plain copy (GB/s)", med(module_triad) / gb, med(plain_bw) / gb),
        ("fp32 FLOP/s (GFLOP/s)", med(module_flops) / gf, med(plain_flops) / gf),
    )
    for label, ours, plain in rows:
        print(f"  {label:<38} {ours:12.1f} {plain:12.1f} {ours / plain:7.2f}")
    print("  per round, module bandwidth / plain copy: " + ", ".join(
        f"{x / y:.2f}" for x, y in zip(module_bw, plain_bw, strict=True)))
    print("  per round, module fp32 peak / plain a @ b: " + ", ".join(
        f"{x / y:.2f}" for x, y in zip(module_flops, plain_flops, strict=True)))
    print("  aim: bandwidth and FLOP/s ratios >= 0.9")


if __name__ == "__main__":
    main()
