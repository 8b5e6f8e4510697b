"""A transformer on the roofline: every operation of a layer, for prefill and for decode.

One step of a model split over ``n_chips`` by tensor parallelism is a list of operations,
each built from the cost models of :mod:`rooflinekit.costs` and costed *per chip*: the
Q, K, V and output projections, attention over the KV cache, the MLP, the norms and
residual adds, the two all-reduces of a layer (ring, :mod:`rooflinekit.collectives`), and
the LM head. Each operation is placed on the chip's roofline, overlapping its own math and
memory traffic; the step is their sum (:func:`transformer_step`). The serving notes' first
approximation, three clocks for the whole step (:func:`three_clocks`), takes the same models
(:mod:`rooflinekit.models`), chips and settings.

- **decode**: ``batch`` sequences, each with ``context`` tokens in the cache, add one token.
- **prefill**: ``batch`` prompts of ``context`` tokens each are read at once (causal attention).

One module a job, each importing only from those below it:

- :mod:`~rooflinekit.transformer.chunked`: co-located serving, mixed steps with chunked prefill;
- :mod:`~rooflinekit.transformer.report`: tables, titles and summaries for people, in any language \\|
  :mod:`~rooflinekit.transformer.decisions`: the latency-throughput curve, latency targets, cost \\|
  :mod:`~rooflinekit.transformer.speculative`: speculative decoding, a draft checked by the target;
- :mod:`~rooflinekit.transformer.step`: the step on the roofline, its totals and bounds \\|
  :mod:`~rooflinekit.transformer.clocks`: the notes' three clocks \\|
  :mod:`~rooflinekit.transformer.experts`: a mixture of experts' experts spread over chips;
- :mod:`~rooflinekit.transformer.memory`: what one chip holds, what fits, the largest batch \\|
  :mod:`~rooflinekit.transformer.operations`: the operations of a layer and their costs;
- :mod:`~rooflinekit.transformer.latent`: multi-head latent attention's operations (DeepSeek-V3);
- :mod:`~rooflinekit.transformer.setup`: the settings of a step and the split over chips \\|
  :mod:`~rooflinekit.transformer.peers`: a published tool's recorded answers to the same questions \\|
  :mod:`~rooflinekit.transformer.op`: one operation and its cost;
- :mod:`~rooflinekit.transformer.calibration`: the ideal figures, or calibrated ones from the catalog;
- :mod:`~rooflinekit.transformer.efficiency`: the shares of the datasheet's figures kernels reach.

>>> step = transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, batch=64, context=2048)
>>> step.bound, step.max_batch
('memory', 742)
>>> clocks = three_clocks("llama-3.1-70b", "h100-sxm", n_chips=8, batch=64, context=2048)
>>> clocks.t_mem > step.t_lower     # the notes read all of memory; the step reads what it uses
True
"""

from rooflinekit.transformer.calibration import (
    EXAMPLE_COLLECTIVE_LATENCY,
    FIGURE_SETS,
    Calibration,
    calibration,
)
from rooflinekit.transformer.chunked import (
    COLOCATED,
    ColocatedConfig,
    ColocatedSearch,
    SchedulingComparison,
    colocated_config,
    colocated_search,
    compare_scheduling,
)
from rooflinekit.transformer.clocks import ThreeClocks, request_throughput, three_clocks
from rooflinekit.transformer.decisions import (
    OVERLAPS,
    SCHEDULING,
    CurvePoint,
    LatencyThroughput,
    ServingConfig,
    ServingSearch,
    cost_per_million_tokens,
    latency_throughput,
    serving_search,
)
from rooflinekit.transformer.dp_attention import DataParallelAttention, data_parallel_attention
from rooflinekit.transformer.efficiency import Efficiency
from rooflinekit.transformer.experts import (
    ExpertParallel,
    busiest_chip_experts,
    expert_parallel,
    touched_distribution,
)
from rooflinekit.transformer.memory import (
    MemoryCheck,
    check_weights_fit,
    longest_context,
    memory_check,
    memory_for,
    memory_refusal,
    weight_bytes_per_chip,
)
from rooflinekit.transformer.mixed import MixedStep, largest_chunk, mixed_step
from rooflinekit.transformer.op import Op
from rooflinekit.transformer.operations import head_ops, layer_ops
from rooflinekit.transformer.peers import PeerRecord, recorded_peer
from rooflinekit.transformer.report import (
    OPERATIONS_HEADER,
    SummaryLine,
    operations_table,
    shapes_table,
    step_summary,
    step_title,
)
from rooflinekit.transformer.setup import PHASES, Setup, heads_per_chip, make_setup
from rooflinekit.transformer.speculative import (
    Speculation,
    best_draft_length,
    expected_tokens,
    paper_speedup,
    speculation,
    stops_paying,
)
from rooflinekit.transformer.step import (
    BOUNDS,
    PlacedOp,
    TransformerStep,
    leaves_memory_bound,
    transformer_step,
)

__all__ = [
    "BOUNDS",
    "COLOCATED",
    "EXAMPLE_COLLECTIVE_LATENCY",
    "FIGURE_SETS",
    "OPERATIONS_HEADER",
    "OVERLAPS",
    "PHASES",
    "SCHEDULING",
    "Calibration",
    "ColocatedConfig",
    "ColocatedSearch",
    "CurvePoint",
    "DataParallelAttention",
    "Efficiency",
    "ExpertParallel",
    "LatencyThroughput",
    "MemoryCheck",
    "MixedStep",
    "Op",
    "PeerRecord",
    "PlacedOp",
    "SchedulingComparison",
    "ServingConfig",
    "ServingSearch",
    "Setup",
    "Speculation",
    "SummaryLine",
    "ThreeClocks",
    "TransformerStep",
    "best_draft_length",
    "busiest_chip_experts",
    "calibration",
    "check_weights_fit",
    "colocated_config",
    "colocated_search",
    "compare_scheduling",
    "cost_per_million_tokens",
    "data_parallel_attention",
    "expected_tokens",
    "expert_parallel",
    "head_ops",
    "heads_per_chip",
    "largest_chunk",
    "latency_throughput",
    "layer_ops",
    "leaves_memory_bound",
    "longest_context",
    "make_setup",
    "memory_check",
    "memory_for",
    "memory_refusal",
    "mixed_step",
    "operations_table",
    "paper_speedup",
    "recorded_peer",
    "request_throughput",
    "serving_search",
    "shapes_table",
    "speculation",
    "step_summary",
    "step_title",
    "stops_paying",
    "three_clocks",
    "touched_distribution",
    "transformer_step",
    "weight_bytes_per_chip",
]
