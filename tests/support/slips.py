"""Model answers with one known misconception written in: the slips the grading tests use.

Each :class:`Slip` is a misconception of the answer key written into the model answers of one
notebook (regex replacements in its answer cells), with the graded parts it must cost. Used by
the grading round (`test_grading_round.py`) and the checks students see before submitting
(`test_known_mistakes.py`).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from roofline_grading import misconceptions as shared
from roofline_grading.exercises.ex1_int8_matmul import key as ex1
from roofline_grading.exercises.ex2_int8_weights import key as ex2
from roofline_grading.exercises.ex3_roofline_plot import key as ex3
from roofline_grading.exercises.ex4_batched_matmul import key as ex4
from roofline_grading.exercises.ex5_h100_threshold import key as ex5
from roofline_grading.exercises.ex6_ring_threshold import key as ex6
from roofline_grading.exercises.ex7_serving_decisions import key as ex7
from roofline_grading.exercises.ex8_measured_kernel import key as ex8
from roofline_grading.exercises.ex9_memory_hierarchy import key as ex9
from roofline_grading.exercises.ex10_speculative import key as ex10
from roofline_grading.questions import Misconception
from rooflinekit.dtypes import dtype_bytes
from rooflinekit.exercises import EX1_CHIP, EX2_CHIP

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "roofline"


@dataclass(frozen=True)
class Slip:
    """A misconception written into the model answer: regex replacements in its answer cells,
    the graded parts (grade ids) it must cost (at every draw of the hidden inputs: the public
    cases separate every known mistake), and those whose feedback must name it."""

    misconception: Misconception
    replace: tuple[tuple[str, str], ...]
    fails: frozenset[str]
    named_in: frozenset[str] | None = None

    @property
    def named(self) -> frozenset[str]:
        return self.fails if self.named_in is None else self.named_in


def _parts(prefix: str, *names: str) -> frozenset[str]:
    return frozenset(f"{prefix}_{name}" for name in names)


BF16_BYTES = f"{dtype_bytes('bf16'):g}"
SLIPS: dict[str, Slip] = {
    # Exercise 1, each misconception it exists for.
    "ex1-two-bytes": Slip(
        shared.INT8_TWO_BYTES,
        ((r"BYTES_PER_ELEMENT = 1\b", f"BYTES_PER_ELEMENT = {BF16_BYTES}"),),
        _parts(
            "ex1",
            "bytes_read",
            "bytes_written",
            "intensity",
            "critical_batch",
            "t_comms",
            "t_lower",
            "t_upper",
            "limited_by",
        ),
    ),
    "ex1-bf16-peak": Slip(
        ex1.BF16_PEAK_FOR_INT8,
        (
            (r"INT8_PEAK = [0-9.e]+", f"INT8_PEAK = {EX1_CHIP.peak('bf16')!r}"),
            (r"return int8_peak / hbm_bandwidth", "return bf16_peak / hbm_bandwidth"),
        ),
        _parts("ex1", "critical_batch", "t_math", "t_lower", "t_upper", "limited_by"),
    ),
    "ex1-no-factor-two": Slip(
        shared.NO_FACTOR_TWO,
        ((r"OPS_PER_MULTIPLY_ADD = 2", "OPS_PER_MULTIPLY_ADD = 1"),),
        _parts("ex1", "ops", "intensity", "critical_batch", "t_math", "t_lower", "t_upper", "limited_by"),
    ),
    # Exercise 2.
    "ex2-int8-peak": Slip(
        shared.INT8_PEAK_FOR_BF16,
        ((r"return bf16_peak  #", "return int8_peak  #"),),
        _parts("ex2", "compute_peak", "critical_batch"),
    ),
    "ex2-two-byte-weights": Slip(
        ex2.TWO_BYTE_WEIGHTS,
        ((r"WEIGHT_BYTES = 1\b", f"WEIGHT_BYTES = {BF16_BYTES}"),),
        _parts("ex2", "bytes_read", "intensity", "critical_batch"),
    ),
    # Exercise 3: the misconception it exists for, and the int8 peak carried over from exercise 2.
    "ex3-approximate-bytes": Slip(
        ex3.APPROXIMATE_BYTES,
        ((r"bytes_moved = .*", "bytes_moved = WEIGHT_BYTES * D * F  # only the weights"),),
        _parts("ex3", "attainable", "crossover", "figure_data"),
    ),
    "ex3-int8-peak": Slip(
        shared.INT8_PEAK_FOR_BF16,
        ((r"COMPUTE_PEAK = [0-9.e]+", f"COMPUTE_PEAK = {EX2_CHIP.peak('int8')!r}"),),
        _parts("ex3", "attainable", "crossover", "figure_data"),
    ),
    # Exercise 4: the misconception it exists for, and no factor 2 (whose intensity has no name).
    "ex4-shared-weights": Slip(
        ex4.SHARED_WEIGHTS,
        ((r"B \* D \+ B \* D \* F", "B * D + D * F"),),
        _parts("ex4", "bytes_read", "intensity", "critical_batch"),
    ),
    "ex4-no-factor-two": Slip(
        shared.NO_FACTOR_TWO,
        ((r"OPS_PER_MULTIPLY_ADD = 2", "OPS_PER_MULTIPLY_ADD = 1"),),
        _parts("ex4", "ops", "intensity", "critical_batch"),
        named_in=_parts("ex4", "ops", "intensity"),
    ),
    # Exercise 5: the misconception it exists for, and three more.
    "ex5-sparse-peak": Slip(
        shared.SPARSE_PEAK,
        ((r"return datasheet_flops / 2", "return datasheet_flops"),),
        _parts("ex5", "dense_peak", "critical_batch", "global_batch"),
    ),
    "ex5-per-replica": Slip(
        ex5.PER_REPLICA,
        ((r"return replicas \* critical_batch", "return critical_batch"),),
        _parts("ex5", "global_batch"),
    ),
    "ex5-halved-twice": Slip(
        shared.HALVED_TWICE,
        (
            (
                r"dense_peak\(datasheet_flops\) / hbm_bandwidth",
                "dense_peak(datasheet_flops) / (2 * hbm_bandwidth)",
            ),
        ),
        _parts("ex5", "critical_batch", "global_batch"),
    ),
    "ex5-binary-terabytes": Slip(
        shared.BINARY_TERABYTES,
        ((r"terabytes_per_second \* 1e12", "terabytes_per_second * 2**40"),),
        _parts("ex5", "hbm_bandwidth"),
    ),
    # Exercise 6: the three misconceptions it exists for, and one phase of the ring only.
    "ex6-both-directions": Slip(
        ex6.BOTH_DIRECTIONS,
        ((r"both_ways_gigabytes_per_second \* 1e9 / 2", "both_ways_gigabytes_per_second * 1e9"),),
        _parts("ex6", "link_bandwidth"),
    ),
    "ex6-bits-as-bytes": Slip(
        ex6.BITS_AS_BYTES,
        ((r"gigabits_per_second \* 1e9 / 8", "gigabits_per_second * 1e9"),),
        _parts("ex6", "nic_bandwidth", "nodes_critical_d"),
    ),
    "ex6-no-n-minus-one": Slip(
        ex6.NO_N_MINUS_ONE,
        ((r"2 \* \(n_chips - 1\) / n_chips \* payload_bytes", "2 * payload_bytes"),),
        _parts("ex6", "all_reduce_bytes", "two_chip_critical_d", "critical_d", "nodes_critical_d"),
    ),
    "ex6-one-phase": Slip(
        ex6.ONE_PHASE,
        ((r"2 \* \(n_chips - 1\) / n_chips \* payload_bytes", "(n_chips - 1) / n_chips * payload_bytes"),),
        _parts("ex6", "all_reduce_bytes", "two_chip_critical_d", "critical_d", "nodes_critical_d"),
    ),
    # Exercise 7: the three misconceptions it exists for, and the weights left out of memory.
    "ex7-query-heads": Slip(
        ex7.QUERY_HEADS,
        ((r"2 \* n_layers \* kv_heads \* head_dim", "2 * n_layers * n_heads * head_dim"),),
        _parts("ex7", "kv_bytes_per_token"),
    ),
    "ex7-no-weights": Slip(
        ex7.NO_WEIGHTS,
        ((r"free = hbm_bytes - BYTES_PER_WEIGHT \* params", "free = hbm_bytes"),),
        _parts("ex7", "largest_batch"),
    ),
    "ex7-kv-once": Slip(
        ex7.KV_ONCE,
        ((r"attention = batch \* context", "attention = context"),),
        _parts("ex7", "decode_step"),
    ),
    "ex7-token-by-token": Slip(
        ex7.TOKEN_BY_TOKEN,
        (
            (
                r"return max\(FLOPS_PER_PARAMETER \* params \* prompt / peak, [^\n]*",
                "return prompt * BYTES_PER_WEIGHT * params / bandwidth",
            ),
        ),
        _parts("ex7", "ttft"),
    ),
    # Exercise 8: the three misconceptions it exists for, and a percentage for a fraction.
    "ex8-micro-as-milli": Slip(
        ex8.MICRO_AS_MILLI,
        ((r"SECONDS_PER_MICROSECOND = 1e-6", "SECONDS_PER_MICROSECOND = 1e-3"),),
        _parts("ex8", "achieved_flops", "achieved_bandwidth", "mfu", "mbu"),
    ),
    "ex8-sparse-peak": Slip(
        shared.SPARSE_PEAK,
        ((r"\(datasheet_flops / 2\)", "datasheet_flops"),),
        _parts("ex8", "mfu", "closest_limit"),
    ),
    "ex8-binary-terabytes": Slip(
        shared.BINARY_TERABYTES,
        ((r"terabytes_per_second \* 1e12", "terabytes_per_second * 2**40"),),
        _parts("ex8", "mbu", "closest_limit"),
    ),
    "ex8-percent": Slip(
        ex8.PERCENT,
        (
            (r"return achieved_flops\(", "return 100 * achieved_flops("),
            (r"return achieved_bandwidth\(", "return 100 * achieved_bandwidth("),
        ),
        _parts("ex8", "mfu", "mbu"),
    ),
    # Exercise 9: each misconception it exists for, and the output left out.
    "ex9-untiled": Slip(
        ex9.UNTILED,
        ((r"math\.ceil\(n / bn\)", "1"), (r"math\.ceil\(m / bm\)", "1")),
        _parts("ex9", "tiled_bytes", "tiled_intensity"),
    ),
    "ex9-no-output": Slip(
        ex9.NO_OUTPUT,
        (
            (r" \+ m \* n\)", ")"),
            (r" \+ bm \* bn\)", ")"),
            (r"q_and_o = 2 \* seq", "q_and_o = seq"),
        ),
        _parts(
            "ex9", "tiled_bytes", "tiled_intensity", "held_bytes", "fused_attention_bytes", "fusion_ratio"
        ),
    ),
    "ex9-elements-not-bytes": Slip(
        ex9.ELEMENTS_NOT_BYTES,
        ((r"math\.floor\(BYTES_PER_ELEMENT \* ridge\)", "math.floor(ridge)"),),
        _parts("ex9", "smallest_tile"),
    ),
    "ex9-inner-bandwidth": Slip(
        ex9.INNER_BANDWIDTH,
        ((r"ridge = peak / hbm_bandwidth", "ridge = peak / vmem_bandwidth"),),
        _parts("ex9", "smallest_tile"),
    ),
    "ex9-scores-once": Slip(
        ex9.SCORES_ONCE,
        ((r"scores = 4 \* seq \* seq", "scores = 2 * seq * seq"),),
        _parts("ex9", "unfused_attention_bytes", "fusion_ratio"),
    ),
    "ex9-kv-not-per-block": Slip(
        ex9.KV_NOT_PER_BLOCK,
        ((r"math\.ceil\(seq / block\)", "1"),),
        _parts("ex9", "fused_attention_bytes", "fusion_ratio"),
    ),
    # Exercise 10: each misconception it exists for.
    "ex10-independent-guesses": Slip(
        ex10.INDEPENDENT,
        ((r"return \(1 - alpha \*\* \(k \+ 1\)\) / \(1 - alpha\)", "return 1 + k * alpha"),),
        _parts("ex10", "expected_tokens", "speedup", "best_draft_length", "stops_paying"),
    ),
    "ex10-no-bonus-token": Slip(
        ex10.NO_BONUS,
        ((r"alpha \*\* \(k \+ 1\)", "alpha ** k"),),
        _parts("ex10", "expected_tokens", "speedup", "best_draft_length", "stops_paying"),
    ),
    "ex10-infinite-draft": Slip(
        ex10.INFINITE_DRAFT,
        ((r"return \(1 - alpha \*\* \(k \+ 1\)\)", "return 1"),),
        _parts("ex10", "expected_tokens", "speedup", "best_draft_length", "stops_paying"),
    ),
    "ex10-verify-as-steps": Slip(
        ex10.VERIFY_AS_STEPS,
        ((r"return step_time\(TARGET_PARAMS, TARGET_KV, batch, k \+ 1,",
          "return (k + 1) * step_time(TARGET_PARAMS, TARGET_KV, batch, 1,"),),
        _parts("ex10", "verify_time", "speedup", "best_draft_length", "stops_paying"),
    ),
    "ex10-free-draft": Slip(
        ex10.FREE_DRAFT,
        ((r"t_round = k \* t_draft \+ ", "t_round = "),),
        _parts("ex10", "speedup", "best_draft_length", "stops_paying"),
    ),
}


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def release_dir(kind: str, language: str = "en", root: Path = ROOT) -> Path:
    """Where the ``kind`` (``solutions`` or ``exercises``) notebooks of a language's release are,
    in the course at ``root`` (this checkout by default)."""
    return root / kind / ASSIGNMENT if language == "en" else root / kind / language / ASSIGNMENT


def answered(
    notebook: str, slip: str | None = None, language: str = "en", root: Path = ROOT
) -> nbformat.NotebookNode:
    """The released student version (in ``language``, of the course at ``root``) with each answer
    cell holding the model answer, with the slip ``slip`` (a key of SLIPS) applied if given."""
    release = read(release_dir("exercises", language, root) / f"{notebook}.ipynb")
    answers = {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in read(release_dir("solutions", language, root) / f"{notebook}.ipynb").cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    replaced = dict.fromkeys(SLIPS[slip].replace if slip else (), 0)
    submitted = copy.deepcopy(release)
    for cell in submitted.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("solution"):
            continue
        source = "\n".join(
            line
            for line in answers[meta["grade_id"]].splitlines()
            if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line
        )
        for pattern, replacement in replaced:
            source, count = re.subn(pattern, replacement, source)
            replaced[(pattern, replacement)] += count
        cell.source = source
    assert all(replaced.values()), f"{notebook}: a slip's pattern matched nothing: {replaced}"
    return submitted
