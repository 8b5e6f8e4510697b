"""What exercise 3's statement gives: exercise 2's chip and matmul, the widths and batches of its plot.

No answer: the statement prints these figures, and the key asks its questions at them. They are the
library's (:mod:`rooflinekit.exercises`), which the book quotes for exercises 2 and 3.

>>> CHIP.peak("bf16"), CHIP.hbm_bandwidth, SIZES, int(BATCHES[-1])
(197000000000000.0, 820000000000.0, (4096, 1024), 511)
"""

from __future__ import annotations

from rooflinekit.catalog import Chip
from rooflinekit.exercises import EX2_CHIP, EX3_BATCHES, EX3_SIZES, EXERCISE_1_HBM_BANDWIDTH, MIXED

__all__ = ["BATCHES", "CHIP", "EXERCISE_1_BANDWIDTH", "MIXED", "SIZES"]

CHIP: Chip = EX2_CHIP
"""Exercise 2's chip: the TPU v5e with the catalog's figures."""
EXERCISE_1_BANDWIDTH = EXERCISE_1_HBM_BANDWIDTH
"""Exercise 1's 8.1e11 B/s, which the statement says this chip's bandwidth is not (not asked)."""
SIZES = EX3_SIZES
"""D = F for each curve of the plot."""
BATCHES = EX3_BATCHES
"""B from 1 to 511 (read-only: every check shares it)."""
