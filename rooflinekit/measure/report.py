"""The text report of a measurement, as ``rooflinekit measure`` prints it.

It reads the plain data of :meth:`~rooflinekit.measure.records.Measurement.to_dict` (or the
JSON the command line wrote), so a saved measurement can be reported again. Numbers, units and
tables are written by :mod:`rooflinekit.fmt`, as in the book.
"""

from __future__ import annotations

from typing import Any

from rooflinekit.fmt import Table, num, pct, si


def _summary(data: dict[str, Any]) -> list[str]:
    chip, machine = data["chip"], data["machine"]
    mode = "quick" if data["quick"] else "full"
    arrays, cache = si(data["array_bytes"], "B"), si(machine["last_level_cache_bytes"], "B")
    best = data["best_stream"]
    on = f"{best['threads']} thread{'s' if best['threads'] != 1 else ''}"
    budget = f"{mode} mode, budget {si(data['budget'], 's')}"
    lines = [
        f"{chip['name']}: measured in {si(data['elapsed'], 's')} ({budget})",
        f"  memory bandwidth   {si(data['bandwidth'], 'B/s')}  (best STREAM kernel: {best['name']} on {on};"
        f" arrays of {arrays}, last-level cache {cache})",
    ]
    for dtype, peak in data["peaks"].items():
        lines.append(
            f"  peak {dtype:<13} {si(peak, 'FLOP/s')}  (best numpy matmul; critical intensity"
            f" {num(data['critical_intensity'][dtype])} FLOP/B)"
        )
    return lines


def _streams(data: dict[str, Any]) -> Table:
    return Table(
        ["kernel", "formula", "threads", "array", "bandwidth", "median", "repeats"],
        [
            [s["name"], s["formula"], s["threads"], si(s["array_bytes"], "B"), si(s["bandwidth"], "B/s"),
             si(s["seconds"], "s"), s["repeats"]]
            for s in data["streams"] + data["cache_sweep"]
        ],
        align="llrrrrr",
    )


def _matmuls(data: dict[str, Any]) -> Table:
    return Table(
        ["dtype", "n", "FLOP/s", "median", "repeats"],
        [
            [m["dtype"], m["n"], si(m["flops_per_second"], "FLOP/s"), si(m["seconds"], "s"), m["repeats"]]
            for m in data["matmuls"]
        ],
    )


def _kernels(data: dict[str, Any]) -> Table:
    return Table(
        ["kernel", "intensity", "achieved", "roof", "efficiency", "bound"],
        [
            [k["name"], num(k["intensity"]), si(k["achieved_flops_per_second"], "FLOP/s"),
             si(k["attainable_flops_per_second"], "FLOP/s"), pct(k["efficiency"], 2), k["bound"]]
            for k in data["kernels"]
        ],
        align="lrrrrl",
    )


def format_report(data: dict[str, Any]) -> str:
    """The text report of a measurement, from :meth:`Measurement.to_dict` (or its JSON)."""
    lines = _summary(data)
    lines += ["", "STREAM bandwidth (bytes counted: arrays read + arrays written, no write-allocate)"]
    lines.append(_streams(data).to_text(indent="  "))
    lines += ["", "numpy matmul throughput"]
    lines.append(_matmuls(data).to_text(indent="  "))
    lines += ["", "kernels on the measured roofline (FLOPs and bytes from rooflinekit's cost models)"]
    lines.append(_kernels(data).to_text(indent="  "))
    lines += ["", data["gpu"]["message"]]
    return "\n".join(lines)
