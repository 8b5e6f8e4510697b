"""The command line's contract: JSON keys, numbers from the library, one-line errors."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rooflinekit as rk
from rooflinekit.exercises import EX1_CHIP, INT8
from tests.support.cli import Done, run_cli

MATMUL_KEYS = {
    "flops",
    "bytes_read",
    "bytes_written",
    "intensity",
    "critical_intensity",
    "t_math",
    "t_comms",
    "t_lower",
    "t_upper",
    "bound",
    "critical_batch",
    "critical_batch_approx",
}
DOT_KEYS = MATMUL_KEYS - {"critical_batch", "critical_batch_approx"}


def run(*args: str) -> Done:
    """The command line in this process (tests.support.cli); the installed script is tried below."""
    return run_cli(*args)


def run_json(*args: str) -> dict[str, object]:
    done = run(*args, "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    parsed = json.loads(done.stdout)  # one JSON object and nothing else
    assert isinstance(parsed, dict)
    return parsed


def test_matmul_json_has_the_contract_keys_and_the_library_numbers() -> None:
    out = run_json("matmul", "4096", "8192", "8192", "--chip", "tpu-v5e")
    assert set(out) == MATMUL_KEYS
    expected = rk.analyze(rk.matmul_cost(4096, 8192, 8192), "tpu-v5e")
    for key in DOT_KEYS:
        assert out[key] == getattr(expected, key), key
    assert out["critical_batch"] == rk.matmul_critical_batch(8192, 8192, "tpu-v5e")
    assert out["critical_batch_approx"] == rk.matmul_critical_batch_approx("tpu-v5e")


def test_matmul_exercise_1_through_the_command_line() -> None:
    out = run_json(
        "matmul",
        "512",
        "8192",
        "8192",
        "--chip",
        "tpu-v5e",
        "--x",
        "int8",
        "--w",
        "int8",
        "--out",
        "int8",
        "--compute",
        "int8",
        "--bandwidth",
        "8.1e11",
    )
    cost = rk.matmul_cost(512, 8192, 8192, **INT8)
    assert out["critical_batch_approx"] == pytest.approx(
        rk.matmul_critical_batch_approx(EX1_CHIP, w="int8", compute="int8")
    )
    assert out["bytes_read"] == cost.bytes_read
    assert out["t_math"] == rk.analyze(cost, EX1_CHIP, compute="int8").t_math


def test_peak_override_changes_the_compute_figure() -> None:
    out = run_json("matmul", "8", "64", "64", "--chip", "h100-sxm", "--peak", "1e15")
    assert out["critical_intensity"] == pytest.approx(1e15 / rk.chip("h100-sxm").hbm_bandwidth)


def test_no_crossover_is_null() -> None:
    out = run_json("matmul", "8", "128", "128", "--chip", "tpu-v5e")
    assert out["critical_batch"] is None
    assert out["bound"] == "memory"


def test_batched_matmul_has_no_critical_batch() -> None:
    out = run_json(
        "matmul",
        "64",
        "8192",
        "8192",
        "--chip",
        "tpu-v5e",
        "--batched",
        "--x",
        "int8",
        "--w",
        "int8",
        "--out",
        "int8",
        "--compute",
        "int8",
    )
    assert out["intensity"] == pytest.approx(rk.batched_matmul_cost(64, 8192, 8192, **INT8).intensity)
    assert out["bound"] == "memory"
    assert out["critical_batch"] is None and out["critical_batch_approx"] is None


def test_dot_json() -> None:
    out = run_json("dot", "1000000", "--chip", "h100-sxm")
    assert set(out) == DOT_KEYS
    assert out["intensity"] == rk.dot_cost(1_000_000).intensity
    assert out["bound"] == "memory"


def test_chips_json_lists_the_catalog() -> None:
    out = run_json("chips")
    chips = out["chips"]
    assert isinstance(chips, list)
    assert [c["id"] for c in chips] == list(rk.CHIPS)
    assert all(c["sources"] for c in chips)


def test_text_output_is_readable() -> None:
    done = run("matmul", "4096", "8192", "8192", "--chip", "tpu-v5e")
    assert done.returncode == 0
    assert "bf16[4096,8192] . bf16[8192,8192] -> bf16[4096,8192] on TPU v5e" in done.stdout
    assert "compute" in done.stdout
    chips = run("chips")
    assert chips.returncode == 0 and "h100-sxm" in chips.stdout


def test_text_output_reads_like_the_book() -> None:
    """Figures in the book's style (rooflinekit.fmt): 1.97e14, not 1.97e+14; times with SI prefixes."""
    from rooflinekit.fmt import num, seconds

    chips = run("chips").stdout
    assert "e+" not in chips and "1.97e14" in chips and "8.2e11" in chips
    v5e = next(line for line in chips.splitlines() if line.startswith("tpu-v5e "))
    assert v5e.split()[-1] == num(rk.chip("tpu-v5e").critical_intensity("bf16"), 4)
    matmul = run("matmul", "4096", "8192", "8192", "--chip", "tpu-v5e").stdout
    r = rk.analyze(rk.matmul_cost(4096, 8192, 8192), "tpu-v5e")
    assert "e+" not in matmul
    assert f"  t_lower                {seconds(r.t_lower, 4)}\n" in matmul
    assert f"  flops                  {num(r.flops, 4)} FLOP\n" in matmul


def test_text_output_of_a_batched_matmul_shows_its_shapes_and_why_there_is_no_critical_batch() -> None:
    # Compute-bound at every batch (a tiny peak): "never compute-bound" would be wrong here.
    done = run("matmul", "64", "512", "256", "--chip", "tpu-v5e", "--batched", "--peak", "1e9")
    assert done.returncode == 0
    assert "bf16[64,512] . bf16[64,512,256] -> bf16[64,256] on TPU v5e" in done.stdout
    assert "compute" in done.stdout and "never compute-bound" not in done.stdout
    assert "critical_batch         none (the bound does not depend on B)" in done.stdout
    no_crossover = run("matmul", "8", "128", "128", "--chip", "tpu-v5e")
    assert "critical_batch         none (never compute-bound)" in no_crossover.stdout


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("rooflinekit")
    found = str(script) if script.exists() else shutil.which("rooflinekit")
    assert found, "the rooflinekit console script is not installed in this environment"
    done = subprocess.run(
        [found, "dot", "4", "--chip", "b200", "--json"], capture_output=True, text=True, check=False
    )
    assert json.loads(done.stdout)["flops"] == 7.0


# --- a transformer on the roofline --------------------------------------------------------------

TRANSFORMER_KEYS = {"params", "kv_cache_bytes_per_token", "max_batch", "t_lower", "t_sequential",
                    "t_collectives_hidden", "t_overlapped", "bound", "tokens_per_second", "ops"}
OP_KEYS = {"name", "flops", "bytes", "intensity", "bound"}


def test_transformer_json_is_the_librarys_step() -> None:
    args = ("llama-3.1-70b", "--chip", "h100-sxm", "--chips", "8", "--batch", "64", "--context", "2048")
    out = run_json("transformer", *args)
    step = rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, batch=64, context=2048)
    assert set(out) >= TRANSFORMER_KEYS
    assert out == json.loads(json.dumps(step.to_dict()))
    assert (out["params"], out["max_batch"]) == (step.model.params, step.max_batch)
    assert out["kv_cache_bytes_per_token"] == step.model.kv_cache_bytes_per_token("bf16")
    assert out["tokens_per_second"] == 64 / step.t_lower
    ops = out["ops"]
    assert isinstance(ops, list) and [op["name"] for op in ops] == [p.op.name for p in step.ops]
    for op, placed in zip(ops, step.ops, strict=True):
        assert set(op) >= OP_KEYS
        assert (op["flops"], op["bytes"], op["bound"]) == (placed.op.flops, placed.op.bytes, placed.bound)
    assert out["bound"] == step.bound == "memory"


def test_transformer_context_is_the_cache_in_decode_and_the_prompt_in_prefill() -> None:
    decode = run_json("transformer", "llama-3.1-8b", "--chip", "b200", "--context", "512")
    prefill = run_json("transformer", "llama-3.1-8b", "--chip", "b200", "--context", "512",
                       "--phase", "prefill", "--batch", "2")
    assert decode["t_lower"] == rk.transformer_step("llama-3.1-8b", "b200", context=512).t_lower
    expected = rk.transformer_step("llama-3.1-8b", "b200", phase="prefill", batch=2, context=512)
    assert prefill["t_lower"] == expected.t_lower and prefill["bound"] == expected.bound == "compute"
    assert prefill["tokens_per_second"] == 2 * 512 / expected.t_lower


def test_transformer_dtypes_latency_and_figures_of_ones_own() -> None:
    out = run_json("transformer", "llama-3.1-70b", "--chip", "h100-sxm", "--chips", "4", "--weights", "fp8",
                   "--compute", "fp8", "--collective-latency", "1e-5", "--bandwidth", "3e12")
    on = rk.chip("h100-sxm").derive(peaks={"fp8": rk.chip("h100-sxm").peak("fp8")}, hbm_bandwidth=3e12)
    step = rk.transformer_step("llama-3.1-70b", on, n_chips=4, weights="fp8", compute="fp8",
                               collective_latency=1e-5)
    assert out["t_lower"] == step.t_lower
    assert out["dtypes"] == {"weights": "fp8", "kv_cache": "fp8", "activations": "bf16", "compute": "fp8"}


def test_transformer_on_a_chip_file(tmp_path: Path) -> None:
    from tests.rooflinekit.test_chip_file import GOOD

    path = tmp_path / "x1.toml"
    path.write_text(GOOD, encoding="utf-8")
    out = run_json("transformer", "llama-3.1-8b", "--chip-file", str(path), "--batch", "8")
    step = rk.transformer_step("llama-3.1-8b", rk.load_chip(path), batch=8)
    assert (out["chip"], out["t_lower"]) == ("x1", step.t_lower)


def test_transformer_text_reads_like_the_book() -> None:
    from rooflinekit.transformer import operations_table, step_summary

    done = run("transformer", "llama-3.1-70b", "--chip", "h100-sxm", "--chips", "8", "--batch", "64")
    assert done.returncode == 0 and done.stderr == ""
    step = rk.transformer_step("llama-3.1-70b", "h100-sxm", n_chips=8, batch=64)
    lines = done.stdout.splitlines()
    assert lines[0] == ("llama-3.1-70b on 8 x NVIDIA H100 SXM: decode, batch 64, 2048 tokens in the cache"
                        " (bf16 weights, bf16 KV cache, bf16 compute)")
    assert "e+" not in done.stdout
    table = operations_table(step)
    for row in table.cells()[1:]:  # every operation, its figures as the book writes them
        shown = next(line for line in lines if line.startswith(f"  {row[0]} "))
        assert re.split(r" {2,}", shown.strip()) == row
    assert f"  step time (lower bound)  {rk.fmt.seconds(step.t_lower, 4)} (one decode step)" in lines
    for line in step_summary(step):
        assert f"  {line.label:<24} {line.text}" in lines


def test_models_lists_the_ids_the_transformer_command_takes() -> None:
    out = run_json("models")
    models = out["models"]
    assert isinstance(models, list)
    assert [m["name"] for m in models] == list(rk.TRANSFORMERS)
    assert models[1]["params"] == rk.transformer_shape(models[1]["name"]).params
    text = run("models").stdout.splitlines()
    assert text[0].split()[:3] == ["model", "layers", "d_model"]
    assert [line.split()[0] for line in text[1:]] == list(rk.TRANSFORMERS)


BAD_INPUTS = [
    (("matmul", "0", "8", "8", "--chip", "tpu-v5e"), "argument B: must be a positive integer (got '0')"),
    (("matmul", "8", "-8", "8", "--chip", "tpu-v5e"), "argument D: must be a positive integer (got '-8')"),
    (("matmul", "8", "8", "1.5", "--chip", "tpu-v5e"), "argument F: must be a positive integer (got '1.5')"),
    (("matmul", "8", "8", "x", "--chip", "tpu-v5e"), "argument F: must be a positive integer (got 'x')"),
    (
        ("matmul", "8", "8", "8", "--chip", "a100"),
        f"argument --chip: must be one of {', '.join(rk.CHIPS)} (got 'a100')",  # the catalog's chips
    ),
    (
        ("matmul", "8", "8", "8", "--chip", "tpu-v5e", "--w", "int3"),
        "argument --w: must be one of fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4, int4 (got 'int3')",
    ),
    (
        ("matmul", "8", "8", "8", "--chip", "tpu-v5e", "--compute", "fp8"),
        "error: --compute must be a dtype tpu-v5e has a dense peak for (bf16, int8), or any dtype with"
        " --peak (got 'fp8')",
    ),
    (
        ("dot", "8", "--chip", "tpu-v5e", "--dtype", "fp32"),
        "error: --dtype must be a dtype tpu-v5e has a dense peak for (bf16, int8), or any dtype with"
        " --peak (got 'fp32')",
    ),
    (
        ("matmul", "8", "8", "8", "--chip", "tpu-v5e", "--peak", "0"),
        "argument --peak: must be a positive, finite number (got '0')",
    ),
    (
        ("matmul", "8", "8", "8", "--chip", "tpu-v5e", "--peak=-1e14"),
        "argument --peak: must be a positive, finite number (got '-1e14')",
    ),
    (
        ("matmul", "8", "8", "8", "--chip", "tpu-v5e", "--bandwidth", "inf"),
        "argument --bandwidth: must be a positive, finite number (got 'inf')",
    ),
    (
        ("matmul", "8", "8", "8", "--chip", "tpu-v5e", "--bandwidth", "nan"),
        "argument --bandwidth: must be a positive, finite number (got 'nan')",
    ),
    (("matmul", "8", "8", "--chip", "tpu-v5e"), "the following arguments are required: F"),
    (("matmul", "8", "8", "8"), "one of the arguments --chip --chip-file is required"),
    (("dot", "0", "--chip", "b200"), "argument N: must be a positive integer (got '0')"),
    (("dot", "9" * 400, "--chip", "b200"), "argument N: must be a positive integer"),
    (("dot", "8", "--chip", "b200", "--dtype", "float128"), "argument --dtype: must be one of"),
    (
        ("transformer", "llama-3", "--chip", "h100-sxm"),
        f"argument MODEL: must be one of {', '.join(rk.TRANSFORMERS)} (got 'llama-3')",
    ),
    (
        ("transformer", "llama-3.1-70b", "--chip", "h100-sxm"),
        "error: --chips must be enough h100-sxm chips for llama-3.1-70b's 141 GB of bf16 weights, 80 GB each"
        " (got 1)",
    ),
    (
        ("transformer", "llama-3.1-70b", "--chip", "h100-sxm", "--chips", "3"),
        "error: --chips must be a number of chips that splits llama-3.1-70b's 64 heads, 8 KV heads and MLP"
        " width 28672 evenly (got 3)",
    ),
    (
        ("transformer", "llama-3.1-70b", "--chip", "h100-sxm", "--chips", "8", "--batch", "743"),
        "error: --batch must be at most 742 sequences of 2049 tokens for llama-3.1-70b on 8 x h100-sxm"
        " (got 743)",
    ),
    (
        ("transformer", "llama-3.1-8b", "--chip", "h100-sxm", "--context", "1000000000"),
        "error: --context must be at most",
    ),
    (("transformer", "llama-3.1-8b", "--chip", "h100-sxm", "--batch", "0"),
     "argument --batch: must be a positive integer (got '0')"),
    (("transformer", "llama-3.1-8b", "--chip", "h100-sxm", "--context", "2k"),
     "argument --context: must be a positive integer (got '2k')"),
    (("transformer", "llama-3.1-8b", "--chip", "h100-sxm", "--phase", "training"),
     "argument --phase: invalid choice: 'training' (choose from"),
    (("transformer", "llama-3.1-8b", "--chip", "h100-sxm", "--kv-cache", "int3"),
     "argument --kv-cache: must be one of fp64, fp32"),
    (("transformer", "llama-3.1-8b", "--chip", "h100-sxm", "--collective-latency=-1e-6"),
     "argument --collective-latency: must be a number of seconds, 0 or more (got '-1e-6')"),
    (
        ("transformer", "llama-3.1-8b", "--chip", "h100-sxm", "--compute", "fp4"),
        "error: --compute must be a dtype h100-sxm has a dense peak for (fp64, fp32, tf32, bf16, fp16, fp8,"
        " int8), or any dtype with --peak (got 'fp4')",
    ),
    (("transformer", "--chip", "h100-sxm"), "the following arguments are required: MODEL"),
    (("models", "--chip", "h100-sxm"), "unrecognized arguments: --chip h100-sxm"),
    (("chip",), "argument COMMAND: invalid choice: 'chip'"),
    ((), "the following arguments are required: COMMAND"),
]


@pytest.mark.parametrize(
    ("args", "message"), BAD_INPUTS, ids=[" ".join(x[:12] for x in a) or "(none)" for a, _ in BAD_INPUTS]
)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_bad_input_exits_2_with_one_line(args: tuple[str, ...], message: str, as_json: bool) -> None:
    done = run(*args, *(["--json"] if as_json and args else []))
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert message in lines[0]
    assert lines[0].startswith("rooflinekit")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args", [("chips",), ("chips", "--json"), ("dot", "8", "--chip", "b200")])
def test_a_reader_that_leaves_early_gets_no_traceback(args: tuple[str, ...]) -> None:
    # As `rooflinekit chips | head -1` does once head has its line: the pipe is closed on the writer.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "rooflinekit", *args], stdout=write_end, stderr=subprocess.PIPE,
            text=True, timeout=60, check=False,
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 1
