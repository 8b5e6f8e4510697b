"""The serving notes' first approximation: a step as three clocks, memory, math and network.

The course's serving notes model a step with **ideal batching**: every chip's memory is full of
weights and KV cache, and every step reads all of it. Each token costs two FLOPs per parameter,
split over the chips, and each of the model's layers does four all-gathers of the
``[tokens, d_model]`` activations (an all-reduce counted as two)::

    T_mem     = HBM bytes of one chip / HBM bandwidth
    T_compute = 2 * tokens * active params / (n_chips * peak)
    T_network = 4 * (n_chips - 1) * tokens * d_model * bytes(activations) * layers / link bandwidth

The step takes at least the longest of the three (:class:`~rooflinekit.bounds.Bounds`).
:func:`three_clocks` takes the models, chips and settings of
:func:`~rooflinekit.transformer.step.transformer_step`, which places every operation of the same
step on the roofline; chapter 9 sets the two side by side. ``tokens`` are ``batch`` in decode
(one new token a sequence) and ``batch * context`` in prefill; the memory being full by
assumption, only the weights must fit.

>>> clocks = three_clocks("llama-3.1-70b", "h100-sxm", n_chips=8, batch=128)
>>> clocks.bound
'memory'
>>> round(clocks.t_mem * 1e3, 1)
23.9
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rooflinekit._validate import check_figure, check_size
from rooflinekit.bounds import Bounds
from rooflinekit.catalog import Chip
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.memory import check_weights_fit, memory_check
from rooflinekit.transformer.setup import Setup, make_setup

ALL_GATHERS_PER_LAYER = 4
"""The notes' collectives a layer: two all-reduces (after attention, after the MLP), each counted as
two all-gathers of the activations."""


@dataclass(frozen=True)
class ThreeClocks(Bounds):
    """One step as the serving notes see it: three-term :class:`~rooflinekit.bounds.Bounds`.

    ``times`` holds ``memory`` (``t_mem``), ``compute`` (``t_compute``) and ``network``
    (``t_network``) in seconds, for ``model`` at ``setup`` (the settings of
    :func:`~rooflinekit.transformer.step.transformer_step`).
    """

    model: TransformerShape
    setup: Setup

    @property
    def t_mem(self) -> float:
        """Seconds to read one chip's whole memory (the same for every batch)."""
        return float(self.times["memory"])

    @property
    def t_compute(self) -> float:
        """Seconds of math for the step's tokens, split over the chips (``t_math``)."""
        return float(self.t_math)

    @property
    def t_network(self) -> float:
        """Seconds of the layers' all-gathers over the links."""
        return float(self.times["network"])

    @property
    def tokens(self) -> int:
        """Tokens the step processes: ``batch`` in decode, ``batch * context`` in prefill."""
        return self.setup.tokens

    @property
    def tokens_per_second(self) -> float:
        """Tokens per second at the lower bound (the best case)."""
        return self.tokens / float(self.t_lower)


def three_clocks(model: str | TransformerShape, on: str | Chip, **settings: Any) -> ThreeClocks:
    """The notes' three clocks for one step of ``model`` on ``n_chips`` chips ``on`` a catalog chip.

    ``settings`` are :func:`~rooflinekit.transformer.step.transformer_step`'s; the efficiency
    factors divide the datasheet's rates as there, and ``collective_latency`` adds to each of the
    notes' all-gathers. Chips too few for the weights are refused as there; a batch or a context
    is not (the memory is full by assumption).

    >>> clocks = three_clocks("llama-3.1-70b", "h100-sxm", n_chips=8, batch=4096)
    >>> clocks.bound, clocks.tokens
    ('network', 4096)
    >>> three_clocks("llama-3.1-70b", "h100-sxm", n_chips=8, phase="prefill", context=2048).tokens
    2048
    """
    shape = transformer_shape(model)
    s = make_setup(on, **settings)
    check_weights_fit(shape, s, memory_check(shape, s))
    n, tokens, layers = s.n_chips, s.tokens, shape.n_layers
    collectives = ALL_GATHERS_PER_LAYER * layers if n > 1 else 0
    sent = ALL_GATHERS_PER_LAYER * (n - 1) * tokens * shape.d_model * s.activations.bytes * layers
    times = {
        "memory": s.chip.hbm_bytes / s.hbm_bandwidth,
        "compute": 2 * tokens * shape.active_params / (n * s.peak),
        "network": sent / s.link_bandwidth + collectives * s.collective_latency,
    }
    return ThreeClocks(times, shape, s)


def request_throughput(total_tokens_per_s: Any, prefill: Any, decode: Any) -> tuple[Any, Any]:
    """Requests per second and decoded tokens per second for ``prefill`` + ``decode`` tokens.

    A request costs ``prefill + decode`` tokens of batch capacity, so the system finishes
    ``total / (p + d)`` requests a second, producing ``d`` output tokens each.

    >>> request_throughput(10_000.0, prefill=900, decode=100)
    (10.0, 1000.0)
    """
    total = check_figure("total_tokens_per_s", total_tokens_per_s, allow_array=True)
    p, d = check_size("prefill", prefill), check_size("decode", decode)
    per_request = total / (p + d)
    return per_request, d * per_request
