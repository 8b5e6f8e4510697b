"""Exercise 7's model answers, one function per graded part: what its key calls right.

Each is computed by ``rooflinekit``'s general functions (a model's shape and cache, a memory
check, the roofline of a step), never typed in.

>>> largest_batch(), round(plateau_batch(989e12, 3.35e12))   # memory runs out first
(119, 295)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rooflinekit.analysis import analyze, t_comms
from rooflinekit.costs import Cost
from rooflinekit.critical import matmul_critical_batch_approx
from rooflinekit.dtypes import dtype_bytes
from rooflinekit.transformer.memory import MemoryCheck

from .given import CHIP, CONTEXT, SHAPE

__all__ = [
    "KV_DTYPES",
    "WEIGHT_BYTES",
    "decode_step",
    "kv_bytes_per_token",
    "largest_batch",
    "plateau_batch",
    "ttft",
]

KV_DTYPES = {1: "fp8", 2: "bf16", 4: "fp32"}
"""A KV cache's dtype by its bytes per number."""
WEIGHT_BYTES = dtype_bytes("bf16")
"""Exercise 7's weights are bf16."""


def kv_bytes_per_token(
    n_layers: int, n_heads: int, kv_heads: int, head_dim: int, bytes_per_number: int = 2
) -> float:
    """Bytes one token leaves in the cache: a key and a value per layer and KV head (not per query head)."""
    shape = replace(SHAPE, n_layers=n_layers, n_heads=n_heads, n_kv_heads=kv_heads, head_dim=head_dim)
    return shape.kv_cache_bytes_per_token(KV_DTYPES[bytes_per_number])


def largest_batch(
    hbm_bytes: float = CHIP.hbm_bytes,
    params: float = SHAPE.params,
    context: int = CONTEXT,
    kv_bytes_per_token: float = SHAPE.kv_cache_bytes_per_token("bf16"),
) -> int:
    """Whole sequences of ``context`` tokens whose caches fit beside the bf16 weights (activations
    left out)."""
    memory = MemoryCheck(hbm_bytes, WEIGHT_BYTES * params, 0.0, 0.0, context * kv_bytes_per_token)
    return memory.max_batch


def decode_step(
    batch: Any, params: float, context: int, kv_bytes_per_token: float, peak: float, bandwidth: float
) -> Any:
    """One decode step, the weight matmuls then the attention, one after the other: the matmuls
    take the longer of their FLOPs at the peak and the weights' bytes at the bandwidth; the
    attention reads every sequence's cache (its FLOPs left out)."""
    matmuls = Cost(flops=2 * params * batch, bytes_read=WEIGHT_BYTES * params, bytes_written=0.0)
    attention = t_comms(batch * context * kv_bytes_per_token, bandwidth)
    return analyze(matmuls, peak=peak, bandwidth=bandwidth).t_lower + attention


def ttft(prompt: Any, params: float, peak: float, bandwidth: float) -> Any:
    """The prefill of ``prompt`` tokens in one step: the weights read once, 2 FLOPs a parameter a token."""
    prefill = Cost(flops=2 * params * prompt, bytes_read=WEIGHT_BYTES * params, bytes_written=0.0)
    return analyze(prefill, peak=peak, bandwidth=bandwidth).t_lower


def plateau_batch(peak: float, bandwidth: float) -> float:
    """The batch from which the weight matmuls are compute-bound (bf16 weights): past it each
    token's matmul time and attention time are both fixed, and the tokens a second stop growing."""
    return matmul_critical_batch_approx(peak=peak, bandwidth=bandwidth)
