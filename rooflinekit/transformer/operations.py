"""The operations of one step on one chip, and what each costs: FLOPs, HBM bytes, link bytes.

A layer of a model split over ``n_chips`` (:mod:`rooflinekit.transformer.setup`) runs, on each
chip: a norm, the Q, K and V projections, attention over the KV cache, the output projection, an
all-reduce, a residual add, a second norm, the MLP (gated or plain), a second all-reduce and a
second residual add; the model's head a final norm, the LM head and a gather of the logits. Each
is built from the cost models of :mod:`rooflinekit.costs` and, for the collectives, the ring of
:mod:`rooflinekit.collectives`. Nothing here knows a time: :mod:`rooflinekit.transformer.step`
places the operations on the chip's roofline.

>>> from rooflinekit.models import transformer_shape
>>> from rooflinekit.transformer.setup import make_setup
>>> ops = layer_ops(transformer_shape("llama-3.1-70b"), make_setup("h100-sxm", n_chips=8))
>>> [op.name for op in ops][:4], ops[1].count
(['attention norm', 'Q projection', 'K projection', 'V projection'], 80)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from rooflinekit.collectives import collective_bytes
from rooflinekit.costs import Cost, elementwise_cost, layer_norm_cost, matmul_cost, rms_norm_cost
from rooflinekit.dtypes import DType
from rooflinekit.models import TransformerShape
from rooflinekit.transformer.setup import Setup, heads_per_chip
from rooflinekit.words import N_

GLU_FLOPS_PER_ELEMENT = 5.0
"""SiLU(gate) * up: a sigmoid (exponential, add, divide), a multiply by the gate, a multiply
by ``up``. An estimate: the exact count depends on how the kernel evaluates the exponential."""

GELU_FLOPS_PER_ELEMENT = 8.0
"""GELU by its tanh approximation: a cube, a few multiplies and adds, a tanh. An estimate."""


@dataclass(frozen=True)
class Op:
    """One operation of a step, costed on one chip, and how many times the step runs it.

    ``cost`` counts FLOPs and HBM bytes; a collective does no math and moves no HBM bytes
    here, only ``link_bytes`` over the chip's link. ``weight_bytes`` are the HBM bytes of
    weights a matmul reads in one run (part of ``cost``'s bytes; 0 for other operations).
    """

    name: str
    kind: str
    cost: Cost
    count: int = 1
    link_bytes: float = 0.0
    collective: str | None = None
    weight_bytes: float = 0.0

    @property
    def flops(self) -> float:
        return float(self.cost.flops)

    @property
    def bytes(self) -> float:
        """HBM bytes, or for a collective the bytes it sends over the link."""
        return self.link_bytes if self.collective else float(self.cost.bytes)

    @property
    def intensity(self) -> float:
        """FLOPs per byte moved (per HBM byte, or per link byte for a collective)."""
        return self.flops / self.bytes if self.bytes else math.inf


def layer_ops(model: TransformerShape, s: Setup) -> list[Op]:
    """The operations of one layer on one chip, in the order they run."""
    q_heads, kv_heads = heads_per_chip(model, s.n_chips)
    d, hd, t, L = model.d_model, model.head_dim, s.tokens, model.n_layers
    act = s.activations
    ops = [
        Op(N_("attention norm"), "norm", replace(_norm(model, t, act), name="attention norm"), L),
        _projection(N_("Q projection"), t, d, q_heads * hd, s, model),
        _projection(N_("K projection"), t, d, kv_heads * hd, s, model, out=s.kv_cache),
        _projection(N_("V projection"), t, d, kv_heads * hd, s, model, out=s.kv_cache),
        *_attention(model, s, q_heads, kv_heads),
        _projection(N_("output projection"), t, q_heads * hd, d, s, model),
    ]
    if s.n_chips > 1:
        ops.append(_all_reduce(N_("attention all-reduce"), s, t * d, L))
    residual = elementwise_cost(t * d, dtype=act, inputs=2)
    ops += [
        Op(N_("attention residual"), "elementwise", replace(residual, name="attention residual"), L),
        Op(N_("MLP norm"), "norm", replace(_norm(model, t, act), name="MLP norm"), L),
        *_mlp(model, s),
    ]
    if s.n_chips > 1:
        ops.append(_all_reduce(N_("MLP all-reduce"), s, t * d, L))
    ops.append(Op(N_("MLP residual"), "elementwise", replace(residual, name="MLP residual"), L))
    return ops


def head_ops(model: TransformerShape, s: Setup) -> list[Op]:
    """The final norm and the LM head, run once, on the last token of each sequence.

    The vocabulary is split over the chips; the logits are gathered at the end.
    """
    rows = s.batch
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


def _mlp(model: TransformerShape, s: Setup) -> list[Op]:
    """The MLP's matmuls and activation on one chip's share of its width: gate, up, SiLU x up
    and down when gated, up, GELU and down when plain."""
    d, t, L, act = model.d_model, s.tokens, model.n_layers, s.activations
    ff = model.d_ff // s.n_chips
    if model.gated:
        activation = elementwise_cost(t * ff, dtype=act, inputs=2, flops_per_element=GLU_FLOPS_PER_ELEMENT)
        ops = [
            _projection(N_("MLP gate"), t, d, ff, s, model),
            _projection(N_("MLP up"), t, d, ff, s, model),
            Op(N_("MLP activation (SiLU x up)"), "elementwise", replace(activation, name="MLP activation"),
               L),
        ]
    else:
        activation = elementwise_cost(t * ff, dtype=act, inputs=1, flops_per_element=GELU_FLOPS_PER_ELEMENT)
        ops = [
            _projection(N_("MLP up"), t, d, ff, s, model),
            Op(N_("MLP activation (GELU)"), "elementwise", replace(activation, name="MLP activation"), L),
        ]
    return [*ops, _projection(N_("MLP down"), t, ff, d, s, model)]


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
                out: DType | None = None) -> Op:
    cost = matmul_cost(tokens, d_in, d_out, x=s.activations, w=s.weights, out=out or s.activations)
    if model.biases:
        cost = _with_bias(cost, tokens, d_out, s.weights)
    weights = s.weights.bytes * (d_in * d_out + (d_out if model.biases else 0.0))
    return Op(name, "matmul", replace(cost, name=name), model.n_layers, weight_bytes=weights)


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
    causal = (keys + 1) / (2 * keys) if s.phase == "prefill" else 1.0
    copies = s.batch * kv_heads
    ops = []
    for name, cost in ((N_("attention scores"), scores), (N_("attention values"), values)):
        part = _scaled(cost, copies, name)
        part = replace(part, flops=part.flops * causal)
        ops.append(Op(name, "attention", part, model.n_layers))
    return ops


def _all_reduce(name: str, s: Setup, payload_elements: float, count: int, kind: str = "all-reduce") -> Op:
    payload = payload_elements * s.activations.bytes
    sent = float(collective_bytes(kind, payload, s.n_chips))
    return Op(name, "collective", Cost(0.0, 0.0, 0.0, name), count, link_bytes=sent, collective=kind)
