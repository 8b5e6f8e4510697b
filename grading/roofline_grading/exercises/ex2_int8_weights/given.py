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
from rooflinekit.exercises import EX2_CHIP, MIXED

__all__ = ["CHIP", "MIXED"]

CHIP: Chip = EX2_CHIP
"""The TPU v5e with the catalog's figures (the chapters' 8.2e11 B/s)."""
