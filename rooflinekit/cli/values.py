"""The values the command line's arguments take: each parses its text or refuses it in one line.

Each is an argparse ``type``: a bad value becomes argparse's one-line error, naming the argument
and what is accepted.

>>> size("8"), sizes("1,2,4")
(8, [1, 2, 4])
>>> size("0")
Traceback (most recent call last):
argparse.ArgumentTypeError: must be a positive integer (got '0')
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rooflinekit._validate import check_count, check_figure, check_fraction, check_size
from rooflinekit.catalog import CHIPS, Chip, chip
from rooflinekit.collectives import check_latency
from rooflinekit.dtypes import DTYPES, dtype
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TRANSFORMERS, TransformerShape, transformer_shape


def _checked(
    check: Callable[[str, Any], Any], convert: Callable[[str], Any], accepted: str
) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = convert(text)
            check("value", value)
            return value
        except (ValueError, RooflineInputError) as error:
            raise argparse.ArgumentTypeError(f"must be {accepted} (got {text!r})") from error

    return parse


size = _checked(check_size, int, "a positive integer")
tokens = _checked(lambda name, value: check_count(name, value, minimum=0), int,
                  "a number of tokens, 0 or more")
figure = _checked(check_figure, float, "a positive, finite number")
duration = _checked(check_figure, float, "a positive, finite number of seconds")
latency = _checked(lambda name, value: check_latency(value, name), float, "a number of seconds, 0 or more")
fraction = _checked(check_fraction, float, "a fraction in (0, 1]")


def sizes(text: str) -> list[int]:
    """A comma-separated list of positive integers: ``1,2,4,8``."""
    try:
        values = [int(part) for part in text.split(",")]
        for value in values:
            check_size("value", value)
    except (ValueError, RooflineInputError) as error:
        raise argparse.ArgumentTypeError(
            f"must be positive integers separated by commas, such as 1,2,4,8 (got {text!r})"
        ) from error
    return values


def chip_id(text: str) -> Chip:
    """A chip of the catalog, by its id."""
    try:
        return chip(text)
    except RooflineInputError as error:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(CHIPS)} (got {text!r})") from error


def chip_file(text: str) -> Chip:
    """A chip of your own, from a TOML file."""
    from rooflinekit.chipfile import load_chip  # tomllib loads only for this option

    try:
        return load_chip(text)
    except RooflineInputError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def model_id(text: str) -> TransformerShape:
    """A transformer model of the library, by its id."""
    try:
        return transformer_shape(text)
    except RooflineInputError as error:
        known = ", ".join(TRANSFORMERS)
        raise argparse.ArgumentTypeError(f"must be one of {known} (got {text!r})") from error


def dtype_name(text: str) -> str:
    """A number format's name."""
    try:
        return dtype(text).name
    except RooflineInputError as error:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(DTYPES)} (got {text!r})") from error
