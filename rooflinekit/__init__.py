"""rooflinekit: roofline analysis for accelerators.

How long must an operation take on a chip, and is it limited by math, by memory
bandwidth or by the network? ``rooflinekit`` answers with a hardware catalog, cost
models (FLOPs and bytes), time bounds, arithmetic intensity and critical batch sizes.

>>> import rooflinekit as rk
>>> r = rk.analyze(rk.matmul_cost(256, 8192, 8192), "tpu-v5e")
>>> r.bound, round(r.critical_intensity)
('compute', 240)

Plotting (``rooflinekit.plot``), the interactive explorer (``rooflinekit.explorer``) and
measuring this machine (``rooflinekit.measure``) load matplotlib and ipywidgets only when
first used, so importing the package costs little more than importing numpy. Imported in a
notebook, it has every figure shown there carry its alt text (``rooflinekit.alt_text``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rooflinekit.alt_text import describe_figures_in_notebooks
from rooflinekit.analysis import (
    Hardware,
    Roofline,
    analyze,
    attainable_flops,
    hardware,
    t_comms,
    t_math,
)
from rooflinekit.bounds import Bounds
from rooflinekit.catalog import (
    ACHIEVABLE,
    CHIPS,
    FIGURES,
    Achievable,
    Chip,
    Provenance,
    Source,
    SourcedFigure,
    achievable,
    chip,
    custom_chip,
)
from rooflinekit.costs import (
    Cost,
    batched_matmul_cost,
    dot_cost,
    elementwise_cost,
    layer_norm_cost,
    matmul_cost,
    matmul_flops_exact,
    rms_norm_cost,
    tiled_matmul_cost,
    tiled_matmul_intensity,
)
from rooflinekit.critical import matmul_critical_batch, matmul_critical_batch_approx
from rooflinekit.dtypes import DTYPES, DType, dtype, dtype_bytes
from rooflinekit.errors import RooflineInputError, UnknownNameError

__version__ = "0.1.0"

# In a notebook, every figure shown carries its alt text, what it shows in words (rooflinekit.alt_text).
describe_figures_in_notebooks()

if TYPE_CHECKING:  # for type checkers and IDEs; at run time these load lazily
    from rooflinekit.catalog import VMEM_OVER_HBM
    from rooflinekit.chipfile import load_chip
    from rooflinekit.models import TRANSFORMERS, TransformerShape, transformer_shape
    from rooflinekit.network import ShardedMatmul, analyze_sharded_matmul, network_critical_d
    from rooflinekit.transformer import (
        Efficiency,
        ThreeClocks,
        TransformerStep,
        cost_per_million_tokens,
        expert_parallel,
        latency_throughput,
        leaves_memory_bound,
        memory_for,
        request_throughput,
        serving_search,
        three_clocks,
        transformer_step,
    )

_LAZY_SUBMODULES = frozenset(
    {"plot", "explorer", "measure", "exercises", "network", "models", "transformer", "collectives",
     "hierarchy"}
)
_LAZY_NAMES = {
    "VMEM_OVER_HBM": "catalog",  # read from the catalog's data files on first use
    "load_chip": "chipfile",
    "ShardedMatmul": "network",
    "analyze_sharded_matmul": "network",
    "network_critical_d": "network",
    "TRANSFORMERS": "models",
    "TransformerShape": "models",
    "transformer_shape": "models",
    "Efficiency": "transformer",
    "ThreeClocks": "transformer",
    "TransformerStep": "transformer",
    "cost_per_million_tokens": "transformer",
    "expert_parallel": "transformer",
    "latency_throughput": "transformer",
    "leaves_memory_bound": "transformer",
    "memory_for": "transformer",
    "request_throughput": "transformer",
    "serving_search": "transformer",
    "three_clocks": "transformer",
    "transformer_step": "transformer",
}


def __getattr__(name: str) -> Any:
    """Load the less common parts on first use, keeping `import rooflinekit` cheap."""
    if name in _LAZY_SUBMODULES:
        value: Any = importlib.import_module(f"rooflinekit.{name}")
    elif name in _LAZY_NAMES:
        value = getattr(importlib.import_module(f"rooflinekit.{_LAZY_NAMES[name]}"), name)
    else:
        raise AttributeError(f"module 'rooflinekit' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY_SUBMODULES | set(_LAZY_NAMES))


__all__ = [
    "ACHIEVABLE",
    "CHIPS",
    "DTYPES",
    "FIGURES",
    "TRANSFORMERS",
    "VMEM_OVER_HBM",
    "Achievable",
    "Bounds",
    "Chip",
    "Cost",
    "DType",
    "Efficiency",
    "Hardware",
    "Provenance",
    "Roofline",
    "RooflineInputError",
    "ShardedMatmul",
    "Source",
    "SourcedFigure",
    "ThreeClocks",
    "TransformerShape",
    "TransformerStep",
    "UnknownNameError",
    "achievable",
    "analyze",
    "analyze_sharded_matmul",
    "attainable_flops",
    "batched_matmul_cost",
    "chip",
    "cost_per_million_tokens",
    "custom_chip",
    "dot_cost",
    "dtype",
    "dtype_bytes",
    "elementwise_cost",
    "expert_parallel",
    "hardware",
    "latency_throughput",
    "layer_norm_cost",
    "leaves_memory_bound",
    "load_chip",
    "matmul_cost",
    "matmul_critical_batch",
    "matmul_critical_batch_approx",
    "matmul_flops_exact",
    "memory_for",
    "network_critical_d",
    "request_throughput",
    "rms_norm_cost",
    "serving_search",
    "t_comms",
    "t_math",
    "three_clocks",
    "tiled_matmul_cost",
    "tiled_matmul_intensity",
    "transformer_shape",
    "transformer_step",
]

if __import__("os").environ.get("ROOFLINEKIT_FIGURE_LANGUAGES"):  # the book's build (tools/build_book.py)
    from rooflinekit.figure_languages import install as _install_figure_languages

    _install_figure_languages()  # each figure a notebook displays, also in the editions' languages
