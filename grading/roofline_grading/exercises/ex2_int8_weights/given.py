"""What exercise 2's statement gives: the TPU v5e with the catalog's figures, and its matmul's types.

No answer: the statement prints these figures, and the key asks its questions at them. They are the
library's (:mod:`rooflinekit.exercises`), which the book quotes for exercises 2 and 3.

>>> CHIP.peak("bf16"), CHIP.peak("int8"), CHIP.hbm_bandwidth
(197000000000000.0, 394000000000000.0, 820000000000.0)
>>> MIXED
{'x': 'bf16', 'w': 'int8', 'out': 'bf16'}
"""

from __future__ import annotations

from rooflinekit.catalog import Chip
from rooflinekit.exercises import EX2_CHIP, EXERCISE_1_HBM_BANDWIDTH, MIXED, VENDOR_HBM_BANDWIDTH

__all__ = ["CHIP", "EXERCISE_1_BANDWIDTH", "MIXED", "VENDOR"]

CHIP: Chip = EX2_CHIP
"""The TPU v5e with the catalog's figures (the chapters' 8.2e11 B/s)."""
VENDOR = VENDOR_HBM_BANDWIDTH
"""Google's 819 GB/s, which the statement names as what the catalog's figure rounds (not asked)."""
EXERCISE_1_BANDWIDTH = EXERCISE_1_HBM_BANDWIDTH
"""Exercise 1's 8.1e11 B/s, which the statement says not to use (a known mistake's figure)."""
