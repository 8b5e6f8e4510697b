"""A transformer on the roofline: every operation of a layer, for prefill and for decode.

One step of a model split over ``n_chips`` by tensor parallelism is a list of operations,
each built from the cost models of :mod:`rooflinekit.costs` and costed *per chip*: the
Q, K, V and output projections, attention over the KV cache, the MLP, the norms and
residual adds, the two all-reduces of a layer (ring, :mod:`rooflinekit.collectives`), and
the LM head. Each operation is placed on the chip's roofline, overlapping its own math and
memory traffic. How the operations overlap one another brackets the step:

- ``t_sequential`` (also ``t_lower``, the name the command line has always used): the operations
  one after another, the collectives too, the sum of the operations' times;
- ``t_collectives_hidden``: the same with every collective hidden behind the other operations
  (communication fully overlapped with compute), the longer of the two sums;
- ``totals.t_lower``: chapter 1's lower bound for the whole step, every clock overlapped with
  every other (the longest of the step's total math, memory and network times).

- **decode**: ``batch`` sequences, each with ``context`` tokens in the cache, add one token.
- **prefill**: ``batch`` prompts of ``context`` tokens each are read at once (causal attention).

>>> step = transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, batch=1, context=2048)
>>> step.bound
'memory'
>>> round(step.t_lower * 1e3, 2)          # ms: about the weights / (8 x 3.35 TB/s)
5.23
>>> prefill = transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, phase="prefill")
>>> [round(t * 1e3, 1) for t in (prefill.totals.t_lower, prefill.t_collectives_hidden, prefill.t_sequential)]
[36.1, 46.3, 67.2]
>>> step.max_batch
742
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from rooflinekit._validate import check_count, check_fraction
from rooflinekit.bounds import Bounds
from rooflinekit.catalog import Chip, chip
from rooflinekit.collectives import check_latency, collective_bytes, collective_time
from rooflinekit.costs import Cost, elementwise_cost, layer_norm_cost, matmul_cost, rms_norm_cost
from rooflinekit.dtypes import DType, dtype, dtype_bytes
from rooflinekit.errors import RooflineInputError
from rooflinekit.fmt import Table, num, pct, seconds, si
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.words import N_, Translate, english

PHASES = (N_("decode"), N_("prefill"))
# Translators: what bounds an operation or a step, as in "memory-bound"
BOUNDS = (N_("memory"), N_("compute"), N_("network"))

GLU_FLOPS_PER_ELEMENT = 5.0
"""SiLU(gate) * up: a sigmoid (exponential, add, divide), a multiply by the gate, a multiply
by ``up``. An estimate: the exact count depends on how the kernel evaluates the exponential."""

GELU_FLOPS_PER_ELEMENT = 8.0
"""GELU by its tanh approximation: a cube, a few multiplies and adds, a tanh. An estimate."""


@dataclass(frozen=True)
class Efficiency:
    """Fractions of the datasheet's figures that real kernels reach, each in (0, 1].

    The default, 1, is the datasheet: the roofline's lower bound. Set them from a
    measurement (GPUs reach roughly 80 % of their peak on large matmuls).

    >>> Efficiency(compute=0.8).compute
    0.8
    """

    compute: float = 1.0
    memory: float = 1.0
    network: float = 1.0

    def __post_init__(self) -> None:
        for name in ("compute", "memory", "network"):
            object.__setattr__(self, name, check_fraction(f"efficiency.{name}", getattr(self, name)))


@dataclass(frozen=True)
class Op:
    """One operation of a step, costed on one chip, and how many times the step runs it.

    ``cost`` counts FLOPs and HBM bytes; a collective does no math and moves no HBM bytes
    here, only ``link_bytes`` over the chip's link.
    """

    name: str
    kind: str
    cost: Cost
    count: int = 1
    link_bytes: float = 0.0
    collective: str | None = None

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


@dataclass(frozen=True)
class PlacedOp:
    """An operation on the roofline: its times for one run on one chip."""

    op: Op
    bounds: Bounds

    @property
    def t_lower(self) -> float:
        """Seconds for one run: math and memory overlapped (or the collective's time)."""
        return float(self.bounds.t_lower)

    @property
    def bound(self) -> str:
        return str(self.bounds.bound)

    def to_dict(self) -> dict[str, Any]:
        op = self.op
        return {
            "name": op.name,
            "kind": op.kind,
            "count": op.count,
            "flops": op.flops,
            "bytes": op.bytes,
            "intensity": op.intensity if op.bytes else None,
            "t_lower": self.t_lower,
            "bound": self.bound,
        }


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
        free = self.hbm_bytes - self.weight_bytes
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


@dataclass(frozen=True)
class Setup:
    """Everything about a step except the model: chip, chips, batch, context, dtypes, factors."""

    chip: Chip
    n_chips: int
    phase: str
    batch: int
    context: int
    weights: DType
    kv_cache: DType
    activations: DType
    compute: DType
    efficiency: Efficiency = field(default_factory=Efficiency)
    collective_latency: float = 0.0

    @property
    def new_tokens(self) -> int:
        """Tokens each sequence adds in this step: 1 in decode, the prompt in prefill."""
        return 1 if self.phase == "decode" else self.context

    @property
    def tokens(self) -> int:
        """Tokens the step processes on every chip: ``batch * new_tokens``."""
        return self.batch * self.new_tokens

    @property
    def attended(self) -> int:
        """Keys each new token's query can see at most: the cache plus the new token(s)."""
        return self.context + 1 if self.phase == "decode" else self.context


@dataclass(frozen=True)
class TransformerStep:
    """One decode step, or one whole prefill, of a model on ``n_chips`` chips.

    ``ops`` are the operations of one layer (each run ``n_layers`` times) and of the model's
    head (run once), placed on one chip's roofline, each overlapping its own math and memory
    traffic. ``t_sequential`` (and ``t_lower``) runs them one after another, collectives included;
    ``t_collectives_hidden`` hides the collectives behind the other operations; ``totals.t_lower``
    overlaps everything (see the module's docstring).
    """

    model: TransformerShape
    setup: Setup
    ops: tuple[PlacedOp, ...]
    memory: MemoryCheck

    @property
    def t_sequential(self) -> float:
        """Seconds with the operations one after another, the collectives too: the sum of their times."""
        return sum(p.op.count * p.t_lower for p in self.ops)

    @property
    def t_lower(self) -> float:
        """The step's time as the command line and the book report it: :attr:`t_sequential`."""
        return self.t_sequential

    @property
    def t_collectives_hidden(self) -> float:
        """Seconds with every collective overlapped with the other operations (which still run one
        after another): the longer of the collectives' time and the rest's. At most
        :attr:`t_sequential`, the same with no collective (one chip)."""
        collectives = sum(p.op.count * p.t_lower for p in self.ops if p.op.collective)
        return max(self.t_sequential - collectives, collectives)

    @property
    def time_by_bound(self) -> dict[str, float]:
        """Seconds the step spends in operations bound by compute, by memory, by the network."""
        spent = dict.fromkeys(BOUNDS, 0.0)
        for p in self.ops:
            spent[p.bound] += p.op.count * p.t_lower
        return spent

    @property
    def bound(self) -> str:
        """The resource whose operations take most of the step's time."""
        spent = self.time_by_bound
        return max(spent, key=lambda name: spent[name])

    @property
    def totals(self) -> Bounds:
        """The three clocks of the whole step on one chip, as if everything overlapped.

        ``totals.t_lower`` never exceeds :attr:`t_lower`; it is the simple model's view.
        """
        terms = dict.fromkeys(BOUNDS, 0.0)
        for p in self.ops:
            for name, time in p.bounds.times.items():
                terms[name] += p.op.count * time
        return Bounds(terms)

    @property
    def flops(self) -> float:
        """FLOPs of the step on one chip."""
        return sum(p.op.count * p.op.flops for p in self.ops)

    @property
    def hbm_bytes(self) -> float:
        """HBM bytes the step moves on one chip."""
        return sum(p.op.count * float(p.op.cost.bytes) for p in self.ops)

    @property
    def link_bytes(self) -> float:
        """Bytes one chip sends over its link in the step."""
        return sum(p.op.count * p.op.link_bytes for p in self.ops)

    @property
    def max_batch(self) -> int:
        """The largest batch of such sequences whose KV cache and activations fit."""
        return self.memory.max_batch

    @property
    def tokens_per_second(self) -> float:
        """Tokens the step produces (decode) or reads (prefill) per second, all sequences."""
        return self.setup.tokens / self.t_lower

    @property
    def tokens_per_second_per_request(self) -> float:
        """The same for one sequence: ``1 / t_lower`` in decode."""
        return self.setup.new_tokens / self.t_lower

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the step's totals and every operation.

        >>> d = transformer_step("llama-3.1-8b", "h100-sxm", batch=4, context=512).to_dict()
        >>> d["bound"], d["ops"][0]["name"], d["max_batch"] > 4
        ('memory', 'attention norm', True)
        """
        s, m = self.setup, self.model
        return {
            "model": m.name,
            "chip": s.chip.id,
            "chips": s.n_chips,
            "phase": s.phase,
            "batch": s.batch,
            "context": s.context,
            "dtypes": {
                "weights": s.weights.name,
                "kv_cache": s.kv_cache.name,
                "activations": s.activations.name,
                "compute": s.compute.name,
            },
            "efficiency": {
                "compute": s.efficiency.compute,
                "memory": s.efficiency.memory,
                "network": s.efficiency.network,
            },
            "collective_latency": s.collective_latency,
            "params": m.params,
            "kv_cache_bytes_per_token": m.kv_cache_bytes_per_token(s.kv_cache),
            "memory": self.memory.to_dict(),
            "max_batch": self.max_batch,
            "flops": self.flops,
            "hbm_bytes": self.hbm_bytes,
            "link_bytes": self.link_bytes,
            "t_lower": self.t_lower,
            "t_sequential": self.t_sequential,
            "t_collectives_hidden": self.t_collectives_hidden,
            "t_overlapped": float(self.totals.t_lower),
            "bound": self.bound,
            "time_by_bound": self.time_by_bound,
            "tokens_per_second": self.tokens_per_second,
            "tokens_per_second_per_request": self.tokens_per_second_per_request,
            "ops": [p.to_dict() for p in self.ops],
        }


OPERATIONS_HEADER = (N_("operation (one chip)"), N_("runs"), N_("FLOPs"), N_("bytes"), N_("FLOPs/B"),
                     N_("bound"), N_("time each"), N_("share of step"))
"""The headings of :func:`operations_table`."""


def operations_table(step: TransformerStep, tr: Translate = english) -> Table:
    """The step's operations as the book shows them: what one run costs one chip, its bound,
    its time and its share of the step. A collective's bytes are those it sends over the link.
    Headings, names and bounds are in ``tr``'s language (:mod:`rooflinekit.words`).

    >>> step = transformer_step("llama-3.1-8b", "h100-sxm", batch=4, context=512)
    >>> table = operations_table(step)
    >>> table.header[:3], table.rows[1][:2]
    (['operation (one chip)', 'runs', 'FLOPs'], ['Q projection', 32])
    """
    rows, total = [], step.t_lower
    for p in step.ops:
        op = p.op
        intensity = "-" if op.collective else num(op.intensity)
        rows.append([tr(op.name), op.count, num(op.flops), si(op.bytes, "B"), intensity, tr(p.bound),
                     si(p.t_lower, "s"), pct(op.count * p.t_lower / total)])
    return Table([tr(heading) for heading in OPERATIONS_HEADER], rows, align="lrrrrlrr")


def step_title(model: TransformerShape, s: Setup, tr: Translate = english) -> str:
    """What a step runs, in a line (whether or not it fits), in ``tr``'s language.

    >>> step = transformer_step("llama-3.1-8b", "h100-sxm", batch=4, context=512)
    >>> print(step_title(step.model, step.setup))  # doctest: +NORMALIZE_WHITESPACE
    llama-3.1-8b on 1 x NVIDIA H100 SXM: decode, batch 4, 512 tokens in the cache
    (bf16 weights, bf16 KV cache, bf16 compute)
    """
    if s.phase == "decode":
        title = tr("{model} on {n_chips} x {chip}: {phase}, batch {batch}, {context} tokens in the cache "
                   "({weights} weights, {kv_cache} KV cache, {compute} compute)")
    else:
        title = tr("{model} on {n_chips} x {chip}: {phase}, batch {batch}, {context} tokens in each prompt "
                   "({weights} weights, {kv_cache} KV cache, {compute} compute)")
    return title.format(model=model.name, n_chips=s.n_chips, chip=s.chip.name, phase=tr(s.phase),
                        batch=s.batch, context=s.context, weights=s.weights.name,
                        kv_cache=s.kv_cache.name, compute=s.compute.name)


class SummaryLine(NamedTuple):
    """One line of a step's totals: a key for code, a label and a text for people."""

    key: str
    label: str
    text: str


def step_summary(step: TransformerStep, tr: Translate = english) -> list[SummaryLine]:
    """The step's totals as the command line and the explorer show them, in ``tr``'s language.

    >>> lines = step_summary(transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8))
    >>> [(line.key, line.text) for line in lines if line.key in ("t_lower", "max_batch")]
    [('max_batch', '742 sequences of 2049 tokens'), ('t_lower', '5.231 ms (one decode step)')]
    """
    s, m, memory = step.setup, step.model, step.memory
    if s.phase == "decode":
        time = tr("{time} (one decode step)")
    else:
        time = tr("{time} (the whole prefill: the time to the first token)")
    spent = ", ".join(tr("{bound}-bound {time}").format(bound=tr(name), time=seconds(t))
                      for name, t in step.time_by_bound.items())
    rate = num(step.tokens_per_second, 4)
    if s.batch > 1:
        each = num(step.tokens_per_second_per_request)
        rate = tr("{total} ({each} per request)").format(total=rate, each=each)
    used = tr("weights {weights} + KV cache {kv_cache} + activations {activations} = {share} of {hbm}"
              ).format(
        weights=si(memory.weight_bytes, "B"), kv_cache=si(memory.kv_cache_bytes, "B"),
        activations=si(memory.activation_bytes, "B"), share=pct(memory.total_bytes / memory.hbm_bytes),
        hbm=si(memory.hbm_bytes, "B"),
    )
    kv = si(m.kv_cache_bytes_per_token(s.kv_cache), "B")
    return [
        SummaryLine("params", tr("parameters"), num(m.params, 4)),
        SummaryLine("kv_cache_bytes_per_token", tr("KV cache per token"),
                    tr("{size} (all layers, all chips)").format(size=kv)),
        SummaryLine("memory", tr("memory of one chip"), used),
        SummaryLine("max_batch", tr("largest batch that fits"),
                    tr("{sequences} sequences of {tokens} tokens").format(sequences=step.max_batch,
                                                                          tokens=s.attended)),
        SummaryLine("t_lower", tr("t_lower"), time.format(time=seconds(step.t_lower, 4))),
        SummaryLine("bound", tr("bound"), tr("{bound} (operations {spent})").format(bound=tr(step.bound),
                                                                                      spent=spent)),
        SummaryLine("tokens_per_second", tr("tokens per second"), rate),
    ]


# --- building the operations -------------------------------------------------------------


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


def heads_per_chip(model: TransformerShape, n_chips: int) -> tuple[int, int]:
    """Query heads and KV heads on each chip; KV heads are copied when chips outnumber them.

    >>> heads_per_chip(transformer_shape("llama-3.1-70b"), 8)
    (8, 1)
    >>> heads_per_chip(transformer_shape("llama-3.1-405b"), 16)   # 8 KV heads, each on 2 chips
    (8, 1)
    """
    n = check_count("n_chips", n_chips)
    kv_ok = model.n_kv_heads % n == 0 or n % model.n_kv_heads == 0
    if model.n_heads % n or model.d_ff % n or not kv_ok:
        raise RooflineInputError(
            "n_chips",
            f"a number of chips that splits {model.name}'s {model.n_heads} heads, "
            f"{model.n_kv_heads} KV heads and MLP width {model.d_ff} evenly",
            n_chips,
        )
    return model.n_heads // n, max(1, model.n_kv_heads // n)


def _projection(name: str, tokens: int, d_in: int, d_out: float, s: Setup, model: TransformerShape,
                out: DType | None = None) -> Op:
    cost = matmul_cost(tokens, d_in, d_out, x=s.activations, w=s.weights, out=out or s.activations)
    if model.biases:
        cost = _with_bias(cost, tokens, d_out, s.weights)
    return Op(name, "matmul", replace(cost, name=name), model.n_layers)


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


def layer_ops(model: TransformerShape, s: Setup) -> list[Op]:
    """The operations of one layer on one chip, in the order they run."""
    q_heads, kv_heads = heads_per_chip(model, s.n_chips)
    d, hd, t, L = model.d_model, model.head_dim, s.tokens, model.n_layers
    ff = model.d_ff // s.n_chips
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
    ]
    if model.gated:
        activation = elementwise_cost(t * ff, dtype=act, inputs=2, flops_per_element=GLU_FLOPS_PER_ELEMENT)
        ops += [
            _projection(N_("MLP gate"), t, d, ff, s, model),
            _projection(N_("MLP up"), t, d, ff, s, model),
            Op(N_("MLP activation (SiLU x up)"), "elementwise", replace(activation, name="MLP activation"),
               L),
        ]
    else:
        activation = elementwise_cost(t * ff, dtype=act, inputs=1, flops_per_element=GELU_FLOPS_PER_ELEMENT)
        ops += [
            _projection(N_("MLP up"), t, d, ff, s, model),
            Op(N_("MLP activation (GELU)"), "elementwise", replace(activation, name="MLP activation"), L),
        ]
    ops.append(_projection(N_("MLP down"), t, ff, d, s, model))
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
        Op(N_("LM head"), "matmul", replace(head, name="LM head")),
    ]
    if s.n_chips > 1:
        ops.append(_all_reduce(N_("logits all-gather"), s, rows * model.vocab, 1, kind="all-gather"))
    return ops


def _place(op: Op, s: Setup) -> PlacedOp:
    peak = s.chip.peak(s.compute) * s.efficiency.compute
    hbm = s.chip.hbm_bandwidth * s.efficiency.memory
    link = s.chip.link_bandwidth * s.efficiency.network
    if op.collective:
        network = float(collective_time(op.link_bytes, link, s.collective_latency))
        return PlacedOp(op, Bounds({"memory": 0.0, "compute": 0.0, "network": network}))
    terms = {"memory": float(op.cost.bytes) / hbm, "compute": op.flops / peak, "network": 0.0}
    return PlacedOp(op, Bounds(terms))


# --- memory --------------------------------------------------------------------------------


def weight_bytes_per_chip(model: TransformerShape, n_chips: int, weights: str | DType = "bf16") -> float:
    """Bytes of weights on each chip: the matrices split ``n_chips`` ways, KV projections
    copied where chips outnumber KV heads, norms on every chip.

    >>> llama = transformer_shape("llama-3.1-70b")
    >>> weight_bytes_per_chip(llama, 1) == llama.params * 2
    True
    """
    q_heads, kv_heads = heads_per_chip(model, n_chips)
    n = n_chips
    d, hd = float(model.d_model), model.head_dim
    attention = d * (q_heads + 2 * kv_heads) * hd + q_heads * hd * d
    mlp = model.mlp_matrices * d * model.d_ff / n
    biases = (q_heads + 2 * kv_heads) * hd + d + (model.mlp_matrices - 1) * model.d_ff / n + d
    layer = attention + mlp + 2 * model.norm_params + (biases if model.biases else 0.0)
    tables = (model.embedding_params + model.lm_head_params) / n
    params = model.n_layers * layer + tables + model.norm_params
    return params * dtype_bytes(weights, "weights")


def _activation_bytes_per_sequence(model: TransformerShape, s: Setup) -> float:
    """Live activations of one sequence: the residual stream plus the widest intermediate of a
    layer (layers run one at a time), plus its logits."""
    q_heads, kv_heads = heads_per_chip(model, s.n_chips)
    attention = (q_heads + 2 * kv_heads) * model.head_dim
    widest = max(attention, (model.mlp_matrices - 1) * model.d_ff // s.n_chips)
    per_token = (model.d_model + widest) * s.activations.bytes
    logits = math.ceil(model.vocab / s.n_chips) * s.activations.bytes
    return s.new_tokens * per_token + logits


def memory_check(model: TransformerShape, s: Setup) -> MemoryCheck:
    """Weights, KV cache and activations on one chip against its HBM."""
    _, kv_heads = heads_per_chip(model, s.n_chips)
    kv_per_token = 2.0 * model.n_layers * kv_heads * model.head_dim * s.kv_cache.bytes
    kv_per_sequence = kv_per_token * s.attended
    activations = _activation_bytes_per_sequence(model, s)
    return MemoryCheck(
        hbm_bytes=s.chip.hbm_bytes,
        weight_bytes=weight_bytes_per_chip(model, s.n_chips, s.weights),
        kv_cache_bytes=kv_per_sequence * s.batch,
        activation_bytes=activations * s.batch,
        bytes_per_sequence=kv_per_sequence + activations,
    )


# --- the public entry points -----------------------------------------------------------------


def make_setup(
    on: str | Chip,
    *,
    n_chips: int = 1,
    phase: str = "decode",
    batch: int = 1,
    context: int = 2048,
    weights: str | DType = "bf16",
    kv_cache: str | DType | None = None,
    activations: str | DType = "bf16",
    compute: str | DType = "bf16",
    efficiency: Efficiency | None = None,
    collective_latency: float = 0.0,
) -> Setup:
    """Check and gather a step's settings (``kv_cache`` defaults to the weights' dtype)."""
    if phase not in PHASES:
        raise RooflineInputError("phase", "one of " + ", ".join(PHASES), phase)
    if efficiency is not None and not isinstance(efficiency, Efficiency):
        raise RooflineInputError("efficiency", "an Efficiency(compute=, memory=, network=)", efficiency)
    found = chip(on)
    setup = Setup(
        chip=found,
        n_chips=check_count("n_chips", n_chips),
        phase=phase,
        batch=check_count("batch", batch),
        context=check_count("context", context),
        weights=dtype(weights, "weights"),
        kv_cache=dtype(kv_cache if kv_cache is not None else weights, "kv_cache"),
        activations=dtype(activations, "activations"),
        compute=dtype(compute, "compute"),
        efficiency=efficiency or Efficiency(),
        collective_latency=check_latency(collective_latency, "collective_latency"),
    )
    found.peak(setup.compute)  # refuses a dtype the chip has no peak for
    return setup


def memory_for(model: str | TransformerShape, on: str | Chip, **settings: Any) -> MemoryCheck:
    """The memory check alone, which never refuses: does the model fit, and how large a batch?

    >>> m = memory_for("llama-3.1-70b", "h100-sxm", n_chips=1)
    >>> m.weights_fit, m.max_batch
    (False, 0)
    """
    shape = transformer_shape(model)
    setup = make_setup(on, **settings)
    return memory_check(shape, setup)


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
        longest = _longest_prompt(model, replace(s, batch=1))
        accepted = tr("at most {tokens} tokens for one sequence of {model} on {n_chips} x {chip}")
        return "context", accepted.format(tokens=longest, **where)
    if not memory.fits:
        accepted = tr("at most {sequences} sequences of {tokens} tokens for {model} on {n_chips} x {chip}")
        return "batch", accepted.format(sequences=memory.max_batch, tokens=s.attended, **where)
    return None


def transformer_step(model: str | TransformerShape, on: str | Chip, **settings: Any) -> TransformerStep:
    """Place one step of ``model`` on ``n_chips`` chips ``on`` a catalog chip.

    Settings: ``n_chips`` (1), ``phase`` (``"decode"`` or ``"prefill"``), ``batch`` (1),
    ``context`` (2048: tokens already cached in decode, the prompt in prefill), dtypes of
    ``weights``, ``kv_cache`` (the weights'), ``activations`` and ``compute`` (all bf16),
    ``efficiency`` (:class:`Efficiency`, 1 by default) and ``collective_latency`` (seconds
    added to each collective, 0 by default). A model, a context or a batch that does not fit
    is refused.

    >>> try:
    ...     transformer_step("llama-3.1-70b", "h100-sxm", n_chips=1)
    ... except ValueError as error:
    ...     print(error)
    n_chips must be enough h100-sxm chips for llama-3.1-70b's 141 GB of bf16 weights, 80 GB each (got 1)
    """
    shape = transformer_shape(model)
    setup = make_setup(on, **settings)
    memory = memory_check(shape, setup)
    if not memory.weights_fit:
        raise RooflineInputError(
            "n_chips",
            f"enough {setup.chip.id} chips for {shape.name}'s "
            f"{shape.params * setup.weights.bytes / 1e9:.0f} GB of {setup.weights.name} weights, "
            f"{setup.chip.hbm_bytes / 1e9:.0f} GB each",
            setup.n_chips,
        )
    refused = memory_refusal(shape, setup, memory)
    if refused is not None:
        argument, accepted = refused
        raise RooflineInputError(argument, accepted, getattr(setup, argument))
    ops = [*layer_ops(shape, setup), *head_ops(shape, setup)]
    return TransformerStep(shape, setup, tuple(_place(op, setup) for op in ops), memory)


def leaves_memory_bound(model: str | TransformerShape, on: str | Chip, **settings: Any) -> int | None:
    """The smallest batch (decode) or prompt length (prefill, at ``batch``) at which the
    step is no longer memory-bound, or ``None`` if it stays memory-bound as far as memory allows.

    >>> leaves_memory_bound("llama-3.1-8b", "h100-sxm", context=128)
    326
    >>> leaves_memory_bound("llama-3.1-70b", "h100-sxm", n_chips=8, context=2048) is None
    True
    """
    shape = transformer_shape(model)
    setup = make_setup(on, **settings)
    varying = "batch" if setup.phase == "decode" else "context"

    def memory_bound(value: int) -> bool:
        return transformer_step(shape, on, **{**settings, varying: value}).bound == "memory"

    low = 1
    if setup.phase == "decode":
        high = memory_check(shape, replace(setup, batch=1)).max_batch
    else:
        high = _longest_prompt(shape, setup)
    if high < 1 or memory_bound(high):
        return None
    if not memory_bound(low):
        return low
    while high - low > 1:  # memory_bound(low) and not memory_bound(high)
        middle = (low + high) // 2
        if memory_bound(middle):
            low = middle
        else:
            high = middle
    return high


def _longest_prompt(model: TransformerShape, s: Setup) -> int:
    """The longest context (the prompt, or the cache in decode) that fits at the setup's batch
    (doubling, then bisection)."""

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
