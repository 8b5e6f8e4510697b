"""The ``rooflinekit`` command line: quick roofline questions answered in a terminal.

    rooflinekit chips [--chip-file FILE] [--json]
    rooflinekit matmul B D F (--chip ID | --chip-file FILE) [--x DT] [--w DT] [--out DT]
                       [--compute DT] [--batched] [--peak FLOPS] [--bandwidth BPS] [--json]
    rooflinekit dot N (--chip ID | --chip-file FILE) [--dtype DT] [--peak FLOPS]
                    [--bandwidth BPS] [--json]
    rooflinekit measure [--quick] [--budget SECONDS] [--progress | --no-progress] [--levels] [--json]
    rooflinekit models [--json]
    rooflinekit levels (--chip ID | --chip-file FILE) [--compute DT] [--json]
    rooflinekit transformer MODEL (--chip ID | --chip-file FILE) [--chips N] [--batch B]
                        [--context L] [--phase decode|prefill] [--weights DT] [--kv-cache DT]
                        [--compute DT] [--collective-latency SECONDS] [--peak FLOPS]
                        [--bandwidth BPS] [--json]
    rooflinekit latency-throughput MODEL (--chip ID | --chip-file FILE) [--chips N] [--context L]
                        [--batches B,B,...] [--knee-fraction F] [dtypes, latency, figures] [--json]
    rooflinekit slo-search MODEL (--chip ID | --chip-file FILE) --ttft SECONDS --tpot SECONDS
                        --prompt N --output N [--chip-counts N,N,...] [--overlap none|full]
                        [--price-per-chip-hour PRICE] [dtypes, latency, figures] [--json]

``--chip-file`` reads a chip of your own from a small TOML file (:mod:`rooflinekit.chipfile`).
``--json`` prints one JSON object and nothing else. Bad input exits with status 2 and one
line naming the argument and what is accepted.

One module a command (``chips``, ``matmul``, ``slo_search``...), each with its parser and what it
runs; :mod:`~rooflinekit.cli.program` builds the parser from them and runs one. Each command
resolves its chip and dtypes once (argparse turns ``--chip`` into a
:class:`~rooflinekit.catalog.Chip`, :mod:`~rooflinekit.cli.values`;
:func:`~rooflinekit.cli.chip_options.resolve` finds the peak and bandwidth) and returns an
:class:`~rooflinekit.cli.output.Output`: the data ``--json`` prints and the text printed otherwise.

>>> main(["dot", "1000000", "--chip", "h100-sxm", "--json"])  # doctest: +ELLIPSIS
{"flops": 1999999.0, ..., "bound": "memory"}
0
"""

from rooflinekit.cli.program import build_parser, main

__all__ = ["build_parser", "main"]
