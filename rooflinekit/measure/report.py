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


KERNEL_LEVELS_TITLE = (
    "kernels on this machine's hierarchical roofline: each against the roof of the level its working set"
    " lives in,\n  the smallest in order that holds it (a cache's roof: its copy bandwidth above; DRAM's: the"
    " best STREAM kernel's)"
)


def _kernel_levels(placed: list[dict[str, Any]]) -> Table:
    """The kernels placed on their levels' roofs (:meth:`KernelOnLevel.to_dict` rows)."""
    return Table(
        ["kernel", "working set", "level", "level B/s", "intensity", "achieved", "level's roof", "efficiency",
         "bound"],
        [[k["name"], si(k["working_set_bytes"], "B"), k["level"], si(k["level_bandwidth"], "B/s"),
          num(k["intensity"]), si(k["achieved_flops_per_second"], "FLOP/s"),
          si(k["roof_flops_per_second"], "FLOP/s"), pct(k["efficiency"], 2), k["bound"]] for k in placed],
        align="lrlrrrrrl",
    )


def format_cache_levels(levels: list[dict[str, Any]], kernels: list[dict[str, Any]] | None = None,
                        placed: list[dict[str, Any]] | None = None) -> str:
    """The cache levels measured (:func:`~rooflinekit.measure.run.measure_cache_levels`, as dicts),
    each with the cache size its working set was sized from; then the kernels ``placed`` on the
    hierarchical roofline (:func:`~rooflinekit.measure.records.kernels_on_levels`, as dicts), or,
    given only the kernels of a measurement (an older saved report), the level each one's bytes
    fit in (a working set no cache holds is DRAM's)."""
    rows = [[lv["level"], "-" if lv["cache_bytes"] is None else si(lv["cache_bytes"], "B"),
             si(lv["working_set_bytes"], "B"), si(lv["bandwidth"], "B/s"), si(lv["seconds"], "s"),
             lv["repeats"], "yes" if lv.get("in_order", True) else "no, see below"] for lv in levels]
    lines = ["copy bandwidth by memory level (one thread; working set: half the cache, or 8x the last"
             " level),",
             "  each in order when faster than every level outside it (DRAM's roof included)",
             Table(["level", "cache", "working set", "bandwidth", "median", "repeats", "in order"], rows,
                   align="lrrrrrl").to_text(indent="  ")]
    lines += [f"  - {lv['note']}" for lv in levels if lv.get("note")]
    if placed:
        lines += ["", KERNEL_LEVELS_TITLE, _kernel_levels(placed).to_text(indent="  ")]
    elif kernels:
        lines += ["", "where each kernel's bytes live (the smallest level that holds them)"]
        lines += [f"  {k['name']:<40} {si(k['bytes'], 'B'):>10}  {level_of(k['bytes'], levels)}"
                  for k in kernels]
    return "\n".join(lines)


def level_of(nbytes: float, levels: list[dict[str, Any]]) -> str:
    """The smallest measured level whose cache holds ``nbytes``; ``"DRAM"`` when none does.

    >>> level_of(1e5, [{"level": "L1d", "cache_bytes": 49152}, {"level": "L2", "cache_bytes": 2**21},
    ...                {"level": "DRAM", "cache_bytes": None}])
    'L2'
    """
    for lv in levels:
        if lv["cache_bytes"] is not None and nbytes <= lv["cache_bytes"]:
            return str(lv["level"])
    return "DRAM"


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
    if data.get("cache_levels"):
        lines += ["", format_cache_levels(data["cache_levels"], data["kernels"], data.get("kernel_levels"))]
    return "\n".join(lines)
