"""What exercise 8's statement gives: the H100 SXM's datasheet lines and two measured bf16 matmuls.

No answer: the statement prints these figures, and the key asks its questions at them.

>>> round(DATASHEET_BF16 / 1e12, 1), DATASHEET_TB, KERNELS["decode"]
(1979.0, 3.35, ((8, 8192, 8192), 60.0))
"""

from __future__ import annotations

from rooflinekit.catalog import Chip, chip

CHIP: Chip = chip("h100-sxm")
DATASHEET_BF16 = CHIP.peak("bf16", sparse=True)
"""The datasheet's bf16 line, in FLOP/s: with 2:4 sparsity, twice the dense peak."""
DATASHEET_TB = CHIP.hbm_bandwidth / 1e12
"""The datasheet's memory bandwidth, in TB/s."""
KERNELS = {"prefill": ((4096, 8192, 8192), 800.0), "decode": ((8, 8192, 8192), 60.0)}
"""Two bf16 matmuls (B, D, F) and the time, in microseconds, a profiler gave each (the exercise's
own measurements, not a published one)."""
