"""Goodput under random arrivals: a discrete-event simulation (SimPy) of the two schedulings.

The searches of :mod:`~rooflinekit.transformer.decisions` and :mod:`~rooflinekit.transformer.chunked`
take requests to arrive evenly spaced, so nothing ever waits. Here they arrive at random, as a
**Poisson process** of ``rate`` requests a second, and queue. **Goodput** is then the largest rate at
which at least :data:`ATTAINMENT` (90 %) of the requests meet both targets, per chip (the measure of
DistServe, Zhong et al., 2024, Section 2).

The assumptions, stated (:data:`ASSUMPTIONS`):

- every request has ``prompt`` tokens in and ``output`` out; requests are served first come first
  served; the simulation runs ``requests`` requests and leaves out the first tenth (the warm-up);
- times are the configuration's, from the per-operation model: a prefill takes ``config.ttft``; every
  decode step (or mixed step) takes the step at the full batch with every cache at its longest
  (``config.tpot``), however many requests it carries: pessimistic at light load;
- **disaggregated**: a pool of ``prefill_groups`` groups prefills one prompt each at a time; then the
  request waits for one of ``decode_groups x batch`` decode slots and holds it ``output`` steps.
  The KV cache's hand-off is not counted. With one prefill group the prefill queue is M/D/1, whose
  mean TTFT has the closed form DistServe uses (:func:`md1_mean_ttft`); the tests check the simulation
  against it;
- **co-located**: ``groups`` groups share the arrivals at random (each sees a Poisson process of
  ``rate / groups``); a group's step carries one token of each decoding request (at most ``batch``)
  and up to ``chunk`` prompt tokens of the queue's first prompts, a prompt admitted while a decode
  slot is free for it; a request's first token comes at the end of the step that finishes its prompt;
- a request meets the targets when its TTFT is at most ``ttft`` and its mean time per output token
  after the first, waits included, at most ``tpot``.

>>> round(md1_mean_ttft(rate=5.0, service=0.1), 3)        # DistServe's M/D/1: D + R D^2 / (2 (1 - R D))
0.15
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import simpy

from rooflinekit._validate import check_count, check_figure
from rooflinekit.errors import RooflineInputError
from rooflinekit.transformer.chunked import ColocatedConfig
from rooflinekit.transformer.decisions import ServingConfig

ATTAINMENT = 0.9
"""The share of requests that must meet both targets for a rate to count as goodput."""

ASSUMPTIONS = (
    "Poisson arrivals; every request prompt tokens in and output out, first come first served; "
    "prefill and every decode or mixed step at the configuration's worst-case time; the KV hand-off "
    "not counted; co-located groups each see an equal random share of the arrivals; a request meets "
    "the targets when its TTFT and its mean time per output token (waits included) meet them"
)
"""What :func:`attainment` and :func:`goodput` assume, in words."""


def md1_mean_ttft(rate: float, service: float) -> float:
    """Mean TTFT of a single prefill server with Poisson arrivals and a fixed prefill time: the
    M/D/1 queue's mean wait (Pollaczek-Khinchine) plus the prefill, as DistServe writes it
    (Zhong et al., 2024, Section 3.1): ``D + R D ** 2 / (2 (1 - R D))``.

    >>> md1_mean_ttft(rate=9.0, service=0.1) > 5 * md1_mean_ttft(rate=1.0, service=0.1)
    True
    """
    r, d = check_figure("rate", rate), check_figure("service", service, unit="seconds")
    if r * d >= 1:
        raise RooflineInputError("rate", f"below {1 / d:.4g} requests a second (one prefill server's)", rate)
    return float(d + r * d * d / (2 * (1 - r * d)))


@dataclass(frozen=True)
class Attainment:
    """What a simulation at one rate found: each measured request's TTFT and TPOT (seconds)."""

    rate: float
    ttfts: tuple[float, ...]
    tpots: tuple[float, ...]
    ttft_target: float
    tpot_target: float

    @property
    def share(self) -> float:
        """Share of the requests that met both targets."""
        slack = 1 + 1e-9  # the clock's rounding: a request on its target meets it
        met = sum(1 for a, b in zip(self.ttfts, self.tpots, strict=True)
                  if a <= self.ttft_target * slack and b <= self.tpot_target * slack)
        return met / len(self.ttfts)

    @property
    def mean_ttft(self) -> float:
        return float(np.mean(self.ttfts))

    def to_dict(self) -> dict[str, Any]:
        return {"rate": self.rate, "share": self.share, "mean_ttft": self.mean_ttft,
                "p90_ttft": float(np.percentile(self.ttfts, 90)),
                "p90_tpot": float(np.percentile(self.tpots, 90)), "requests": len(self.ttfts)}


@dataclass(frozen=True)
class Pools:
    """How many groups of each kind the simulated server has, and chips in all."""

    prefill_groups: int = 0
    decode_groups: int = 0
    groups: int = 0

    def chips(self, config: ServingConfig | ColocatedConfig) -> int:
        if isinstance(config, ColocatedConfig):
            return self.groups * config.n_chips
        return self.prefill_groups * config.prefill_chips + self.decode_groups * config.decode_chips


def _arrivals(rate: float, requests: int, seed: int) -> np.ndarray:
    return np.cumsum(np.random.default_rng(seed).exponential(1.0 / rate, requests))


def _disaggregated(env: simpy.Environment, config: ServingConfig, pools: Pools, times: np.ndarray,
                   record: list[tuple[float, float]]) -> None:
    prefill = simpy.Resource(env, capacity=check_count("prefill_groups", pools.prefill_groups))
    slots = simpy.Resource(env, capacity=check_count("decode_groups", pools.decode_groups) * config.batch)

    def request(arrival: float) -> Any:
        yield env.timeout(arrival - env.now)
        with prefill.request() as turn:
            yield turn
            yield env.timeout(config.ttft)
        first = env.now
        with slots.request() as slot:
            yield slot
            yield env.timeout(config.output * config.tpot)
        record.append((first - arrival, (env.now - first) / config.output))

    for arrival in times:
        env.process(request(float(arrival)))


def _colocated(env: simpy.Environment, config: ColocatedConfig, times: np.ndarray,
               record: list[tuple[float, float]]) -> None:
    waiting: list[list[float]] = []  # [arrival, prompt tokens left]
    decoding: list[list[float]] = []  # [arrival, first token time, tokens left]
    arrived = simpy.Store(env)

    def source() -> Any:
        for arrival in times:
            yield env.timeout(float(arrival) - env.now)
            yield arrived.put([float(arrival), float(config.prompt)])

    def server() -> Any:
        while True:
            while arrived.items or not (waiting or decoding):
                waiting.append((yield arrived.get()))
            budget = float(config.chunk)
            for prefilling, prompt in enumerate(waiting):
                if budget <= 0 or len(decoding) + prefilling >= config.batch:
                    break
                taken = min(budget, prompt[1])
                prompt[1] -= taken
                budget -= taken
            yield env.timeout(config.tpot)
            _after_step(env.now, waiting, decoding, config.output, record)

    env.process(source())
    env.process(server())


def _after_step(now: float, waiting: list[list[float]], decoding: list[list[float]], output: int,
                record: list[tuple[float, float]]) -> None:
    """Every decoding request gains a token; prompts whose last chunk ran get their first token."""
    for request in decoding:
        request[2] -= 1
    for arrival, first, _ in [r for r in decoding if r[2] <= 0]:
        record.append((first - arrival, (now - first) / output))
    decoding[:] = [r for r in decoding if r[2] > 0]
    done = [p for p in waiting if p[1] <= 0]
    waiting[:] = [p for p in waiting if p[1] > 0]
    decoding += [[arrival, now, float(output)] for arrival, _ in done]


def attainment(config: ServingConfig | ColocatedConfig, *, rate: float, ttft: float, tpot: float,
               pools: Pools, requests: int = 2000, seed: int = 0) -> Attainment:
    """Simulate ``requests`` Poisson arrivals at ``rate`` a second on ``pools`` of ``config``'s groups.

    >>> from rooflinekit.transformer.chunked import colocated_config
    >>> c = colocated_config("llama-3.1-8b", "h100-sxm", n_chips=1, batch=64, prompt=1024, output=256)
    >>> a = attainment(c, rate=10.0, ttft=0.2, tpot=0.03, pools=Pools(groups=1), requests=500)
    >>> round(a.share, 2)
    1.0
    """
    r = check_figure("rate", rate)
    count = check_count("requests", requests)
    record: list[tuple[float, float]] = []
    env = simpy.Environment()
    if isinstance(config, ColocatedConfig):
        groups = check_count("groups", pools.groups)
        _colocated(env, config, _arrivals(r / groups, count, seed), record)
    else:
        _disaggregated(env, config, pools, _arrivals(r, count, seed), record)
    env.run()  # until every request has finished (the server then waits for an arrival that never comes)
    measured = record[count // 10:]
    return Attainment(r, tuple(a for a, _ in measured), tuple(b for _, b in measured),
                      check_figure("ttft", ttft, unit="seconds"), check_figure("tpot", tpot, unit="seconds"))


def goodput(config: ServingConfig | ColocatedConfig, *, ttft: float, tpot: float, pools: Pools,
            requests: int = 2000, seed: int = 0) -> float:
    """The largest Poisson rate (requests a second, within 1 %) at which :data:`ATTAINMENT` of the
    requests meet both targets on ``pools``; 0 when not even a trickle does.

    >>> from rooflinekit.transformer.chunked import colocated_config
    >>> c = colocated_config("llama-3.1-8b", "h100-sxm", n_chips=1, batch=64, prompt=1024, output=256)
    >>> round(goodput(c, ttft=0.2, tpot=0.03, pools=Pools(groups=1), requests=500), 1)  # 28.4 evenly spaced
    25.1
    """
    capacity = _capacity(config, pools)

    def meets(rate: float) -> bool:
        found = attainment(config, rate=rate, ttft=ttft, tpot=tpot, pools=pools, requests=requests, seed=seed)
        return found.share >= ATTAINMENT

    return _largest(meets, capacity)


def _capacity(config: ServingConfig | ColocatedConfig, pools: Pools) -> float:
    """Requests a second the pools finish when never idle (a rate above it queues without bound)."""
    if isinstance(config, ColocatedConfig):
        return pools.groups * config.batch / (config.output * config.tpot)
    decode = pools.decode_groups * config.batch / (config.output * config.tpot)
    return min(pools.prefill_groups / config.ttft, decode)


def _largest(meets: Callable[[float], bool], capacity: float) -> float:
    low, high = 0.0, capacity
    if not meets(capacity * 0.01):
        return 0.0
    low = capacity * 0.01
    while high - low > 0.01 * capacity:
        middle = (low + high) / 2
        low, high = (middle, high) if meets(middle) else (low, middle)
    return low


def best_split(config: ServingConfig, *, chips: int, ttft: float, tpot: float, requests: int = 2000,
               seed: int = 0) -> tuple[Pools, float]:
    """The split of ``chips`` into prefill and decode groups with the largest goodput, and that goodput.

    >>> from rooflinekit.transformer.decisions import serving_search
    >>> found = serving_search("llama-3.1-8b", "h100-sxm", ttft=0.2, tpot=0.03, prompt=1024, output=256)
    >>> config = found.cheapest
    >>> pools, rate = best_split(config, chips=4, ttft=0.2, tpot=0.03, requests=500)
    >>> pools.prefill_groups, pools.decode_groups, round(rate, 1)
    (2, 2, 115.5)
    """
    total = check_count("chips", chips)
    best = (Pools(), 0.0)
    for p in range(1, total // config.prefill_chips + 1):
        d = (total - p * config.prefill_chips) // config.decode_chips
        if d < 1:
            break
        pools = Pools(prefill_groups=p, decode_groups=d)
        rate = goodput(config, ttft=ttft, tpot=tpot, pools=pools, requests=requests, seed=seed)
        if rate > best[1]:
            best = (pools, rate)
    return best


def evenly_spaced_rate(config: ServingConfig | ColocatedConfig, pools: Pools) -> float:
    """The rate the pools sustain with evenly spaced arrivals (no queueing), for comparison.

    >>> from rooflinekit.transformer.chunked import colocated_config
    >>> c = colocated_config("llama-3.1-8b", "h100-sxm", n_chips=1, batch=64, prompt=1024, output=256)
    >>> round(evenly_spaced_rate(c, Pools(groups=1)), 1)
    28.4
    """
    if not math.isfinite(_capacity(config, pools)):
        raise RooflineInputError("pools", "at least one group of each kind the scheduling needs", pools)
    return _capacity(config, pools)
