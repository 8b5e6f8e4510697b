"""The operations ``rooflinekit.measure`` times, with the bytes and FLOPs each is credited with.

Two kinds:

- **Streams** (STREAM's copy, scale, add and triad) over float32 arrays far larger than the
  last-level cache, split across threads. They measure memory bandwidth. Bytes are counted
  the STREAM way, the traffic the kernel cannot avoid: copy ``a = b`` and scale ``a = s*b``
  read one array and write one (2 arrays), add ``a = b + c`` and triad ``a = b + s*c`` read
  two and write one (3 arrays). Write-allocate traffic is **not** counted: a cache that
  reads a line before overwriting it moves one more array per write, so the hardware moves
  up to 3/2 (copy, scale) or 4/3 (add, triad) of the counted bytes. A large ``np.copyto``
  ends in the C library's ``memmove``, which typically uses non-temporal stores that skip
  that read. numpy has no fused multiply-add for arrays, so the triad is two passes over
  ``a`` (``a = s*c``, then ``a += b``): the counted figure is what an ideal triad would need.
- **Roofline kernels**: plain numpy calls, each with a :class:`~rooflinekit.costs.Cost` from
  rooflinekit's cost models (``dot_cost``, ``elementwise_cost``, ``matmul_cost``), so the
  measurement can place them on the measured roofline.

>>> arena = Arena.allocate(2**20, threads=1)
>>> run = stream_call("triad", arena)
>>> run(); float(arena.a[0]) == float(arena.b[0] + TRIAD_SCALAR * arena.c[0])
True
>>> [k.name for k in memory_kernels(arena)][:2]
['np.add(b, c, out=a)', 'b + 3*c (two temporaries)']
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from rooflinekit.costs import Cost, dot_cost, elementwise_cost, matmul_cost
from rooflinekit.errors import RooflineInputError
from rooflinekit.words import message

ELEMENT = np.float32
ELEMENT_BYTES = 4
TRIAD_SCALAR = ELEMENT(3.0)
_ALIGN = 4096  # elements per chunk boundary: threads never share a cache line or a page


@dataclass(frozen=True)
class StreamSpec:
    """One STREAM kernel: its formula and how many arrays it reads and writes (counted bytes)."""

    name: str
    formula: str
    reads: int
    writes: int


STREAMS: dict[str, StreamSpec] = {
    s.name: s
    for s in (
        StreamSpec("copy", "a = b", 1, 1),
        StreamSpec("scale", "a = s*b", 1, 1),
        StreamSpec("add", "a = b + c", 2, 1),
        StreamSpec("triad", "a = b + s*c", 2, 1),
    )
}


@dataclass(frozen=True)
class Arena:
    """Three float32 arrays ``a``, ``b``, ``c`` of the same length, touched once so that the
    operating system has mapped every page before anything is timed."""

    a: np.ndarray[Any, np.dtype[np.float32]]
    b: np.ndarray[Any, np.dtype[np.float32]]
    c: np.ndarray[Any, np.dtype[np.float32]]
    pool: ThreadPoolExecutor | None
    threads: int

    @property
    def n(self) -> int:
        """Elements per array."""
        return int(self.a.size)

    @property
    def array_bytes(self) -> int:
        return self.n * ELEMENT_BYTES

    @classmethod
    def allocate(cls, array_bytes: int, threads: int) -> Arena:
        """Arrays of ``array_bytes`` bytes each (rounded down to whole chunks); ``b`` = 1, ``c`` = 0.5.

        With ``threads > 1`` the arena owns a thread pool (numpy releases the GIL inside its
        loops, so threads really run in parallel); :meth:`close` shuts it down.
        """
        n = max(_ALIGN, (array_bytes // ELEMENT_BYTES) // _ALIGN * _ALIGN)
        pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
        a, b, c = (np.empty(n, dtype=ELEMENT) for _ in range(3))
        arena = cls(a, b, c, pool=pool, threads=threads)
        for array, value in ((a, 0.0), (b, 1.0), (c, 0.5)):
            arena.parallel(_filler(array, value))
        return arena

    def chunks(self, threads: int | None = None) -> list[slice]:
        """Contiguous, aligned slices of the arrays, one per thread."""
        count = self.threads if threads is None else threads
        edges = [min(self.n, round(self.n * i / count / _ALIGN) * _ALIGN) for i in range(count + 1)]
        edges[-1] = self.n
        return [slice(lo, hi) for lo, hi in itertools.pairwise(edges) if hi > lo]

    def parallel(self, work: Callable[[slice], object], threads: int | None = None) -> None:
        """Run ``work`` on each chunk, on the pool's threads when there is more than one chunk."""
        parts = self.chunks(threads)
        if self.pool is None or len(parts) == 1:
            for part in parts:
                work(part)
        else:
            list(self.pool.map(work, parts))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


def _filler(array: np.ndarray[Any, Any], value: float) -> Callable[[slice], None]:
    def fill(part: slice) -> None:
        array[part].fill(value)

    return fill


def stream_call(
    name: str, arena: Arena, threads: int | None = None, n: int | None = None
) -> Callable[[], None]:
    """One pass of STREAM kernel ``name``: over the whole arena on ``threads`` threads (all the
    arena's by default), or over its first ``n`` elements on one thread."""
    if name not in STREAMS:
        raise RooflineInputError("stream", "one of " + ", ".join(STREAMS), name)
    a, b, c = (x if n is None else x[:n] for x in (arena.a, arena.b, arena.c))
    s = TRIAD_SCALAR

    def copy(p: slice) -> None:
        np.copyto(a[p], b[p])

    def scale(p: slice) -> None:
        np.multiply(b[p], s, out=a[p])

    def add(p: slice) -> None:
        np.add(b[p], c[p], out=a[p])

    def triad(p: slice) -> None:
        np.multiply(c[p], s, out=a[p])
        np.add(a[p], b[p], out=a[p])

    work = {"copy": copy, "scale": scale, "add": add, "triad": triad}[name]
    count = arena.threads if threads is None else threads
    if n is not None or count == 1:
        whole = slice(0, a.size)
        return lambda: work(whole)
    return lambda: arena.parallel(work, count)


@dataclass(frozen=True)
class Kernel:
    """A plain numpy call and what rooflinekit's cost models credit it with."""

    name: str
    cost: Cost
    compute: str
    run: Callable[[], object]
    note: str = ""


def memory_kernels(arena: Arena) -> list[Kernel]:
    """Low-intensity kernels over the whole arena, as plain numpy runs them (one thread for ufuncs)."""
    a, b, c, n = arena.a, arena.b, arena.c, arena.n
    s = TRIAD_SCALAR
    return [
        Kernel(
            "np.add(b, c, out=a)",
            elementwise_cost(n, dtype="fp32", inputs=2),
            "fp32",
            lambda: np.add(b, c, out=a),
            "one thread, no temporary",
        ),
        Kernel(
            message("b + 3*c (two temporaries)"),
            elementwise_cost(n, dtype="fp32", flops_per_element=2, inputs=2),
            "fp32",
            lambda: b + s * c,
            "allocates s*c and the result: fresh pages every call",
        ),
        Kernel("np.dot(b, c)", dot_cost(n, "fp32"), "fp32", lambda: np.dot(b, c), "BLAS dot"),
    ]


def skinny_width(arena: Arena) -> int:
    """The largest ``D`` (a multiple of 64) whose ``D x D`` float32 matrix fits in one arena array."""
    return max(64, math.isqrt(arena.n) // 64 * 64)


def skinny_matmul_kernels(arena: Arena, batches: Sequence[int]) -> list[Kernel]:
    """``x[B,D] @ w[D,D]`` with ``w`` as large as an arena array: intensity about ``B/2`` in float32."""
    d = skinny_width(arena)
    kernels = []
    for batch in batches:
        if batch * d > arena.n or d * d > arena.n:
            raise RooflineInputError("batches", f"batches of at most {arena.n // d} for D = {d}", batch)
        kernels.append(
            Kernel(
                f"x[{batch},{d}] @ w[{d},{d}]",
                matmul_cost(batch, d, d, x="fp32", w="fp32", out="fp32"),
                "fp32",
                _matmul_call(arena.c[: batch * d].reshape(batch, d), arena.b[: d * d].reshape(d, d),
                             arena.a[: batch * d].reshape(batch, d)),
                "BLAS gemv" if batch == 1 else "BLAS gemm, few rows",
            )
        )
    return kernels


def _matmul_call(
    x: np.ndarray[Any, Any], w: np.ndarray[Any, Any], out: np.ndarray[Any, Any]
) -> Callable[[], object]:
    return lambda: np.matmul(x, w, out=out)


NUMPY_DTYPES: dict[str, type[np.floating[Any]]] = {"fp32": np.float32, "fp64": np.float64}


def square_matmul_kernel(n: int, dtype: str) -> Kernel:
    """``x[n,n] @ y[n,n]`` in ``dtype`` (fp32 or fp64), operands allocated here."""
    if dtype not in NUMPY_DTYPES:
        raise RooflineInputError("dtype", "one of " + ", ".join(NUMPY_DTYPES), dtype)
    kind = NUMPY_DTYPES[dtype]
    x = np.full((n, n), 1.0, dtype=kind)
    y = np.full((n, n), 0.5, dtype=kind)
    out = np.empty((n, n), dtype=kind)
    return Kernel(
        message("{dtype} matmul {size}", dtype=dtype, size=f"{n}x{n}x{n}"),
        matmul_cost(n, n, n, x=dtype, w=dtype, out=dtype),
        dtype,
        _matmul_call(x, y, out),
        "BLAS gemm",
    )
