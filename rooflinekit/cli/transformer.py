"""``rooflinekit transformer MODEL``: one decode step or one prefill of a model, every operation on
the roofline.

>>> from rooflinekit.catalog import chip
>>> from rooflinekit.models import transformer_shape
>>> args = argparse.Namespace(model=transformer_shape("llama-3.1-8b"), chip=chip("h100-sxm"), peak=None,
...     bandwidth=None, chips=1, phase="decode", batch=1, context=2048, weights="bf16", kv_cache=None,
...     compute="bf16", collective_latency=0.0)
>>> run(args).text.splitlines()[0]  # doctest: +ELLIPSIS
'llama-3.1-8b on 1 x NVIDIA H100 SXM: decode, batch 1, 2048 tokens in the cache...'
"""

from __future__ import annotations

import argparse
from typing import Any

from rooflinekit.cli import values
from rooflinekit.cli.model_options import add_model, add_step_options, chip_of, flagged, step_settings
from rooflinekit.cli.output import Output
from rooflinekit.errors import RooflineInputError
from rooflinekit.transformer.report import operations_table, step_summary, step_title
from rooflinekit.transformer.setup import PHASES
from rooflinekit.transformer.step import TransformerStep, transformer_step

NAME = "transformer"


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    transformer = commands.add_parser(
        NAME, help="one decode step or one prefill of a model, every operation on the roofline"
    )
    add_model(transformer)
    transformer.add_argument(
        "--chips", type=values.size, default=1, metavar="N", help="chips the model is split over (default 1)"
    )
    transformer.add_argument(
        "--batch", type=values.size, default=1, metavar="B", help="sequences (default 1)"
    )
    transformer.add_argument(
        "--context", type=values.size, default=2048, metavar="L",
        help="tokens already in the cache (decode) or the prompt's length (prefill); default 2048",
    )
    transformer.add_argument(
        "--phase", choices=PHASES, default="decode", help="decode (one new token) or prefill (default decode)"
    )
    add_step_options(transformer)


def run(args: argparse.Namespace) -> Output:
    """The step, as chapter 9 shows it."""
    on = chip_of(args)
    try:
        step = transformer_step(
            args.model, on, n_chips=args.chips, phase=args.phase, batch=args.batch, context=args.context,
            **step_settings(args),
        )
    except RooflineInputError as error:  # a model, context or batch that does not fit
        raise flagged(error) from error
    return Output(step.to_dict(), step_text(step))


def step_text(step: TransformerStep) -> str:
    """The step as chapter 9 shows it: what it runs, the operations' table, then the totals."""
    lines = [step_title(step.model, step.setup), "", operations_table(step).to_text("  "), ""]
    lines += [f"  {line.label:<24} {line.text}" for line in step_summary(step)]
    return "\n".join(lines)
