"""GPU backends: the same measurement as on the CPU, through torch or jax.

Neither library is a dependency. Each is looked for with ``importlib.util.find_spec``, and
imported only when present; a backend runs only when it sees a GPU. Otherwise the report
says why it skipped (not installed, or installed without a GPU).

>>> backend, skipped = find_backend()
>>> backend is not None or all(isinstance(reason, str) for reason in skipped)
True
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rooflinekit.measure.records import GpuReport, MatmulResult, StreamResult, best_flops, measured_chip
from rooflinekit.measure.timing import Schedule, time_call
from rooflinekit.words import message

GPU_STREAMS = ("copy", "triad")
GPU_DTYPES = ("fp32", "bf16")


@dataclass(frozen=True)
class Backend:
    """One library's way to run the measurement's operations on its first GPU.

    ``stream(name, array_bytes)`` and ``matmul(n, dtype)`` allocate their operands and return
    a call that runs the operation once and waits for the GPU to finish it.
    """

    name: str
    device: str
    memory_bytes: int
    stream: Callable[[str, int], Callable[[], None]]
    matmul: Callable[[int, str], Callable[[], None]]


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _torch_backend() -> tuple[Backend | None, str]:
    if not _installed("torch"):
        return None, message("torch is not installed")
    torch: Any = importlib.import_module("torch")
    if not torch.cuda.is_available():
        return None, message("torch {version} is installed but sees no GPU", version=torch.__version__)
    device = torch.device("cuda", 0)
    kinds = {"fp32": torch.float32, "bf16": torch.bfloat16}

    def stream(name: str, array_bytes: int) -> Callable[[], None]:
        n = array_bytes // 4
        a = torch.zeros(n, dtype=torch.float32, device=device)
        b = torch.ones(n, dtype=torch.float32, device=device)
        c = torch.full((n,), 0.5, dtype=torch.float32, device=device)
        ops: dict[str, Callable[[], object]] = {
            "copy": lambda: a.copy_(b),
            "triad": lambda: torch.add(b, c, alpha=3.0, out=a),
        }
        op = ops[name]

        def run() -> None:
            op()
            torch.cuda.synchronize()

        return run

    def matmul(n: int, dtype: str) -> Callable[[], None]:
        x = torch.ones((n, n), dtype=kinds[dtype], device=device)
        y = torch.full((n, n), 0.5, dtype=kinds[dtype], device=device)
        out = torch.empty((n, n), dtype=kinds[dtype], device=device)

        def run() -> None:
            torch.matmul(x, y, out=out)
            torch.cuda.synchronize()

        return run

    props = torch.cuda.get_device_properties(0)
    return Backend("torch", str(props.name), int(props.total_memory), stream, matmul), ""


def _jax_backend() -> tuple[Backend | None, str]:
    if not _installed("jax"):
        return None, message("jax is not installed")
    jax: Any = importlib.import_module("jax")
    jnp: Any = importlib.import_module("jax.numpy")
    try:
        device = jax.devices("gpu")[0]
    except (RuntimeError, IndexError):
        return None, message("jax {version} is installed but sees no GPU", version=jax.__version__)
    kinds = {"fp32": jnp.float32, "bf16": jnp.bfloat16}
    highest = jax.lax.Precision.HIGHEST  # fp32 means fp32, not TF32

    def stream(name: str, array_bytes: int) -> Callable[[], None]:
        n = array_bytes // 4
        b = jax.device_put(jnp.ones(n, jnp.float32), device)
        c = jax.device_put(jnp.full(n, 0.5, jnp.float32), device)
        ops: dict[str, Any] = {
            "copy": jax.jit(lambda b, c: jnp.copy(b)),
            "triad": jax.jit(lambda b, c: b + 3.0 * c),
        }
        op = ops[name]
        return lambda: op(b, c).block_until_ready()

    def matmul(n: int, dtype: str) -> Callable[[], None]:
        x = jax.device_put(jnp.ones((n, n), kinds[dtype]), device)
        y = jax.device_put(jnp.full((n, n), 0.5, kinds[dtype]), device)
        op = jax.jit(lambda x, y: jnp.matmul(x, y, precision=highest))
        return lambda: op(x, y).block_until_ready()

    stats = device.memory_stats() or {}
    return Backend("jax", str(device.device_kind), int(stats.get("bytes_limit", 0)), stream, matmul), ""


def find_backend() -> tuple[Backend | None, tuple[str, ...]]:
    """The first of torch and jax that sees a GPU, and why the others did not run."""
    reasons: list[str] = []
    for probe in (_torch_backend, _jax_backend):
        backend, reason = probe()
        if backend is not None:
            return backend, tuple(reasons)
        reasons.append(reason)
    return None, tuple(reasons)


def _sizes(quick: bool) -> tuple[int, ...]:
    return (2048, 8192) if quick else (1024, 2048, 4096, 8192)


def task_count(quick: bool) -> int:
    """How many measurements :func:`measure_gpu` makes (for the shared schedule)."""
    return len(GPU_STREAMS) + len(GPU_DTYPES) * len(_sizes(quick))


def measure_gpu(
    backend: Backend,
    skipped: tuple[str, ...],
    *,
    quick: bool,
    schedule: Schedule,
    repeats: int,
    array_bytes: int | None = None,
    sizes: tuple[int, ...] | None = None,
) -> GpuReport:
    """Time copy and triad over GPU arrays far larger than any GPU's L2, and matmuls in fp32 and bf16.

    ``array_bytes`` and ``sizes`` default to the quick or full mode's (512 MiB or 1 GiB arrays,
    at most an eighth of the GPU's memory).
    """
    if array_bytes is None:
        wanted = 2**29 if quick else 2**30
        array_bytes = min(wanted, backend.memory_bytes // 8) if backend.memory_bytes else wanted
    sizes = sizes if sizes is not None else _sizes(quick)
    streams = []
    for name in GPU_STREAMS:
        run = backend.stream(name, array_bytes)
        timing = time_call(run, repeats=repeats, deadline=schedule.next_deadline())
        streams.append(StreamResult(name, None, array_bytes, timing))
        del run
        schedule.finish(f"GPU {name}")
    matmuls = []
    for dtype in GPU_DTYPES:
        for n in sizes:
            run = backend.matmul(n, dtype)
            timing = time_call(run, repeats=repeats, deadline=schedule.next_deadline())
            matmuls.append(MatmulResult(dtype, n, timing))
            del run
            schedule.finish(f"GPU {dtype} matmul {n}")
    chip = measured_chip(
        "this-gpu",
        f"{backend.device} (measured through {backend.name})",
        best_flops(matmuls),
        max(s.bandwidth for s in streams),
        backend.memory_bytes,
        ("Measured with the same STREAM byte counting and matmul sizes as the CPU.",),
    )
    return GpuReport(
        ran=True, skipped=skipped, backend=backend.name, device=backend.device, chip=chip,
        streams=tuple(streams), matmuls=tuple(matmuls),
    )
