"""What exercise 9's statement gives: its chips, the matmul it tiles and the attention it fuses.

No answer: the statement prints these figures, and the key asks its questions at them.

>>> SHAPE, TILE, (SEQ, HEAD_DIM, BLOCK)
((8192, 4096, 16384), (512, 1024), (8192, 128, 512))
>>> VMEM.id, SMEM.id
('vmem', 'smem')
"""

from __future__ import annotations

from rooflinekit.catalog import Chip, chip

CHIP: Chip = chip("tpu-v5e")
"""The TPU v5e with the catalog's bf16 peak, HBM bandwidth and VMEM (capacity, bandwidth)."""
OTHER_CHIP: Chip = chip("h100-sxm")
"""The H100 SXM with the catalog's dense bf16 peak, HBM bandwidth and one SM's shared memory."""
SHAPE = (8192, 4096, 16384)
"""(m, k, n) of the bf16 matmul ``x[m,k] . w[k,n] -> out[m,n]`` exercise 9 tiles."""
TILE = (512, 1024)
"""(bm, bn): the tile of outputs staged in VMEM."""
VMEM = next(lv for lv in CHIP.levels if lv.id == "vmem")
"""The v5e's VMEM: its capacity (bytes) and bandwidth (B/s) from the catalog."""
SMEM = next(lv for lv in OTHER_CHIP.levels if lv.id == "smem")
"""The H100's shared memory: one SM's capacity (bytes)."""
SEQ = 8192
"""Tokens of the attention exercise 9 asks about (one head, bf16)."""
HEAD_DIM = 128
"""The head dimension of that attention."""
BLOCK = 512
"""Query rows per block of the fused attention's outer loop."""
