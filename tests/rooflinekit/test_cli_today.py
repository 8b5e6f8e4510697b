"""The command line for chapter 13: `speculate`, `colocate` and `--figures calibrated` print the library's
numbers (--json: one object); a bad argument is one line naming it, exit status 2."""

from __future__ import annotations

import json

import pytest

import rooflinekit as rk
from rooflinekit.transformer.chunked import colocated_search
from rooflinekit.transformer.decisions import serving_search
from rooflinekit.transformer.speculative import MAX_DRAFT, best_draft_length, speculation, stops_paying
from tests.support.cli import run_cli


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command line in this process, as every CLI test runs it (tests.support.cli)."""
    done = run_cli(*args)
    return done.returncode, done.stdout, done.stderr


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    status, out, err = run(capsys, *args, "--json")
    assert (status, err) == (0, "")
    parsed = json.loads(out)
    assert isinstance(parsed, dict)
    return parsed


SPECULATE = ("speculate", "llama-3.1-8b", "--draft", "llama-3.2-1b", "--chip", "h100-sxm", "--alpha", "0.8",
             "--context", "512")


def test_speculate_json_is_the_librarys_round_and_break_even(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, *SPECULATE, "--k", "4")
    ours = speculation("llama-3.1-8b", "llama-3.2-1b", "h100-sxm", k=4, alpha=0.8, context=512)
    assert out["speedup"] == pytest.approx(ours.speedup)
    assert out["expected_tokens"] == pytest.approx((1 - 0.8**5) / (1 - 0.8))
    assert out["stops_paying"] == stops_paying("llama-3.1-8b", "llama-3.2-1b", "h100-sxm", k=4, alpha=0.8,
                                               context=512)


def test_speculate_without_k_picks_the_best_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, *SPECULATE)
    best = best_draft_length("llama-3.1-8b", "llama-3.2-1b", "h100-sxm", alpha=0.8, context=512)
    assert status == 0
    assert f"checking {best.k} tokens of llama-3.2-1b" in out
    assert "stops paying at" in out and "the paper's formula" in out
    assert f"the best of 0 to {MAX_DRAFT}" in out or best.k == MAX_DRAFT


def test_speculate_says_when_the_best_draft_is_the_longest_tried(capsys: pytest.CaptureFixture[str]) -> None:
    """At a high acceptance rate the search's cap, not the roofline, ends the search: the output says so."""
    args = ("speculate", "llama-3.1-70b", "--draft", "llama-3.2-1b", "--chip", "h100-sxm", "--chips", "8",
            "--alpha", "0.9")
    best = best_draft_length("llama-3.1-70b", "llama-3.2-1b", "h100-sxm", alpha=0.9, n_chips=8)
    assert best.k == MAX_DRAFT  # the case this test is about
    status, out, _ = run(capsys, *args)
    assert status == 0
    assert f"the longest tried (0 to {MAX_DRAFT})" in out and "--k" in out
    assert run_json(capsys, *args)["searched_up_to"] == MAX_DRAFT


def test_colocate_json_has_both_schedulings_cheapest(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "colocate", "llama-3.1-8b", "--chip", "h100-sxm", "--ttft", "0.2",
                   "--tpot", "0.03", "--prompt", "1024", "--output", "256", "--chip-counts", "1")
    together, apart = out["colocated"], out["disaggregated"]
    assert isinstance(together, dict) and isinstance(apart, dict)
    assert together["tpot"] <= 0.03 and together["ttft"] <= 0.2
    assert apart["decode_chips"] == 1


TARGETS = ("llama-3.1-8b", "--chip", "h100-sxm", "--ttft", "0.2", "--tpot", "0.03", "--prompt", "1024",
           "--output", "256")


def test_shared_prefix_is_the_librarys_search_with_it_cached(capsys: pytest.CaptureFixture[str]) -> None:
    targets = {"ttft": 0.2, "tpot": 0.03, "prompt": 1024, "output": 256, "chip_counts": [1]}
    out = run_json(capsys, "colocate", *TARGETS, "--chip-counts", "1", "--shared-prefix", "768")
    together = colocated_search("llama-3.1-8b", "h100-sxm", shared_prefix=768, **targets).cheapest
    apart = serving_search("llama-3.1-8b", "h100-sxm", shared_prefix=768, **targets).cheapest
    assert together is not None and apart is not None
    assert out["colocated"] == pytest.approx(together.to_dict())
    assert out["disaggregated"] == pytest.approx(apart.to_dict())
    assert out["shared_prefix"] == 768 and "768 tokens" in str(out["assumptions"])
    status, text, _ = run(capsys, "slo-search", *TARGETS, "--chip-counts", "1", "--shared-prefix", "768")
    assert status == 0 and "prefix caching: every prompt starts with the same 768 tokens" in text
    assert f"at batch {apart.batch}" in text


def test_figures_calibrated_is_the_librarys_calibrated_step(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "transformer", "llama-3.1-70b", "--chip", "h100-sxm", "--chips", "8",
                   "--figures", "calibrated")
    step = rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, figures="calibrated")
    assert out["figures"] == "calibrated"
    assert out["t_lower"] == pytest.approx(step.t_lower)


@pytest.mark.parametrize(("args", "message"), [
    ((*SPECULATE, "--alpha", "1.5"), "argument --alpha: must be a fraction in (0, 1] (got '1.5')"),
    (("speculate", "llama-3.1-8b", "--chip", "h100-sxm", "--alpha", "0.5"),
     "the following arguments are required: --draft"),
    (("transformer", "llama-3.1-8b", "--chip", "h100-sxm", "--figures", "measured"), "argument --figures"),
    (("transformer", "llama-3.1-8b", "--chip", "h100-sxm", "--figures", "calibrated", "--collective-latency",
      "1e-5"), "--figures must be ideal when an efficiency or a collective latency is given"),
    (("colocate", *TARGETS, "--shared-prefix", "-1"),
     "argument --shared-prefix: must be a number of tokens, 0 or more"),
    (("slo-search", *TARGETS, "--shared-prefix", "1024"),
     "--shared-prefix must be a number of tokens from 0 to 1023 (shorter than the prompt) (got 1024)"),
])
def test_bad_input_is_one_line_naming_the_argument(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    status, out, err = run(capsys, *args)
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1
