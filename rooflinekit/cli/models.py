"""``rooflinekit models``: the transformer models, their ids, shapes and sizes.

>>> "llama-3.1-8b" in [m["name"] for m in run(argparse.Namespace()).data["models"]]
True
"""

from __future__ import annotations

import argparse
from typing import Any

from rooflinekit.cli.output import Output
from rooflinekit.models import TRANSFORMERS
from rooflinekit.transformer.report import shapes_table

NAME = "models"


def add(commands: Any) -> None:
    """The command's parser, added to ``commands`` (argparse's subparsers)."""
    models = commands.add_parser(NAME, help="list the transformer models (their ids, shapes and sizes)")
    models.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> Output:
    """The models as a table."""
    shapes = list(TRANSFORMERS.values())
    return Output({"models": [s.to_dict() for s in shapes]}, shapes_table(shapes).to_text())
