"""What exercise 5's statement gives: the H100 SXM's datasheet lines and the replicas.

No answer: the statement prints these figures, and the key asks its questions at them.

>>> REPLICAS, round(DATASHEET_BF16 / 1e12, 1), CHIP.hbm_bandwidth
(8, 1979.0, 3350000000000.0)
"""

from __future__ import annotations

from rooflinekit.catalog import Chip, chip

CHIP: Chip = chip("h100-sxm")
"""The H100 SXM, its HBM bandwidth as NVIDIA's datasheet gives it."""
DATASHEET_BF16 = CHIP.peak("bf16", sparse=True)
"""The datasheet's bf16 line, which assumes 2:4 structured sparsity."""
REPLICAS = 8
"""Exercise 5's data-parallel replicas, one H100 each."""
