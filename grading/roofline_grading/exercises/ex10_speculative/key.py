"""Exercise 10's answer key: each part's question, the known mistakes and the readings.

Each graded part is one function below that builds its question: the model answer
(:mod:`.answers`), the tolerance, the public cases (the statement's own figures first, from
:mod:`.given`), how a random case is drawn, the known mistakes and the readings (the ways a careful
student may read the part's statement, and whether each earns the point).

A known mistake in the speedup is the library's round with one thing changed (the draft's steps
free, the verification priced as ``k + 1`` steps, or the expected tokens mistaken), and the best
draft length and the batch where speculation stops paying are the same searches over that speedup.

>>> [q.id for q in exercise().questions]
['ex10.expected_tokens', 'ex10.verify_time', 'ex10.speedup', 'ex10.best_draft_length', 'ex10.stops_paying']
>>> [m.name for m in exercise().misconceptions]
['independent-guesses', 'no-bonus-token', 'infinite-draft', 'verify-as-steps', 'free-draft']
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from roofline_grading.authoring import COUNT, MODEL, Exercise, earns, log_uniform, random_chip, refused
from roofline_grading.questions import FunctionQuestion, Misconception, Mistake
from rooflinekit.words import N_

from . import answers, given

__all__ = ["exercise"]

INDEPENDENT = Misconception(
    "independent-guesses",
    N_(
        "This matches 1 + k alpha: each guess kept with probability alpha, whatever happened before it. "
        "The target keeps the longest run of guesses it agrees with, so a guess counts only if every "
        "guess before it was accepted too: guess i is kept with probability alpha^i."
    ),
)
NO_BONUS = Misconception(
    "no-bonus-token",
    N_(
        "This matches 1 + alpha + ... + alpha^(k-1), a sum that stops one term short. With k guesses a "
        "target step yields up to k + 1 tokens: the run of accepted guesses and then one token of the "
        "target's own, so the sum runs to alpha^k."
    ),
)
INFINITE_DRAFT = Misconception(
    "infinite-draft",
    N_(
        "This matches 1 / (1 - alpha), the tokens of an endless draft. A draft of k tokens stops after "
        "k guesses: the sum 1 + alpha + ... + alpha^k has k + 1 terms, (1 - alpha^(k+1)) / (1 - alpha)."
    ),
)
VERIFY_AS_STEPS = Misconception(
    "verify-as-steps",
    N_(
        "This matches pricing the verification as k + 1 decode steps. It is one step over k + 1 "
        "positions a sequence: the weights are read once and each sequence's cache once, and only the "
        "matmuls' FLOPs grow k + 1 times, which costs time only where they pass the weights' read "
        "time, 2P / bandwidth."
    ),
)
FREE_DRAFT = Misconception(
    "free-draft",
    N_(
        "This matches leaving out the draft's own steps. A round is k decode steps of the draft model, "
        "each reading its weights and its cache, and then the verification: count k draft steps in "
        "the round's time."
    ),
)

FIGURES = (given.CONTEXT, *answers.H100)
"""(context, peak, bandwidth) of the statement."""
HBM_BYTES = given.CHIP.hbm_bytes


# --- The known mistakes' speedups: the library's round with one thing changed --------------


def _changed(change: Callable[[Any], float]) -> Callable[..., Any]:
    """A speedup of ``(k, alpha, batch, context, peak, bandwidth)``: ``change`` of the round."""
    return lambda *case: change(answers.speculation_round(*case))


def _tokens(wrong: Callable[[int, float], float]) -> Callable[..., Any]:
    """The speedup with ``wrong(k, alpha)`` expected tokens."""
    return _changed(lambda r: r.speedup * wrong(r.k, r.alpha) / r.expected_tokens)


def _independent(k: Any, alpha: Any) -> Any:
    return 1.0 + k * alpha


def _no_bonus(k: Any, alpha: Any) -> Any:
    return (1.0 - alpha**k) / (1.0 - alpha)


def _infinite(k: Any, alpha: Any) -> Any:
    return 1.0 / (1.0 - alpha)


SPEEDUPS: dict[Misconception, Callable[..., Any]] = {
    INDEPENDENT: _tokens(_independent),
    NO_BONUS: _tokens(_no_bonus),
    INFINITE_DRAFT: _tokens(_infinite),
    VERIFY_AS_STEPS: _changed(lambda r: dataclasses.replace(r, t_verify=(r.k + 1) * r.t_target).speedup),
    FREE_DRAFT: _changed(lambda r: dataclasses.replace(r, t_draft=0.0 * r.t_draft).speedup),
}
"""The speedup each misconception computes."""


def _mistakes(search: Callable[..., Any], *names: Misconception) -> tuple[Mistake, ...]:
    """The known mistakes of a search over the speedup: the same search over the mistaken speedup."""
    return tuple(Mistake(m, lambda *case, m=m: search(*case, by=SPEEDUPS[m])) for m in names)


# --- Random cases ------------------------------------------------------------------------


def _k(rng: np.random.Generator) -> int:
    return int(rng.integers(2, 11))


def _alpha(rng: np.random.Generator, low: float = 0.4) -> float:
    return float(rng.uniform(low, 0.95))


def _context(rng: np.random.Generator) -> int:
    return int(rng.choice([256, 512, 1024, 2048, 4096, 8192]))


def _random_verify(rng: np.random.Generator) -> tuple[Any, ...]:
    """(k, batch, context, peak, bandwidth): batches from 1 to 512, either side of the ridge."""
    return (_k(rng), int(log_uniform(rng, 1, 512)), _context(rng), *random_chip(rng))


def _random_speedup(rng: np.random.Generator) -> tuple[Any, ...]:
    """(k, alpha, batch, context, peak, bandwidth)."""
    k, batch, context, peak, bandwidth = _random_verify(rng)
    return k, _alpha(rng), batch, context, peak, bandwidth


def _random_best(rng: np.random.Generator) -> tuple[Any, ...]:
    """(alpha, batch, context, peak, bandwidth): small batches and good drafts, where speculation pays."""
    return (_alpha(rng, 0.6), int(rng.integers(1, 9)), int(rng.choice([256, 512, 1024, 2048])),
            *random_chip(rng))


def _random_stop(rng: np.random.Generator) -> tuple[Any, ...]:
    """(k, alpha, context, peak, bandwidth, hbm_bytes): room for 400 to 4000 sequences beside the
    weights, drawn again until speculation stops paying at a batch that fits (the public cases
    hold one where it never does)."""
    while True:
        context = int(rng.choice([256, 512]))
        room = log_uniform(rng, 400, 4000) * context * given.TARGET_KV
        case = (int(rng.integers(2, 7)), _alpha(rng, 0.6), context, *random_chip(rng),
                float(round(answers.WEIGHT_BYTES * given.TARGET_PARAMS + room)))
        if answers.stops_paying(*case) < math.inf:
            return case


# --- The parts, (a) to (e) ---------------------------------------------------------------


def expected_tokens() -> FunctionQuestion:
    """(a) The tokens a target step yields."""
    return FunctionQuestion(
        "ex10.expected_tokens",
        "(k, alpha)",
        answers.expected_tokens,
        MODEL,
        cases=((given.K, given.ALPHA), (2, 0.5), (10, 0.9), (0, 0.7)),
        random_case=lambda rng: (_k(rng), _alpha(rng)),
        mistakes=(Mistake(INDEPENDENT, _independent), Mistake(NO_BONUS, _no_bonus),
                  Mistake(INFINITE_DRAFT, _infinite)),
        readings=(
            earns("sum", "the sum 1 + alpha + ... + alpha^k term by term",
                  lambda k, alpha: sum(alpha**i for i in range(k + 1))),
            refused("accepted-only", "the accepted guesses alone, the target's own token left out",
                    lambda k, alpha: answers.expected_tokens(k, alpha) - 1, N_("one token of its own")),
        ),
    )


def verify_time() -> FunctionQuestion:
    """(b) What verifying k guesses costs."""
    return FunctionQuestion(
        "ex10.verify_time",
        "(k, batch, context, peak, bandwidth)",
        answers.verify_time,
        MODEL,
        cases=((given.K, 1, *FIGURES), (given.K, 256, *FIGURES), (7, 64, 2048, 1e15, 2e12)),
        random_case=_random_verify,
        mistakes=(Mistake(VERIFY_AS_STEPS, lambda k, *rest: (k + 1) * answers.verify_time(0, *rest)),),
        readings=(
            refused("cache-per-position", "each of the k + 1 positions reading the cache on its own",
                    lambda k, batch, context, peak, bandwidth: (
                        answers.verify_time(k, batch, context, peak, bandwidth)
                        + k * batch * context * given.TARGET_KV / bandwidth),
                    N_("each sequence's cache is read once")),
        ),
    )


def speedup() -> FunctionQuestion:
    """(c) The speedup."""
    return FunctionQuestion(
        "ex10.speedup",
        "(k, alpha, batch, context, peak, bandwidth)",
        answers.speedup,
        MODEL,
        cases=((given.K, given.ALPHA, 1, *FIGURES), (given.K, given.ALPHA, 256, *FIGURES),
               (8, 0.6, 32, 2048, 1e15, 2e12)),
        random_case=_random_speedup,
        mistakes=tuple(Mistake(m, f) for m, f in SPEEDUPS.items()),
        readings=(
            earns("throughput", "tokens a second over the batch, with speculation over without",
                  lambda k, alpha, batch, *rest: (
                      batch * answers.expected_tokens(k, alpha)
                      / answers.speculation_round(k, alpha, batch, *rest).t_round)
                  / (batch / answers.verify_time(0, batch, *rest))),
        ),
    )


def best_draft_length() -> FunctionQuestion:
    """(d) The best draft length."""
    return FunctionQuestion(
        "ex10.best_draft_length",
        "(alpha, batch, context, peak, bandwidth)",
        answers.best_draft_length,
        COUNT,
        cases=((given.ALPHA, 1, *FIGURES), (given.ALPHA, 64, *FIGURES), (0.95, 1, *FIGURES),
               (0.1, 1, *FIGURES)),
        random_case=_random_best,
        mistakes=_mistakes(answers.best_draft_length, *SPEEDUPS),
        readings=(
            refused("from-one", "draft lengths from 1, not from 0",
                    lambda *case: max(range(1, given.MAX_K + 1), key=lambda k: answers.speedup(k, *case)),
                    N_("from 0 (no speculation)")),
        ),
    )


def stops_paying() -> FunctionQuestion:
    """(e) The batch where speculation stops paying."""
    return FunctionQuestion(
        "ex10.stops_paying",
        "(k, alpha, context, peak, bandwidth, hbm_bytes)",
        answers.stops_paying,
        COUNT,
        cases=((given.K, given.ALPHA, *FIGURES, HBM_BYTES), (2, 0.8, 256, *answers.H100, HBM_BYTES),
               (given.K, given.ALPHA, 2048, *answers.H100, HBM_BYTES)),
        random_case=_random_stop,
        mistakes=_mistakes(answers.stops_paying, *SPEEDUPS),
        readings=(
            refused("last-paying", "the largest batch at which speculation still pays",
                    lambda *case: answers.stops_paying(*case) - 1, N_("the smallest batch at which")),
        ),
    )


def exercise() -> Exercise:
    """Exercise 10's answer key: its parts in the statement's order, the misconceptions it exists
    to catch, and the figures its statement gives."""
    return Exercise(
        "ex10_speculative",
        questions=(expected_tokens(), verify_time(), speedup(), best_draft_length(), stops_paying()),
        misconceptions=(INDEPENDENT, NO_BONUS, INFINITE_DRAFT, VERIFY_AS_STEPS, FREE_DRAFT),
        given=(
            given.TARGET_PARAMS, given.TARGET_KV, given.DRAFT_PARAMS, given.DRAFT_KV,
            given.K, given.ALPHA, *FIGURES, HBM_BYTES,
        ),
    )
