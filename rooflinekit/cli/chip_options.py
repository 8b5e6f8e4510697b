"""The options that choose the chip a command runs on, and the peak and bandwidth it uses.

``--chip ID`` or ``--chip-file FILE`` (one of them, required), ``--peak`` and ``--bandwidth``
in place of the chip's own, and ``--json``; :func:`resolve` reads them.
"""

from __future__ import annotations

import argparse

from rooflinekit.analysis import Hardware
from rooflinekit.catalog import CHIPS, Chip
from rooflinekit.cli import values
from rooflinekit.errors import RooflineInputError, UnknownNameError


def add_chip_options(command: argparse.ArgumentParser) -> None:
    """``--chip``/``--chip-file``, ``--peak``, ``--bandwidth`` and ``--json`` on ``command``."""
    on = command.add_mutually_exclusive_group(required=True)
    on.add_argument("--chip", type=values.chip_id, metavar="ID", help=f"one of {', '.join(CHIPS)}")
    on.add_argument("--chip-file", type=values.chip_file, dest="chip", metavar="FILE",
                    help="a chip of your own, from a TOML file (see rooflinekit.chipfile)")
    command.add_argument(
        "--peak", type=values.figure, metavar="FLOPS",
        help="override the chip's peak FLOP/s for the compute dtype",
    )
    command.add_argument(
        "--bandwidth", type=values.figure, metavar="BPS", help="override the chip's HBM bandwidth in B/s"
    )
    command.add_argument("--json", action="store_true", help="print one JSON object")


def resolve(on: Chip, compute: str, flag: str, peak: float | None, bandwidth: float | None) -> Hardware:
    """The peak and bandwidth a command uses: the chip's, or the ``--peak``/``--bandwidth`` given.

    Without ``--peak`` the chip needs a dense peak for ``compute``; if it has none, the error
    names ``flag`` (the option that chose the dtype).

    >>> from rooflinekit.catalog import chip
    >>> resolve(chip("tpu-v5e"), "int8", "--compute", None, 8.1e11)
    Hardware(peak=394000000000000.0, bandwidth=810000000000.0)
    """
    try:
        resolved_peak = peak if peak is not None else on.peak(compute)
    except UnknownNameError as error:
        has = ", ".join(error.known)
        accepted = f"a dtype {on.id} has a dense peak for ({has}), or any dtype with --peak"
        raise RooflineInputError(flag, accepted, compute) from error
    return Hardware(resolved_peak, bandwidth if bandwidth is not None else on.hbm_bandwidth)
