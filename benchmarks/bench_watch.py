"""What does watching a grading kernel's system calls from outside cost the notebook it runs?

The keeper (``roofline_recorder.watch``) stops every ``open``, ``execve``, ``kill``... of the
kernel, reads its arguments and lets it go on; a notebook pays for each such call a round trip
to another process. Side by side, in one run: the same work in a fresh process, once plain and
once under the watch's filter with the real keeper reporting to a pipe:

- ``figure``: what exercise 3's notebook does first, ``import matplotlib.pyplot`` then one figure
  drawn and saved (hundreds of files opened);
- ``opens``: 2,000 opens and closes of ``/dev/null``, the call the watch sees most, alone.

Each round runs both, plain then watched; the table gives medians over rounds, the ratio, and the
cost of one watched call.

    python benchmarks/bench_watch.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import textwrap

WORK = {
    "figure": """
import matplotlib
matplotlib.use("agg")
import matplotlib.pyplot as plt
figure, axes = plt.subplots()
axes.plot([1, 2, 3], [4, 5, 6], label="a line")
axes.legend()
figure.savefig(os.path.join(os.environ.get("TMPDIR", "/tmp"), "bench-watch.png"))
""",
    "opens": """
for _ in range(2000):
    os.close(os.open("/dev/null", os.O_RDONLY))
""",
}

RUN = """
import json, os, socket, sys, time
watched, work = sys.argv[1] == "watched", sys.argv[2]
if watched:
    from roofline_recorder import watch
    from roofline_recorder.places import Places
    report_read, report_write = os.pipe()
    keeper_end, kernel_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    kernel = os.fork()
    if kernel:
        kernel_end.close()
        places = Places(readable=("/",), writable=("/tmp", "/dev/null"))
        watch.keep(kernel, os.devnull, keeper_end, watch.Watched(places, {}, report_write))
    keeper_end.close()
    listener = watch.install()
    socket.send_fds(kernel_end, [b"listener"], [listener])
    os.close(listener)
    kernel_end.send(b"start")
started = time.perf_counter()
exec(WORK)
print(json.dumps({"seconds": time.perf_counter() - started}), flush=True)
os._exit(0)
"""


def once(work: str, watched: bool) -> float:
    code = textwrap.dedent(RUN).replace("exec(WORK)", textwrap.dedent(WORK[work]))
    done = subprocess.run(
        [sys.executable, "-c", code, "watched" if watched else "plain", work],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    line = [line for line in done.stdout.splitlines() if line.startswith("{")][-1]
    return float(json.loads(line)["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds of plain, then watched")
    args = parser.parse_args()
    times: dict[tuple[str, bool], list[float]] = {(w, v): [] for w in WORK for v in (False, True)}
    for _ in range(args.rounds):
        for work in WORK:
            for watched in (False, True):
                times[(work, watched)].append(once(work, watched))
    med = statistics.median
    print(f"The same work plain and under the keeper's watch: medians of {args.rounds} rounds")
    print(f"{'work':<8} {'plain':>10} {'watched':>10} {'watched/plain':>14}")
    for work in WORK:
        plain, under = med(times[(work, False)]), med(times[(work, True)])
        print(f"{work:<8} {plain * 1e3:>8.1f} ms {under * 1e3:>8.1f} ms {under / plain:>14.2f}")
    per_call = (med(times[("opens", True)]) - med(times[("opens", False)])) / 2000
    print(f"one watched call costs about {per_call * 1e6:.0f} us (a round trip to the keeper)")


if __name__ == "__main__":
    main()
