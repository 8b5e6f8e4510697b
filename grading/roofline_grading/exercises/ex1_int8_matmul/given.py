"""What exercise 1's statement gives: the TPU v5e at the bandwidth it states, and the shape it asks about.

No answer: the statement prints these figures, and the key asks its questions at them. They are the
library's (:mod:`rooflinekit.exercises`), which the book quotes for exercise 1.

>>> CHIP.peak("int8"), HBM_BANDWIDTH, SHAPE
(394000000000000.0, 810000000000.0, (128, 8192, 8192))
"""

from __future__ import annotations

from rooflinekit.catalog import Chip
from rooflinekit.exercises import EX1_CHIP, EX1_SHAPE, EXERCISE_1_HBM_BANDWIDTH, INT8, VENDOR_HBM_BANDWIDTH

__all__ = ["CHIP", "HBM_BANDWIDTH", "INT8", "SHAPE", "VENDOR"]

CHIP: Chip = EX1_CHIP
"""The TPU v5e as exercise 1 gives it: the catalog's peaks, 8.1e11 B/s."""
HBM_BANDWIDTH = EXERCISE_1_HBM_BANDWIDTH
"""The bandwidth exercise 1 states (the vendor's 819 GB/s rounded down; the text uses 8.2e11)."""
VENDOR = VENDOR_HBM_BANDWIDTH
"""Google's 819 GB/s, which the statement names as what its figure rounds down (not asked)."""
SHAPE = EX1_SHAPE
"""(B, D, F) for which exercise 1 asks whether the matmul is limited by compute or memory."""
