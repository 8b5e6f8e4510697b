"""A time model for serving a transformer with ideal batching on tensor-parallel GPUs.

Each decode step reads every GPU's whole memory once (weights plus KV cache, with ideal
batching the memory is full), does ``2 * params`` FLOPs per token of the dense batch, and
each layer does 4 all-gathers of the ``[batch, d_model]`` activations (an all-reduce is
about two all-gathers)::

    T_mem     = memory bytes of one GPU / HBM bandwidth
    T_compute = 2 * batch * params / (n_gpus * peak)
    T_network = 4 * (n_gpus - 1) * batch * d_model * bytes(dtype) * layers / link bandwidth

>>> step = serving_step(MODELS["llama-3.1-70b"], "h100-sxm", n_gpus=8, batch_tokens=128)
>>> step.bound
'memory'
>>> round(step.t_mem * 1e3, 1)
23.9
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rooflinekit._validate import check_count, check_figure, check_size
from rooflinekit.bounds import Bounds
from rooflinekit.catalog import Chip, chip
from rooflinekit.dtypes import DType, dtype_bytes
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TRANSFORMERS


@dataclass(frozen=True)
class ModelShape:
    """The sizes of a dense transformer that the serving model needs."""

    name: str
    params: float
    d_model: int
    n_layers: int
    source: str = ""

    def __post_init__(self) -> None:
        check_figure("params", self.params)
        check_size("d_model", self.d_model)
        check_size("n_layers", self.n_layers)


def _from_transformer(name: str) -> ModelShape:
    """The serving model's view of a catalog transformer (:mod:`rooflinekit.models`)."""
    shape = TRANSFORMERS[name]
    return ModelShape(name, shape.params, shape.d_model, shape.n_layers, shape.sources[0].url)


MODELS = MappingProxyType({name: _from_transformer(name) for name in ("llama-3.1-8b", "llama-3.1-70b")})


@dataclass(frozen=True)
class ServingStep(Bounds):
    """One batched decode step: three-term :class:`~rooflinekit.bounds.Bounds` and a batch.

    ``times`` holds ``memory`` (``t_mem``), ``compute`` (``t_compute``) and ``network``
    (``t_network``) in seconds; ``batch_tokens`` is the tokens decoded in the step.
    """

    batch_tokens: Any

    @property
    def t_mem(self) -> float:
        """Seconds to read each GPU's memory once (the same for every batch)."""
        return float(self.times["memory"])

    @property
    def t_compute(self) -> Any:
        """Seconds of math for the batch, split over the GPUs (``t_math``)."""
        return self.t_math

    @property
    def t_network(self) -> Any:
        """Seconds of the layers' all-gathers over the links."""
        return self.times["network"]

    @property
    def throughput(self) -> Any:
        """Tokens per second at the lower bound (the best case)."""
        return self.batch_tokens / self.t_lower


def serving_step(
    model: ModelShape,
    on: str | Chip,
    *,
    n_gpus: int,
    batch_tokens: Any,
    dtype: str | DType = "bf16",
    memory_bytes: float | None = None,
) -> ServingStep:
    """Place one decode step of ``model`` on ``n_gpus`` tensor-parallel chips.

    ``memory_bytes`` is what each GPU reads per step (default: all of its HBM). The
    weights must fit: ``params * bytes(dtype) <= n_gpus * memory``.

    >>> try:
    ...     serving_step(MODELS["llama-3.1-70b"], "h100-sxm", n_gpus=1, batch_tokens=1)
    ... except ValueError as error:
    ...     print(error)
    n_gpus must be enough GPUs to hold 141 GB of weights (80 GB each) (got 1)
    """
    if not isinstance(model, ModelShape):
        raise RooflineInputError("model", "a ModelShape, e.g. MODELS['llama-3.1-70b']", model)
    found = chip(on)
    n = check_count("n_gpus", n_gpus)
    batch = check_size("batch_tokens", batch_tokens)
    memory = check_figure("memory_bytes", memory_bytes) if memory_bytes is not None else found.hbm_bytes
    size = dtype_bytes(dtype, "dtype")
    weights = model.params * size
    if weights > n * memory:
        raise RooflineInputError(
            "n_gpus",
            f"enough GPUs to hold {weights / 1e9:.0f} GB of weights ({memory / 1e9:.0f} GB each)",
            n_gpus,
        )
    times = {
        "memory": memory / found.hbm_bandwidth,
        "compute": 2 * batch * model.params / (n * found.peak(dtype)),
        "network": 4 * (n - 1) * batch * model.d_model * size * model.n_layers / found.link_bandwidth,
    }
    return ServingStep(times, batch_tokens=batch)


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
