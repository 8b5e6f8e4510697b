"""The operations of one step on one chip, and what each costs: FLOPs, HBM bytes, link bytes.

A layer of a model split over ``n_chips`` (:mod:`rooflinekit.transformer.setup`) runs, on each
chip: a norm, the Q, K and V projections, attention over the KV cache, the output projection, an
all-reduce, a residual add, a second norm, the MLP (gated or plain), a second all-reduce and a
second residual add (in a mixture of experts' MoE layers, the MLP is a router, the shared
experts and the routed experts); the model's head a final norm, the LM head and a gather of the
logits. Each is built from the cost models of :mod:`rooflinekit.costs` and, for the collectives,
the ring of :mod:`rooflinekit.collectives`. Nothing here knows a time: :mod:`rooflinekit.transformer.step`
places the operations on the chip's roofline.

>>> from rooflinekit.models import transformer_shape
>>> from rooflinekit.transformer.setup import make_setup
>>> ops = layer_ops(transformer_shape("llama-3.1-70b"), make_setup("h100-sxm", n_chips=8))
>>> [op.name for op in ops][:4], ops[1].count
(['attention norm', 'Q projection', 'K projection', 'V projection'], 80)
"""

from __future__ import annotations

import math
from dataclasses import replace

from rooflinekit.collectives import collective_bytes
from rooflinekit.costs import Cost, elementwise_cost, layer_norm_cost, matmul_cost, rms_norm_cost
from rooflinekit.dtypes import DType
from rooflinekit.models import TransformerShape
from rooflinekit.transformer.latent import latent_ops
from rooflinekit.transformer.op import Op
from rooflinekit.transformer.setup import Setup, heads_per_chip
from rooflinekit.words import N_

GLU_FLOPS_PER_ELEMENT = 5.0
"""SiLU(gate) * up: a sigmoid (exponential, add, divide), a multiply by the gate, a multiply
by ``up``. An estimate: the exact count depends on how the kernel evaluates the exponential."""

GELU_FLOPS_PER_ELEMENT = 8.0
"""GELU by its tanh approximation: a cube, a few multiplies and adds, a tanh. An estimate."""


def layer_ops(model: TransformerShape, s: Setup) -> list[Op]:
    """The operations of one layer on one chip, in the order they run."""
    q_heads, kv_heads = heads_per_chip(model, s.n_chips)
    d, hd, t, L = model.d_model, model.head_dim, s.tokens, model.n_layers
    act = s.activations
    ops = [Op(N_("attention norm"), "norm", replace(_norm(model, t, act), name="attention norm"), L)]
    if model.is_latent:
        ops += latent_ops(model, s, q_heads)
    else:
        ops += [
            _projection(N_("Q projection"), t, d, q_heads * hd, s, model),
            _projection(N_("K projection"), t, d, kv_heads * hd, s, model, out=s.kv_cache),
            _projection(N_("V projection"), t, d, kv_heads * hd, s, model, out=s.kv_cache),
            *_qk_norms(model, s, q_heads + kv_heads),
            *_attention(model, s, q_heads, kv_heads),
            _projection(N_("output projection"), t, q_heads * hd, d, s, model),
        ]
    if s.n_chips > 1:
        ops.append(_all_reduce(N_("attention all-reduce"), s, t * d, L))
    residual = elementwise_cost(t * d, dtype=act, inputs=2)
    ops += [
        Op(N_("attention residual"), "elementwise", replace(residual, name="attention residual"), L),
        Op(N_("MLP norm"), "norm", replace(_norm(model, t, act), name="MLP norm"), L),
        *_mlps(model, s),
    ]
    if s.n_chips > 1:
        ops.append(_all_reduce(N_("MLP all-reduce"), s, t * d, L))
    ops.append(Op(N_("MLP residual"), "elementwise", replace(residual, name="MLP residual"), L))
    return ops


def head_ops(model: TransformerShape, s: Setup) -> list[Op]:
    """The final norm and the LM head, run once, on the last token of each sequence.

    The vocabulary is split over the chips; the logits are gathered at the end.
    """
    rows = s.tokens if s.phase == "decode" else s.batch  # every new token's logits in decode
    vocab = math.ceil(model.vocab / s.n_chips)
    act = s.activations
    head = matmul_cost(rows, model.d_model, vocab, x=act, w=s.weights, out=act)
    ops = [
        Op(N_("final norm"), "norm", replace(_norm(model, rows, act), name="final norm")),
        Op(N_("LM head"), "matmul", replace(head, name="LM head"),
           weight_bytes=s.weights.bytes * model.d_model * vocab),
    ]
    if s.n_chips > 1:
        ops.append(_all_reduce(N_("logits all-gather"), s, rows * model.vocab, 1, kind="all-gather"))
    return ops


def _mlps(model: TransformerShape, s: Setup) -> list[Op]:
    """The dense layers' MLP, and the MoE layers' router, shared experts and routed experts."""
    ops = _mlp(model, s, model.d_ff, model.n_dense_layers) if model.n_dense_layers else []
    if model.n_moe_layers:
        count, t, act = model.n_moe_layers, s.tokens, s.activations
        router = matmul_cost(t, model.d_model, model.n_experts, x=act, w=s.weights, out=act)
        ops.append(Op(N_("router"), "matmul", replace(router, name="router"), count,
                      weight_bytes=s.weights.bytes * model.router_params))
        if model.shared_experts:
            ops += _mlp(model, s, model.shared_experts * model.expert_width, count, shared=True)
        ops += _experts(model, s)
    return ops


def _mlp(model: TransformerShape, s: Setup, width: int, count: int, shared: bool = False) -> list[Op]:
    """An MLP of ``width`` on one chip's share of it, in ``count`` layers: gate, up, SiLU x up and
    down when gated, up, GELU and down when plain (a mixture's shared experts when ``shared``)."""
    d, t, act = model.d_model, s.tokens, s.activations
    ff = width // s.n_chips
    names = _SHARED_NAMES if shared else _MLP_NAMES
    if model.gated:
        activation = elementwise_cost(t * ff, dtype=act, inputs=2, flops_per_element=GLU_FLOPS_PER_ELEMENT)
        ops = [
            _projection(names["gate"], t, d, ff, s, model, count=count),
            _projection(names["up"], t, d, ff, s, model, count=count),
            Op(names["glu"], "elementwise", replace(activation, name="MLP activation"), count),
        ]
    else:
        activation = elementwise_cost(t * ff, dtype=act, inputs=1, flops_per_element=GELU_FLOPS_PER_ELEMENT)
        ops = [
            _projection(names["up"], t, d, ff, s, model, count=count),
            Op(names["gelu"], "elementwise", replace(activation, name="MLP activation"), count),
        ]
    return [*ops, _projection(names["down"], t, ff, d, s, model, count=count)]


_MLP_NAMES = {"gate": N_("MLP gate"), "up": N_("MLP up"), "down": N_("MLP down"),
              "glu": N_("MLP activation (SiLU x up)"), "gelu": N_("MLP activation (GELU)")}
_SHARED_NAMES = {"gate": N_("shared expert gate"), "up": N_("shared expert up"),
                 "down": N_("shared expert down"), "glu": N_("shared expert activation"),
                 "gelu": N_("shared expert activation")}


def _experts(model: TransformerShape, s: Setup) -> list[Op]:
    """The routed experts of one MoE layer on one chip's share of each expert's width.

    ``tokens * experts_per_token`` rows are multiplied, each by the expert it was routed to; the
    weights read are those of the distinct experts touched
    (:meth:`~rooflinekit.models.TransformerShape.experts_touched`, uniform routing), so a decode
    step at a small batch reads few experts and a large batch nearly all. Then each token's
    ``experts_per_token`` outputs are weighted and summed.
    """
    d, act, w, k = model.d_model, s.activations, s.weights, model.experts_per_token
    rows = s.tokens * k
    ff = model.expert_width // s.n_chips
    touched = float(model.experts_touched(s.tokens))

    def matrix(name: str, d_in: int, d_out: int) -> Op:
        weights = w.bytes * touched * d_in * d_out
        read, written = act.bytes * rows * d_in + weights, act.bytes * rows * d_out
        cost = Cost(2.0 * rows * d_in * d_out, read, written, name)
        return Op(name, "matmul", cost, model.n_moe_layers, weight_bytes=weights)

    inputs = 2 if model.gated else 1
    flops = GLU_FLOPS_PER_ELEMENT if model.gated else GELU_FLOPS_PER_ELEMENT
    activation = elementwise_cost(rows * ff, dtype=act, inputs=inputs, flops_per_element=flops)
    combine = elementwise_cost(s.tokens * d, dtype=act, inputs=k, flops_per_element=2.0 * k)
    ops = [matrix(N_("expert gate"), d, ff)] if model.gated else []
    return [
        *ops,
        matrix(N_("expert up"), d, ff),
        Op(N_("expert activation"), "elementwise", replace(activation, name="expert activation"),
           model.n_moe_layers),
        matrix(N_("expert down"), ff, d),
        Op(N_("expert combine"), "elementwise", replace(combine, name="expert combine"), model.n_moe_layers),
    ]


def _qk_norms(model: TransformerShape, s: Setup, heads: int) -> list[Op]:
    """Qwen3's RMSNorm of each head's query and key (none for a model without)."""
    if not model.qk_norm:
        return []
    cost = rms_norm_cost(s.tokens * heads, model.head_dim, s.activations)
    return [Op(N_("QK norms"), "norm", replace(cost, name="QK norms"), model.n_layers)]


def _scaled(cost: Cost, factor: float, name: str) -> Cost:
    """``factor`` independent copies of one operation (one per sequence and KV head)."""
    return Cost(cost.flops * factor, cost.bytes_read * factor, cost.bytes_written * factor, name)


def _with_bias(cost: Cost, tokens: float, width: float, w: DType) -> Cost:
    """Add a bias to a projection's output: one add per output element, the bias read once."""
    return Cost(cost.flops + tokens * width, cost.bytes_read + w.bytes * width, cost.bytes_written, cost.name)


def _norm(model: TransformerShape, tokens: int, act: DType) -> Cost:
    if model.norm == "layer":
        return layer_norm_cost(tokens, model.d_model, act)
    return rms_norm_cost(tokens, model.d_model, act)


def _projection(name: str, tokens: int, d_in: int, d_out: float, s: Setup, model: TransformerShape,
                out: DType | None = None, count: int | None = None) -> Op:
    cost = matmul_cost(tokens, d_in, d_out, x=s.activations, w=s.weights, out=out or s.activations)
    if model.biases:
        cost = _with_bias(cost, tokens, d_out, s.weights)
    weights = s.weights.bytes * (d_in * d_out + (d_out if model.biases else 0.0))
    runs = model.n_layers if count is None else count
    return Op(name, "matmul", replace(cost, name=name), runs, weight_bytes=weights)


def _attention(model: TransformerShape, s: Setup, q_heads: int, kv_heads: int) -> list[Op]:
    """Scores ``Q K^T`` and weighted values ``P V`` for every sequence and KV head on a chip.

    Fused as FlashAttention does it: the scores and probabilities stay on chip, so HBM
    sees the queries, each KV head's keys and values once (shared by its group of query
    heads), and the output. In prefill, causal masking skips the upper triangle:
    ``(L + 1) / 2L`` of the square's FLOPs.
    """
    group = q_heads // kv_heads
    rows = group * s.new_tokens  # query rows that share one KV head, per sequence
    keys = s.attended
    act, kv = s.activations, s.kv_cache
    scores = matmul_cost(rows, model.head_dim, keys, x=act, w=kv, out=act)
    scores = replace(scores, bytes_written=0.0)  # kept on chip for the softmax
    values = matmul_cost(rows, keys, model.head_dim, x=act, w=kv, out=act)
    values = replace(values, bytes_read=values.bytes_read - act.bytes * rows * keys)  # P is on chip
    causal = _causal(s)
    copies = s.batch * kv_heads
    ops = []
    for name, cost in ((N_("attention scores"), scores), (N_("attention values"), values)):
        part = _scaled(cost, copies, name)
        part = replace(part, flops=part.flops * causal)
        ops.append(Op(name, "attention", part, model.n_layers))
    return ops


def _causal(s: Setup) -> float:
    """Share of the new tokens' query-key products a causal mask keeps: ``(L + 1) / 2L`` over a
    whole prompt of ``L``; for ``n`` new tokens after ``c`` cached ones, each sees the cache and the
    new tokens up to itself, ``c + (n + 1) / 2`` of the ``c + n`` keys on average."""
    if s.phase == "prefill":
        return (s.context + 1) / (2 * s.context)
    n, c = s.new_tokens, s.context
    return (c + (n + 1) / 2) / (c + n)


def _all_reduce(name: str, s: Setup, payload_elements: float, count: int, kind: str = "all-reduce") -> Op:
    payload = payload_elements * s.activations.bytes
    sent = float(collective_bytes(kind, payload, s.n_chips))
    return Op(name, "collective", Cost(0.0, 0.0, 0.0, name), count, link_bytes=sent, collective=kind)
