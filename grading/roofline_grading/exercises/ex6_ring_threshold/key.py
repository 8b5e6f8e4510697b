"""Exercise 6's answer key: each part's question, the known mistakes and the readings.

Each graded part is one function below that builds its question: the model answer
(:mod:`.answers`), the tolerance, the public cases (the statement's own figures first, from
:mod:`.given`), how a random case is drawn, the known mistakes and the readings.

>>> [q.id for q in exercise().questions][:3]
['ex6.link_bandwidth', 'ex6.nic_bandwidth', 'ex6.all_reduce_bytes']
>>> [m.misconception.name for m in exercise().question("all_reduce_bytes").mistakes]
['no-n-minus-one', 'one-phase']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from roofline_grading.authoring import MODEL, WIDTH, Exercise, log_uniform, refused, roundings
from roofline_grading.questions import FunctionQuestion, Misconception, Mistake, Reading
from rooflinekit.words import N_

from . import answers, given

__all__ = ["exercise"]

BOTH_DIRECTIONS = Misconception(
    "both-directions",
    N_(
        "This matches counting both directions of a link as one. A link's figure for both directions "
        "together is twice what it carries each way; in a ring each chip sends to one neighbour over one "
        "direction while it receives over the other, so its bytes go at the one-way bandwidth."
    ),
)
BITS_AS_BYTES = Misconception(
    "bits-as-bytes",
    N_(
        "This matches reading Gb/s (gigabits) as GB/s (gigabytes). A network card's figure is in bits: "
        "divide by 8 for bytes."
    ),
)
NO_N_MINUS_ONE = Misconception(
    "no-n-minus-one",
    N_(
        "This matches sending the whole payload twice, 2 x payload. In a ring all-reduce each chip sends "
        "n - 1 pieces of payload / n in each of its two phases: 2 (n - 1) / n x payload, the whole "
        "payload (not twice it) for two chips."
    ),
)
ONE_PHASE = Misconception(
    "one-phase",
    N_(
        "This matches counting one phase of the ring all-reduce, (n - 1) / n x payload. That is the "
        "reduce-scatter alone (or an all-gather); the all-reduce needs both, and sends twice as much."
    ),
)
PER_CHIP_SHARE = Misconception(
    "per-chip-share",
    N_(
        "This matches giving each GPU's share of the width, D / n. The question asks for the matmul's "
        "whole width D, which the n GPUs split between them."
    ),
)

PEAK = given.CHIP.peak("bf16")
LINK = given.CHIP.link_bandwidth
GIGA, BITS_PER_BYTE = answers.GIGA, answers.BITS_PER_BYTE


def _random_split(rng: np.random.Generator) -> tuple[int, float, float]:
    """(chips, peak, one-way link bandwidth): 2 to 256 chips, links of 1e10 to 1e12 B/s."""
    link = log_uniform(rng, 1e10, 1e12)
    return int(rng.integers(2, 257)), log_uniform(rng, 1e14, 5e15), link


def _split_d(n: Any, peak: float, link: float, *, sent: float = 1.0) -> float:
    """The threshold when each chip is thought to send ``sent`` times the ring's bytes (a mistake's):
    the time to send, and so the threshold, grows with the bytes."""
    return float(answers.critical_d(n, peak, link)) * sent


def _share(threshold: Callable[..., Any], n: Callable[..., int]) -> Callable[..., Any]:
    """Each GPU's share, D / n, of a threshold on the whole width D (``n`` of the arguments)."""
    return lambda *arguments: threshold(*arguments) / n(*arguments)


def _two_chip_d(peak: float, link: float) -> float:
    return float(answers.critical_d(2, peak, link))


def _width_readings(threshold: Callable[..., Any], n: Callable[..., int]) -> tuple[Reading, ...]:
    """A width D: kept with decimals or rounded, or, not earning, each GPU's share of it."""
    share = refused("per-gpu-share", "each GPU's share of the width, D / n", _share(threshold, n),
                    N_("the whole width D, not each GPU's share D / n"), PER_CHIP_SHARE)
    return (*roundings(threshold, "elements"), share)


def link_bandwidth() -> FunctionQuestion:
    """(a) One way of an NVLink, in B/s."""
    return FunctionQuestion(
        "ex6.link_bandwidth",
        "(both_ways_gigabytes_per_second)",
        answers.link_bandwidth,
        MODEL,
        cases=((given.NVLINK_BOTH_WAYS_GB,), (100.0,)),
        random_case=lambda rng: (round(log_uniform(rng, 20.0, 4000.0), 1),),
        mistakes=(Mistake(BOTH_DIRECTIONS, lambda gb: gb * GIGA),),
        readings=(
            refused("binary-gigabytes", "a gigabyte as 2**30 bytes",
                    lambda gb: gb * 2.0**30 / 2, N_("(1 GB is 1e9 bytes)")),
            refused("both-ways", "the figure for both directions, as the bandwidth of the link",
                    lambda gb: gb * GIGA,
                    N_("in one direction, from a datasheet's figure for both directions together"),
                    BOTH_DIRECTIONS),
        ),
    )


def nic_bandwidth() -> FunctionQuestion:
    """(b) A network card's B/s."""
    return FunctionQuestion(
        "ex6.nic_bandwidth",
        "(gigabits_per_second)",
        answers.nic_bandwidth,
        MODEL,
        cases=((given.NIC_GIGABITS,), (100.0,)),
        random_case=lambda rng: (round(log_uniform(rng, 10.0, 1600.0), 1),),
        mistakes=(Mistake(BITS_AS_BYTES, lambda gbit: gbit * GIGA),),
        readings=(
            refused("binary-gigabits", "a gigabit as 2**30 bits",
                    lambda gbit: gbit * 2.0**30 / BITS_PER_BYTE, N_("(gigabits per second, 1e9 bits)")),
            refused("bits-as-bytes", "the figure in bytes, as a GB/s",
                    lambda gbit: gbit * GIGA, N_("(gigabits per second, 1e9 bits)"), BITS_AS_BYTES),
        ),
    )


def all_reduce_bytes() -> FunctionQuestion:
    """(c) The bytes each chip sends in a ring all-reduce."""
    return FunctionQuestion(
        "ex6.all_reduce_bytes",
        "(payload_bytes, n_chips)",
        answers.all_reduce_bytes,
        MODEL,
        cases=((2.0 * 8192 * 8192, given.GPUS), (1000.0, 2), (1e6, 5)),
        random_case=lambda rng: (log_uniform(rng, 1e3, 1e10), int(rng.integers(2, 513))),
        mistakes=(
            Mistake(NO_N_MINUS_ONE, lambda payload, n: 2 * payload),
            Mistake(ONE_PHASE, lambda payload, n: answers.all_reduce_bytes(payload, n) / 2),
        ),
        readings=(
            refused("sent-and-received", "the bytes each chip sends and receives",
                    lambda payload, n: 2 * answers.all_reduce_bytes(payload, n),
                    N_("not what it also receives, nor the total over the chips")),
            refused("all-chips", "the bytes all the chips send together",
                    lambda payload, n: n * answers.all_reduce_bytes(payload, n),
                    N_("not what it also receives, nor the total over the chips")),
            refused("one-phase", "the reduce-scatter alone, which leaves each chip a piece of the sum",
                    lambda payload, n: answers.all_reduce_bytes(payload, n) / 2,
                    N_("every chip ends with the sum"), ONE_PHASE),
        ),
    )


def two_chip_critical_d() -> FunctionQuestion:
    """(d) The width D that keeps a matmul split over two chips compute-bound."""
    return FunctionQuestion(
        "ex6.two_chip_critical_d",
        "(peak, link_bandwidth)",
        answers.two_chip_critical_d,
        WIDTH,
        cases=((PEAK, LINK), (1e15, 1e11)),
        random_case=lambda rng: _random_split(rng)[1:],
        mistakes=(
            Mistake(NO_N_MINUS_ONE, lambda peak, link: _split_d(2, peak, link, sent=2)),
            Mistake(ONE_PHASE, lambda peak, link: _split_d(2, peak, link, sent=0.5)),
            Mistake(BOTH_DIRECTIONS, lambda peak, link: _split_d(2, peak, 2 * link)),
            Mistake(PER_CHIP_SHARE, _share(_two_chip_d, lambda peak, link: 2)),
        ),
        readings=_width_readings(_two_chip_d, lambda peak, link: 2),
    )


def critical_d() -> FunctionQuestion:
    """(e) That width over n chips."""
    return FunctionQuestion(
        "ex6.critical_d",
        "(n_chips, peak, link_bandwidth)",
        answers.critical_d,
        WIDTH,
        cases=((given.GPUS, PEAK, LINK), (2, PEAK, LINK), (64, 1e15, 1e11)),
        random_case=_random_split,
        mistakes=(
            Mistake(NO_N_MINUS_ONE, lambda n, peak, link: _split_d(n, peak, link, sent=n / (n - 1))),
            Mistake(ONE_PHASE, lambda n, peak, link: _split_d(n, peak, link, sent=0.5)),
            Mistake(BOTH_DIRECTIONS, lambda n, peak, link: _split_d(n, peak, 2 * link)),
            Mistake(PER_CHIP_SHARE, _share(answers.critical_d, lambda n, peak, link: n)),
        ),
        readings=_width_readings(answers.critical_d, lambda n, peak, link: n),
    )


def _random_nodes(rng: np.random.Generator) -> tuple[int, float, float]:
    """(nodes, peak, the NIC's Gb/s): 2 to 128 nodes, cards of 25 to 800 Gb/s."""
    return (
        int(rng.integers(2, 129)),
        log_uniform(rng, 1e14, 5e15),
        float(rng.choice([25, 50, 100, 200, 400, 800])),
    )


def nodes_critical_d() -> FunctionQuestion:
    """(f) That width over GPUs in different nodes, summed over their network cards."""
    nic = answers.nic_bandwidth
    return FunctionQuestion(
        "ex6.nodes_critical_d",
        "(n_nodes, peak, gigabits_per_second)",
        answers.nodes_critical_d,
        WIDTH,
        cases=((2, PEAK, given.NIC_GIGABITS), (16, 1e15, 200.0)),
        random_case=_random_nodes,
        mistakes=(
            Mistake(BITS_AS_BYTES, lambda n, peak, gbit: _split_d(n, peak, BITS_PER_BYTE * nic(gbit))),
            Mistake(NO_N_MINUS_ONE, lambda n, peak, gbit: _split_d(n, peak, nic(gbit), sent=n / (n - 1))),
            Mistake(ONE_PHASE, lambda n, peak, gbit: _split_d(n, peak, nic(gbit), sent=0.5)),
            Mistake(BOTH_DIRECTIONS, lambda n, peak, gbit: _split_d(n, peak, 2 * nic(gbit))),
            Mistake(PER_CHIP_SHARE, _share(answers.nodes_critical_d, lambda n, peak, gbit: n)),
        ),
        readings=_width_readings(answers.nodes_critical_d, lambda n, peak, gbit: n),
    )


def exercise() -> Exercise:
    """Exercise 6's answer key: its parts in the statement's order, the misconceptions it exists
    to catch, and the figures its statement gives."""
    return Exercise(
        "ex6_ring_threshold",
        questions=(
            link_bandwidth(),
            nic_bandwidth(),
            all_reduce_bytes(),
            two_chip_critical_d(),
            critical_d(),
            nodes_critical_d(),
        ),
        misconceptions=(BOTH_DIRECTIONS, BITS_AS_BYTES, NO_N_MINUS_ONE),
        given=(PEAK, given.NVLINK_BOTH_WAYS_GB, given.NIC_GIGABITS, given.GPUS),
    )
