"""The answer of the commands on one operation (``matmul``, ``dot``): the analysis's figures,
then the critical batches where they apply.

>>> batch_text(float("inf"))
'none (never compute-bound)'
"""

from __future__ import annotations

import math
from typing import Any

from rooflinekit.analysis import Roofline
from rooflinekit.cli.output import Output
from rooflinekit.fmt import num, seconds

UNITS = {
    "flops": "FLOP",
    "bytes_read": "B",
    "bytes_written": "B",
    "intensity": "FLOP/B",
    "critical_intensity": "FLOP/B",
}


def batch_text(batch: float | None) -> str:
    """A critical batch in words: a number of tokens, or why there is none."""
    if batch is None:  # a batched matmul: its intensity, hence its bound, is the same for every B
        return "none (the bound does not depend on B)"
    if math.isinf(batch):
        return "none (never compute-bound)"
    return f"{num(batch, 4)} tokens"


def answer(title: str, result: Roofline, batches: dict[str, float | None]) -> Output:
    """A roofline answer: the analysis's figures, then the critical batches (where they apply)."""
    data: dict[str, Any] = {
        key: getattr(result, key)
        for key in ("flops", "bytes_read", "bytes_written", "intensity", "critical_intensity", "t_math",
                    "t_comms", "t_lower", "t_upper", "bound")
    }
    lines = [title]
    for key, value in data.items():
        shown = seconds(value, 4) if key.startswith("t_") else value if key == "bound" else num(value, 4)
        lines.append(f"  {key:<22} {shown} {UNITS.get(key, '')}".rstrip())
    for key, batch in batches.items():
        lines.append(f"  {key:<22} {batch_text(batch)}")
        data[key] = None if batch is None or math.isinf(batch) else batch  # JSON has no infinity
    return Output(data, "\n".join(lines))
