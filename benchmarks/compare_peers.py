"""rooflinekit's transformer beside a published tool, GenZ, on the same questions.

Llama 3.1 70B in bf16 on eight H100 SXM GPUs (tensor parallelism), 2,048 tokens of context:
a decode step at batch 1 and at batch 64, and the prefill of one 2,048-token prompt. Both tools
get the same chip figures (the catalog's: GenZ takes GB/s as 2**30 B/s, so they are
converted) and GenZ's own Llama 3.1 70B configuration object (its name table maps
"meta-llama/meta-llama-3.1-70b" to Llama 2 70B, whose vocabulary is 32,000 tokens).
Then two questions of chapter 9's decisions. A mixture of experts: Mixtral 8x7B on two H100 GPUs,
decode steps at growing batches, where GenZ's MoE decode reads the experts of one token whatever the
batch and rooflinekit the experts a batch's tokens are routed to. A latency target: the cheapest
configuration rooflinekit's TTFT/TPOT search finds for Llama 3.1 70B, whose prefill and decode
steps GenZ then times; no tool here searches against targets (see `latency_target`).
Everything runs offline. Not part of `make test`: it needs GenZ, pinned with its
dependencies in benchmarks/requirements-peers.txt, in its own environment:

    make compare-peers          # creates .venv-peers, then runs this script
    .venv-peers/bin/python benchmarks/compare_peers.py --record   # GenZ's answers for chapter 9

``--record`` writes GenZ's decode steps for chapter 9's questions to rooflinekit/data/peers/genz.json,
which the chapter sets beside its own (rooflinekit.transformer.peers); a test fails when the
catalog's figures change since, until the record is made again.
"""

from __future__ import annotations

import json
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import rooflinekit as rk
from rooflinekit.fmt import Table, num, si
from rooflinekit.transformer.peers import chip_figures

MODEL, CHIP, N_CHIPS, CONTEXT = "llama-3.1-70b", "h100-sxm", 8, 2048
QUESTIONS = {
    "decode, batch 1": {"phase": "decode", "batch": 1, "context": CONTEXT},
    "decode, batch 64": {"phase": "decode", "batch": 64, "context": CONTEXT},
    f"prefill, {CONTEXT} tokens": {"phase": "prefill", "batch": 1, "context": CONTEXT},
}
GIB = 2**30  # GenZ's "GB" for sizes and bandwidths


@dataclass(frozen=True)
class Answer:
    seconds: float
    tokens_per_second: float
    by_bound: dict[str, float]  # seconds spent in compute-, memory- and network-bound operations

    def describe(self) -> str:
        largest = max(self.by_bound, key=lambda name: self.by_bound[name])
        return f"{si(self.seconds, 's')}, {num(self.tokens_per_second)} tok/s, {largest}"


def rooflinekit_answer(question: dict[str, Any], latency: float = 0.0) -> tuple[Answer, rk.TransformerStep]:
    step = rk.transformer_step(MODEL, CHIP, n_chips=N_CHIPS, collective_latency=latency, **question)
    return Answer(step.t_lower, step.tokens_per_second, step.time_by_bound), step


def genz_system(chip_id: str = CHIP) -> dict[str, Any]:
    """The catalog's figures for ``chip_id`` as GenZ takes them (its "GB" is 2**30 bytes)."""
    figures = chip_figures(chip_id)
    return {
        "Flops": figures["peak_bf16"] / 1e12,
        "Memory_size": figures["hbm_bytes"] / GIB,
        "Memory_BW": figures["hbm_bandwidth"] / GIB,
        "ICN": figures["link_bandwidth"] / GIB,
        "real_values": True,
    }


def genz_answer(question: dict[str, Any]) -> tuple[Answer, Any]:
    from GenZ import decode_moddeling, prefill_moddeling
    from GenZ.analyse_model import simplify_df
    from GenZ.Models.Model_sets.meta import llama3_70b_config

    common = {
        "model": llama3_70b_config,
        "batch_size": question["batch"],
        "input_tokens": question["context"],
        "system_name": genz_system(),
        "bits": "bf16",
        "tensor_parallel": N_CHIPS,
    }
    if question["phase"] == "decode":
        result = decode_moddeling(output_tokens=0, Bb=1, **common)
    else:
        result = prefill_moddeling(**common)
    table = simplify_df(result["model_df"])
    latency = table.groupby("Bound")["Latency (msec)"].sum() / 1e3
    by_bound = {"compute": latency.get("Compute", 0.0), "memory": latency.get("Memory", 0.0),
                "network": latency.get("Collective", 0.0)}
    seconds = result["Latency"] / 1e3
    tokens = question["batch"] * (1 if question["phase"] == "decode" else question["context"])
    return Answer(seconds, tokens / seconds, by_bound), table


def genz_all_reduce_latency() -> float:
    """Seconds GenZ charges a ring all-reduce beyond its bytes (its start and per-hop latencies)."""
    from GenZ.collective_times import get_AR_time
    from GenZ.LLM_inference import get_inference_system

    system = get_inference_system(system_name=genz_system(), bits="bf16")
    tiny = 1.0  # one byte: the time is the latency
    bandwidth_part = tiny * 2 * (N_CHIPS - 1) / N_CHIPS / float(system.interchip_link_bw)
    return float(get_AR_time(tiny, N_CHIPS, system)) / 1e3 - bandwidth_part


def genz_rows(table: Any, names: tuple[str, ...]) -> float:
    """Seconds GenZ spends in the named rows of its table (repeated rows counted)."""
    return float(table[table["Layer Name"].isin(names)]["Latency (msec)"].sum()) / 1e3


def reason(title: str, ours: Answer, step: rk.TransformerStep, with_latency: Answer, genz: Answer,
           genz_table: Any, latency: float) -> str:
    """One line: what makes GenZ's answer differ from rooflinekit's, with figures."""
    collectives = sum(p.op.count for p in step.ops if p.op.collective)
    small_ops = sum(p.op.count * p.t_lower for p in step.ops if p.op.kind in ("norm", "elementwise"))
    parts = [
        f"GenZ charges each collective {si(latency, 's')} of latency beyond its bytes, rooflinekit none "
        f"by default (with it on each of its {collectives}: {si(with_latency.seconds, 's')})",
        f"rooflinekit also counts norms, residual adds and the MLP activation ({si(small_ops, 's')})",
    ]
    if step.setup.phase == "prefill":
        attention = sum(p.op.count * p.t_lower for p in step.ops if p.op.kind == "attention")
        genz_attention = genz_rows(genz_table, ("Logit", "Attend"))
        genz_vocab = genz_rows(genz_table, ("embeddings", "classifier", "Emb_AR", "classifier_AG"))
        head = sum(p.t_lower for p in step.ops if p.op.name in ("LM head", "logits all-gather"))
        parts += [
            f"GenZ's attention is not causal ({si(genz_attention, 's')} against {si(attention, 's')})",
            f"GenZ embeds with a matmul and computes logits for every prompt token "
            f"({si(genz_vocab, 's')} against {si(head, 's')} for the last token's)",
        ]
    return f"{title}: " + "; ".join(parts) + "."


MOE_MODEL, MOE_CHIP, MOE_CHIPS, MOE_CONTEXT = "mixtral-8x7b", "h200-sxm", 2, 256
MOE_BATCHES = (1, 2, 8, 64, 256)
"""Chapter 9's mixture of experts: Mixtral on two H200 GPUs with a 256-token cache."""


class Targets(TypedDict):
    """The latency targets and request sizes the search is given (seconds; tokens)."""

    ttft: float
    tpot: float
    prompt: int
    output: int


TARGETS = Targets(ttft=0.5, tpot=0.05, prompt=2048, output=512)
EXPERT_ROWS = ("up+gate", "down")  # GenZ's rows of an MoE layer's experts


def genz_step(config: Any, phase: str, batch: int, context: int, n_chips: int,
              chip_id: str = CHIP) -> tuple[float, Any]:
    """GenZ's seconds for one decode step or one prefill, and its table of operations."""
    from GenZ import decode_moddeling, prefill_moddeling
    from GenZ.analyse_model import simplify_df

    common = {"model": config, "batch_size": batch, "input_tokens": context,
              "system_name": genz_system(chip_id),
              "bits": "bf16", "tensor_parallel": n_chips}
    if phase == "decode":
        result = decode_moddeling(output_tokens=0, Bb=1, **common)
    else:
        result = prefill_moddeling(**common)
    return result["Latency"] / 1e3, simplify_df(result["model_df"])


def mixture_of_experts() -> None:
    """Mixtral's decode steps in both tools, and the experts each reads per layer."""
    from GenZ.Models.Model_sets.mistral import mixtral_8x7b_config

    shape = rk.transformer_shape(MOE_MODEL)
    print(f"\nMixture of experts: {MOE_MODEL}, bf16, {MOE_CHIPS} x {rk.chip(MOE_CHIP).name}, "
          f"context {MOE_CONTEXT}, decode steps (chapter 9's)")
    rows = []
    for batch in MOE_BATCHES:
        step = rk.transformer_step(shape, MOE_CHIP, n_chips=MOE_CHIPS, batch=batch, context=MOE_CONTEXT)
        experts = sum(p.op.count * p.t_lower for p in step.ops if p.op.name.startswith("expert"))
        genz_seconds, table = genz_step(mixtral_8x7b_config, "decode", batch, MOE_CONTEXT, MOE_CHIPS,
                                        MOE_CHIP)
        genz_experts = genz_rows(table, EXPERT_ROWS)
        touched = num(float(shape.experts_touched(batch)), 3)
        rows.append([batch, si(step.t_lower, "s"), si(genz_seconds, "s"), touched,
                     mixtral_8x7b_config.expert_top_k, si(experts, "s"), si(genz_experts, "s")])
    print(Table(["batch", "rooflinekit", "GenZ", "experts read a layer: rooflinekit", "GenZ",
                 "experts' time: rooflinekit", "GenZ"], rows, align="rllrrll"))
    print("- rooflinekit reads the distinct experts the batch's tokens are routed to (uniform top-2 routing: "
          "2 at batch 1, nearly all 8 by a few dozen tokens); GenZ 0.0.16's MoE decode reads the experts of "
          "one token (its ffn_decode takes the activated experts as top-k, with a TODO), so its "
          "experts' time barely grows with the batch and its step is shorter at large batches.")


def latency_target() -> None:
    """The cheapest configuration rooflinekit's search finds, and GenZ's times for its two steps."""
    from GenZ.Models.Model_sets.meta import llama3_70b_config

    found = rk.serving_search(MODEL, CHIP, **TARGETS)
    best = found.cheapest
    print(f"\nLatency targets: {MODEL} on {rk.chip(CHIP).name}, TTFT <= {si(TARGETS['ttft'], 's')}, "
          f"TPOT <= {si(TARGETS['tpot'], 's')}, {TARGETS['prompt']} tokens in, {TARGETS['output']} out")
    if best is None:
        print("- rooflinekit finds no configuration that meets both targets")
        return
    ttft, _ = genz_step(llama3_70b_config, "prefill", 1, TARGETS["prompt"], best.prefill_chips)
    tpot, _ = genz_step(llama3_70b_config, "decode", best.batch, TARGETS["prompt"] + TARGETS["output"],
                        best.decode_chips)
    rows = [["TTFT", f"prefill on {best.prefill_chips}", si(best.ttft, "s"), si(ttft, "s"),
             "yes" if ttft <= TARGETS["ttft"] else "no"],
            ["TPOT", f"decode on {best.decode_chips}, batch {best.batch}", si(best.tpot, "s"), si(tpot, "s"),
             "yes" if tpot <= TARGETS["tpot"] else "no"]]
    print(f"rooflinekit's cheapest of {len(found.configs)} configurations ({rk.transformer.SCHEDULING}):")
    print(Table(["", "GPUs", "rooflinekit", "GenZ", "GenZ meets the target"], rows, align="lllll"))
    print("- GenZ times a configuration it is given; it has no search against TTFT/TPOT targets (its "
          "get_best_parallization_strategy ranks parallelisms by tokens/s for a number of chips). NVIDIA's "
          "aiconfigurator searches against such targets, from its own measured kernel database for "
          "particular GPUs and serving frameworks; it is not in this pinned environment, so no peer here "
          "answers the search itself.")


SPEC_TARGET, SPEC_DRAFT, SPEC_K, SPEC_ALPHA = "llama-3.1-70b", "llama-3.1-8b", 4, 0.8
SPEC_BATCHES = (1, 16, 64, 256)
"""Chapter 13's speculative decoding: Llama 3.1 70B checked after 4 tokens of Llama 3.1 8B, accepted
with probability 0.8, on eight H100 GPUs with a 2,048-token cache."""


def genz_speculation(batch: int) -> tuple[float, float]:
    """GenZ's seconds for one round (its draft steps and its check) and its tokens a round."""
    from GenZ.LLM_inference.llm_spec_decode import spec_decode_modeling
    from GenZ.Models.Model_sets.meta import llama3_8b_config, llama3_70b_config

    result = spec_decode_modeling(model=llama3_70b_config, draft_model=llama3_8b_config, batch_size=batch,
                                  input_tokens=CONTEXT, output_tokens=0, token_acceptance_rate=SPEC_ALPHA,
                                  num_parallel_tokens=SPEC_K, system_name=genz_system(), bits="bf16",
                                  tensor_parallel=N_CHIPS)
    return result["Latency"] / 1e3, float(result["tokens_generated"])


def speculative() -> None:
    """A round of speculative decoding in both tools."""
    print(f"\nSpeculative decoding: {SPEC_TARGET} checking {SPEC_K} tokens of {SPEC_DRAFT}, acceptance "
          f"{SPEC_ALPHA}, {N_CHIPS} x {rk.chip(CHIP).name}, context {CONTEXT}")
    rows = []
    for batch in SPEC_BATCHES:
        ours = rk.transformer.speculation(SPEC_TARGET, SPEC_DRAFT, CHIP, k=SPEC_K, alpha=SPEC_ALPHA,
                                          n_chips=N_CHIPS, batch=batch, context=CONTEXT)
        seconds, tokens = genz_speculation(batch)
        rows.append([batch, si(ours.t_round, "s"), si(seconds, "s"), num(ours.expected_tokens, 4),
                     num(tokens, 4)])
    print(Table(["batch", "round: rooflinekit", "GenZ", "tokens a round: rooflinekit", "GenZ"], rows,
                align="rllrr"))
    print("- GenZ checks k tokens (rooflinekit k + 1, the paper's) and caps the expected tokens at k; "
          "its expected count is otherwise the paper's. Its collectives carry its latency.")


def genz_latent_cache() -> float:
    """Bytes a token GenZ's DeepSeek-V3 caches (its summary's KV cache of one 4,096-token sequence)."""
    from GenZ import decode_moddeling
    from GenZ.Models.Model_sets.misc import DeepseekV3_moe_671b_config

    _, summary = decode_moddeling(model=DeepseekV3_moe_671b_config, batch_size=1, input_tokens=4096,
                                  output_tokens=0, Bb=1, system_name=genz_system("h200-sxm"), bits="bf16",
                                  tensor_parallel=1, model_profilling=True)
    return float(summary["KV Cache (MB)"].values[0]) * 2**20 / 4096


def latent() -> None:
    """DeepSeek-V3's cache a token in both tools."""
    genz = genz_latent_cache()
    ours = rk.transformer_shape("deepseek-v3").kv_cache_bytes_per_token("bf16")
    print(f"\nDeepSeek-V3's KV cache a token in bf16: rooflinekit {num(ours)} B "
          f"(the latent, (512 + 64) x 61 x 2), GenZ {num(genz)} B")
    print("- GenZ 0.0.16's DeepSeek-V3 is grouped-query attention with 2 KV heads of 56 (latent attention "
          "is a TODO in its attention.py), so it caches 2 x 2 x 56 x 61 x 2 B a token.")


RECORD = Path(__file__).resolve().parent.parent / "rooflinekit" / "data" / "peers" / "genz.json"
"""Where ``--record`` writes GenZ's answers for chapter 9 (rooflinekit.transformer.peers reads them)."""


def record(path: Path = RECORD) -> None:
    """Write GenZ's decode steps for chapter 9's questions, with its version and the figures it was given."""
    from importlib.metadata import version

    from GenZ.Models.Model_sets.meta import llama3_70b_config
    from GenZ.Models.Model_sets.mistral import mixtral_8x7b_config

    questions = [
        ("llama decode", MODEL, llama3_70b_config, CHIP, N_CHIPS, CONTEXT, (1, 64),
         "GenZ charges each collective a start and per-hop latency; rooflinekit none by default."),
        ("mixtral decode", MOE_MODEL, mixtral_8x7b_config, MOE_CHIP, MOE_CHIPS, MOE_CONTEXT, MOE_BATCHES,
         "GenZ 0.0.16's ffn_decode reads the experts of one token (top-k) at any batch."),
    ]
    cases = [{"name": name, "model": model, "chip": chip_id, "n_chips": n, "context": context,
              "phase": "decode",
              "seconds": {str(b): genz_step(config, "decode", b, context, n, chip_id)[0] for b in batches},
              "figures": chip_figures(chip_id), "note": note}
             for name, model, config, chip_id, n, context, batches, note in questions]
    rounds = {b: genz_speculation(b) for b in SPEC_BATCHES}
    cases.append({"name": "speculative decoding", "model": SPEC_TARGET, "chip": CHIP, "n_chips": N_CHIPS,
                  "context": CONTEXT, "phase": "speculative",
                  "seconds": {str(b): seconds for b, (seconds, _) in rounds.items()},
                  "figures": chip_figures(CHIP),
                  "note": f"{SPEC_DRAFT} drafts {SPEC_K} tokens, accepted with probability {SPEC_ALPHA}; "
                          "GenZ checks k tokens and caps the expected tokens at k.",
                  "extra": {"tokens": rounds[SPEC_BATCHES[0]][1], "k": SPEC_K, "alpha": SPEC_ALPHA,
                            "collective_latency": genz_all_reduce_latency()}})
    cases.append({"name": "deepseek-v3 cache", "model": "deepseek-v3", "chip": "h200-sxm", "n_chips": 1,
                  "context": 4096, "phase": "decode", "seconds": {}, "figures": chip_figures("h200-sxm"),
                  "note": "GenZ 0.0.16's DeepSeek-V3 is grouped-query attention with 2 KV heads of 56.",
                  "extra": {"kv_cache_bytes_per_token": genz_latent_cache()}})
    data = {"tool": "GenZ", "package": "genz-llm", "version": version("genz-llm"),
            "written_by": "benchmarks/compare_peers.py --record (make compare-peers)", "cases": cases}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"recorded GenZ {data['version']}'s answers in {path}")


def main() -> None:
    warnings.filterwarnings("ignore")  # GenZ warns about its optional plotting back ends
    from importlib.metadata import version

    if "--record" in sys.argv[1:]:
        record()
        return

    latency = genz_all_reduce_latency()
    print(f"{MODEL}, bf16, {N_CHIPS} x {rk.chip(CHIP).name}, context {CONTEXT}; "
          f"GenZ {version('genz-llm')}, rooflinekit {rk.__version__}")
    print("each cell: time of the step (decode) or of the whole prefill, tokens/s, "
          "what most of the time is bound by\n")
    rows, reasons = [], []
    for title, question in QUESTIONS.items():
        ours, step = rooflinekit_answer(question)
        with_latency, _ = rooflinekit_answer(question, latency)
        genz, genz_table = genz_answer(question)
        rows.append([title, ours.describe(), with_latency.describe(), genz.describe(),
                     num(genz.seconds / ours.seconds)])
        reasons.append(reason(title, ours, step, with_latency, genz, genz_table, latency))
    print(Table(["question", "rooflinekit", f"rooflinekit, {si(latency, 's')} per collective", "GenZ",
                 "GenZ / rooflinekit"], rows, align="lllll"))
    print("\nWhy they differ:")
    for line in reasons:
        print(f"- {line}")
    mixture_of_experts()
    latency_target()
    speculative()
    latent()


if __name__ == "__main__":
    main()
