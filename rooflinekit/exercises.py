"""The graded exercises' problem statements as data: the figures, shapes and chips each gives.

Only what a statement gives lives here, once, for the book that cites it and the grader that
asks its questions at it. No answer: what a student is asked to compute (bytes, intensities,
critical batches, crossovers) is not in this package, not even as an example. The book
computes the numbers it quotes with the library's general functions at these figures:

>>> EX1_CHIP.hbm_bandwidth == EXERCISE_1_HBM_BANDWIDTH, EX1_SHAPE
(True, (128, 8192, 8192))
>>> EX3_SIZES, int(EX3_BATCHES[-1])
((4096, 1024), 511)
"""

from __future__ import annotations

import numpy as np

from rooflinekit.catalog import Chip, chip

INT8: dict[str, str] = {"x": "int8", "w": "int8", "out": "int8"}
"""Every operand int8 (exercises 1 and 4)."""
MIXED: dict[str, str] = {"x": "bf16", "w": "int8", "out": "bf16"}
"""bf16 activations and output, int8 weights (exercises 2 and 3)."""

# --- Exercise 1: int8[B,D] . int8[D,F] -> int8[B,F] on a TPU v5e -------------------------
EXERCISE_1_HBM_BANDWIDTH = 8.1e11
"""Exercise 1 states 8.1e11 B/s (the vendor's 819 GB/s rounded down; the text uses 8.2e11)."""

EX1_CHIP: Chip = chip("tpu-v5e").derive(
    id="tpu-v5e-exercise-1", name="TPU v5e (exercise 1)", hbm_bandwidth=EXERCISE_1_HBM_BANDWIDTH
)
"""The TPU v5e as exercise 1 gives it: the catalog's peaks, exercise 1's bandwidth."""
VENDOR_HBM_BANDWIDTH = 8.19e11
"""Google's figure for the TPU v5e's HBM (819 GB/s), which exercises 1 and 2 name: the catalog's
8.2e11 B/s rounds it, exercise 1's 8.1e11 rounds it down."""
EX1_SHAPE = (128, 8192, 8192)
"""(B, D, F) for which exercise 1 asks whether the matmul is limited by compute or memory."""

# --- Exercises 2 and 3: bf16[B,D] . int8[D,F] -> bf16[B,F], bf16 compute ------------------
EX2_CHIP: Chip = chip("tpu-v5e")
"""The TPU v5e with the catalog's figures (the chapters' 8.2e11 B/s)."""
EX3_SIZES = (4096, 1024)
"""D = F for each curve of exercise 3's plot."""
EX3_BATCHES = np.arange(1, 512)
"""B from 1 to 511 (read-only: every check shares it, so nothing may change it in place)."""
EX3_BATCHES.setflags(write=False)

# --- Exercise 7: serving a model: its KV cache, its largest batch, its step and first token --
EX7_MODEL = "llama-3.1-8b"
"""Llama 3.1 8B (the catalog's shape, from its config): layers, query and KV heads, head width, parameters."""
EX7_CONTEXT = 4096
"""Tokens in each sequence's KV cache."""
