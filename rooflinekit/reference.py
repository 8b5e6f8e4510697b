"""Reference answers to the course's five graded exercises, built from the model.

The figures a problem statement gives live here once (``EXERCISE_1_HBM_BANDWIDTH``); every
answer is computed from the catalog and the cost models, never typed in.

>>> round(ex1_critical_batch(), 1)
243.2
>>> round(ex2_critical_batch(), 1)
120.1
>>> [round(ex3_crossover(d), 1) for d in EX3_SIZES]
[136.1, 226.3]
>>> round(ex4_intensity(64, 8192, 8192), 2)
2.0
>>> [int(b) for b in ex5_accepted_critical_batches()]
[295, 298]
>>> ex4_critical_batch(*EX4_D_F)
inf
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rooflinekit.analysis import Roofline, analyze, attainable_flops
from rooflinekit.catalog import Chip, chip
from rooflinekit.costs import batched_matmul_cost, matmul_cost
from rooflinekit.critical import matmul_critical_batch, matmul_critical_batch_approx

# --- Exercise 1: int8[B,D] . int8[D,F] -> int8[B,F] on a TPU v5e -------------------------
EXERCISE_1_HBM_BANDWIDTH = 8.1e11
"""Exercise 1 states 8.1e11 B/s (the vendor's 819 GB/s rounded down; the text uses 8.2e11)."""

EX1_CHIP: Chip = chip("tpu-v5e").derive(
    id="tpu-v5e-exercise-1", name="TPU v5e (exercise 1)", hbm_bandwidth=EXERCISE_1_HBM_BANDWIDTH
)
INT8: dict[str, str] = {"x": "int8", "w": "int8", "out": "int8"}
EX1_SHAPE = (128, 8192, 8192)
"""(B, D, F) for which exercise 1 asks the times and the limiting resource."""


def ex1_bytes_read(B: Any, D: Any, F: Any) -> Any:
    """``BD + DF``: one byte per int8 element of both operands."""
    return matmul_cost(B, D, F, **INT8).bytes_read


def ex1_bytes_written(B: Any, D: Any, F: Any) -> Any:
    """``BF``: one byte per int8 element of the output."""
    return matmul_cost(B, D, F, **INT8).bytes_written


def ex1_ops(B: Any, D: Any, F: Any) -> Any:
    """``2BDF``: a multiply and an add per term."""
    return matmul_cost(B, D, F, **INT8).flops


def ex1_intensity(B: Any, D: Any, F: Any) -> Any:
    """``2BDF / (BD + DF + BF)``, about ``2B`` when ``B << D, F``."""
    return matmul_cost(B, D, F, **INT8).intensity


def ex1_critical_batch() -> float:
    """``3.94e14 / 8.1e11 / 2``: the batch above which the int8 matmul is compute-bound."""
    return matmul_critical_batch_approx(EX1_CHIP, w="int8", compute="int8")


def ex1_roofline(B: Any, D: Any, F: Any) -> Roofline:
    """``t_math``, ``t_comms``, ``t_lower``, ``t_upper`` for one shape."""
    return analyze(matmul_cost(B, D, F, **INT8), EX1_CHIP, compute="int8")


def ex1_bound(B: Any, D: Any, F: Any) -> Any:
    """``"compute"`` or ``"memory"``: which time is the longer one for this shape."""
    return ex1_roofline(B, D, F).bound


# --- Exercise 2: bf16[B,D] . int8[D,F] -> bf16[B,F], bf16 compute ------------------------
EX2_CHIP: Chip = chip("tpu-v5e")
MIXED: dict[str, str] = {"x": "bf16", "w": "int8", "out": "bf16"}


def ex2_bytes_read(B: Any, D: Any, F: Any) -> Any:
    """``2BD + DF``: bf16 activations, int8 weights."""
    return matmul_cost(B, D, F, **MIXED).bytes_read


def ex2_bytes_written(B: Any, D: Any, F: Any) -> Any:
    """``2BF``: a bf16 output."""
    return matmul_cost(B, D, F, **MIXED).bytes_written


def ex2_ops(B: Any, D: Any, F: Any) -> Any:
    """``2BDF``, done in bf16."""
    return matmul_cost(B, D, F, **MIXED).flops


def ex2_intensity(B: Any, D: Any, F: Any) -> Any:
    """``2BDF / (2BD + DF + 2BF)``, about ``2B`` when ``B << D, F``."""
    return matmul_cost(B, D, F, **MIXED).intensity


def ex2_critical_batch() -> float:
    """``1.97e14 / 8.2e11 / 2``: half the bf16 figure, since weights take one byte."""
    return matmul_critical_batch_approx(EX2_CHIP, w="int8", compute="bf16")


# --- Exercise 3: the plot of exercise 2's setup with exact bytes --------------------------
EX3_SIZES = (4096, 1024)
"""D = F for each curve."""
EX3_BATCHES = np.arange(1, 512)
"""B from 1 to 511."""


def ex3_attainable(B: Any, D: Any, F: Any | None = None) -> Any:
    """Attainable FLOP/s of exercise 2's matmul with exact bytes (``F`` defaults to ``D``)."""
    F = D if F is None else F
    return attainable_flops(
        ex2_intensity(B, D, F), peak=EX2_CHIP.peak("bf16"), bandwidth=EX2_CHIP.hbm_bandwidth
    )


def ex3_crossover(D: Any, F: Any | None = None) -> Any:
    """Exact batch at which the curve reaches the peak (``F`` defaults to ``D``)."""
    F = D if F is None else F
    return matmul_critical_batch(D, F, EX2_CHIP, x="bf16", w="int8", out="bf16", compute="bf16")


# --- Exercise 4: int8[B,D] . int8[B,D,F] -> int8[B,F], a weight matrix per example -------
EX4_CHIP: Chip = EX1_CHIP
EX4_D_F = (8192, 8192)
"""(D, F) for which exercise 4 asks the critical batch."""


def ex4_bytes_read(B: Any, D: Any, F: Any) -> Any:
    """``BD + BDF``: the weights grow with the batch."""
    return batched_matmul_cost(B, D, F, **INT8).bytes_read


def ex4_bytes_written(B: Any, D: Any, F: Any) -> Any:
    """``BF``."""
    return batched_matmul_cost(B, D, F, **INT8).bytes_written


def ex4_ops(B: Any, D: Any, F: Any) -> Any:
    """``2BDF``."""
    return batched_matmul_cost(B, D, F, **INT8).flops


def ex4_intensity(B: Any, D: Any, F: Any) -> Any:
    """``2DF / (D + DF + F)``: about 2 whatever ``B`` is."""
    return batched_matmul_cost(B, D, F, **INT8).intensity


def ex4_bound(B: Any, D: Any, F: Any) -> Any:
    """``"memory"`` for every realistic shape."""
    return analyze(batched_matmul_cost(B, D, F, **INT8), EX4_CHIP, compute="int8").bound


def ex4_critical_batch(D: Any, F: Any) -> float:
    """Smallest batch at which the batched matmul is compute-bound, ``inf`` if none.

    Its intensity ``2DF / (D + DF + F)`` does not depend on ``B`` at all: if it is below the
    chip's critical intensity for one example, it is for every batch.
    """
    if ex4_intensity(1, D, F) > EX4_CHIP.critical_intensity("int8"):
        return 1.0
    return math.inf


# --- Exercise 5: the H100's critical batch from its datasheet ----------------------------
EX5_CHIP: Chip = chip("h100-sxm")
EX5_REPLICAS = 8
"""Exercise 5's data-parallel replicas, one H100 each."""


def ex5_dense_peak() -> float:
    """The datasheet's bf16 figure assumes 2:4 sparsity; dense is half of it."""
    return EX5_CHIP.peak("bf16", sparse=True) / 2


def ex5_critical_batch() -> float:
    """Dense bf16 peak over HBM bandwidth: about 295 tokens."""
    return matmul_critical_batch_approx(peak=ex5_dense_peak(), bandwidth=EX5_CHIP.hbm_bandwidth)


def ex5_dense_peak_rounded() -> float:
    """The dense peak rounded to one significant figure, as a published answer does (1e15)."""
    return float(f"{ex5_dense_peak():.0e}")


def ex5_critical_batch_rounded_peak() -> float:
    """The same with the peak rounded to one significant figure (1e15): about 298."""
    return matmul_critical_batch_approx(peak=ex5_dense_peak_rounded(), bandwidth=EX5_CHIP.hbm_bandwidth)


def ex5_accepted_critical_batches() -> tuple[float, float]:
    """Both published answers, 295 and 298, are accepted."""
    return ex5_critical_batch(), ex5_critical_batch_rounded_peak()


def ex5_accepted_global_batches() -> tuple[float, float]:
    """Total tokens per step over ``EX5_REPLICAS`` data-parallel replicas: the threshold is per
    replica, so each replica needs its own critical batch."""
    dense, rounded = ex5_accepted_critical_batches()
    return EX5_REPLICAS * dense, EX5_REPLICAS * rounded
