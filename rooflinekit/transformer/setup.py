"""The settings of one step of a transformer, and how a model splits over chips.

A step runs a model on ``n_chips`` chips of one kind, split by tensor parallelism: each chip
holds ``1 / n_chips`` of the query heads, of the KV heads (copied where chips outnumber them)
and of the MLP's width (:func:`heads_per_chip`). :func:`make_setup` checks the settings every
entry point of :mod:`rooflinekit.transformer` takes and gathers them in a :class:`Setup`.

>>> s = make_setup("h100-sxm", n_chips=8, batch=4, context=2048)
>>> s.tokens, s.attended, s.kv_cache.name
(4, 2049, 'bf16')
>>> make_setup("h100-sxm", phase="prefill", batch=2, context=512).tokens
1024
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rooflinekit._validate import check_count
from rooflinekit.catalog import Chip, chip
from rooflinekit.collectives import check_latency
from rooflinekit.dtypes import DType, dtype
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TransformerShape
from rooflinekit.transformer.calibration import FIGURE_SETS, calibration
from rooflinekit.transformer.efficiency import Efficiency
from rooflinekit.words import N_

PHASES = (N_("decode"), N_("prefill"))
"""Decode adds one token to each sequence; prefill reads each sequence's prompt at once."""


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
    step_tokens: int = 1
    figures: str = "ideal"
    shared_prefix: int = 0

    @property
    def new_tokens(self) -> int:
        """Tokens each sequence adds in this step: ``step_tokens`` in decode (1, or the k + 1
        tokens a target model verifies, or a prefill chunk over a cached prefix), the prompt in
        prefill."""
        return self.step_tokens if self.phase == "decode" else self.context

    @property
    def tokens(self) -> int:
        """Tokens the step processes on every chip: ``batch * new_tokens``."""
        return self.batch * self.new_tokens

    @property
    def attended(self) -> int:
        """Keys each new token's query can see at most: the cache plus the new token(s)."""
        return self.context + self.step_tokens if self.phase == "decode" else self.context

    @property
    def peak(self) -> float:
        """FLOP/s of one chip in the compute dtype, times the compute efficiency."""
        return self.chip.peak(self.compute) * self.efficiency.compute

    @property
    def hbm_bandwidth(self) -> float:
        """HBM bytes per second of one chip, times the memory efficiency."""
        return self.chip.hbm_bandwidth * self.efficiency.memory

    @property
    def link_bandwidth(self) -> float:
        """Bytes per second one chip sends over its link, times the network efficiency."""
        return self.chip.link_bandwidth * self.efficiency.network


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
    step_tokens: int = 1,
    figures: str = "ideal",
    shared_prefix: int = 0,
) -> Setup:
    """Check and gather a step's settings (``kv_cache`` defaults to the weights' dtype).

    ``step_tokens`` (decode only) is how many tokens each sequence adds in the step, after its
    ``context`` cached ones: more than 1 when a target model verifies drafted tokens
    (:mod:`rooflinekit.transformer.speculative`) or a prompt is prefilled in chunks. ``figures``
    names the set of figures (:mod:`rooflinekit.transformer.calibration`): ``"calibrated"`` sets
    the efficiency and the collective latency, which are then not given too. ``shared_prefix`` is
    how many of each sequence's ``context`` tokens are a prefix every sequence shares (a system
    prompt), cached once on each chip (prefix caching over a paged KV cache).

    >>> make_setup("h100-sxm", compute="fp4")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.UnknownNameError: compute dtype for h100-sxm (dense) must be one of ...
    """
    if phase not in PHASES:
        raise RooflineInputError("phase", "one of " + ", ".join(PHASES), phase)
    found = chip(on)
    efficiency, collective_latency = _figures(found, figures, efficiency, collective_latency)
    if phase == "prefill" and step_tokens != 1:
        raise RooflineInputError("step_tokens", "1 in prefill (the prompt is the context)", step_tokens)
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
        efficiency=efficiency,
        collective_latency=check_latency(collective_latency, "collective_latency"),
        step_tokens=check_count("step_tokens", step_tokens),
        figures=figures,
        shared_prefix=_shared(shared_prefix, context),
    )
    found.peak(setup.compute)  # refuses a dtype the chip has no peak for
    return setup


def _shared(shared_prefix: int, context: int) -> int:
    whole = isinstance(shared_prefix, int) and not isinstance(shared_prefix, bool)
    if not whole or not 0 <= shared_prefix <= context:
        raise RooflineInputError("shared_prefix", f"a number of tokens from 0 to the context ({context})",
                                 shared_prefix)
    return shared_prefix


def _figures(on: Chip, figures: str, efficiency: Efficiency | None,
             latency: float) -> tuple[Efficiency, float]:
    """The efficiency and the collective latency: those given, or those of the named figures."""
    if efficiency is not None and not isinstance(efficiency, Efficiency):
        raise RooflineInputError("efficiency", "an Efficiency(compute=, memory=, network=)", efficiency)
    if figures not in FIGURE_SETS:
        raise RooflineInputError("figures", "one of " + ", ".join(FIGURE_SETS), figures)
    if figures == "ideal":
        return efficiency or Efficiency(), latency
    if efficiency is not None or latency:
        accepted = "ideal when an efficiency or a collective latency is given (calibrated sets both)"
        raise RooflineInputError("figures", accepted, figures)
    named = calibration(on, figures)
    return named.efficiency, named.collective_latency


def heads_per_chip(model: TransformerShape, n_chips: int) -> tuple[int, int]:
    """Query heads and KV heads on each chip; KV heads are copied when chips outnumber them.

    The MLP's width (and each expert's, in a mixture of experts) is split over the chips too.

    >>> from rooflinekit.models import transformer_shape
    >>> heads_per_chip(transformer_shape("llama-3.1-70b"), 8)
    (8, 1)
    >>> heads_per_chip(transformer_shape("llama-3.1-405b"), 16)   # 8 KV heads, each on 2 chips
    (8, 1)
    """
    n = check_count("n_chips", n_chips)
    kv_ok = model.n_kv_heads % n == 0 or n % model.n_kv_heads == 0
    widths = {model.d_ff} | ({model.expert_width} if model.is_moe else set())
    if model.n_heads % n or any(w % n for w in widths) or not kv_ok:
        experts = f" (experts' {model.expert_width})" if model.expert_width != model.d_ff else ""
        raise RooflineInputError(
            "n_chips",
            f"a number of chips that splits {model.name}'s {model.n_heads} heads, "
            f"{model.n_kv_heads} KV heads and MLP width {model.d_ff}{experts} evenly",
            n_chips,
        )
    return model.n_heads // n, max(1, model.n_kv_heads // n)
