"""What exercise 6's statement gives: the H100 SXM's links and network card, and the GPUs of a node.

No answer: the statement prints these figures, and the key asks its questions at them.

>>> NVLINK_BOTH_WAYS_GB, NIC_GIGABITS, GPUS
(900.0, 400.0, 8)
"""

from __future__ import annotations

from rooflinekit.catalog import Chip, chip

CHIP: Chip = chip("h100-sxm")
"""The H100 SXM with the catalog's dense bf16 peak, NVLink and InfiniBand figures."""
NVLINK_BOTH_WAYS_GB = 2 * CHIP.link_bandwidth / 1e9
"""NVIDIA's NVLink line, in GB/s: both directions together (the catalog keeps one way, half of it)."""
NIC_GIGABITS = 8 * float(CHIP.dcn_bandwidth or "nan") / 1e9
"""The InfiniBand NIC each GPU of the source's reference node has, in Gb/s (bits) each way."""
GPUS = 8
"""GPUs in one node, joined by NVLink."""
