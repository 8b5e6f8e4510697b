"""What the commands on a transformer model share: the model and its options, and the chip with
``--peak`` and ``--bandwidth`` applied; the library's refusals named by the command line's options.

>>> flagged(RooflineInputError("n_chips", "a positive integer", 0)).argument
'--chips'
"""

from __future__ import annotations

import argparse
from typing import Any

from rooflinekit.catalog import Chip
from rooflinekit.cli import values
from rooflinekit.cli.chip_options import add_chip_options, resolve
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TRANSFORMERS
from rooflinekit.transformer.calibration import FIGURE_SETS

FLAGS = {
    "n_chips": "--chips",
    "batch": "--batch",
    "context": "--context",
    "batches": "--batches",
    "knee_fraction": "--knee-fraction",
    "chip_counts": "--chip-counts",
    "prompt": "--prompt",
    "output": "--output",
    "figures": "--figures",
    "k": "--k",
    "alpha": "--alpha",
    "draft": "--draft",
    "shared_prefix": "--shared-prefix",
}
"""The command line's names for the settings the library refuses by their own name."""


def add_model(command: argparse.ArgumentParser) -> None:
    """The ``MODEL`` argument and the chip's options."""
    command.add_argument(
        "model", type=values.model_id, metavar="MODEL",
        help=f"one of {', '.join(TRANSFORMERS)} (see `rooflinekit models`)",
    )
    add_chip_options(command)


def add_step_options(command: argparse.ArgumentParser) -> None:
    """The dtypes of a step (weights, KV cache, math) and the latency of its collectives."""
    command.add_argument(
        "--weights", type=values.dtype_name, default="bf16", metavar="DT",
        help="dtype of the weights (default bf16)",
    )
    command.add_argument(
        "--kv-cache", type=values.dtype_name, metavar="DT",
        help="dtype of the KV cache (default: the weights')",
    )
    command.add_argument(
        "--compute", type=values.dtype_name, default="bf16", metavar="DT",
        help="dtype of the math (default bf16)",
    )
    command.add_argument(
        "--collective-latency", type=values.latency, default=0.0, metavar="SECONDS",
        help="seconds added to each collective (default 0: the lower bound)",
    )
    command.add_argument(
        "--figures", choices=FIGURE_SETS, default="ideal",
        help="the datasheet's figures (ideal, the default) or calibrated ones from the catalog: the "
        "achievable share of the peak, NCCL's bus bandwidth, 10 us a collective (not with "
        "--collective-latency)",
    )


def add_shared_prefix(command: argparse.ArgumentParser) -> None:
    """``--shared-prefix``: the prompt tokens every request shares, cached once (prefix caching)."""
    command.add_argument(
        "--shared-prefix", type=values.tokens, default=0, metavar="N",
        help="the first N tokens of every prompt are the same (a system prompt), cached once a chip and "
        "never prefilled again (default 0)",
    )


def chip_of(args: argparse.Namespace) -> Chip:
    """The chip of a model's command, with ``--peak`` and ``--bandwidth`` applied."""
    hw = resolve(args.chip, args.compute, "--compute", args.peak, args.bandwidth)
    on: Chip = args.chip
    if args.peak is not None or args.bandwidth is not None:
        on = on.derive(peaks={args.compute: hw.peak}, hbm_bandwidth=hw.bandwidth)
    return on


def step_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The step's settings, as the library's functions name them."""
    return {"weights": args.weights, "kv_cache": args.kv_cache, "compute": args.compute,
            "collective_latency": args.collective_latency, "figures": getattr(args, "figures", "ideal")}


def flagged(error: RooflineInputError) -> RooflineInputError:
    """The library's refusal, naming the command line's option in place of the library's argument."""
    if error.argument not in FLAGS:
        return error
    return RooflineInputError(FLAGS[error.argument], error.accepted, error.got)
