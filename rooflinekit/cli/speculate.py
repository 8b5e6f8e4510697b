"""``rooflinekit speculate TARGET --draft MODEL --alpha A``: speculative decoding on the roofline, the
draft's steps and the target's check from the same per-operation model.

>>> from rooflinekit.catalog import chip
>>> from rooflinekit.models import transformer_shape
>>> args = argparse.Namespace(model=transformer_shape("llama-3.1-8b"),
...     draft=transformer_shape("llama-3.2-1b"), chip=chip("h100-sxm"), peak=None, bandwidth=None,
...     alpha=0.8, k=4, chips=1, batch=1, context=512, weights="bf16", kv_cache=None, compute="bf16",
...     collective_latency=0.0, figures="ideal")
>>> run(args).data["stops_paying"]
243
"""

from __future__ import annotations

import argparse
from typing import Any

from rooflinekit.cli import values
from rooflinekit.cli.model_options import add_model, add_step_options, chip_of, flagged, step_settings
from rooflinekit.cli.output import Output
from rooflinekit.errors import RooflineInputError
from rooflinekit.fmt import num, seconds
from rooflinekit.transformer.speculative import MAX_DRAFT, best_draft_length, speculation, stops_paying

NAME = "speculate"


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    command = commands.add_parser(
        NAME, help="speculative decoding: a draft model's tokens checked by the target in one step"
    )
    add_model(command)
    command.add_argument(
        "--draft",
        type=values.model_id,
        required=True,
        metavar="MODEL",
        help="the draft model (see `rooflinekit models`)",
    )
    command.add_argument(
        "--alpha",
        type=values.fraction,
        required=True,
        metavar="A",
        help="the probability that the target accepts a drafted token",
    )
    command.add_argument(
        "--k", type=values.size, metavar="K", help="drafted tokens a round (default: the best from 0 to 16)"
    )
    command.add_argument(
        "--chips",
        type=values.size,
        default=1,
        metavar="N",
        help="chips both models are split over (default 1)",
    )
    command.add_argument("--batch", type=values.size, default=1, metavar="B", help="sequences (default 1)")
    command.add_argument(
        "--context",
        type=values.size,
        default=2048,
        metavar="L",
        help="tokens already in the cache (default 2048)",
    )
    add_step_options(command)


def run(args: argparse.Namespace) -> Output:
    """One round at the draft length asked for (or the best), and the batch where it stops paying."""
    on = chip_of(args)
    settings = {"n_chips": args.chips, "context": args.context, **step_settings(args)}
    try:
        if args.k is None:
            found = best_draft_length(
                args.model, args.draft, on, alpha=args.alpha, batch=args.batch, **settings
            )
        else:
            found = speculation(
                args.model, args.draft, on, k=args.k, alpha=args.alpha, batch=args.batch, **settings
            )
        stops = (
            stops_paying(args.model, args.draft, on, k=found.k, alpha=args.alpha, **settings)
            if found.k
            else None
        )
    except RooflineInputError as error:
        raise flagged(error) from error
    data = {
        **found.to_dict(),
        "chip": on.id,
        "chips": args.chips,
        "context": args.context,
        "figures": settings["figures"],
        "stops_paying": stops,
        "searched_up_to": MAX_DRAFT if args.k is None else None,
    }
    return Output(data, text(data))


def text(d: dict[str, Any]) -> str:
    """The round, its speedup and where it stops paying, for people."""
    stops = "it pays at every batch that fits" if d["stops_paying"] is None else f"batch {d['stops_paying']}"
    searched = d.get("searched_up_to")
    if searched is None:
        chosen = "as asked"
    elif d["k"] == searched:
        chosen = f"the longest tried (0 to {searched}): a longer draft may pay more, try --k"
    else:
        chosen = f"the best of 0 to {searched}"
    return "\n".join(
        [
            f"{d['target']} checking {d['k']} tokens of {d['draft']} on {d['chips']} x {d['chip']}, batch "
            f"{d['batch']}, {d['context']} tokens in the cache, acceptance {d['alpha']:g}, "
            f"{d['figures']} figures",
            f"  draft length     {d['k']}  ({chosen})",
            f"  tokens a round   {num(d['expected_tokens'], 4)}  (1 - a^(k+1)) / (1 - a)",
            f"  draft step       {seconds(d['t_draft'], 3)}",
            f"  check of k + 1   {seconds(d['t_verify'], 3)}  (one plain step: {seconds(d['t_target'], 3)})",
            f"  speedup          {num(d['speedup'], 3)}  (the paper's formula: {num(d['paper_speedup'], 3)})",
            f"  stops paying at  {stops}",
        ]
    )
