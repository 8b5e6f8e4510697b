"""Transformer steps and shapes for people: tables, titles and summaries, in any language.

What the command line prints, the explorer's transformer view shows and chapter 9 displays comes
from here: :func:`operations_table` (a step's operations), :func:`step_title` (what a step runs),
:func:`step_summary` (its totals) and :func:`shapes_table` (the published models side by side).
Every word passes through ``tr`` (:mod:`rooflinekit.words`): English by default, another language
where the explorer asks for one.

>>> from rooflinekit.transformer.step import transformer_step
>>> step = transformer_step("llama-3.1-8b", "h100-sxm", batch=4, context=512)
>>> table = operations_table(step)
>>> table.header[:3], table.rows[1][:2]
(['operation (one chip)', 'runs', 'FLOPs'], ['Q projection', 32])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from rooflinekit.fmt import Table, num, pct, seconds, si
from rooflinekit.models import TransformerShape
from rooflinekit.transformer.setup import Setup
from rooflinekit.transformer.step import TransformerStep
from rooflinekit.words import N_, Translate, english

OPERATIONS_HEADER = (N_("operation (one chip)"), N_("runs"), N_("FLOPs"), N_("bytes"), N_("FLOPs/B"),
                     N_("bound"), N_("time each"), N_("share of step"))
"""The headings of :func:`operations_table`."""


def operations_table(step: TransformerStep, tr: Translate = english) -> Table:
    """The step's operations as the book shows them: what one run costs one chip, its bound,
    its time and its share of the step. A collective's bytes are those it sends over the link.
    Headings, names and bounds are in ``tr``'s language (:mod:`rooflinekit.words`).
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

    >>> from rooflinekit.transformer.step import transformer_step
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
    shown = title.format(model=model.name, n_chips=s.n_chips, chip=s.chip.name, phase=tr(s.phase),
                         batch=s.batch, context=s.context, weights=s.weights.name,
                         kv_cache=s.kv_cache.name, compute=s.compute.name)
    return shown + (" " + tr("(calibrated figures)") if s.figures == "calibrated" else "")


class SummaryLine(NamedTuple):
    """One line of a step's totals: a key for code, a label and a text for people."""

    key: str
    label: str
    text: str


def step_summary(step: TransformerStep, tr: Translate = english) -> list[SummaryLine]:
    """The step's totals as the command line and the explorer show them, in ``tr``'s language.

    >>> from rooflinekit.transformer.step import transformer_step
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
        SummaryLine("params", tr("parameters"), num(m.params, 4) if not m.is_moe else
                    tr("{total} ({active} active per token)").format(total=num(m.params, 4),
                                                                      active=num(m.active_params, 4))),
        SummaryLine("kv_cache_bytes_per_token", tr("KV cache per token"),
                    tr("{size} (all layers, all chips)").format(size=kv)),
        SummaryLine("memory", tr("memory of one chip"), used),
        SummaryLine("max_batch", tr("largest batch that fits"),
                    tr("{sequences} sequences of {tokens} tokens").format(sequences=step.max_batch,
                                                                          tokens=s.attended)),
        SummaryLine("t_lower", tr("step time (lower bound)"), time.format(time=seconds(step.t_lower, 4))),
        SummaryLine("bound", tr("bound"), tr("{bound} (operations {spent})").format(bound=tr(step.bound),
                                                                                      spent=spent)),
        SummaryLine("tokens_per_second", tr("tokens per second"), rate),
    ]


def shapes_table(shapes: Iterable[TransformerShape]) -> Table:
    """The models' shapes side by side: the sizes, the derived and published parameter counts,
    and the bytes each token leaves in a bf16 KV cache.

    >>> from rooflinekit.models import transformer_shape
    >>> table = shapes_table([transformer_shape("llama-3.1-8b")])
    >>> dict(zip(table.header, table.rows[0]))["heads / KV heads"]
    '32 / 8 (GQA)'
    """
    rows = []
    for shape in shapes:
        attention = "MHA" if shape.n_kv_heads == shape.n_heads else "GQA"
        published = "-" if shape.published_params is None else num(shape.published_params, 4)
        active = "-" if shape.published_active_params is None else num(shape.published_active_params, 4)
        rows.append([shape.name, shape.n_layers, shape.d_model,
                     f"{shape.n_heads} / {shape.n_kv_heads} ({attention})", shape.d_ff,
                     "gated" if shape.gated else "plain", _experts(shape), shape.vocab, num(shape.params, 4),
                     published, num(shape.active_params, 4) if shape.is_moe else "-", active,
                     si(shape.kv_cache_bytes_per_token("bf16"), "B")])
    return Table(["model", "layers", "d_model", "heads / KV heads", "MLP width", "MLP", "experts (per token)",
                  "vocabulary", "parameters (derived)", "published", "active (derived)", "published active",
                  "KV cache per token (bf16)"], rows, align="lrrrrlrrrrrrr")


def _experts(shape: TransformerShape) -> str:
    """``8 (2)``: the routed experts and how many a token goes to, ``+ 1 shared``; ``-`` when dense."""
    if not shape.is_moe:
        return "-"
    shared = f" + {shape.shared_experts} shared" if shape.shared_experts else ""
    return f"{shape.n_experts} ({shape.experts_per_token}){shared}"
