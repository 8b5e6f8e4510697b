"""``rooflinekit colocate MODEL``: the cheapest co-located configuration (chunked prefill) and the
cheapest disaggregated one that meet the same time-to-first-token and time-per-output-token targets.

>>> from rooflinekit.catalog import chip
>>> from rooflinekit.models import transformer_shape
>>> args = argparse.Namespace(model=transformer_shape("llama-3.1-8b"), chip=chip("h100-sxm"), peak=None,
...     bandwidth=None, ttft=0.2, tpot=0.03, prompt=1024, output=256, chip_counts=[1], weights="bf16",
...     kv_cache=None, compute="bf16", collective_latency=0.0, figures="ideal", shared_prefix=0)
>>> run(args).data["colocated"]["chunk"]
918
"""

from __future__ import annotations

import argparse
from typing import Any

from rooflinekit.cli import values
from rooflinekit.cli.model_options import (
    add_model,
    add_shared_prefix,
    add_step_options,
    chip_of,
    flagged,
    step_settings,
)
from rooflinekit.cli.output import Output
from rooflinekit.errors import RooflineInputError
from rooflinekit.fmt import Table, num, seconds
from rooflinekit.transformer.chunked import COLOCATED, ColocatedConfig, colocated_search
from rooflinekit.transformer.decisions import SCHEDULING, SHARED_PREFIX, ServingConfig, serving_search

NAME = "colocate"


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    command = commands.add_parser(
        NAME, help="co-located (chunked prefill) against disaggregated serving for the same latency targets"
    )
    add_model(command)
    command.add_argument(
        "--ttft",
        type=values.duration,
        required=True,
        metavar="SECONDS",
        help="target time to the first token",
    )
    command.add_argument(
        "--tpot", type=values.duration, required=True, metavar="SECONDS", help="target time per output token"
    )
    command.add_argument(
        "--prompt", type=values.size, required=True, metavar="N", help="prompt tokens per request"
    )
    command.add_argument(
        "--output", type=values.size, required=True, metavar="N", help="output tokens per request"
    )
    command.add_argument(
        "--chip-counts",
        type=values.sizes,
        default=[1, 2, 4, 8],
        metavar="N,N,...",
        help="chip counts to try (default 1,2,4,8)",
    )
    add_shared_prefix(command)
    add_step_options(command)


def run(args: argparse.Namespace) -> Output:
    """The cheapest configuration of each scheduling."""
    on = chip_of(args)
    targets = {
        "ttft": args.ttft,
        "tpot": args.tpot,
        "prompt": args.prompt,
        "output": args.output,
        "chip_counts": args.chip_counts,
        "shared_prefix": args.shared_prefix,
        **step_settings(args),
    }
    try:
        together = colocated_search(args.model, on, **targets).cheapest
        apart = serving_search(args.model, on, **targets).cheapest
    except RooflineInputError as error:
        raise flagged(error) from error
    shared = SHARED_PREFIX.format(tokens=args.shared_prefix) if args.shared_prefix else ""
    data = {
        "model": args.model.name,
        "chip": on.id,
        **{k: targets[k] for k in ("ttft", "tpot", "prompt", "output", "shared_prefix")},
        "colocated": None if together is None else together.to_dict(),
        "disaggregated": None if apart is None else apart.to_dict(),
        "assumptions": {
            "colocated": COLOCATED,
            "disaggregated": SCHEDULING,
            **({"prefix_caching": shared} if shared else {}),
        },
    }
    rows = _rows(together, apart)
    head = (
        f"{args.model.name} on {on.name}: TTFT <= {seconds(args.ttft, 3)}, TPOT <= {seconds(args.tpot, 3)}, "
        f"{args.prompt} tokens in, {args.output} out"
    )
    if not rows:
        return Output(data, f"{head}\n  no configuration of either scheduling meets both targets")
    table = Table(
        ["scheduling", "chips", "batch", "chunk", "TTFT", "TPOT", "chip-h / M tokens"], rows, align="lrrrrrr"
    ).to_text("  ")
    notes = [f"  co-located: {COLOCATED}", *([f"  prefix caching: {shared}"] if shared else [])]
    return Output(data, "\n".join([head, "", table, "", *notes]))


def _rows(together: ColocatedConfig | None, apart: ServingConfig | None) -> list[list[Any]]:
    """The table's row for each scheduling that meets the targets."""
    rows = []
    if together is not None:
        rows.append(
            [
                "co-located",
                together.n_chips,
                together.batch,
                together.chunk,
                seconds(together.ttft, 3),
                seconds(together.tpot, 3),
                num(together.chip_hours_per_million_tokens, 3),
            ]
        )
    if apart is not None:
        rows.append(
            [
                "disaggregated",
                f"{apart.prefill_chips} + {apart.decode_chips}",
                apart.batch,
                "",
                seconds(apart.ttft, 3),
                seconds(apart.tpot, 3),
                num(apart.chip_hours_per_million_tokens, 3),
            ]
        )
    return rows
