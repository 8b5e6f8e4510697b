"""Speculative decoding on the roofline: a small draft model guesses, the target model checks.

A **draft** model proposes ``k`` tokens one decode step at a time; the **target** model then runs
one step over the ``k + 1`` positions at once (the ``k`` guesses and the token after them), keeps the
longest run of guesses it agrees with and adds one token of its own. If each guess is accepted with
probability ``alpha``, independently (the assumption of Leviathan, Kalman and Matias, 2023,
Section 3.1), a target step yields on average

    E = (1 - alpha ** (k + 1)) / (1 - alpha)         (k + 1 when alpha is 1)

tokens (:func:`expected_tokens`). The roofline argument: in decode a target step reads every
weight however few tokens it carries, so verifying ``k + 1`` tokens costs about one ordinary step
until the batch times ``k + 1`` turns the step's matmuls compute-bound. Both the draft's steps and
the verification are steps of the same per-operation model
(:func:`~rooflinekit.transformer.step.transformer_step`, the verification with ``step_tokens=k + 1``),
so the gain is that model's, not a formula's guess at the cost ratio:

    speedup = E x t(target, 1 token) / (k x t(draft, 1 token) + t(target, k + 1 tokens))

The paper's improvement factor (its Theorem 3.8), ``(1 - alpha ** (k + 1)) / ((1 - alpha) (c k + 1))``
with ``c`` the draft's step over the target's, is the same expression with the verification taken
to cost one target step (:func:`paper_speedup`); the roofline shows where that stops being true.

Assumptions, stated: the draft runs on the same chips as the target, one sequence's guesses at a
time, each sequence of the batch drafting and verifying in step with the others; the draft's
weights and cache are not charged against the target's memory; acceptance is independent of the
position and of the batch.

>>> round(expected_tokens(4, 0.8), 4)
3.3616
>>> s = speculation("llama-3.1-70b", "llama-3.2-1b", "h100-sxm", k=4, alpha=0.8, n_chips=8, batch=1)
>>> round(s.speedup, 2), round(s.t_verify / s.t_target, 3)     # verifying 5 tokens costs about 1 step
(3.09, 1.014)
>>> best_draft_length("llama-3.1-70b", "llama-3.2-1b", "h100-sxm", alpha=0.8, n_chips=8).k
11
>>> stops_paying("llama-3.1-70b", "llama-3.2-1b", "h100-sxm", k=4, alpha=0.8, n_chips=8, context=2048)
282
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rooflinekit._validate import check_count, check_fraction
from rooflinekit.catalog import Chip
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.memory import memory_check
from rooflinekit.transformer.setup import make_setup
from rooflinekit.transformer.step import transformer_step

MAX_DRAFT = 16
"""The longest draft :func:`best_draft_length` tries."""


def _alpha(alpha: float) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
        raise RooflineInputError("alpha", "an acceptance rate from 0 to 1", alpha)
    return float(alpha)


def expected_tokens(k: int, alpha: float) -> float:
    """Tokens a target step yields on average with ``k`` drafted tokens each accepted with
    probability ``alpha``: ``(1 - alpha ** (k + 1)) / (1 - alpha)`` (Leviathan et al., 2023, Eq. 1).

    >>> expected_tokens(0, 0.5), expected_tokens(3, 1.0), expected_tokens(2, 0.5)
    (1.0, 4.0, 1.75)
    """
    a = _alpha(alpha)
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise RooflineInputError("k", "a draft length, 0 or more", k)
    if a == 1.0:
        return float(k + 1)
    return (1.0 - a ** (k + 1)) / (1.0 - a)


def paper_speedup(k: int, alpha: float, cost_ratio: float) -> float:
    """The paper's expected improvement in wall time (Leviathan et al., 2023, Theorem 3.8), which
    takes a verification to cost one target step and a draft step ``cost_ratio`` (``c``) of one.

    >>> round(paper_speedup(4, 0.8, 0.05), 3)      # alpha 0.8, a draft 20 x cheaper
    2.801
    """
    if cost_ratio:
        check_fraction("cost_ratio", cost_ratio)
    return expected_tokens(k, alpha) / (cost_ratio * k + 1.0)


@dataclass(frozen=True)
class Speculation:
    """One round of speculative decoding at a batch: ``k`` draft steps and one verification.

    Times in seconds, for the whole batch's step on each chip (the step's ``t_sequential``).
    """

    target: TransformerShape
    draft: TransformerShape
    k: int
    alpha: float
    batch: int
    t_draft: float
    t_verify: float
    t_target: float

    @property
    def expected_tokens(self) -> float:
        """Tokens each sequence gains per round, on average."""
        return expected_tokens(self.k, self.alpha)

    @property
    def t_round(self) -> float:
        """``k`` draft steps and one verification."""
        return self.k * self.t_draft + self.t_verify

    @property
    def cost_ratio(self) -> float:
        """The paper's ``c``: a draft step over a target step of one token."""
        return self.t_draft / self.t_target

    @property
    def speedup(self) -> float:
        """Tokens a second with speculation over tokens a second without (above 1: it pays)."""
        return self.expected_tokens * self.t_target / self.t_round

    @property
    def tokens_per_second(self) -> float:
        """Tokens a second over the batch."""
        return self.batch * self.expected_tokens / self.t_round

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target.name, "draft": self.draft.name, "k": self.k, "alpha": self.alpha,
            "batch": self.batch, "expected_tokens": self.expected_tokens, "t_draft": self.t_draft,
            "t_verify": self.t_verify, "t_target": self.t_target, "t_round": self.t_round,
            "cost_ratio": self.cost_ratio, "speedup": self.speedup,
            "paper_speedup": paper_speedup(self.k, self.alpha, min(1.0, self.cost_ratio)),
            "tokens_per_second": self.tokens_per_second,
        }


def speculation(target: str | TransformerShape, draft: str | TransformerShape, on: str | Chip, *,
                k: int, alpha: float, **settings: Any) -> Speculation:
    """Speculative decoding of ``target`` with ``draft`` on the same chips: ``settings`` are
    :func:`~rooflinekit.transformer.step.transformer_step`'s (``n_chips``, ``batch``, ``context``...).

    >>> speculation("llama-3.1-8b", "llama-3.2-1b", "h100-sxm", k=0, alpha=0.7).speedup < 1  # no draft
    False
    """
    a = _alpha(alpha)
    expected_tokens(k, a)  # checks k
    if "phase" in settings or "step_tokens" in settings:
        key = "phase" if "phase" in settings else "step_tokens"
        accepted = "left out (speculation is decode, k + 1 tokens verified)"
        raise RooflineInputError(key, accepted, settings[key])
    big, small = transformer_shape(target, "target"), transformer_shape(draft, "draft")
    plain = transformer_step(big, on, **settings)
    verify = transformer_step(big, on, step_tokens=k + 1, **settings) if k else plain
    drafted = transformer_step(small, on, **settings).t_sequential if k else 0.0
    return Speculation(big, small, k, a, plain.setup.batch, drafted, verify.t_sequential, plain.t_sequential)


def best_draft_length(target: str | TransformerShape, draft: str | TransformerShape, on: str | Chip, *,
                      alpha: float, max_k: int = MAX_DRAFT, **settings: Any) -> Speculation:
    """The draft length from 0 (no speculation) to ``max_k`` with the largest speedup.

    >>> best_draft_length("llama-3.1-70b", "llama-3.2-1b", "h100-sxm", alpha=0.5, n_chips=8).k
    4
    """
    top = check_count("max_k", max_k)
    rounds = [speculation(target, draft, on, k=k, alpha=alpha, **settings) for k in range(top + 1)]
    return max(rounds, key=lambda r: r.speedup)


def stops_paying(target: str | TransformerShape, draft: str | TransformerShape, on: str | Chip, *,
                 k: int, alpha: float, **settings: Any) -> int | None:
    """The smallest batch at which speculation with ``k`` drafted tokens no longer pays (speedup
    at most 1), up to the largest batch whose cache fits; ``None`` if it pays at every batch.

    ``settings`` are :func:`speculation`'s, ``batch`` left out.

    >>> stops_paying("llama-3.1-8b", "llama-3.2-1b", "h100-sxm", k=4, alpha=0.8, context=512)
    243
    """
    if "batch" in settings:
        raise RooflineInputError("batch", "left out (the search chooses it)", settings["batch"])
    shape = transformer_shape(target, "target")
    setup = make_setup(on, step_tokens=k + 1 if k else 1, **settings)
    high = memory_check(shape, setup).max_batch

    def pays(batch: int) -> bool:
        return speculation(shape, draft, on, k=k, alpha=alpha, batch=batch, **settings).speedup > 1.0

    if high < 1 or pays(high):
        return None
    low = 1
    if not pays(low):
        return low
    while high - low > 1:  # pays(low), not pays(high)
        middle = (low + high) // 2
        low, high = (middle, high) if pays(middle) else (low, middle)
    return high
