"""Exercise 9's answer key: each part's question, the known mistakes and the readings.

Each graded part is one function below that builds its question: the model answer
(:mod:`.answers`), the tolerance, the public cases (the statement's own figures first, from
:mod:`.given`), how a random case is drawn, the known mistakes and the readings (the ways a careful
student may read the part's statement, and whether each earns the point).

>>> [q.id for q in exercise().questions][:3]
['ex9.tiled_bytes', 'ex9.tiled_intensity', 'ex9.smallest_tile']
>>> [m.misconception.name for m in exercise().question("smallest_tile").mistakes]
['elements-not-bytes', 'inner-bandwidth', 'tile-output-write']
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from roofline_grading.authoring import (
    COUNT,
    MODEL,
    TILE,
    WORD,
    Exercise,
    earns,
    log_uniform,
    random_chip,
    refused,
)
from roofline_grading.questions import FunctionQuestion, Misconception, Mistake
from rooflinekit.costs import matmul_cost
from rooflinekit.words import N_

from . import answers, given

__all__ = ["exercise"]

UNTILED = Misconception(
    "untiled",
    N_(
        "This matches counting each operand once, as if the whole matmul ran in one tile. Tiled, x moves "
        "out of HBM once per column of tiles, ceil(n / bn) times, and w once per row of tiles, "
        "ceil(m / bm) times; only the output moves once."
    ),
)
NO_OUTPUT = Misconception(
    "no-output",
    N_(
        "This matches leaving the output out. Each output tile is held on chip while it is computed and "
        "written to HBM once when it is done: count its bytes too."
    ),
)
ELEMENTS_NOT_BYTES = Misconception(
    "elements-not-bytes",
    N_(
        "This matches counting elements, not bytes. A bf16 element is 2 bytes: a square b x b tile does "
        "2 b^2 bk FLOPs on 2 b bk elements, 4 b bk bytes, so its intensity is b / 2, not b, and the "
        "smallest compute-bound tile is twice the ridge."
    ),
)
INNER_BANDWIDTH = Misconception(
    "inner-bandwidth",
    N_(
        "This matches taking the ridge from the on-chip memory's bandwidth. The tile's operands stream out "
        "of HBM, so HBM's bandwidth sets the ridge the tile must pass; the faster on-chip memory only holds "
        "the tile."
    ),
)
SCORES_ONCE = Misconception(
    "scores-once",
    N_(
        "This matches one round trip of the scores through HBM. Unfused, they make two: Q K^T writes the "
        "scores, the softmax reads them and writes the probabilities, and P V reads those: seq x seq "
        "elements written twice and read twice."
    ),
)
KV_NOT_PER_BLOCK = Misconception(
    "kv-not-per-block",
    N_(
        "This matches reading K and V once. With blocks of queries, each block streams all of K and V past "
        "its queries: K and V move once per block, ceil(seq / block) times."
    ),
)
TILE_OUTPUT_WRITE = Misconception(
    "tile-output-write",
    N_(
        "This matches counting the output tile's write for this exercise's matmul (k = {k}). Part (c) "
        "leaves it out, as the statement says: a tile's output is written once, after all of k, and for "
        "a long k its bytes are nothing beside the operands', so the side depends only on the peak and "
        "HBM's bandwidth."
    ),
    (("k", str(given.SHAPE[1])),),
)

SMALLEST = (given.CHIP.peak("bf16"), given.CHIP.hbm_bandwidth)
VMEM_BANDWIDTH = float(given.VMEM.bandwidth or "nan")
VMEM_CAPACITY = float(given.VMEM.capacity or "nan")
SMEM_BANDWIDTH = float(given.SMEM.bandwidth or "nan")
"""The H100's shared memory, all its SMs together (an estimate: the catalog says how it is made)."""
ATTENTION = (given.SEQ, given.HEAD_DIM, given.BLOCK)
BF16_BYTES = 2


# --- Random cases ------------------------------------------------------------------------


def _random_tiling(rng: np.random.Generator) -> tuple[int, int, int, int, int]:
    """(m, k, n, bm, bn): sizes from 64 to 16384, tiles from 16 to 2048 (a tile may pass a size)."""
    m, k, n = (int(v) for v in rng.integers(64, 16385, size=3))
    bm, bn = (int(v) for v in rng.integers(16, 2049, size=2))
    return m, k, n, bm, bn


def _random_hierarchy(rng: np.random.Generator) -> tuple[float, float, float]:
    """(peak, HBM bandwidth, on-chip bandwidth 5 to 50 times HBM's)."""
    peak, bandwidth = random_chip(rng)
    return peak, bandwidth, bandwidth * log_uniform(rng, 5, 50)


def _random_fit(rng: np.random.Generator) -> tuple[int, float]:
    """(b, capacity): the capacity 2 to 10 times the three tiles, or a tenth to 0.4 of them, so that
    a tile counted in elements or without its output (half or two thirds) fits or not as the right one."""
    b = int(rng.integers(8, 2049))
    factor = log_uniform(rng, 2, 10) if rng.random() < 0.5 else log_uniform(rng, 0.1, 0.4)
    return b, float(round(float(answers.held_bytes(b, b, b)) * factor))


def _random_attention(rng: np.random.Generator) -> tuple[int, int, int]:
    """(seq, head_dim, block): 256 to 65536 tokens, heads of 64 to 256, blocks of 16 to 2048 queries."""
    seq = int(log_uniform(rng, 256, 65536))
    head_dim = int(rng.choice([64, 80, 96, 128, 256]))
    return seq, head_dim, int(rng.choice([16, 32, 64, 128, 256, 512, 1024, 2048]))


# --- What the known mistakes and the readings compute --------------------------------------


def _untiled(m: Any, k: Any, n: Any, bm: Any, bn: Any) -> Any:
    return matmul_cost(m, k, n).bytes


def _no_output(m: Any, k: Any, n: Any, bm: Any, bn: Any) -> Any:
    return answers.tiled_bytes(m, k, n, bm, bn) - matmul_cost(m, k, n).bytes_written


def _unfused_scores_once(seq: Any, head_dim: Any) -> Any:
    return answers.unfused_attention_bytes(seq, head_dim) - 2 * BF16_BYTES * seq * seq


def _fused_kv_once(seq: Any, head_dim: Any, block: Any) -> Any:
    return answers.fused_attention_bytes(seq, head_dim, seq)


def _fused_no_output(seq: Any, head_dim: Any, block: Any) -> Any:
    return answers.fused_attention_bytes(seq, head_dim, block) - BF16_BYTES * seq * head_dim


def _ratio(unfused: Callable[..., Any], fused: Callable[..., Any]) -> Callable[..., Any]:
    return lambda seq, d, block: unfused(seq, d) / fused(seq, d, block)


def _tile_with_output(peak: float, hbm_bandwidth: float, vmem_bandwidth: float) -> float:
    """The smallest square tile whose intensity, the output's write counted, passes HBM's ridge for
    exercise 9's own matmul (parts (a) and (b) at its m, k, n; infinite if none does)."""
    sides = np.arange(1, 1 << 16)
    intensity = answers.tiled_intensity(*given.SHAPE, sides, sides)
    above = np.flatnonzero(intensity > peak / hbm_bandwidth)
    return float(sides[above[0]]) if above.size else math.inf


def _padded_tiles(m: Any, k: Any, n: Any, bm: Any, bn: Any) -> Any:
    """Every tile moved whole, the edge tiles padded to bm x bn."""
    rows, columns = np.ceil(m / bm) * bm, np.ceil(n / bn) * bn
    return BF16_BYTES * (rows * k * np.ceil(n / bn) + k * columns * np.ceil(m / bm) + rows * columns)


def _fits_if(held: Callable[[Any], Any], strict: bool = False) -> Callable[[Any, float], str]:
    """``fits`` with ``held(b)`` bytes held (``strict``: the capacity itself does not fit)."""
    return lambda b, capacity: "yes" if (held(b) < capacity if strict else held(b) <= capacity) else "no"


# --- The parts, (a) to (h) ---------------------------------------------------------------


def tiled_bytes() -> FunctionQuestion:
    """(a) The bytes a tiled matmul moves out of HBM."""
    return FunctionQuestion(
        "ex9.tiled_bytes",
        "(m, k, n, bm, bn)",
        answers.tiled_bytes,
        COUNT,
        cases=((*given.SHAPE, *given.TILE), (4, 8, 4, 2, 4), (1000, 512, 3000, 128, 256)),
        random_case=_random_tiling,
        mistakes=(Mistake(UNTILED, _untiled), Mistake(NO_OUTPUT, _no_output)),
        readings=(
            refused("padded", "the edge tiles padded to whole tiles",
                    _padded_tiles, N_("they move only their real elements")),
            refused("no-output", "the operands alone, the output kept on chip",
                    _no_output, N_("is written to HBM once when it is done"), NO_OUTPUT),
        ),
    )


def tiled_intensity() -> FunctionQuestion:
    """(b) Its intensity out of HBM."""
    return FunctionQuestion(
        "ex9.tiled_intensity",
        "(m, k, n, bm, bn)",
        answers.tiled_intensity,
        MODEL,
        cases=((*given.SHAPE, *given.TILE), (1000, 512, 3000, 128, 256)),
        random_case=_random_tiling,
        mistakes=(
            Mistake(UNTILED, lambda m, k, n, bm, bn: matmul_cost(m, k, n).intensity),
            Mistake(NO_OUTPUT, lambda *sizes: matmul_cost(*sizes[:3]).flops / _no_output(*sizes)),
            Mistake(ELEMENTS_NOT_BYTES, lambda *sizes: BF16_BYTES * answers.tiled_intensity(*sizes)),
        ),
        readings=(
            refused("bytes-read", "FLOPs per byte read out of HBM, the output's write left out",
                    lambda *sizes: matmul_cost(*sizes[:3]).flops / _no_output(*sizes), N_("per byte of (a)"),
                    NO_OUTPUT),
        ),
    )


def smallest_tile() -> FunctionQuestion:
    """(c) The smallest tile that is compute-bound out of HBM."""
    return FunctionQuestion(
        "ex9.smallest_tile",
        "(peak, hbm_bandwidth, vmem_bandwidth)",
        answers.smallest_tile,
        TILE,
        cases=((*SMALLEST, VMEM_BANDWIDTH), (*answers.H100[:2], SMEM_BANDWIDTH), (1e15, 4e12, 4e13)),
        random_case=_random_hierarchy,
        mistakes=(
            Mistake(ELEMENTS_NOT_BYTES, lambda peak, hbm, _: answers.smallest_tile(peak / 2, hbm)),
            Mistake(INNER_BANDWIDTH, lambda peak, hbm, vmem: answers.smallest_tile(peak, vmem)),
            Mistake(TILE_OUTPUT_WRITE, _tile_with_output),
        ),
        readings=(
            earns("decimals", "the side at which the intensity equals the ridge, with decimals",
                  lambda peak, hbm, vmem: BF16_BYTES * peak / hbm),
            earns("rounded-up", "that side rounded up",
                  lambda peak, hbm, vmem: math.ceil(BF16_BYTES * peak / hbm)),
            earns("both-levels", "the smallest tile compute-bound against HBM and against the on-chip memory",
                  lambda peak, hbm, vmem: max(answers.smallest_tile(peak, hbm),
                                              answers.smallest_tile(peak, vmem))),
            refused("output-write", "the output tile's write counted, for this exercise's matmul as in (a)",
                    _tile_with_output, N_("leave out the output tile's write"), TILE_OUTPUT_WRITE),
            refused("elements", "intensity per element, not per byte",
                    lambda peak, hbm, vmem: answers.smallest_tile(peak / 2, hbm),
                    N_("Every array is bf16 (2 bytes an element)"), ELEMENTS_NOT_BYTES),
            refused("inner-bandwidth", "the ridge of the on-chip memory the tile is staged in",
                    lambda peak, hbm, vmem: answers.smallest_tile(peak, vmem),
                    N_("is compute-bound, not limited by HBM"), INNER_BANDWIDTH),
        ),
    )


def held_bytes() -> FunctionQuestion:
    """(d) The bytes a tile holds on chip."""
    return FunctionQuestion(
        "ex9.held_bytes",
        "(bm, bk, bn)",
        answers.held_bytes,
        COUNT,
        cases=((256, 512, 1024), (128, 64, 256)),
        random_case=lambda rng: tuple(int(v) for v in rng.integers(8, 2049, size=3)),
        mistakes=(
            Mistake(NO_OUTPUT, lambda bm, bk, bn: answers.held_bytes(bm, bk, bn) - BF16_BYTES * bm * bn),
            Mistake(ELEMENTS_NOT_BYTES, lambda bm, bk, bn: answers.held_bytes(bm, bk, bn) / BF16_BYTES),
        ),
        readings=(
            refused("double-buffered",
                    "two copies of x's and w's tiles, the next step loading during this one",
                    lambda bm, bk, bn: answers.held_bytes(bm, bk, bn) + BF16_BYTES * bk * (bm + bn),
                    N_("one copy of each")),
            refused("no-output", "x's and w's tiles alone, the output accumulated elsewhere (in registers)",
                    lambda bm, bk, bn: answers.held_bytes(bm, bk, bn) - BF16_BYTES * bm * bn,
                    N_("and the output tile `out[bm, bn]`"), NO_OUTPUT),
        ),
    )


def fits() -> FunctionQuestion:
    """(e) Does it fit?"""
    return FunctionQuestion(
        "ex9.fits",
        "(b, capacity_bytes)",
        answers.fits,
        WORD,
        cases=(
            (answers.smallest_tile(), VMEM_CAPACITY),
            (answers.smallest_tile(*answers.H100[:2], SMEM_BANDWIDTH), answers.H100[2]),
        ),
        random_case=_random_fit,
        returns="word",
        choices=("yes", "no"),
        readings=(
            earns("operands-only", "x's and w's tiles alone", _fits_if(lambda b: 2 * BF16_BYTES * b * b)),
            earns("strict", "a tile that fills the memory exactly does not fit",
                  _fits_if(lambda b: answers.held_bytes(b, b, b), strict=True)),
        ),
    )


def unfused_attention_bytes() -> FunctionQuestion:
    """(f) Attention unfused."""
    return FunctionQuestion(
        "ex9.unfused_attention_bytes",
        "(seq, head_dim)",
        answers.unfused_attention_bytes,
        COUNT,
        cases=(ATTENTION[:2], (1024, 64)),
        random_case=lambda rng: _random_attention(rng)[:2],
        mistakes=(Mistake(SCORES_ONCE, _unfused_scores_once),),
        readings=(
            refused("fp32-scores", "the scores and probabilities in fp32, as many kernels keep them",
                    lambda seq, d: (answers.unfused_attention_bytes(seq, d)
                                    + 2 * BF16_BYTES * seq * seq * 2),
                    N_("Every array is bf16 (2 bytes an element)")),
            refused("scores-once", "the scores written once and read once",
                    _unfused_scores_once, N_("each reading its inputs from HBM and writing its output there"),
                    SCORES_ONCE),
        ),
    )


def fused_attention_bytes() -> FunctionQuestion:
    """(g) Attention fused."""
    return FunctionQuestion(
        "ex9.fused_attention_bytes",
        "(seq, head_dim, block)",
        answers.fused_attention_bytes,
        COUNT,
        cases=(ATTENTION, (1024, 64, 128), (1000, 64, 128)),
        random_case=_random_attention,
        mistakes=(Mistake(KV_NOT_PER_BLOCK, _fused_kv_once), Mistake(NO_OUTPUT, _fused_no_output)),
        readings=(
            refused("kv-once", "K and V read once, kept on chip",
                    _fused_kv_once, N_("streams all of `K` and `V` past it"), KV_NOT_PER_BLOCK),
        ),
    )


def fusion_ratio() -> FunctionQuestion:
    """(h) What fusion gains."""
    return FunctionQuestion(
        "ex9.fusion_ratio",
        "(seq, head_dim, block)",
        answers.fusion_ratio,
        MODEL,
        cases=(ATTENTION, (1024, 64, 128)),
        random_case=_random_attention,
        mistakes=(
            Mistake(SCORES_ONCE, _ratio(_unfused_scores_once, answers.fused_attention_bytes)),
            Mistake(KV_NOT_PER_BLOCK, _ratio(answers.unfused_attention_bytes, _fused_kv_once)),
            Mistake(NO_OUTPUT, _ratio(answers.unfused_attention_bytes, _fused_no_output)),
        ),
        readings=(
            refused("inverted", "the unfused intensity over the fused one",
                    lambda seq, d, block: 1 / answers.fusion_ratio(seq, d, block),
                    N_("divided by the unfused one's")),
        ),
    )


def exercise() -> Exercise:
    """Exercise 9's answer key: its parts in the statement's order, the misconceptions it exists
    to catch, and the figures its statement gives."""
    return Exercise(
        "ex9_memory_hierarchy",
        questions=(
            tiled_bytes(),
            tiled_intensity(),
            smallest_tile(),
            held_bytes(),
            fits(),
            unfused_attention_bytes(),
            fused_attention_bytes(),
            fusion_ratio(),
        ),
        misconceptions=(UNTILED, ELEMENTS_NOT_BYTES, INNER_BANDWIDTH, SCORES_ONCE, KV_NOT_PER_BLOCK),
        given=(
            *SMALLEST,
            VMEM_BANDWIDTH,
            VMEM_CAPACITY,
            *answers.H100,
            SMEM_BANDWIDTH,
            *given.SHAPE,
            *given.TILE,
            *ATTENTION,
        ),
    )
