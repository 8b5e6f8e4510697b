"""The memory check: what one chip must hold, whether it fits, and the most that does.

Each chip holds its share of the weights (:func:`weight_bytes_per_chip`), the KV cache of every
sequence of the batch and their live activations. :class:`MemoryCheck` sets them against the
chip's HBM: whether the step fits, and the largest batch that would (``max_batch``);
:func:`longest_context` finds the longest context that fits. :func:`check_weights_fit` and
:func:`memory_refusal` say, in words, why a step does not fit and what would.

>>> m = memory_for("llama-3.1-70b", "h100-sxm", n_chips=8, context=2048)
>>> m.fits, m.max_batch
(True, 742)
>>> memory_for("llama-3.1-70b", "h100-sxm", n_chips=1).weights_fit
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from rooflinekit.catalog import Chip
from rooflinekit.dtypes import DType, dtype_bytes
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.setup import Setup, heads_per_chip, make_setup
from rooflinekit.words import Translate, english


@dataclass(frozen=True)
class MemoryCheck:
    """What one chip must hold: its share of the weights, the KV cache and the activations.

    ``kv_cache_bytes`` and ``activation_bytes`` are for the batch asked about;
    ``max_batch`` is the largest batch that fits (0 when the weights alone do not).
    """

    hbm_bytes: float
    weight_bytes: float
    kv_cache_bytes: float
    activation_bytes: float
    bytes_per_sequence: float
    shared_bytes: float = 0.0

    @property
    def total_bytes(self) -> float:
        return self.weight_bytes + self.kv_cache_bytes + self.activation_bytes

    @property
    def fits(self) -> bool:
        return self.total_bytes <= self.hbm_bytes

    @property
    def weights_fit(self) -> bool:
        return self.weight_bytes < self.hbm_bytes

    @property
    def max_batch(self) -> int:
        free = self.hbm_bytes - self.weight_bytes - self.shared_bytes
        return max(0, math.floor(free / self.bytes_per_sequence))

    def to_dict(self) -> dict[str, Any]:
        return {
            "hbm_bytes": self.hbm_bytes,
            "weight_bytes": self.weight_bytes,
            "kv_cache_bytes": self.kv_cache_bytes,
            "activation_bytes": self.activation_bytes,
            "total_bytes": self.total_bytes,
            "fits": self.fits,
            "max_batch": self.max_batch,
        }


def weight_bytes_per_chip(model: TransformerShape, n_chips: int, weights: str | DType = "bf16") -> float:
    """Bytes of weights on each chip: the matrices split ``n_chips`` ways, KV projections
    copied where chips outnumber KV heads, norms on every chip.

    >>> llama = transformer_shape("llama-3.1-70b")
    >>> weight_bytes_per_chip(llama, 1) == llama.params * 2
    True
    >>> mixtral = transformer_shape("mixtral-8x7b")     # every expert, on every chip
    >>> weight_bytes_per_chip(mixtral, 1) == mixtral.params * 2
    True
    >>> v3 = transformer_shape("deepseek-v3")           # the latents' down projections on every chip
    >>> weight_bytes_per_chip(v3, 8) > v3.params * 2 / 8
    True
    """
    q_heads, kv_heads = heads_per_chip(model, n_chips)
    n = n_chips
    d = float(model.d_model)
    attention = model.attention_params_on(q_heads, kv_heads)
    mlp = model.mlp_matrices * d * model.d_ff / n
    biases = (model.mlp_matrices - 1) * model.d_ff / n + d
    layer = attention + 2 * model.norm_params + (biases if model.biases else 0.0)
    # Each expert's width is split like the MLP's; the router is on every chip.
    moe = model.moe_mlp_params() - model.router_params
    mlps = model.n_dense_layers * mlp + model.n_moe_layers * (moe / n + model.router_params)
    tables = (model.embedding_params + model.lm_head_params) / n
    params = model.n_layers * layer + mlps + tables + model.norm_params
    return params * dtype_bytes(weights, "weights")


def _activation_bytes_per_sequence(model: TransformerShape, s: Setup) -> float:
    """Live activations of one sequence: the residual stream plus the widest intermediate of a
    layer (layers run one at a time), plus its logits."""
    q_heads, kv_heads = heads_per_chip(model, s.n_chips)
    attention = q_heads * (model.head_dim + model.rope_head_dim) + model.cache_elements_per_layer(kv_heads)
    if model.is_latent:  # prefill projects every head's keys and values up from the latent
        attention += q_heads * (model.head_dim + model.v_dim)
    widest = max(attention, (model.mlp_matrices - 1) * model.d_ff // s.n_chips,
                 (model.mlp_matrices - 1) * model.expert_width // s.n_chips * model.experts_per_token)
    per_token = (model.d_model + widest) * s.activations.bytes
    logits = math.ceil(model.vocab / s.n_chips) * s.activations.bytes
    return s.new_tokens * per_token + logits * (s.new_tokens if s.phase == "decode" else 1)


def memory_check(model: TransformerShape, s: Setup) -> MemoryCheck:
    """Weights, KV cache and activations on one chip against its HBM."""
    _, kv_heads = heads_per_chip(model, s.n_chips)
    kv_per_token = float(model.n_layers * model.cache_elements_per_layer(kv_heads)) * s.kv_cache.bytes
    kv_per_sequence = kv_per_token * (s.attended - s.shared_prefix)  # the shared prefix: once a chip
    activations = _activation_bytes_per_sequence(model, s)
    shared = kv_per_token * s.shared_prefix
    return MemoryCheck(
        hbm_bytes=s.chip.hbm_bytes,
        weight_bytes=weight_bytes_per_chip(model, s.n_chips, s.weights),
        kv_cache_bytes=kv_per_sequence * s.batch + shared,
        activation_bytes=activations * s.batch,
        bytes_per_sequence=kv_per_sequence + activations,
        shared_bytes=shared,
    )


def memory_for(model: str | TransformerShape, on: str | Chip, **settings: Any) -> MemoryCheck:
    """The memory check alone, which never refuses: does the model fit, and how large a batch?

    ``settings`` are those of :func:`~rooflinekit.transformer.setup.make_setup`.

    >>> m = memory_for("llama-3.1-70b", "h100-sxm", n_chips=1)
    >>> m.weights_fit, m.max_batch
    (False, 0)
    """
    shape = transformer_shape(model)
    setup = make_setup(on, **settings)
    return memory_check(shape, setup)


def longest_context(model: TransformerShape, s: Setup) -> int:
    """The longest context (the prompt, or the cache in decode) that fits at the setup's batch
    (doubling, then bisection); 0 when not even one token does.

    >>> longest_context(transformer_shape("llama-3.1-70b"), make_setup("h100-sxm", n_chips=8, batch=742))
    2049
    """

    def fits(length: int) -> bool:
        return memory_check(model, replace(s, context=length)).fits

    if not fits(1):
        return 0
    low, high = 1, 2
    while fits(high):
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low


def check_weights_fit(model: TransformerShape, s: Setup, memory: MemoryCheck) -> None:
    """Refuse chips too few (or too small) for the model's weights, naming ``n_chips``.

    >>> shape, s = transformer_shape("llama-3.1-70b"), make_setup("h100-sxm")
    >>> try:
    ...     check_weights_fit(shape, s, memory_check(shape, s))
    ... except ValueError as error:
    ...     print(error)
    n_chips must be enough h100-sxm chips for llama-3.1-70b's 141 GB of bf16 weights, 80 GB each (got 1)
    """
    if not memory.weights_fit:
        raise RooflineInputError(
            "n_chips",
            f"enough {s.chip.id} chips for {model.name}'s "
            f"{model.params * s.weights.bytes / 1e9:.0f} GB of {s.weights.name} weights, "
            f"{s.chip.hbm_bytes / 1e9:.0f} GB each",
            s.n_chips,
        )


def memory_refusal(
    model: TransformerShape, s: Setup, memory: MemoryCheck, tr: Translate = english
) -> tuple[str, str] | None:
    """Why a step whose weights fit does not fit, and what would, in ``tr``'s language:
    ``("context", ...)`` when not one sequence of this length fits, ``("batch", ...)`` when the
    batch is too large; None when the step fits.

    >>> shape, s = transformer_shape("llama-3.1-70b"), make_setup("h100-sxm", n_chips=8, batch=1024)
    >>> memory_refusal(shape, s, memory_check(shape, s))
    ('batch', 'at most 742 sequences of 2049 tokens for llama-3.1-70b on 8 x h100-sxm')
    """
    where = {"model": model.name, "n_chips": s.n_chips, "chip": s.chip.id}
    if memory.max_batch == 0:  # the weights fit, but not one sequence of this length
        longest = longest_context(model, replace(s, batch=1))
        accepted = tr("at most {tokens} tokens for one sequence of {model} on {n_chips} x {chip}")
        return "context", accepted.format(tokens=longest, **where)
    if not memory.fits:
        accepted = tr("at most {sequences} sequences of {tokens} tokens for {model} on {n_chips} x {chip}")
        return "batch", accepted.format(sequences=memory.max_batch, tokens=s.attended, **where)
    return None
