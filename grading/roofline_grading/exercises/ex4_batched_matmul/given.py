"""What exercise 4's statement gives: exercise 1's chip, and the width at which it asks the critical batch.

No answer: the statement prints these figures, and the key asks its questions at them. The chip is
the library's (:mod:`rooflinekit.exercises`), which the book quotes for exercise 1.

>>> CHIP.hbm_bandwidth, D_F
(810000000000.0, (8192, 8192))
"""

from __future__ import annotations

from rooflinekit.catalog import Chip
from rooflinekit.exercises import EX1_CHIP, INT8

__all__ = ["CHIP", "D_F", "INT8"]

CHIP: Chip = EX1_CHIP
"""Exercise 1's chip and bandwidth: the TPU v5e at 8.1e11 B/s."""
D_F = (8192, 8192)
"""(D, F) at which exercise 4 asks the critical batch."""
