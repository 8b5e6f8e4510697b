"""Exercise 9's model answers, one function per graded part: what its key calls right.

Each is computed by ``rooflinekit``'s general functions (the memory hierarchy's costs), never
typed in; those that take figures default to the exercise's own (:mod:`.given`).

>>> smallest_tile(), smallest_tile(*H100[:2], vmem_bandwidth=float("inf"))
(481, 591)
>>> fits(smallest_tile(), float(VMEM.capacity or 0))
'yes'
"""

from __future__ import annotations

from typing import Any

from rooflinekit.costs import matmul_cost
from rooflinekit.hierarchy import attention_cost, smallest_compute_bound_tiles, tile_bytes, tiled_matmul_bytes

from .given import CHIP, OTHER_CHIP, SMEM, VMEM

__all__ = [
    "H100",
    "fits",
    "fused_attention_bytes",
    "fusion_ratio",
    "held_bytes",
    "smallest_tile",
    "tiled_bytes",
    "tiled_intensity",
    "unfused_attention_bytes",
]


def tiled_bytes(m: Any, k: Any, n: Any, bm: Any, bn: Any) -> Any:
    """Bytes out of HBM for a bf16 matmul in tiles of ``bm x bn`` outputs: ``x`` moves
    ``ceil(n/bn)`` times, ``w`` ``ceil(m/bm)`` times, ``out`` once."""
    return tiled_matmul_bytes(m, k, n, bm, bn)


def tiled_intensity(m: Any, k: Any, n: Any, bm: Any, bn: Any) -> Any:
    """FLOPs per byte out of HBM of that tiled matmul."""
    return matmul_cost(m, k, n).flops / tiled_bytes(m, k, n, bm, bn)


def _tiles_on(peak: float, hbm_bandwidth: float) -> Any:
    """The smallest bf16 square tile compute-bound out of HBM on a chip of these figures."""
    derived = CHIP.derive(id="exercise-9", peaks={"bf16": peak}, hbm_bandwidth=hbm_bandwidth)
    return smallest_compute_bound_tiles(derived)[0]


def smallest_tile(
    peak: float = CHIP.peak("bf16"),
    hbm_bandwidth: float = CHIP.hbm_bandwidth,
    vmem_bandwidth: float = float(VMEM.bandwidth or "nan"),
) -> int:
    """The side ``b`` of the smallest square bf16 tile compute-bound streaming out of HBM: the
    ridge is HBM's (``vmem_bandwidth``, the level the tile is staged in, does not set it)."""
    return int(_tiles_on(peak, hbm_bandwidth).tile)


def held_bytes(bm: Any, bk: Any, bn: Any) -> Any:
    """Bytes the three bf16 tiles ``x[bm,bk]``, ``w[bk,bn]``, ``out[bm,bn]`` take on chip."""
    return tile_bytes(bm, bk, bn)


H100 = (OTHER_CHIP.peak("bf16"), OTHER_CHIP.hbm_bandwidth, float(SMEM.capacity or "nan"))
"""(peak, HBM bandwidth, one SM's shared memory) of the H100: where its tile does not fit."""


def fits(b: Any, capacity_bytes: float) -> str:
    """``"yes"`` if the three tiles of a square ``b x b x b`` bf16 tile step fit in ``capacity_bytes``."""
    return "yes" if tile_bytes(b, b, b) <= capacity_bytes else "no"


def unfused_attention_bytes(seq: Any, head_dim: Any) -> Any:
    """HBM bytes of one bf16 attention head unfused: the scores go to HBM and back twice."""
    return attention_cost(seq, head_dim).bytes


def fused_attention_bytes(seq: Any, head_dim: Any, block: Any) -> Any:
    """HBM bytes fused, with blocks of ``block`` queries: ``Q`` read and ``O`` written once,
    ``K`` and ``V`` read once per block."""
    return attention_cost(seq, head_dim, fused=True, block=block).bytes


def fusion_ratio(seq: Any, head_dim: Any, block: Any) -> Any:
    """The fused attention's intensity over the unfused one's (the same FLOPs)."""
    fused = attention_cost(seq, head_dim, fused=True, block=block)
    return fused.intensity / attention_cost(seq, head_dim).intensity
