"""``rooflinekit slo-search MODEL``: the batches and chip counts that meet a time-to-first-token and a
time-per-output-token target, and the cheapest.

>>> from rooflinekit.catalog import chip
>>> from rooflinekit.models import transformer_shape
>>> args = argparse.Namespace(model=transformer_shape("llama-3.1-8b"), chip=chip("h100-sxm"), peak=None,
...     bandwidth=None, ttft=1.0, tpot=0.05, prompt=512, output=256, chip_counts=[1], overlap="none",
...     price_per_chip_hour=None, shared_prefix=0, weights="bf16", kv_cache=None, compute="bf16",
...     collective_latency=0.0)
>>> run(args).data["cheapest"]["decode_chips"]
1
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
from rooflinekit.transformer.decisions import (
    OVERLAPS,
    SCHEDULING,
    SHARED_PREFIX,
    ServingSearch,
    serving_search,
)

NAME = "slo-search"


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    search = commands.add_parser(
        NAME,
        help="batches and chip counts that meet a time-to-first-token and a time-per-output-token target, "
        "and the cheapest",
    )
    add_model(search)
    search.add_argument("--ttft", type=values.duration, required=True, metavar="SECONDS",
                        help="target time to the first token")
    search.add_argument("--tpot", type=values.duration, required=True, metavar="SECONDS",
                        help="target time per output token")
    search.add_argument("--prompt", type=values.size, required=True, metavar="N",
                        help="prompt tokens per request")
    search.add_argument("--output", type=values.size, required=True, metavar="N",
                        help="output tokens per request")
    search.add_argument(
        "--chip-counts", type=values.sizes, default=[1, 2, 4, 8], metavar="N,N,...",
        help="chip counts to try for prefill and for decode (default 1,2,4,8)",
    )
    search.add_argument(
        "--overlap", choices=OVERLAPS, default="none",
        help="collectives and the other operations: none overlapped (default) or every collective hidden",
    )
    search.add_argument(
        "--price-per-chip-hour", type=values.figure, metavar="PRICE",
        help="your price of one chip for an hour, in any currency: adds the cost per million output tokens",
    )
    add_shared_prefix(search)
    add_step_options(search)


def run(args: argparse.Namespace) -> Output:
    """Every configuration that meets the targets, and the cheapest."""
    try:
        found = serving_search(args.model, chip_of(args), ttft=args.ttft, tpot=args.tpot, prompt=args.prompt,
                               output=args.output, chip_counts=args.chip_counts, overlap=args.overlap,
                               shared_prefix=args.shared_prefix, **step_settings(args))
    except RooflineInputError as error:
        raise flagged(error) from error
    return Output(found.to_dict(args.price_per_chip_hour), search_text(found, args.price_per_chip_hour))


def search_text(found: ServingSearch, price: float | None) -> str:
    """For each pair of prefill and decode chip counts, its largest batch that meets the targets."""
    best: dict[tuple[int, int], Any] = {}
    for c in found.configs:
        key = (c.prefill_chips, c.decode_chips)
        if key not in best or c.batch > best[key].batch:
            best[key] = c
    headings = ["prefill chips", "decode chips", "batch", "TTFT", "TPOT", "tok/s", "chips",
                "chip-h / M tokens", *(["cost / M tokens"] if price is not None else [])]
    rows = [[c.prefill_chips, c.decode_chips, c.batch, seconds(c.ttft, 3), seconds(c.tpot, 3),
             num(c.tokens_per_second, 4), num(c.chips, 3), num(c.chip_hours_per_million_tokens, 3),
             *([num(c.chip_hours_per_million_tokens * price, 3)] if price is not None else [])]
            for c in best.values()]
    lines = [f"{found.model.name} on {found.chip.name}: TTFT <= {seconds(found.ttft_target, 3)}, "
             f"TPOT <= {seconds(found.tpot_target, 3)}, {found.prompt} tokens in, {found.output} out, "
             f"communication overlapped: {found.overlap}",
             f"  scheduling: {SCHEDULING}",
             *([f"  prefix caching: {SHARED_PREFIX.format(tokens=found.shared_prefix)}"]
               if found.shared_prefix else []),
             ""]
    if not rows:
        return "\n".join([*lines, "  no configuration meets both targets"])
    cheapest = found.cheapest
    assert cheapest is not None
    lines += [Table(headings, rows, align="r" * len(headings)).to_text("  "), "",
              f"  cheapest  {cheapest.prefill_chips} prefill and {cheapest.decode_chips} decode chips at "
              f"batch {cheapest.batch} (each pair's largest batch shown; --json lists every configuration)"]
    return "\n".join(lines)
