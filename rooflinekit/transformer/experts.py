"""Expert parallelism: a mixture of experts' routed experts spread over chips, and its all-to-all.

:func:`~rooflinekit.transformer.step.transformer_step` splits every expert's width over the chips
(tensor parallelism, as for a dense MLP). Expert parallelism places whole experts instead: each of
``n_chips`` chips holds ``n_experts / n_chips`` of them. A token's activations then travel to the
chips of the experts it is routed to and its results travel back: two **all-to-alls** a MoE layer,
**dispatch** and **combine**, costed by the course's one model of collectives
(:func:`rooflinekit.collectives.all_to_all_bytes`, on a ring or direct).

The assumptions, stated: the step's ``tokens`` (``batch`` in decode, ``batch * context`` in prefill)
are spread evenly over the chips (data-parallel attention); routing is uniform and independent
(:meth:`~rooflinekit.models.TransformerShape.experts_touched`), so each chip receives
``tokens * experts_per_token / n_chips`` rows on average. A chip reads the experts of its own that
some token touched, ``experts_per_chip * (1 - (1 - k / E) ** tokens)`` of them on average; the
layer waits for the **busiest** chip, which reads more (:func:`busiest_chip_experts`, the expected
largest count over the chips), and the experts' time is that chip's. Its rows are kept at the mean:
they decide the time only where the experts are compute-bound, with many tokens, where the chips'
shares even out. Each chip sends every one of its tokens ``experts_per_token`` times (one copy per
expert, its own experts included in the payload; the all-to-all counts only what leaves). Shared
experts and the router run where the tokens are and are left out.

Data-parallel attention has a cost tensor parallelism does not: every chip holds and reads the
whole of each layer's attention weights (:attr:`ExpertParallel.attention_weight_bytes`), where
tensor parallelism reads ``1 / n_chips`` of them on each chip.

>>> ep = expert_parallel("mixtral-8x7b", "h100-sxm", n_chips=8, batch=64)
>>> ep.experts_per_chip, round(ep.experts_touched_per_chip, 3), round(ep.busiest_experts, 3), ep.rows_per_chip
(1, 1.0, 1.0, 16.0)
>>> round(ep.t_experts * 1e6, 1), round(ep.t_all_to_all * 1e6, 2)   # µs per MoE layer
(105.7, 1.02)
>>> lone = expert_parallel("mixtral-8x7b", "h100-sxm", n_chips=8, batch=1)
>>> lone.experts_touched_per_chip, lone.busiest_experts   # 2 experts of 8: two chips read a whole one
(0.25, 1.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from rooflinekit._validate import check_count
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
    busiest_experts: float
    attention_weight_bytes: float

    @property
    def experts_per_chip(self) -> int:
        return self.model.n_experts // self.setup.n_chips

    @property
    def experts_touched_per_chip(self) -> float:
        """Expected experts of this chip that some token of the step is routed to."""
        return float(self.model.experts_touched(self.setup.tokens)) / self.setup.n_chips

    @property
    def t_attention_weights(self) -> float:
        """Seconds one chip takes to read the layer's attention weights, held whole on every chip
        (data-parallel attention): ``n_chips`` times tensor parallelism's share."""
        return float(self.attention_weight_bytes / self.setup.hbm_bandwidth)

    @property
    def rows_per_chip(self) -> float:
        """Expected token-expert pairs each chip multiplies: ``tokens * k / n_chips``."""
        return self.setup.tokens * self.model.experts_per_token / self.setup.n_chips

    @property
    def t_experts(self) -> float:
        """The experts' matmuls on the busiest chip's roofline: the longer of their math and memory."""
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
            "busiest_experts": self.busiest_experts,
            "attention_weight_bytes": self.attention_weight_bytes,
            "t_attention_weights": self.t_attention_weights,
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
    touched = busiest_chip_experts(shape, s.tokens, s.n_chips)
    act, w = s.activations.bytes, s.weights.bytes
    matrices = shape.mlp_matrices
    flops = 2.0 * rows * d * ff * matrices
    read = w * touched * d * ff * matrices + act * rows * (d * (matrices - 1) + ff)
    written = act * rows * (ff * (matrices - 1) + d)
    payload = s.tokens / s.n_chips * k * d * s.activations.bytes
    sent = float(all_to_all_bytes(payload, s.n_chips, topology))
    attention = shape.attention_params * w
    return ExpertParallel(shape, s, topology, Cost(flops, read, written, "routed experts"), sent, touched,
                          attention)


def touched_distribution(shape: TransformerShape, tokens: int) -> np.ndarray:
    """The probabilities that ``tokens`` tokens touch 0, 1, ..., ``n_experts`` distinct routed
    experts of one MoE layer, under the routing of
    :meth:`~rooflinekit.models.TransformerShape.experts_touched`.

    Token by token, a token that finds ``a`` experts touched adds ``j`` new ones with the
    hypergeometric probability ``C(E - a, j) C(a, k - j) / C(E, k)``: a Markov chain over the count.

    >>> mixtral = transformer_shape("mixtral-8x7b")
    >>> [round(float(p), 3) for p in touched_distribution(mixtral, 2)]   # two tokens: 2, 3 or 4 experts
    [0.0, 0.0, 0.036, 0.429, 0.536, 0.0, 0.0, 0.0, 0.0]
    """
    e, k = shape.n_experts, shape.experts_per_token
    tokens = check_count("tokens", tokens)
    step = np.zeros((e + 1, e + 1))
    for a in range(e + 1):
        for j in range(min(k, e - a) + 1):
            step[a, a + j] = math.comb(e - a, j) * math.comb(a, k - j) / math.comb(e, k)
    return np.asarray(np.linalg.matrix_power(step, tokens)[0])


def busiest_chip_experts(shape: str | TransformerShape, tokens: int, n_chips: int) -> float:
    """Expected routed experts read by the busiest of ``n_chips`` chips, each holding
    ``n_experts / n_chips`` experts, when ``tokens`` tokens are routed as
    :meth:`~rooflinekit.models.TransformerShape.experts_touched` assumes.

    Given that ``t`` experts are touched (:func:`touched_distribution`), they are any ``t`` of the
    ``E`` alike (the routing favours none), so the chance that no chip holds more than ``j`` of them
    is the coefficient of ``x ** t`` in ``(C(m, 0) + C(m, 1) x + ... + C(m, j) x ** j) ** n_chips``
    over ``C(E, t)``, with ``m = E / n_chips``; the expected largest count is the sum over ``j`` of
    the chance that it exceeds ``j``. At least the mean, ``experts_touched(tokens) / n_chips``.

    >>> [round(busiest_chip_experts("mixtral-8x7b", 1, n), 3) for n in (1, 2, 4, 8)]
    [2.0, 1.429, 1.143, 1.0]
    """
    model = transformer_shape(shape)
    if not model.is_moe:
        raise RooflineInputError("model", "a mixture of experts (see `rooflinekit models`)", model.name)
    e, n = model.n_experts, check_count("n_chips", n_chips)
    if e % n:
        raise RooflineInputError("n_chips", f"a divisor of {model.name}'s {e} experts", n)
    distribution = touched_distribution(model, tokens)
    held = e // n
    exceeds = np.zeros(e + 1)
    for j in range(held):
        ways = np.array([1.0])
        one_chip = np.array([float(math.comb(held, c)) for c in range(j + 1)])
        for _ in range(n):
            ways = np.convolve(ways, one_chip)
        ways = np.pad(ways, (0, max(0, e + 1 - ways.size)))[: e + 1]
        exceeds += 1.0 - ways / np.array([float(math.comb(e, t)) for t in range(e + 1)])
    return float(distribution @ exceeds)
