"""Speculative decoding: the paper's expected tokens, the roofline's cost of verifying, the best draft
length and the batch at which speculation stops paying."""

from __future__ import annotations

import numpy as np
import pytest

import rooflinekit as rk
from rooflinekit.transformer.speculative import (
    best_draft_length,
    expected_tokens,
    paper_speedup,
    speculation,
    stops_paying,
)

BIG = {"target": "llama-3.1-70b", "draft": "llama-3.2-1b", "on": "h100-sxm"}


@pytest.mark.parametrize(("k", "alpha"), [(1, 0.5), (4, 0.8), (8, 0.9), (3, 0.0)])
def test_expected_tokens_match_a_simulation_of_the_acceptance(k: int, alpha: float) -> None:
    rng = np.random.default_rng(36)
    accepted = rng.random((200_000, k)) < alpha
    # Tokens a round yields: the guesses up to the first rejection, and the target's own token.
    run = np.where(accepted.all(axis=1), k, np.argmin(accepted, axis=1))
    assert expected_tokens(k, alpha) == pytest.approx(run.mean() + 1, rel=0.01)
    assert expected_tokens(k, alpha) == pytest.approx(sum(alpha**i for i in range(k + 1)))


def test_verifying_a_few_tokens_costs_about_one_step_until_the_batch_is_large() -> None:
    lone = speculation(**BIG, k=4, alpha=0.8, n_chips=8, batch=1)
    assert lone.t_verify == pytest.approx(lone.t_target, rel=0.05)
    # Where the target is memory-bound, the roofline's gain is the paper's with its c.
    assert lone.speedup == pytest.approx(paper_speedup(4, 0.8, lone.cost_ratio), rel=0.05)
    crowded = speculation("llama-3.1-8b", "llama-3.2-1b", "h100-sxm", k=4, alpha=0.8, batch=512, context=256)
    assert crowded.t_verify > 3 * crowded.t_target  # 5 x 512 tokens: the matmuls are compute-bound


def test_the_best_draft_length_is_the_argmax_and_grows_with_acceptance() -> None:
    best = best_draft_length(**BIG, alpha=0.8, n_chips=8)
    for k in (best.k - 1, best.k + 1):
        assert speculation(**BIG, k=k, alpha=0.8, n_chips=8).speedup <= best.speedup
    assert best_draft_length(**BIG, alpha=0.5, n_chips=8).k < best.k
    assert best_draft_length(**BIG, alpha=0.0, n_chips=8).k == 0  # nothing is ever accepted


def test_speculation_stops_paying_where_the_verification_turns_compute_bound() -> None:
    args = {"k": 4, "alpha": 0.8, "context": 512}
    batch = stops_paying("llama-3.1-8b", "llama-3.2-1b", "h100-sxm", **args)
    assert batch is not None and batch > 1
    at = speculation("llama-3.1-8b", "llama-3.2-1b", "h100-sxm", batch=batch, **args)
    before = speculation("llama-3.1-8b", "llama-3.2-1b", "h100-sxm", batch=batch - 1, **args)
    assert at.speedup <= 1 < before.speedup
    verify = rk.transformer_step("llama-3.1-8b", "h100-sxm", batch=batch, context=512, step_tokens=5)
    assert verify.bound == "compute"


@pytest.mark.parametrize(("args", "named"), [
    ({"k": 4, "alpha": 1.5}, "alpha"),
    ({"k": -1, "alpha": 0.5}, "k"),
    ({"k": 2, "alpha": 0.5, "phase": "prefill"}, "phase"),
])
def test_bad_arguments_are_refused_by_name(args: dict[str, object], named: str) -> None:
    with pytest.raises(rk.RooflineInputError, match=named):
        speculation("llama-3.1-8b", "llama-3.2-1b", "h100-sxm", **args)  # type: ignore[arg-type]
