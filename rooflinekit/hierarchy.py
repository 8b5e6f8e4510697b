"""The memory hierarchy on the roofline: one roof per memory level, ceilings, tiling and fusion.

A chip's HBM is one memory level; its on-chip memories (``chip.levels``: a TPU's VMEM, a GPU's
L2 and shared memory) are others. An operation moves some bytes out of each level, so it has an
intensity at each level, and each level with a bandwidth is a roof: ``min(peak, intensity x
bandwidth)``. The level whose bytes take longest to move binds (Williams, Waterman and Patterson,
2009, draw one roof per level). A level whose bandwidth no source gives has no roof, and says so.

A tiled matmul stages tiles of its output in the next level in: each operand moves out of a level
once per tile of the other dimension, so bigger tiles move fewer bytes.

>>> r = tiled_matmul_levels(4096, 4096, 4096, [(256, 256, 256), (128, 128, 128)], "tpu-v5e")
>>> [(t.level.id, round(t.intensity)) for t in r.traffic], r.binding
([('hbm', 124), ('vmem', 63)], 'memory: hbm')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from rooflinekit._arrays import plain
from rooflinekit._validate import check_figure, check_size
from rooflinekit.bounds import Bounds
from rooflinekit.catalog import ACHIEVABLE, Chip, Provenance, chip
from rooflinekit.costs import Cost, elementwise_cost, matmul_cost
from rooflinekit.dtypes import DType, dtype, dtype_bytes
from rooflinekit.errors import RooflineInputError, UnknownNameError
from rooflinekit.words import message

__all__ = [
    "SOFTMAX_FLOPS_PER_SCORE",
    "Ceiling",
    "Hierarchical",
    "Level",
    "LevelTraffic",
    "MeasuredPoint",
    "TileFit",
    "attention_cost",
    "ceilings",
    "level",
    "levels",
    "matmul_elementwise_cost",
    "matmul_elementwise_kernels",
    "on_levels",
    "smallest_compute_bound_tiles",
    "tile_bytes",
    "tiled_matmul_bytes",
    "tiled_matmul_levels",
]

Size = Any  # an int, or a numpy array of positive integers
Tile = tuple[Any, Any, Any]  # (bm, bk, bn)


@dataclass(frozen=True)
class Level:
    """One memory level as a roof: the chip's HBM or one of its on-chip memories.

    ``capacity`` is the bytes one tile may use in it (one SM's shared memory, all of a TPU's
    VMEM); ``bandwidth`` is the whole chip's, ``None`` where no source gives it (no roof then).
    ``kinds`` says of each figure whether it is a vendor figure, a paper's, an estimate...
    """

    id: str
    name: str
    bandwidth: float | None
    capacity: float | None
    units: int = 1
    kinds: Mapping[str, str] = field(default_factory=dict)
    provenance: Mapping[str, Provenance] = field(default_factory=dict)

    @property
    def roofed(self) -> bool:
        """Whether the level has a bandwidth, hence a roof."""
        return self.bandwidth is not None

    def missing(self, chip_id: str) -> str | None:
        """A sentence naming the figures no source gives for this level, or ``None``.

        >>> print(level("h100-sxm", "l2").missing("h100-sxm"))  # doctest: +NORMALIZE_WHITESPACE
        h100-sxm: L2 cache has no bandwidth figure (no source in the catalog gives one):
        no roof is drawn for it
        """
        absent = [name for name in ("bandwidth", "capacity") if getattr(self, name) is None]
        if not absent:
            return None
        if absent == ["capacity"]:
            return message("{chip}: {level} has no capacity figure (no source in the catalog gives one)",
                           chip=chip_id, level=self.name)
        if absent == ["bandwidth"]:
            return message("{chip}: {level} has no bandwidth figure (no source in the catalog gives one): "
                           "no roof is drawn for it", chip=chip_id, level=self.name)
        return message("{chip}: {level} has no bandwidth or capacity figure (no source in the catalog gives "
                       "one): no roof is drawn for it", chip=chip_id, level=self.name)


def levels(on: str | Chip) -> tuple[Level, ...]:
    """The chip's memory levels, outermost (HBM, or DRAM for a measured machine; its id is ``"hbm"``
    either way) first, then its on-chip memories in order.

    >>> [(lv.id, lv.roofed) for lv in levels("h100-sxm")]
    [('hbm', True), ('l2', False), ('smem', True)]
    >>> [lv.id for lv in levels("tpu-v6e")]   # no source gives its on-chip memories
    ['hbm']
    """
    found = chip(on)
    hbm_sources = {name: found.provenance[figure] for name, figure in
                   (("bandwidth", "hbm_bandwidth"), ("capacity", "hbm_bytes")) if figure in found.provenance}
    measured = "bandwidth" in hbm_sources and hbm_sources["bandwidth"].source.kind == "measured"
    hbm = Level("hbm", "DRAM" if measured else "HBM", found.hbm_bandwidth, found.hbm_bytes, 1,
                {name: "vendor figure" if p.source.kind in ("datasheet", "product page") else "paper"
                 for name, p in hbm_sources.items()}, hbm_sources)
    inner = tuple(Level(m.id, m.name, m.bandwidth, m.capacity, m.units, m.kinds, m.provenance)
                  for m in found.levels)
    return (hbm, *inner)


def level(on: str | Chip, level_id: str) -> Level:
    """One of the chip's memory levels by id; an unknown id names the chip's.

    >>> level("tpu-v5e", "vmem").capacity / 2**20
    128.0
    >>> try:
    ...     level("tpu-v5e", "smem")
    ... except KeyError as error:
    ...     print(error)
    level of tpu-v5e must be one of hbm, vmem (got 'smem')
    """
    found = {lv.id: lv for lv in levels(on)}
    if level_id not in found:
        raise UnknownNameError(f"level of {chip(on).id}", list(found), level_id)
    return found[level_id]


def tiled_matmul_bytes(m: Size, k: Size, n: Size, bm: Size, bn: Size, *, x: str | DType = "bf16",
                       w: str | DType = "bf16", out: str | DType = "bf16") -> Any:
    """Bytes that move out of a memory level for ``x[m,k] . w[k,n] -> out[m,n]`` when tiles of
    ``bm x bn`` outputs are staged in the next level in.

    Each output tile reads its ``bm`` rows of ``x`` and its ``bn`` columns of ``w`` once and is
    written once: ``x`` moves ``ceil(n/bn)`` times, ``w`` ``ceil(m/bm)`` times, ``out`` once.
    Edge tiles move only their real elements (masked, not padded).

    >>> tiled_matmul_bytes(4, 8, 4, 2, 4, x="int8", w="int8", out="int8")   # x once, w twice, out once
    112.0
    """
    m, k, n = check_size("m", m), check_size("k", k), check_size("n", n)
    bm, bn = check_size("bm", bm), check_size("bn", bn)
    sx, sw, so = dtype_bytes(x, "x"), dtype_bytes(w, "w"), dtype_bytes(out, "out")
    tiles_m, tiles_n = np.ceil(m / bm), np.ceil(n / bn)
    return plain(sx * m * k * tiles_n + sw * k * n * tiles_m + so * m * n)


def tile_bytes(bm: Size, bk: Size, bn: Size, *, x: str | DType = "bf16", w: str | DType = "bf16",
               out: str | DType = "bf16") -> Any:
    """Bytes one tile step holds in the level it is staged in: ``x[bm,bk]``, ``w[bk,bn]`` and the
    output tile ``out[bm,bn]``.

    >>> tile_bytes(128, 128, 128)   # bf16: three 128 x 128 tiles of 2 bytes
    98304.0
    """
    bm, bk, bn = check_size("bm", bm), check_size("bk", bk), check_size("bn", bn)
    sx, sw, so = dtype_bytes(x, "x"), dtype_bytes(w, "w"), dtype_bytes(out, "out")
    return plain(sx * bm * bk + sw * bk * bn + so * bm * bn)


@dataclass(frozen=True)
class LevelTraffic:
    """What one operation moves out of one memory level: its bytes, its intensity there and, where
    the level has a bandwidth, the seconds they take. ``held`` is the bytes of the tile staged in
    the next level in and ``fits`` whether it fits there (``None`` where no capacity is known)."""

    level: Level
    flops: Any
    bytes: Any
    held: Any = None
    fits: Any = None

    @property
    def intensity(self) -> Any:
        """FLOPs per byte moved out of this level."""
        return self.flops / self.bytes

    @property
    def t_comms(self) -> Any:
        """Seconds to move the bytes at the level's bandwidth (``None`` without a bandwidth)."""
        return None if self.level.bandwidth is None else self.bytes / self.level.bandwidth

    def attainable(self, peak: float) -> Any:
        """FLOP/s this level's roof allows (``None`` without a bandwidth)."""
        if self.level.bandwidth is None:
            return None
        return plain(np.minimum(peak, self.intensity * self.level.bandwidth))


@dataclass(frozen=True)
class Hierarchical:
    """An operation on a chip's hierarchical roofline: its FLOPs, the peak, and what it moves
    out of each memory level (:class:`LevelTraffic`, outermost first)."""

    name: str
    chip_id: str
    flops: Any
    peak: float
    traffic: tuple[LevelTraffic, ...]

    @property
    def bounds(self) -> Bounds:
        """Time bounds over the levels with a roof (``"memory: hbm"``...) and ``"compute"``."""
        times = {f"memory: {t.level.id}": t.t_comms for t in self.traffic if t.level.roofed}
        return Bounds({**times, "compute": self.flops / self.peak})

    @property
    def binding(self) -> Any:
        """What binds: ``"compute"`` or ``"memory: <level id>"``, the level whose bytes take longest."""
        return self.bounds.bound

    @property
    def t_lower(self) -> Any:
        """Seconds at least: the longest of the math and every roofed level's traffic."""
        return self.bounds.t_lower

    @property
    def unroofed(self) -> tuple[str, ...]:
        """One sentence per level that has no roof, naming the figure no source gives."""
        return tuple(t.level.missing(self.chip_id) or "" for t in self.traffic if not t.level.roofed)

    def of(self, level_id: str) -> LevelTraffic:
        """The traffic out of one level, by id."""
        for t in self.traffic:
            if t.level.id == level_id:
                return t
        raise UnknownNameError("level", [t.level.id for t in self.traffic], level_id)


def _tiles(tiles: Sequence[Tile], count: int) -> list[Tile]:
    """One tile per level, outermost first; the last given repeats for the levels after it."""
    if isinstance(tiles, (str, bytes)) or not isinstance(tiles, Sequence) or not tiles:
        accepted = "a list of (bm, bk, bn) tiles, one per memory level, outermost first"
        raise RooflineInputError("tiles", accepted, tiles)
    for tile in tiles:
        if not (isinstance(tile, Sequence) and len(tile) == 3):
            raise RooflineInputError("tiles", "a list of (bm, bk, bn) tiles, each three sizes", tile)
    return [tuple(tiles[min(i, len(tiles) - 1)]) for i in range(count)]


def _at_most(value: Any, limit: float) -> Any:
    """``value <= limit``: a bool for a scalar, an array of them for an array."""
    result = np.asarray(value) <= limit
    return bool(result) if result.ndim == 0 else result


def tiled_matmul_levels(
    m: Size, k: Size, n: Size, tiles: Sequence[Tile], on: str | Chip, *, compute: str | DType = "bf16",
    x: str | DType = "bf16", w: str | DType = "bf16", out: str | DType = "bf16",
) -> Hierarchical:
    """A tiled matmul ``x[m,k] . w[k,n]`` on the chip's hierarchical roofline.

    ``tiles[i]`` is the ``(bm, bk, bn)`` tile staged out of level ``i`` (HBM first) into the next
    level in (after the innermost: the compute units' registers); give fewer tiles than levels and
    the last repeats. Each level's bytes are :func:`tiled_matmul_bytes` of its tile; whether the tile
    fits in the level that holds it is :func:`tile_bytes` against that level's capacity.

    >>> tiles = [(1024, 512, 1024), (128, 64, 128), (32, 32, 32)]
    >>> r = tiled_matmul_levels(8192, 8192, 8192, tiles, "h100-sxm")
    >>> [t.level.id for t in r.traffic], r.binding, r.of("hbm").fits, r.of("l2").fits
    (['hbm', 'l2', 'smem'], 'memory: smem', True, True)
    """
    found = chip(on)
    chain = levels(found)
    per_level = _tiles(tiles, len(chain))
    flops = 2 * check_size("m", m) * check_size("k", k) * check_size("n", n)
    traffic = []
    for i, (lv, (bm, bk, bn)) in enumerate(zip(chain, per_level, strict=True)):
        moved = tiled_matmul_bytes(m, k, n, bm, bn, x=x, w=w, out=out)
        held = tile_bytes(bm, bk, bn, x=x, w=w, out=out)
        holder = chain[i + 1] if i + 1 < len(chain) else None
        fits = None if holder is None or holder.capacity is None else _at_most(held, holder.capacity)
        traffic.append(LevelTraffic(lv, flops, moved, held, fits))
    return Hierarchical("tiled matmul", found.id, flops, found.peak(compute), tuple(traffic))


def on_levels(cost: Cost, on: str | Chip, *, compute: str | DType = "bf16",
              inner_bytes: Mapping[str, Any] | None = None) -> Hierarchical:
    """Any cost on the hierarchical roofline: its bytes move out of HBM; ``inner_bytes`` gives, by
    level id, the bytes that move out of an on-chip level (the cost's own bytes where not given:
    every byte from HBM passes through each level on its way in).

    >>> r = on_levels(attention_cost(4096, 128, fused=True), "tpu-v5e")
    >>> r.binding
    'compute'
    """
    if not isinstance(cost, Cost):
        raise RooflineInputError("cost", "a Cost (from matmul_cost, attention_cost, ...)", cost)
    found = chip(on)
    given = dict(inner_bytes or {})
    chain = levels(found)
    unknown = [key for key in given if key not in [lv.id for lv in chain[1:]]]
    if unknown:
        raise UnknownNameError(f"inner_bytes level of {found.id}", [lv.id for lv in chain[1:]], unknown[0])
    traffic = tuple(LevelTraffic(lv, cost.flops, given.get(lv.id, cost.bytes)) for lv in chain)
    return Hierarchical(cost.name, found.id, cost.flops, found.peak(compute), traffic)


class MeasuredPoint(NamedTuple):
    """A timed kernel's point on a hierarchical roofline: its label, the id of the level its
    working set lives in, its intensity and the FLOP/s it achieved (not what the roof allows)."""

    label: str
    level_id: str
    intensity: float
    flops_per_second: float


class TileFit(NamedTuple):
    """The smallest square tile that is compute-bound streaming out of one level, and whether it
    fits in the level that holds it (``None`` where that level's capacity is unknown)."""

    level: str
    critical_intensity: float
    tile: int
    held_bytes: float
    holder: str
    capacity: float | None
    fits: bool | None


def smallest_compute_bound_tiles(
    on: str | Chip, *, compute: str | DType = "bf16", dtype: str | DType = "bf16", bk: int | None = None,
) -> tuple[TileFit, ...]:
    """For each level with a roof, the smallest square tile ``b x b`` of outputs whose operands,
    streamed out of that level, keep the math busy, and whether it fits where it is held.

    A ``b x bk x b`` tile step does ``2 b^2 bk`` FLOPs on ``size (2 b bk)`` bytes: intensity
    ``b / size`` (``b/2`` in bf16), so ``b`` must reach ``size`` times the level's critical
    intensity (peak over its bandwidth). The tile held is ``tile_bytes(b, bk, b)``, ``bk = b``
    unless given. The innermost level's tile is held in the compute units' registers, whose
    capacity the catalog does not give.

    >>> [(f.level, f.tile, f.holder, f.fits) for f in smallest_compute_bound_tiles("tpu-v5e")]
    [('hbm', 481, 'vmem', True), ('vmem', 22, 'registers', None)]
    """
    found = chip(on)
    chain = levels(found)
    size = dtype_bytes(dtype, "dtype")
    peak = found.peak(compute)
    fits = []
    for i, lv in enumerate(chain):
        if lv.bandwidth is None:
            continue
        critical = peak / lv.bandwidth
        b = int(np.floor(size * critical)) + 1  # strictly above the ridge: compute-bound
        held = float(tile_bytes(b, bk or b, b, x=dtype, w=dtype, out=dtype))
        holder = chain[i + 1] if i + 1 < len(chain) else None
        capacity = None if holder is None else holder.capacity
        where = holder.id if holder is not None else "registers" if len(chain) > 1 else "on-chip memory"
        fits.append(TileFit(lv.id, critical, b, held, where, capacity,
                            None if capacity is None else held <= capacity))
    return tuple(fits)


SOFTMAX_FLOPS_PER_SCORE = 5.0
"""The course's count of a softmax's FLOPs per score: the running maximum, a subtraction, the
exponential, the sum and the division."""


def attention_cost(
    seq: Size, head_dim: Size, *, heads: Size = 1, dtype: str | DType = "bf16", fused: bool = False,
    block: Size | None = None,
) -> Cost:
    """Self-attention ``softmax(Q K^T) V`` of ``heads`` heads over ``seq`` tokens (no masking).

    FLOPs: ``4 seq^2 head_dim`` for the two matmuls and :data:`SOFTMAX_FLOPS_PER_SCORE` a score.
    Unfused, the ``seq x seq`` scores go to HBM and back twice (written by ``Q K^T``, read and
    written by the softmax, read by ``P V``). Fused (FlashAttention, Dao et al. 2022), the scores
    stay on chip. The loops are FlashAttention-2's (Dao, 2023): an outer loop over blocks of
    ``block`` query rows, so ``Q`` is read once, ``O`` written once, and ``K`` and ``V`` read once
    per block (``block`` defaults to ``seq``: once, an upper bound no chip's on-chip memory
    reaches at long sequences, since it holds all of ``Q``). The first FlashAttention loops the
    other way round (``K`` and ``V`` once; ``Q`` and ``O`` once per block of keys).

    >>> u, f = attention_cost(4096, 128), attention_cost(4096, 128, fused=True)
    >>> round(u.intensity, 1), round(f.intensity, 1)
    (62.7, 2068.0)
    """
    seq, d = check_size("seq", seq), check_size("head_dim", head_dim)
    heads = check_size("heads", heads)
    size = dtype_bytes(dtype, "dtype")
    flops = heads * (4 * seq * seq * d + SOFTMAX_FLOPS_PER_SCORE * seq * seq)
    if fused:
        passes = np.ceil(seq / (seq if block is None else check_size("block", block)))
        read = heads * size * (seq * d + 2 * seq * d * passes)
        return Cost(flops, plain(read), heads * size * seq * d, name="attention (fused)")
    read = heads * size * (3 * seq * d + 2 * seq * seq)
    written = heads * size * (seq * d + 2 * seq * seq)
    return Cost(flops, read, written, name="attention (unfused)")


def matmul_elementwise_cost(
    B: Size, D: Size, F: Size, *, flops_per_element: float = 1.0, fused: bool = False,
    dtype: str | DType = "bf16",
) -> Cost:
    """A matmul ``x[B,D] . w[D,F]`` followed by an elementwise op on its output (an activation).

    Unfused, the output goes to HBM and comes back for the elementwise op, which writes its own;
    fused, the op runs on the tile still on chip: the matmul's bytes, both ops' FLOPs.

    >>> u = matmul_elementwise_cost(128, 4096, 4096)
    >>> f = matmul_elementwise_cost(128, 4096, 4096, fused=True)
    >>> u.bytes - f.bytes == 2 * 2 * 128 * 4096
    True
    """
    mm = matmul_cost(B, D, F, x=dtype, w=dtype, out=dtype)
    ew = elementwise_cost(check_size("B", B) * check_size("F", F), dtype=dtype,
                          flops_per_element=check_figure("flops_per_element", flops_per_element))
    if fused:
        return Cost(mm.flops + ew.flops, mm.bytes_read, mm.bytes_written, name="matmul + elementwise (fused)")
    return Cost(mm.flops + ew.flops, mm.bytes_read + ew.bytes_read, mm.bytes_written + ew.bytes_written,
                name="matmul + elementwise (unfused)")


def matmul_elementwise_kernels(
    B: Size, D: Size, F: Size, *, flops_per_element: float = 1.0, fused: bool = False,
    dtype: str | DType = "bf16",
) -> tuple[Cost, ...]:
    """The kernels that run one after another: the fused one, or the matmul then the elementwise op.

    Separate kernels do not overlap, so their time is the sum of their bounds, which is why
    fusing pays even where the matmul is compute-bound: the elementwise kernel's bytes no longer
    take time of their own.

    >>> [k.name for k in matmul_elementwise_kernels(16, 64, 64)]
    ['matmul', 'elementwise']
    """
    if fused:
        fused_cost = matmul_elementwise_cost(B, D, F, flops_per_element=flops_per_element, fused=True,
                                             dtype=dtype)
        return (fused_cost,)
    mm = matmul_cost(B, D, F, x=dtype, w=dtype, out=dtype)
    ew = elementwise_cost(check_size("B", B) * check_size("F", F), dtype=dtype,
                          flops_per_element=check_figure("flops_per_element", flops_per_element))
    return (mm, ew)


class Ceiling(NamedTuple):
    """A line below a roof: a compute ceiling (``kind="compute"``, FLOP/s) or a bandwidth one
    (``kind="memory"``, B/s), labelled (a message: rooflinekit.words), with where its figure comes from."""

    label: str
    kind: str
    value: float
    basis: str


def ceilings(on: str | Chip, *, compute: str | DType = "bf16", achieved_bandwidth: float | None = None,
             ) -> tuple[Ceiling, ...]:
    """The ceilings below a chip's roofs: the matrix unit's peak (the roof itself), the share of it
    real kernels reach (``rk.ACHIEVABLE``, by vendor), the vector unit's peak where the catalog
    gives one, fp32 math where the chip lists it, and, given ``achieved_bandwidth`` (a share of
    the HBM bandwidth reached), that bandwidth.

    >>> [c.label for c in ceilings("tpu-v5p")]
    ['matrix unit (bf16)', 'matrix unit at 95% (achieved)', 'vector unit']
    """
    found = chip(on)
    peak = found.peak(compute)
    name = dtype(compute, "compute").name
    unit = message("matrix unit ({dtype})", dtype=name)
    found_ceilings = [Ceiling(unit, "compute", peak, f"dense_flops.{name}")]
    if found.vendor in ACHIEVABLE:
        share = ACHIEVABLE[found.vendor].low
        reached = message("matrix unit at {share} (achieved)", share=f"{share:.0%}")
        found_ceilings.append(Ceiling(reached, "compute", peak * share, f"achievable.{found.vendor}"))
    if found.vector_flops is not None:
        found_ceilings.append(Ceiling(message("vector unit"), "compute", found.vector_flops, "vector_flops"))
    if "fp32" in found.dense_flops and name != "fp32" and found.dense_flops["fp32"] < peak:
        fp32 = found.dense_flops["fp32"]
        found_ceilings.append(Ceiling(message("fp32 math"), "compute", fp32, "dense_flops.fp32"))
    if achieved_bandwidth is not None:
        share = float(check_figure("achieved_bandwidth", achieved_bandwidth))
        if share > 1:
            raise RooflineInputError("achieved_bandwidth", "a fraction in (0, 1]", achieved_bandwidth)
        reached = message("HBM at {share} (achieved)", share=f"{share:.0%}")
        found_ceilings.append(Ceiling(reached, "memory", found.hbm_bandwidth * share, "achieved_bandwidth"))
    return tuple(found_ceilings)
