"""How much memory does the grader spend on what a notebook's copies send, honest or not?

A notebook's copies answer its hidden inputs on one channel per question
(``roofline_grading.autograde.hidden``); a hostile notebook controls what they send. Side by side,
in one run, the grader's peak memory while it serves the ten questions of exercise 1's size:

- ``honest``: each copy answers its five hidden inputs with a number;
- ``largest``: each sends a frame of the most bytes one may hold, a string of numbers;
- ``deep``: each sends that many bytes of brackets nested as deep as they go;
- ``values``: each sends that many bytes of empty objects (``{},{},...``), the most values;
- ``endless``: each says its frame is 4 GiB long and keeps sending.

Each scenario runs in a fresh process (its copies are processes of their own, so only the
grader's memory is measured), ``--rounds`` times; the table gives the median growth of the
grader's peak resident memory (``ru_maxrss``) over its level before serving, the ratio to the
honest case, and the bound the design sets: the questions times one frame, buffered at once,
plus one frame's scan and parse.

    python benchmarks/bench_hidden_memory.py [--rounds 5] [--questions 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import textwrap

from roofline_grading.autograde.hidden import MAX_VALUES
from roofline_recorder.snapshot import MAX_FRAME

SCENARIOS = ("honest", "largest", "deep", "values", "endless")

ONE_SCENARIO = """
import json, os, resource, socket, struct, sys, time
from roofline_grading.autograde.hidden import Copies
from roofline_grading.session import Issued
from roofline_grading.answer_key import question
from roofline_recorder.encode import encode
from roofline_recorder.snapshot import MAX_FRAME, frame, read_frame

scenario, count = sys.argv[1], int(sys.argv[2])
asked = question("ex5.dense_peak")
issued = {f"q{i}": Issued(asked, (), tuple((float(i + k),) for k in range(5))) for i in range(count)}


def body(kind):
    if kind == "largest":
        text = b"[" + b"1234567," * (MAX_FRAME // 8 - 1) + b"1]"
    elif kind == "deep":
        text = b"[" * (MAX_FRAME // 2) + b"]" * (MAX_FRAME // 2)
    else:
        text = b"[" + b"{}," * (MAX_FRAME // 3 - 1) + b"{}]"
    return struct.pack(">I", len(text)) + text


channels = Copies(issued)
children = []
for qid, fd in channels.descriptors().items():
    pid = os.fork()
    if pid == 0:
        connection = socket.socket(fileno=fd)
        connection.sendall(frame({"question": qid, "cell": 1}))
        cases = read_frame(connection)["cases"]
        try:
            if scenario == "honest":
                connection.sendall(frame({"results": [encode({"value": 1.0}) for _ in cases]}))
            elif scenario == "endless":
                connection.sendall(struct.pack(">I", 2**32 - 1))
                while True:
                    connection.sendall(b" " * (1 << 20))
            else:
                connection.sendall(body(scenario))
        except OSError:
            pass
        os._exit(0)
    children.append(pid)
channels.handed_over()
time.sleep(0.5)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
answered = channels.serve(issued, seconds=30)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
channels.close()
for pid in children:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
kinds = sorted({key for entries in answered.values() for e in entries for key in e} - {"cell"})
print(json.dumps({"growth_kib": peak - before, "peak_kib": peak, "answers": kinds}))
"""


def run(scenario: str, questions: int) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(ONE_SCENARIO), scenario, str(questions)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="fresh processes per scenario")
    parser.add_argument("--questions", type=int, default=10, help="function questions in the notebook")
    args = parser.parse_args()
    growth: dict[str, list[float]] = {name: [] for name in SCENARIOS}
    peak: dict[str, list[float]] = {name: [] for name in SCENARIOS}
    answers: dict[str, object] = {}
    for _ in range(args.rounds):
        for name in SCENARIOS:
            result = run(name, args.questions)
            growth[name].append(float(str(result["growth_kib"])) / 1024)
            peak[name].append(float(str(result["peak_kib"])) / 1024)
            answers[name] = result["answers"]
    bound = args.questions * MAX_FRAME / 2**20 + 3 * MAX_FRAME / 2**20
    honest = statistics.median(peak["honest"])
    print(
        f"The grader serving {args.questions} questions' copies: its peak memory, "
        f"median of {args.rounds} fresh processes (MiB)"
    )
    print(f"{'scenario':<10} {'peak':>8} {'x honest':>9} {'growth':>8}  what the questions got")
    for name in SCENARIOS:
        top, grew = statistics.median(peak[name]), statistics.median(growth[name])
        print(f"{name:<10} {top:>8.1f} {top / honest:>9.2f} {grew:>8.1f}  {answers[name]}")
    print(
        f"bound: {args.questions} frames of {MAX_FRAME / 2**20:.0f} MiB buffered + one frame's scan and "
        f"parse (at most {MAX_VALUES:,} values) = about {bound:.0f} MiB"
    )


if __name__ == "__main__":
    main()
