"""Data-parallel attention, as DeepSeek serves DeepSeek-V3: attention whole on every chip, each chip
with its own sequences' latent cache, and the routed experts spread over the chips.

Under tensor parallelism (``n_chips`` of :func:`~rooflinekit.transformer.step.transformer_step`) a
model with latent attention splits its heads over the chips, but every chip holds the whole latent
cache of every sequence: the latent is shared by all the heads and is not split with them
(:mod:`rooflinekit.transformer.latent`). DeepSeek's inference system runs attention
**data-parallel** instead: in decode, the routed experts expert-parallel over 144 GPUs and latent
attention with the shared expert data-parallel over the same 144 (DeepSeek-AI, *DeepSeek-V3/R1
Inference System Overview*, 2025, github.com/deepseek-ai/open-infra-index; the
*DeepSeek-V3 Technical Report*, 2024, arXiv:2412.19437, Section 3.4.2, describes the earlier
deployment, attention with a small tensor-parallel degree inside data-parallel groups). Each of
``n_chips`` chips, a data-parallel **rank**, holds the attention weights whole, runs all the heads
for its own ``batch / n_chips`` sequences and holds their latent cache alone; the routed experts are
spread over the chips, and two all-to-alls a MoE layer carry each token to its experts and back
(:func:`~rooflinekit.transformer.experts.expert_parallel` costs them).

:func:`data_parallel_attention` gives what one rank holds, the largest batch the group fits beside
tensor parallelism's on the same chips, and one rank's attention on the roofline. The assumptions,
stated: everything but the routed experts (attention, dense layers, shared experts, routers,
embedding, head) is whole on every chip; the routed experts split evenly (``n_chips`` divides their
count); the sequences split evenly over the ranks (the busiest holds ``ceil(batch / n_chips)``); a
sequence's activations are a one-chip step's. It does not assemble a whole step: the experts' time
and the all-to-alls are :func:`~rooflinekit.transformer.experts.expert_parallel`'s, per MoE layer.

>>> dp = data_parallel_attention("deepseek-v3", "h200-sxm", n_chips=8, batch=64, context=4096,
...                              weights="fp8", kv_cache="bf16")
>>> dp.max_batch, dp.tensor_parallel_max_batch      # sequences of 4,097 tokens the 8 chips fit
(1168, 195)

Each rank runs all 128 heads over one latent cache, past the H200's bf16 ridge (206 FLOPs/B), where
tensor parallelism's 16 heads a chip stay memory-bound:

>>> round(dp.attention_intensity, 1), round(dp.tensor_parallel_attention_intensity, 1)   # FLOPs/B
(228.3, 30.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rooflinekit.catalog import Chip
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.memory import memory_check, memory_for
from rooflinekit.transformer.operations import layer_ops
from rooflinekit.transformer.setup import Setup, make_setup
from rooflinekit.transformer.step import place


@dataclass(frozen=True)
class DataParallelAttention:
    """One rank of ``n_chips`` under data-parallel attention (the module's assumptions): what it
    holds, and its attention at ``rank.batch`` sequences; tensor parallelism's figures beside."""

    model: TransformerShape
    rank: Setup
    n_chips: int
    weight_bytes: float
    bytes_per_sequence: float
    attention_flops: float
    attention_bytes: float
    t_attention: float
    tensor_parallel_max_batch: int
    tensor_parallel_attention_intensity: float

    @property
    def max_batch_per_rank(self) -> int:
        """Sequences one rank fits beside the weights it holds."""
        free = self.rank.chip.hbm_bytes - self.weight_bytes
        return max(0, math.floor(free / self.bytes_per_sequence))

    @property
    def max_batch(self) -> int:
        """Sequences the ``n_chips`` ranks fit together."""
        return self.n_chips * self.max_batch_per_rank

    @property
    def attention_intensity(self) -> float:
        """FLOPs a byte of one rank's attention kernels (scores and values, all heads)."""
        return self.attention_flops / self.attention_bytes

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model.name, "chip": self.rank.chip.id, "chips": self.n_chips,
                "batch_per_rank": self.rank.batch, "context": self.rank.context,
                "weight_bytes_per_chip": self.weight_bytes, "bytes_per_sequence": self.bytes_per_sequence,
                "max_batch_per_rank": self.max_batch_per_rank, "max_batch": self.max_batch,
                "attention_intensity": self.attention_intensity, "t_attention": self.t_attention,
                "tensor_parallel_max_batch": self.tensor_parallel_max_batch,
                "tensor_parallel_attention_intensity": self.tensor_parallel_attention_intensity}


def data_parallel_attention(model: str | TransformerShape, on: str | Chip, *, n_chips: int, batch: int = 1,
                            context: int = 2048, **settings: Any) -> DataParallelAttention:
    """``model`` decoding ``batch`` sequences of ``context`` cached tokens on ``n_chips`` chips ``on``
    a catalog chip with data-parallel attention (the module's assumptions); ``settings`` are
    :func:`~rooflinekit.transformer.setup.make_setup`'s dtypes and figures.

    >>> data_parallel_attention("llama-3.1-70b", "h100-sxm", n_chips=8)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: model must be a mixture of experts ... (got 'llama-3.1-70b')
    """
    shape = transformer_shape(model)
    if not shape.is_moe:
        raise RooflineInputError("model", "a mixture of experts (see `rooflinekit models`)", shape.name)
    group = make_setup(on, n_chips=n_chips, batch=batch, context=context, **settings)
    if shape.n_experts % group.n_chips:
        raise RooflineInputError("n_chips", f"a divisor of {shape.name}'s {shape.n_experts} experts", n_chips)
    rank = make_setup(on, batch=math.ceil(group.batch / group.n_chips), context=context, **settings)
    routed = shape.n_moe_layers * shape.n_experts * shape.expert_params
    weights = (shape.params - routed * (1 - 1 / group.n_chips)) * rank.weights.bytes
    flops, moved, seconds = _attention(shape, rank)
    tp_flops, tp_moved, _ = _attention(shape, group)  # the same chips, tensor-parallel
    tp_max = memory_for(shape, on, n_chips=group.n_chips, context=context, **settings).max_batch
    per_sequence = memory_check(shape, rank).bytes_per_sequence
    return DataParallelAttention(shape, rank, group.n_chips, weights, per_sequence, flops, moved, seconds,
                                 tp_max, tp_flops / tp_moved)


def _attention(shape: TransformerShape, s: Setup) -> tuple[float, float, float]:
    """FLOPs, bytes and seconds of one chip's attention kernels in a step, every layer."""
    ops = [op for op in layer_ops(shape, s) if op.kind == "attention"]
    flops = sum(op.count * op.flops for op in ops)
    moved = sum(op.count * op.bytes for op in ops)
    return flops, moved, sum(op.count * place(op, s).t_lower for op in ops)
