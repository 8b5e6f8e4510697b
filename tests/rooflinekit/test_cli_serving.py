"""The command line's serving decisions, in-process: `latency-throughput` and `slo-search` print the
library's numbers (--json: one object), mixtures of experts wherever models go, one-line errors."""

from __future__ import annotations

import json

import pytest

import rooflinekit as rk
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


def test_latency_throughput_json_is_the_librarys_curve(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "latency-throughput", "llama-3.1-70b", "--chip", "h100-sxm", "--chips", "8",
                   "--batches", "1,64,512")
    curve = rk.latency_throughput("llama-3.1-70b", "h100-sxm", n_chips=8, batches=[1, 64, 512])
    assert out == json.loads(json.dumps(curve.to_dict()))
    assert (out["knee"], out["plateau"], out["max_batch"]) == (curve.knee, curve.plateau, curve.max_batch)
    points = out["points"]
    assert isinstance(points, list)
    keys = {"tpot_none_overlap", "tpot_full_overlap", "total_tokens_per_second_none_overlap"}
    assert keys <= set(points[0])


def test_latency_throughput_text_names_the_knee_and_the_plateau(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "latency-throughput", "llama-3.1-8b", "--chip", "h100-sxm",
                         "--context", "512")
    curve = rk.latency_throughput("llama-3.1-8b", "h100-sxm", context=512)
    assert status == 0
    assert f"knee      batch {curve.knee}:" in out
    assert f"plateau   batch {curve.plateau}: the compute-bound weight matmuls" in out
    assert "TPOT, no overlap" in out and "TPOT, full overlap" in out


def test_slo_search_json_is_the_librarys_search_with_the_callers_price(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ("slo-search", "llama-3.1-70b", "--chip", "h100-sxm", "--ttft", "0.5", "--tpot", "0.05",
            "--prompt", "2048", "--output", "512")
    out = run_json(capsys, *args, "--price-per-chip-hour", "3")
    found = rk.serving_search("llama-3.1-70b", "h100-sxm", ttft=0.5, tpot=0.05, prompt=2048, output=512)
    assert out == json.loads(json.dumps(found.to_dict(3.0)))
    cheapest = out["cheapest"]
    assert isinstance(cheapest, dict) and found.cheapest is not None
    expected = rk.cost_per_million_tokens(found.cheapest, 3.0)
    assert cheapest["cost_per_million_tokens"] == pytest.approx(expected)
    assert out["scheduling"] == rk.transformer.SCHEDULING
    # No price, no cost: the course never assumes one.
    unpriced = run_json(capsys, *args)
    assert unpriced["price_per_chip_hour"] is None
    assert "cost_per_million_tokens" not in json.dumps(unpriced)


def test_slo_search_text_shows_each_pairs_largest_batch_and_the_cheapest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "slo-search", "llama-3.1-8b", "--chip", "h100-sxm", "--ttft", "0.2",
                         "--tpot", "0.03", "--prompt", "1024", "--output", "256", "--chip-counts", "1,2",
                         "--overlap", "full", "--price-per-chip-hour", "2")
    found = rk.serving_search("llama-3.1-8b", "h100-sxm", ttft=0.2, tpot=0.03, prompt=1024, output=256,
                              chip_counts=(1, 2), overlap="full")
    assert status == 0 and found.cheapest is not None
    assert "scheduling: separate prefill and decode" in out and "cost / M tokens" in out
    assert (f"cheapest  {found.cheapest.prefill_chips} prefill and {found.cheapest.decode_chips} decode "
            f"chips at batch {found.cheapest.batch}") in out
    status, out, _ = run(capsys, "slo-search", "llama-3.1-8b", "--chip", "h100-sxm", "--ttft", "1e-6",
                         "--tpot", "0.03", "--prompt", "1024", "--output", "256")
    assert status == 0 and "no configuration meets both targets" in out


def test_moe_models_go_wherever_models_go(capsys: pytest.CaptureFixture[str]) -> None:
    models = run_json(capsys, "models")["models"]
    assert isinstance(models, list)
    mixtral = next(m for m in models if m["name"] == "mixtral-8x7b")
    assert (mixtral["n_experts"], mixtral["experts_per_token"]) == (8, 2)
    assert mixtral["active_params"] == rk.transformer_shape("mixtral-8x7b").active_params
    step = run_json(capsys, "transformer", "mixtral-8x7b", "--chip", "h100-sxm", "--chips", "2",
                    "--batch", "8")
    assert "expert up" in {op["name"] for op in step["ops"]}  # type: ignore[attr-defined, union-attr]
    curve = run_json(capsys, "latency-throughput", "mixtral-8x7b", "--chip", "h200-sxm", "--chips", "2",
                     "--context", "256", "--batches", "1")
    assert curve["plateau"] == rk.latency_throughput("mixtral-8x7b", "h200-sxm", n_chips=2, context=256,
                                                     batches=[1]).plateau
    found = run_json(capsys, "slo-search", "mixtral-8x7b", "--chip", "h100-sxm", "--ttft", "0.5", "--tpot",
                     "0.05", "--prompt", "1024", "--output", "256")
    assert found["cheapest"] is not None


@pytest.mark.parametrize(("args", "message"), [
    (("latency-throughput", "mixtral-8x7b", "--chip", "h100-sxm"),
     "--chips must be enough h100-sxm chips for mixtral-8x7b's 93 GB"),
    (("latency-throughput", "llama-3.1-8b", "--chip", "h100-sxm", "--batches", "1,0"),
     "argument --batches: must be positive integers separated by commas, such as 1,2,4,8 (got '1,0')"),
    (("latency-throughput", "llama-3.1-8b", "--chip", "h100-sxm", "--batches", "100000"),
     "--batches must be batches of at most 237 (what fits)"),
    (("latency-throughput", "llama-3.1-8b", "--chip", "h100-sxm", "--knee-fraction", "1.5"),
     "argument --knee-fraction: must be a fraction in (0, 1]"),
    (("slo-search", "llama-3.1-8b", "--chip", "h100-sxm", "--ttft", "0", "--tpot", "1", "--prompt", "1",
      "--output", "1"), "argument --ttft: must be a positive, finite number of seconds (got '0')"),
    (("slo-search", "llama-3.1-8b", "--chip", "h100-sxm", "--ttft", "1", "--tpot", "1", "--prompt", "1",
      "--output", "1", "--price-per-chip-hour", "-2"), "argument --price-per-chip-hour: must be a positive"),
    (("slo-search", "llama-3.1-8b", "--chip", "h100-sxm", "--ttft", "1", "--tpot", "1", "--prompt", "1",
      "--output", "1", "--overlap", "some"), "argument --overlap: invalid choice: 'some'"),
    (("slo-search", "llama-3.1-8b", "--chip", "h100-sxm", "--tpot", "1", "--prompt", "1", "--output", "1"),
     "the following arguments are required: --ttft"),
    (("slo-search", "mixtral-8x8b", "--chip", "h100-sxm", "--ttft", "1", "--tpot", "1", "--prompt", "1",
      "--output", "1"), "must be one of llama-3.1-8b"),
])
def test_bad_input_is_one_line_naming_what_is_accepted(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    status, out, err = run(capsys, *args)
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1
