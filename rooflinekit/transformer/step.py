"""One step of a transformer on the roofline: every operation placed, and how they add up.

:func:`transformer_step` builds the operations of a step (:mod:`rooflinekit.transformer.operations`),
refuses a step that does not fit (:mod:`rooflinekit.transformer.memory`) and places each operation
on one chip's roofline, overlapping its own math and memory traffic (a collective takes its time
on the link). How the operations overlap one another brackets the step:

- ``t_sequential`` (also ``t_lower``, the name the command line has always used): the operations
  one after another, the collectives too, the sum of the operations' times;
- ``t_collectives_hidden``: the same with every collective hidden behind the other operations,
  memory-bound ones as well as compute-bound (communication fully overlapped), the longer of the
  two sums. In tensor-parallel decode each all-reduce feeds the next operation, so an engine
  approaches it only by running micro-batches in turn or with asynchronous tensor parallelism;
- ``totals.t_lower``: chapter 1's lower bound for the whole step, every clock overlapped with
  every other (the longest of the step's total math, memory and network times).

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

from dataclasses import dataclass, replace
from typing import Any

from rooflinekit.bounds import Bounds
from rooflinekit.catalog import Chip
from rooflinekit.collectives import collective_time
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.memory import (
    MemoryCheck,
    check_weights_fit,
    longest_context,
    memory_check,
    memory_refusal,
)
from rooflinekit.transformer.op import Op
from rooflinekit.transformer.operations import head_ops, layer_ops
from rooflinekit.transformer.setup import Setup, make_setup
from rooflinekit.words import N_

# Translators: what bounds an operation or a step, as in "memory-bound"
BOUNDS = (N_("memory"), N_("compute"), N_("network"))


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
            "step_tokens": s.step_tokens,
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
            "figures": s.figures,
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


def transformer_step(model: str | TransformerShape, on: str | Chip, **settings: Any) -> TransformerStep:
    """Place one step of ``model`` on ``n_chips`` chips ``on`` a catalog chip.

    Settings (:func:`~rooflinekit.transformer.setup.make_setup`): ``n_chips`` (1), ``phase``
    (``"decode"`` or ``"prefill"``), ``batch`` (1), ``context`` (2048: tokens already cached in
    decode, the prompt in prefill), dtypes of ``weights``, ``kv_cache`` (the weights'),
    ``activations`` and ``compute`` (all bf16), ``efficiency`` (:class:`Efficiency`, 1 by default)
    and ``collective_latency`` (seconds added to each collective, 0 by default). A model, a context
    or a batch that does not fit is refused.

    >>> try:
    ...     transformer_step("llama-3.1-70b", "h100-sxm", n_chips=1)
    ... except ValueError as error:
    ...     print(error)
    n_chips must be enough h100-sxm chips for llama-3.1-70b's 141 GB of bf16 weights, 80 GB each (got 1)
    """
    shape = transformer_shape(model)
    setup = make_setup(on, **settings)
    memory = memory_check(shape, setup)
    check_weights_fit(shape, setup, memory)
    refused = memory_refusal(shape, setup, memory)
    if refused is not None:
        argument, accepted = refused
        raise RooflineInputError(argument, accepted, getattr(setup, argument))
    ops = [*layer_ops(shape, setup), *head_ops(shape, setup)]
    return TransformerStep(shape, setup, tuple(place(op, setup) for op in ops), memory)


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
        high = longest_context(shape, setup)
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


def place(op: Op, s: Setup) -> PlacedOp:
    """The operation on one chip's roofline: its math and its memory traffic overlapped, or, for a
    collective, its bytes over the link (and the collective's latency)."""
    if op.collective:
        network = float(collective_time(op.link_bytes, s.link_bandwidth, s.collective_latency))
        return PlacedOp(op, Bounds({"memory": 0.0, "compute": 0.0, "network": network}))
    terms = {"memory": float(op.cost.bytes) / s.hbm_bandwidth, "compute": op.flops / s.peak, "network": 0.0}
    return PlacedOp(op, Bounds(terms))
