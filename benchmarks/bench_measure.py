"""Is rooflinekit.measure's roofline close to what one plain numpy call reaches on this machine?

Side by side, in one run:

- memory bandwidth: the module's figure (the best of its STREAM kernels on all threads and its
  copy on one, bytes counted as reads + writes, over the quick mode's arrays) against a single
  ``np.copyto(dst, src)`` of arrays of the same size, timed on its own (2 x array bytes a call);
- fp32 FLOP/s: the module's peak (the best median numpy matmul over the quick mode's sizes)
  against one ``a @ b`` of two float32 ``n x n`` matrices (2 n^3 FLOPs a call).

The machine is shared and noisy, so each round times the plain call and then the module's
measurement of the same figure, back to back; the table gives medians over rounds. At the end
one whole quick measurement shows the chip it builds. Aim: ratios module / plain of at least
0.9 (the module uses all threads where a plain ufunc uses one, so its bandwidth may be higher).

    python benchmarks/bench_measure.py [--rounds 5] [--repeats 5] [--n 4096]
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
    parser.add_argument("--rounds", type=int, default=5, help="rounds of plain call, then module")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per figure per round")
    parser.add_argument("--n", type=int, default=4096, help="size of the plain float32 matmul")
    args = parser.parse_args()

    plan = measure.plan_measurement(quick=True)
    src = np.full(plan.array_bytes // 4, 1.0, dtype=np.float32)
    dst = np.zeros_like(src)
    a = np.full((args.n, args.n), 1.0, dtype=np.float32)
    b = np.full((args.n, args.n), 0.5, dtype=np.float32)

    plain_bw, module_bw, plain_flops, module_flops = [], [], [], []
    for _ in range(args.rounds):
        plain_bw.append(2 * dst.nbytes / median_seconds(lambda: np.copyto(dst, src), args.repeats))
        streams = measure.measure_bandwidth(plan.array_bytes, repeats=args.repeats)
        streams += measure.measure_bandwidth(
            plan.array_bytes, threads=1, streams=["copy"], repeats=args.repeats
        )
        module_bw.append(max(s.bandwidth for s in streams))
        plain_flops.append(2 * args.n**3 / median_seconds(lambda: a @ b, args.repeats))
        matmuls = measure.measure_matmul(plan.matmul_sizes, "fp32", repeats=args.repeats)
        module_flops.append(max(m.flops_per_second for m in matmuls))
    start = time.perf_counter()
    whole = measure.measure_machine(quick=True, gpu=False, progress=False)
    whole_seconds = time.perf_counter() - start

    med = statistics.median
    print(f"rooflinekit.measure against one plain numpy call: medians over {args.rounds} rounds")
    print(f"  arrays of {plan.array_bytes / 2**20:.0f} MiB, module on {plan.threads} threads;"
          f" module matmul sizes {list(plan.matmul_sizes)}, plain matmul {args.n}x{args.n} float32")
    print(f"  {'':30} {'module':>10} {'plain':>10} {'ratio':>7}   per-round ratios")
    for label, ours, plain in (
        ("memory bandwidth (GB/s)", module_bw, plain_bw),
        ("fp32 FLOP/s (GFLOP/s)", module_flops, plain_flops),
    ):
        rounds = ", ".join(f"{x / y:.2f}" for x, y in zip(ours, plain, strict=True))
        print(f"  {label:<30} {med(ours) / 1e9:10.1f} {med(plain) / 1e9:10.1f} {med(ours) / med(plain):7.2f}"
              f"   {rounds}")
    print(f"  one whole quick measurement ({whole_seconds:.1f} s): bandwidth {whole.bandwidth / 1e9:.1f} GB/s"
          f" ({whole.best_stream.name}), fp32 {whole.peaks['fp32'] / 1e9:.1f} GFLOP/s,"
          f" fp64 {whole.peaks['fp64'] / 1e9:.1f} GFLOP/s")
    print("  aim: ratios >= 0.9")


if __name__ == "__main__":
    main()
