"""The graded exercises' model answers, as functions: what the answer key calls right.

Every answer is computed by ``rooflinekit``'s general functions at the figures the exercise's
statement gives (``rooflinekit.exercises``), never typed in. Answers that the exercises ask as
functions of the given figures take those figures as arguments, with the exercise's own as
defaults, so the grader can ask the same question at other figures. They live in the grading
package, which only instructors install: the library every student installs holds none
(the public edition of the course is written without this package).

>>> from rooflinekit.exercises import EX3_SIZES, EX4_D_F
>>> round(ex1_critical_batch(), 1)
243.2
>>> round(ex2_critical_batch(), 1)
120.1
>>> [round(ex3_crossover(d), 1) for d in EX3_SIZES]
[136.1, 226.3]
>>> round(float(ex4_cost(64, 8192, 8192).intensity), 2)
2.0
>>> ex4_critical_batch(*EX4_D_F)
inf
>>> round(ex5_critical_batch(), 1)
295.4
>>> ex9_smallest_tile(), ex9_smallest_tile(*EX9_H100[:2], vmem_bandwidth=math.inf)
(481, 591)
"""

from __future__ import annotations

import math
from typing import Any

from rooflinekit.analysis import Roofline, analyze, attainable_flops
from rooflinekit.costs import Cost, batched_matmul_cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch, matmul_critical_batch_approx
from rooflinekit.exercises import (
    EX1_CHIP,
    EX2_CHIP,
    EX4_CHIP,
    EX5_CHIP,
    EX5_DATASHEET_BF16,
    EX5_REPLICAS,
    EX9_CHIP,
    EX9_OTHER_CHIP,
    EX9_SMEM,
    EX9_VMEM,
    EXERCISE_1_HBM_BANDWIDTH,
    INT8,
    MIXED,
)
from rooflinekit.hierarchy import attention_cost, smallest_compute_bound_tiles, tile_bytes, tiled_matmul_bytes

__all__ = [
    "EX9_H100",
    "ex1_cost",
    "ex1_critical_batch",
    "ex1_roofline",
    "ex2_cost",
    "ex2_critical_batch",
    "ex3_attainable",
    "ex3_crossover",
    "ex4_cost",
    "ex4_critical_batch",
    "ex5_critical_batch",
    "ex5_dense_peak",
    "ex5_global_batch",
    "ex9_fits",
    "ex9_fused_attention_bytes",
    "ex9_fusion_ratio",
    "ex9_held_bytes",
    "ex9_smallest_tile",
    "ex9_tiled_bytes",
    "ex9_tiled_intensity",
    "ex9_unfused_attention_bytes",
]


# --- Exercise 1: int8[B,D] . int8[D,F] -> int8[B,F] on a TPU v5e -------------------------


def ex1_cost(B: Any, D: Any, F: Any) -> Cost:
    """Bytes ``BD + DF`` read, ``BF`` written, ``2BDF`` operations: all int8."""
    return matmul_cost(B, D, F, **INT8)


def ex1_roofline(B: Any, D: Any, F: Any) -> Roofline:
    """``t_math``, ``t_comms``, ``t_lower``, ``t_upper`` and ``bound`` for one shape."""
    return analyze(ex1_cost(B, D, F), EX1_CHIP, compute="int8")


def ex1_critical_batch(
    int8_peak: float = EX1_CHIP.peak("int8"), hbm_bandwidth: float = EXERCISE_1_HBM_BANDWIDTH
) -> float:
    """``int8_peak / hbm_bandwidth / 2``: above it the int8 matmul is compute-bound (B << D, F)."""
    return matmul_critical_batch_approx(peak=int8_peak, bandwidth=hbm_bandwidth, w="int8")


# --- Exercise 2: bf16[B,D] . int8[D,F] -> bf16[B,F], bf16 compute ------------------------


def ex2_cost(B: Any, D: Any, F: Any) -> Cost:
    """Bytes ``2BD + DF`` read, ``2BF`` written, ``2BDF`` FLOPs done in bf16."""
    return matmul_cost(B, D, F, **MIXED)


def ex2_critical_batch(
    bf16_peak: float = EX2_CHIP.peak("bf16"), hbm_bandwidth: float = EX2_CHIP.hbm_bandwidth
) -> float:
    """``bf16_peak / hbm_bandwidth / 2``: half the bf16 figure, since a weight takes one byte."""
    return matmul_critical_batch_approx(peak=bf16_peak, bandwidth=hbm_bandwidth, w="int8")


# --- Exercise 3: the plot of exercise 2's setup with exact bytes --------------------------


def ex3_attainable(B: Any, D: Any, F: Any | None = None) -> Any:
    """Attainable FLOP/s of exercise 2's matmul with exact bytes (``F`` defaults to ``D``)."""
    F = D if F is None else F
    return attainable_flops(ex2_cost(B, D, F).intensity, EX2_CHIP.peak("bf16"), EX2_CHIP.hbm_bandwidth)


def ex3_crossover(D: Any, F: Any | None = None, *, compute: str = "bf16") -> Any:
    """Exact batch at which the curve reaches the peak (``F`` defaults to ``D``)."""
    F = D if F is None else F
    return matmul_critical_batch(D, F, EX2_CHIP, x="bf16", w="int8", out="bf16", compute=compute)


# --- Exercise 4: int8[B,D] . int8[B,D,F] -> int8[B,F], a weight matrix per example -------


def ex4_cost(B: Any, D: Any, F: Any) -> Cost:
    """Bytes ``BD + BDF`` read (the weights grow with the batch), ``BF`` written, ``2BDF`` operations."""
    return batched_matmul_cost(B, D, F, **INT8)


def ex4_critical_batch(
    D: Any,
    F: Any,
    int8_peak: float = EX4_CHIP.peak("int8"),
    hbm_bandwidth: float = EX4_CHIP.hbm_bandwidth,
) -> float:
    """Smallest batch at which the batched matmul is compute-bound, ``inf`` if none.

    Its intensity ``2DF / (D + DF + F)`` does not depend on ``B``: if one example is below the
    chip's critical intensity, every batch is.
    """
    if ex4_cost(1, D, F).intensity > int8_peak / hbm_bandwidth:
        return 1.0
    return math.inf


# --- Exercise 5: the H100's critical batch from its datasheet ----------------------------


def ex5_dense_peak(datasheet_flops: float = EX5_DATASHEET_BF16) -> float:
    """The datasheet's bf16 figure assumes 2:4 sparsity; dense math runs at half of it."""
    return datasheet_flops / 2


def ex5_critical_batch(
    datasheet_flops: float = EX5_DATASHEET_BF16, hbm_bandwidth: float = EX5_CHIP.hbm_bandwidth
) -> float:
    """Dense bf16 peak over HBM bandwidth (2 FLOPs per multiply-add, 2 bytes per weight): about 295."""
    return matmul_critical_batch_approx(peak=ex5_dense_peak(datasheet_flops), bandwidth=hbm_bandwidth)


def ex5_global_batch(
    replicas: int = EX5_REPLICAS,
    datasheet_flops: float = EX5_DATASHEET_BF16,
    hbm_bandwidth: float = EX5_CHIP.hbm_bandwidth,
) -> float:
    """Tokens per step over ``replicas`` data-parallel replicas: each needs its own critical batch."""
    return replicas * ex5_critical_batch(datasheet_flops, hbm_bandwidth)


# --- Exercise 9: the memory hierarchy: tiles, their fit on chip, fused attention ---------


def ex9_tiled_bytes(m: Any, k: Any, n: Any, bm: Any, bn: Any) -> Any:
    """Bytes out of HBM for a bf16 matmul in tiles of ``bm x bn`` outputs: ``x`` moves
    ``ceil(n/bn)`` times, ``w`` ``ceil(m/bm)`` times, ``out`` once."""
    return tiled_matmul_bytes(m, k, n, bm, bn)


def ex9_tiled_intensity(m: Any, k: Any, n: Any, bm: Any, bn: Any) -> Any:
    """FLOPs per byte out of HBM of that tiled matmul."""
    return matmul_cost(m, k, n).flops / ex9_tiled_bytes(m, k, n, bm, bn)


def _tiles_on(peak: float, hbm_bandwidth: float) -> Any:
    """The smallest bf16 square tile compute-bound out of HBM on a chip of these figures."""
    derived = EX9_CHIP.derive(id="exercise-9", peaks={"bf16": peak}, hbm_bandwidth=hbm_bandwidth)
    return smallest_compute_bound_tiles(derived)[0]


def ex9_smallest_tile(
    peak: float = EX9_CHIP.peak("bf16"),
    hbm_bandwidth: float = EX9_CHIP.hbm_bandwidth,
    vmem_bandwidth: float = float(EX9_VMEM.bandwidth or "nan"),
) -> int:
    """The side ``b`` of the smallest square bf16 tile compute-bound streaming out of HBM: the
    ridge is HBM's (``vmem_bandwidth``, the level the tile is staged in, does not set it)."""
    return int(_tiles_on(peak, hbm_bandwidth).tile)


def ex9_held_bytes(bm: Any, bk: Any, bn: Any) -> Any:
    """Bytes the three bf16 tiles ``x[bm,bk]``, ``w[bk,bn]``, ``out[bm,bn]`` take on chip."""
    return tile_bytes(bm, bk, bn)


EX9_H100 = (EX9_OTHER_CHIP.peak("bf16"), EX9_OTHER_CHIP.hbm_bandwidth, float(EX9_SMEM.capacity or "nan"))
"""(peak, HBM bandwidth, one SM's shared memory) of the H100: where its tile does not fit."""


def ex9_fits(b: Any, capacity_bytes: float) -> str:
    """``"yes"`` if the three tiles of a square ``b x b x b`` bf16 tile step fit in ``capacity_bytes``."""
    return "yes" if tile_bytes(b, b, b) <= capacity_bytes else "no"


def ex9_unfused_attention_bytes(seq: Any, head_dim: Any) -> Any:
    """HBM bytes of one bf16 attention head unfused: the scores go to HBM and back twice."""
    return attention_cost(seq, head_dim).bytes


def ex9_fused_attention_bytes(seq: Any, head_dim: Any, block: Any) -> Any:
    """HBM bytes fused, with blocks of ``block`` queries: ``Q`` read and ``O`` written once,
    ``K`` and ``V`` read once per block."""
    return attention_cost(seq, head_dim, fused=True, block=block).bytes


def ex9_fusion_ratio(seq: Any, head_dim: Any, block: Any) -> Any:
    """The fused attention's intensity over the unfused one's (the same FLOPs)."""
    fused = attention_cost(seq, head_dim, fused=True, block=block)
    return fused.intensity / attention_cost(seq, head_dim).intensity
