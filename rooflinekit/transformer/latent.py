"""Multi-head latent attention (MLA, DeepSeek-V2 and V3) on one chip: its operations and their costs.

A token's keys and values are cached as one **latent** of ``kv_lora_rank`` values and one rotary key
of ``rope_head_dim`` values a layer, shared by every head (so a chip holds the whole latent cache
whatever its share of the heads). The queries come from their own latent (``q_lora_rank``). The
down projections to the latents, and their norms, run on every chip; the up projections and the
output projection are split by heads, as in tensor parallelism.

Engines run the two phases differently (DeepSeek-V2, Appendix C; FlashMLA and vLLM do so):

- **decode, absorbed**: the key up projection is folded into each head's query (``head_dim`` to
  ``kv_lora_rank``) and the value up projection applied after attention (``kv_lora_rank`` to
  ``v_head_dim``). Attention then runs over the latent itself: every head of a chip shares one
  cache, like multi-query attention, with keys ``kv_lora_rank + rope_head_dim`` and values
  ``kv_lora_rank`` wide. One fused operation (as FlashMLA runs it) reads the latent once for both
  (the values are the keys' first ``kv_lora_rank``), so attention's intensity grows with the heads
  a chip holds (about ``1.9 x heads`` in bf16), where grouped-query attention's is about the group.
- **prefill, decompressed**: the prompt's latents are projected up into every head's keys and
  values, and attention is ordinary multi-head attention, causal, with keys
  ``head_dim + rope_head_dim`` and values ``v_head_dim`` wide.

>>> from rooflinekit.models import transformer_shape
>>> from rooflinekit.transformer.setup import make_setup
>>> ops = latent_ops(transformer_shape("deepseek-v3"), make_setup("h200-sxm", n_chips=8, batch=64), 16)
>>> [op.name for op in ops][:3]
['Q down projection', 'Q latent norm', 'Q up projection']
>>> attention = next(op for op in ops if op.name == "latent attention")
>>> round(attention.intensity)     # 16 heads share one latent: about 16 x (576 + 512) / 576 FLOPs a byte
30
"""

from __future__ import annotations

from dataclasses import replace

from rooflinekit.costs import Cost, matmul_cost, rms_norm_cost
from rooflinekit.models import TransformerShape
from rooflinekit.transformer.op import Op
from rooflinekit.transformer.setup import Setup
from rooflinekit.words import N_


def _matmul(name: str, rows: int, d_in: int, d_out: int, s: Setup, model: TransformerShape,
            copies: int = 1, out: str | None = None) -> Op:
    """``copies`` independent ``rows x d_in x d_out`` products (one a head), weights read once each."""
    cost = matmul_cost(rows, d_in, d_out, x=s.activations, w=s.weights,
                       out=s.kv_cache if out == "cache" else s.activations)
    cost = Cost(cost.flops * copies, cost.bytes_read * copies, cost.bytes_written * copies, name)
    return Op(name, "matmul", cost, model.n_layers, weight_bytes=s.weights.bytes * d_in * d_out * copies)


def _norm(name: str, rows: int, width: int, s: Setup, model: TransformerShape) -> Op:
    return Op(name, "norm", replace(rms_norm_cost(rows, width, s.activations), name=name), model.n_layers)


def latent_ops(model: TransformerShape, s: Setup, q_heads: int) -> list[Op]:
    """From the query projections to the output projection, for one layer on a chip holding
    ``q_heads`` heads (the attention norm and the all-reduce are the caller's)."""
    d, t = model.d_model, s.tokens
    c, r = model.kv_lora_rank, model.rope_head_dim
    q_head = model.head_dim + r
    ops = []
    if model.q_lora_rank:
        ops += [
            _matmul(N_("Q down projection"), t, d, model.q_lora_rank, s, model),
            _norm(N_("Q latent norm"), t, model.q_lora_rank, s, model),
            _matmul(N_("Q up projection"), t, model.q_lora_rank, q_heads * q_head, s, model),
        ]
    else:
        ops.append(_matmul(N_("Q projection"), t, d, q_heads * q_head, s, model))
    ops += [
        _matmul(N_("KV down projection"), t, d, c + r, s, model, out="cache"),
        _norm(N_("KV latent norm"), t, c, s, model),
    ]
    ops += _absorbed(model, s, q_heads) if s.phase == "decode" else _decompressed(model, s, q_heads)
    ops.append(_matmul(N_("output projection"), t, q_heads * model.v_dim, d, s, model))
    return ops


def _absorbed(model: TransformerShape, s: Setup, q_heads: int) -> list[Op]:
    """Decode: queries into the latent, attention over the shared latent, values out of it."""
    c, r, t = model.kv_lora_rank, model.rope_head_dim, s.tokens
    act, kv = s.activations, s.kv_cache
    keys, rows = s.attended, q_heads * s.new_tokens
    # One fused kernel (FlashMLA): scores over the latent and the rotary key, then values from the
    # same latent, read once; the probabilities stay on chip. A sequence's heads share its cache.
    causal = (s.context + (s.new_tokens + 1) / 2) / keys  # drafted tokens see those before them
    flops = 2.0 * rows * keys * ((c + r) + c) * s.batch * causal
    read = (kv.bytes * keys * (c + r) + act.bytes * rows * (c + r)) * s.batch
    written = act.bytes * rows * c * s.batch
    attention = Cost(flops, read, written, "latent attention")
    return [
        _matmul(N_("query absorption"), t, model.head_dim, c, s, model, copies=q_heads),
        Op(N_("latent attention"), "attention", attention, model.n_layers),
        _matmul(N_("value absorption"), t, c, model.v_dim, s, model, copies=q_heads),
    ]


def _decompressed(model: TransformerShape, s: Setup, q_heads: int) -> list[Op]:
    """Prefill: every head's keys and values projected up, then causal multi-head attention."""
    c, t, keys = model.kv_lora_rank, s.tokens, s.attended
    act = s.activations
    k_width, v_width = model.head_dim + model.rope_head_dim, model.v_dim
    up = _matmul(N_("KV up projection"), t, c, q_heads * (model.head_dim + v_width), s, model)
    rows = s.new_tokens
    scores = matmul_cost(rows, k_width, keys, x=act, w=act, out=act)
    values = matmul_cost(rows, keys, v_width, x=act, w=act, out=act)
    values = replace(values, bytes_read=values.bytes_read - act.bytes * rows * keys)  # P is on chip
    causal = (keys + 1) / (2 * keys)
    copies = s.batch * q_heads
    ops = [up]
    for name, cost in ((N_("attention scores"), replace(scores, bytes_written=0.0)),
                       (N_("attention values"), values)):
        scaled = Cost(cost.flops * copies * causal, cost.bytes_read * copies,
                      cost.bytes_written * copies, name)
        ops.append(Op(name, "attention", scaled, model.n_layers))
    return ops
