"""What exercise 4's statement gives: exercise 1's chip, and the width at which it asks the critical batch.

No answer: the statement prints these figures, and the key asks its questions at them. The chip is
the library's (:mod:`rooflinekit.exercises`), which the book quotes for exercise 1.

>>> CHIP.hbm_bandwidth, D_F
(810000000000.0, (8192, 8192))
"""

from __future__ import annotations

from rooflinekit.catalog import Chip
from rooflinekit.exercises import EX1_CHIP, EX2_CHIP, INT8

__all__ = ["CHAPTERS_BANDWIDTH", "CHIP", "D_F", "INT8"]

CHIP: Chip = EX1_CHIP
"""Exercise 1's chip and bandwidth: the TPU v5e at 8.1e11 B/s."""
CHAPTERS_BANDWIDTH = EX2_CHIP.hbm_bandwidth
"""The chapters' 8.2e11 B/s, which the statement says this exercise does not use (not asked)."""
D_F = (8192, 8192)
"""(D, F) at which exercise 4 asks the critical batch."""
