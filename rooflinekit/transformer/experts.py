"""Expert parallelism: a mixture of experts' routed experts spread over chips, and its all-to-all.

:func:`~rooflinekit.transformer.step.transformer_step` splits every expert's width over the chips
(tensor parallelism, as for a dense MLP). Expert parallelism places whole experts instead: each of
``n_chips`` chips holds ``n_experts / n_chips`` of them. A token's activations then travel to the
chips of the experts it is routed to and its results travel back: two **all-to-alls** a MoE layer,
**dispatch** and **combine**, costed by the course's one model of collectives
(:func:`rooflinekit.collectives.all_to_all_bytes`, on a ring or direct).

The assumptions, stated: the step's ``tokens`` (``batch`` in decode, ``batch * context`` in prefill)
are spread evenly over the chips (data-parallel attention, whose cost is not counted here); routing
is uniform and independent (:meth:`~rooflinekit.models.TransformerShape.experts_touched`), so each
chip receives ``tokens * experts_per_token / n_chips`` rows on average and reads the experts of its
own that some token touched, ``experts_per_chip * (1 - (1 - k / E) ** tokens)`` of them. Each chip
sends every one of its tokens ``experts_per_token`` times (one copy per expert, its own experts
included in the payload; the all-to-all counts only what leaves). Shared experts and the router
run where the tokens are and are left out.

>>> ep = expert_parallel("mixtral-8x7b", "h100-sxm", n_chips=8, batch=64)
>>> ep.experts_per_chip, round(ep.experts_touched_per_chip, 3), ep.rows_per_chip
(1, 1.0, 16.0)
>>> round(ep.t_experts * 1e6, 1), round(ep.t_all_to_all * 1e6, 2)   # µs per MoE layer
(105.7, 1.02)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rooflinekit.catalog import Chip
from rooflinekit.collectives import TOPOLOGIES, all_to_all_bytes, collective_time
from rooflinekit.costs import Cost
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.setup import Setup, make_setup


@dataclass(frozen=True)
class ExpertParallel:
    """The routed experts of one MoE layer on one of ``setup.n_chips`` chips, and the layer's two
    all-to-alls (see the module's docstring). Times in seconds, for one layer."""

    model: TransformerShape
    setup: Setup
    topology: str
    experts_cost: Cost
    all_to_all_bytes: float

    @property
    def experts_per_chip(self) -> int:
        return self.model.n_experts // self.setup.n_chips

    @property
    def experts_touched_per_chip(self) -> float:
        """Expected experts of this chip that some token of the step is routed to."""
        return float(self.model.experts_touched(self.setup.tokens)) / self.setup.n_chips

    @property
    def rows_per_chip(self) -> float:
        """Expected token-expert pairs each chip multiplies: ``tokens * k / n_chips``."""
        return self.setup.tokens * self.model.experts_per_token / self.setup.n_chips

    @property
    def t_experts(self) -> float:
        """The experts' matmuls on one chip's roofline: the longer of their math and memory."""
        cost, s = self.experts_cost, self.setup
        return float(max(cost.flops / s.peak, cost.bytes / s.hbm_bandwidth))

    @property
    def t_all_to_all(self) -> float:
        """One all-to-all (dispatch, or combine: the same bytes)."""
        return float(collective_time(self.all_to_all_bytes, self.setup.link_bandwidth,
                                     self.setup.collective_latency))

    @property
    def t_no_overlap(self) -> float:
        """Dispatch, experts, combine, one after another."""
        return self.t_experts + 2 * self.t_all_to_all

    @property
    def t_full_overlap(self) -> float:
        """The all-to-alls hidden behind the experts' math (of other tokens): the longer of the two."""
        return max(self.t_experts, 2 * self.t_all_to_all)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model.name,
            "chip": self.setup.chip.id,
            "chips": self.setup.n_chips,
            "tokens": self.setup.tokens,
            "topology": self.topology,
            "experts_per_chip": self.experts_per_chip,
            "experts_touched_per_chip": self.experts_touched_per_chip,
            "rows_per_chip": self.rows_per_chip,
            "expert_flops": float(self.experts_cost.flops),
            "expert_bytes": float(self.experts_cost.bytes),
            "all_to_all_bytes": self.all_to_all_bytes,
            "t_experts": self.t_experts,
            "t_all_to_all": self.t_all_to_all,
            "t_no_overlap": self.t_no_overlap,
            "t_full_overlap": self.t_full_overlap,
        }


def expert_parallel(model: str | TransformerShape, on: str | Chip, topology: str = "ring",
                    **settings: Any) -> ExpertParallel:
    """One MoE layer of ``model`` with its experts spread over ``n_chips`` chips ``on`` a catalog chip.

    ``settings`` are :func:`~rooflinekit.transformer.step.transformer_step`'s; ``batch`` counts the
    sequences over all the chips. ``topology`` is the all-to-all's (``"ring"`` or ``"direct"``).

    >>> try:
    ...     expert_parallel("mixtral-8x7b", "h100-sxm", n_chips=3)
    ... except ValueError as error:
    ...     print(error)
    n_chips must be a divisor of mixtral-8x7b's 8 experts (got 3)
    """
    shape = transformer_shape(model)
    if not shape.is_moe:
        raise RooflineInputError("model", "a mixture of experts (see `rooflinekit models`)", shape.name)
    if topology not in TOPOLOGIES:
        raise RooflineInputError("topology", "one of " + ", ".join(TOPOLOGIES), topology)
    s = make_setup(on, **settings)
    if shape.n_experts % s.n_chips:
        accepted = f"a divisor of {shape.name}'s {shape.n_experts} experts"
        raise RooflineInputError("n_chips", accepted, s.n_chips)
    d, ff, k = shape.d_model, shape.expert_width, shape.experts_per_token
    rows = s.tokens * k / s.n_chips
    touched = float(shape.experts_touched(s.tokens)) / s.n_chips
    act, w = s.activations.bytes, s.weights.bytes
    matrices = shape.mlp_matrices
    flops = 2.0 * rows * d * ff * matrices
    read = w * touched * d * ff * matrices + act * rows * (d * (matrices - 1) + ff)
    written = act * rows * (ff * (matrices - 1) + d)
    payload = s.tokens / s.n_chips * k * d * s.activations.bytes
    sent = float(all_to_all_bytes(payload, s.n_chips, topology))
    return ExpertParallel(shape, s, topology, Cost(flops, read, written, "routed experts"), sent)
