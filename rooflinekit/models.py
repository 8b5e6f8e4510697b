"""Transformer shapes: the sizes of a decoder-only model, and the table of published ones.

A shape is what a model's ``config.json`` says: layers, ``d_model``, attention heads, KV
heads, head size, MLP width (gated or not), vocabulary, tied embeddings, the kind of norm
and whether the linear layers have biases, and for a **mixture of experts** (MoE) the experts of
its MoE layers, how many each token is routed to, the shared experts every token goes through and
which layers are MoE. The parameter count follows from it (for an MoE model, the total and the
active parameters a token multiplies); each
entry of :data:`TRANSFORMERS` also carries the total its publisher gives and its sources, so
the derivation can be checked. Every model :mod:`rooflinekit.transformer` places on the
roofline, operation by operation or as the serving notes' three clocks, is one of these shapes;
:func:`rooflinekit.transformer.report.shapes_table` sets them side by side.

>>> llama = transformer_shape("llama-3.1-70b")
>>> llama.params
70553706496.0
>>> llama.kv_cache_bytes_per_token("bf16")        # 2 (K and V) * 80 layers * 8 heads * 128 * 2 B
327680.0
>>> mixtral = transformer_shape("mixtral-8x7b")
>>> round(mixtral.params / 1e9, 2), round(mixtral.active_params / 1e9, 2)
(46.7, 12.88)
>>> round(float(mixtral.experts_touched(16)), 2)      # distinct experts a layer reads for 16 tokens
7.92
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from rooflinekit._validate import check_figure, check_size
from rooflinekit.catalog import Source
from rooflinekit.dtypes import DType, dtype_bytes
from rooflinekit.errors import RooflineInputError, UnknownNameError

NORMS = ("rms", "layer")
"""RMSNorm learns a scale per channel; LayerNorm a scale and a shift."""


@dataclass(frozen=True)
class TransformerShape:
    """A dense decoder-only transformer, as its configuration describes it.

    ``n_kv_heads`` smaller than ``n_heads`` is grouped-query attention: each KV head is
    shared by ``n_heads / n_kv_heads`` query heads. ``gated`` MLPs (SwiGLU) have three
    matrices (gate, up, down), plain ones two. ``published_params`` is the publisher's own
    total, kept to check :attr:`params` against.

    A mixture of experts has ``n_experts`` > 0: in each of its MoE layers the MLP is that many
    experts (MLPs of width ``d_ff_expert``, ``d_ff`` when 0), a router (a ``d_model x n_experts``
    matrix) sends each token to ``experts_per_token`` of them, and ``shared_experts`` more see
    every token. The MoE layers are every ``moe_every``-th from layer ``first_dense_layers`` on (1
    and 0: all of them); the other layers keep a dense MLP of width ``d_ff``.
    ``published_active_params`` is the publisher's count of the parameters a token uses.
    """

    name: str
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    d_ff: int
    vocab: int
    gated: bool = True
    tied_embeddings: bool = False
    norm: str = "rms"
    biases: bool = False
    published_params: float | None = None
    sources: tuple[Source, ...] = ()
    notes: tuple[str, ...] = ()
    n_experts: int = 0
    experts_per_token: int = 0
    shared_experts: int = 0
    d_ff_expert: int = 0
    first_dense_layers: int = 0
    moe_every: int = 1
    published_active_params: float | None = None
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    rope_head_dim: int = 0
    v_head_dim: int = 0
    qk_norm: bool = False

    def __post_init__(self) -> None:
        sizes = ("n_layers", "d_model", "n_heads", "n_kv_heads", "head_dim", "d_ff", "vocab", "moe_every")
        for size in sizes:
            value = getattr(self, size)
            if isinstance(value, bool) or not isinstance(value, int):
                raise RooflineInputError(size, "a positive integer", value)
            check_size(size, value)
        self._check_experts()
        self._check_latent()
        if self.n_heads % self.n_kv_heads:
            raise RooflineInputError(
                "n_kv_heads", f"a divisor of n_heads ({self.n_heads})", self.n_kv_heads
            )
        if self.norm not in NORMS:
            raise RooflineInputError("norm", "one of " + ", ".join(NORMS), self.norm)
        for flag in ("gated", "tied_embeddings", "biases", "qk_norm"):
            if not isinstance(getattr(self, flag), bool):
                raise RooflineInputError(flag, "True or False", getattr(self, flag))
        if self.published_params is not None:
            check_figure("published_params", self.published_params)

    def _check_experts(self) -> None:
        counts = ("n_experts", "experts_per_token", "shared_experts", "d_ff_expert", "first_dense_layers")
        for count in counts:
            value = getattr(self, count)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RooflineInputError(count, "an integer, 0 or more", value)
        if self.n_experts and not 1 <= self.experts_per_token <= self.n_experts:
            accepted = f"from 1 to n_experts ({self.n_experts})"
            raise RooflineInputError("experts_per_token", accepted, self.experts_per_token)
        if not self.n_experts and (self.experts_per_token or self.shared_experts):
            raise RooflineInputError("n_experts", "at least 1 for a model with experts per token", 0)
        if self.n_experts and self.biases:
            raise RooflineInputError("biases", "False for a mixture of experts", self.biases)
        if self.published_active_params is not None:
            check_figure("published_active_params", self.published_active_params)

    def _check_latent(self) -> None:
        counts = ("q_lora_rank", "kv_lora_rank", "rope_head_dim", "v_head_dim")
        for count in counts:
            value = getattr(self, count)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RooflineInputError(count, "an integer, 0 or more", value)
        if (self.q_lora_rank or self.rope_head_dim or self.v_head_dim) and not self.kv_lora_rank:
            raise RooflineInputError("kv_lora_rank", "at least 1 for latent attention's other sizes", 0)
        if self.kv_lora_rank and self.n_kv_heads != 1:
            accepted = "1 for latent attention (one latent cache shared by every head)"
            raise RooflineInputError("n_kv_heads", accepted, self.n_kv_heads)
        if self.kv_lora_rank and self.biases:
            raise RooflineInputError("biases", "False for latent attention", self.biases)

    @property
    def is_latent(self) -> bool:
        """Whether attention is multi-head latent attention (MLA, DeepSeek-V2 and V3).

        MLA caches, a token and a layer, one latent vector of ``kv_lora_rank`` values and one key
        of ``rope_head_dim`` values that carries the rotary position, shared by every head; the
        heads' keys (``head_dim``, the part without rotary position) and values (``v_head_dim``)
        are projected up from the latent. ``n_kv_heads`` is then 1, the one latent all heads share.
        """
        return self.kv_lora_rank > 0

    @property
    def v_dim(self) -> int:
        """Width of one head's value (and attention output): ``v_head_dim``, or ``head_dim`` when 0."""
        return self.v_head_dim or self.head_dim

    @property
    def q_width(self) -> int:
        """Width of the queries: ``n_heads * head_dim`` (plus the rotary part in latent attention)."""
        return self.n_heads * (self.head_dim + self.rope_head_dim)

    @property
    def o_width(self) -> int:
        """Width of the attention output, the output projection's input: ``n_heads * v_dim``."""
        return self.n_heads * self.v_dim

    @property
    def kv_width(self) -> int:
        """Width of the keys, and of the values: ``n_kv_heads * head_dim``."""
        return self.n_kv_heads * self.head_dim

    @property
    def group_size(self) -> int:
        """Query heads that share one KV head (1 for full multi-head attention)."""
        return self.n_heads // self.n_kv_heads

    @property
    def mlp_matrices(self) -> int:
        """3 for a gated MLP (gate, up, down), 2 for a plain one (up, down)."""
        return 3 if self.gated else 2

    @property
    def norm_params(self) -> int:
        """Parameters of one norm: a scale per channel, and a shift for LayerNorm."""
        return self.d_model * (2 if self.norm == "layer" else 1)

    @property
    def attention_params(self) -> float:
        """Q, K, V and output projections of one layer (with their biases, if any).

        >>> transformer_shape("llama-3.1-8b").attention_params == 4096 * (4096 + 2 * 1024) + 4096 * 4096
        True
        """
        return self.attention_params_on(self.n_heads, self.n_kv_heads)

    def attention_params_on(self, q_heads: int, kv_heads: int) -> float:
        """The attention parameters a chip holds with ``q_heads`` query and ``kv_heads`` KV heads.

        Grouped-query attention: each head's slices of Q, K, V and the output projection, with
        the output projection's bias (and the QK norms) on every chip. Latent attention: the
        down projections to the latents and their norms on every chip, each head's slices of the
        up projections and of the output projection.

        >>> v3 = transformer_shape("deepseek-v3")
        >>> v3.attention_params_on(16, 1) < v3.attention_params / 4    # 1/8 of the heads
        True
        """
        d, hd = float(self.d_model), self.head_dim
        qk_norms = 2.0 * hd if self.qk_norm else 0.0
        if self.is_latent:
            return self._latent_params_on(q_heads) + qk_norms
        weights = d * (q_heads + 2 * kv_heads) * hd + q_heads * hd * d
        biases = (q_heads + 2 * kv_heads) * hd + d if self.biases else 0.0
        return weights + biases + qk_norms

    def _latent_params_on(self, q_heads: int) -> float:
        d, c, r = float(self.d_model), self.kv_lora_rank, self.rope_head_dim
        q_head = self.head_dim + r
        if self.q_lora_rank:
            query = d * self.q_lora_rank + self.q_lora_rank + self.q_lora_rank * q_heads * q_head
        else:
            query = d * q_heads * q_head
        latent = d * (c + r) + c + c * q_heads * (self.head_dim + self.v_dim)
        return query + latent + q_heads * self.v_dim * d

    def cache_elements_per_layer(self, kv_heads: int | None = None) -> int:
        """Values one token leaves in one layer's cache on a chip holding ``kv_heads`` KV heads
        (all of them by default): a key and a value each, or latent attention's latent and
        rotary key, the same on every chip.

        >>> transformer_shape("deepseek-v3").cache_elements_per_layer()
        576
        >>> transformer_shape("llama-3.1-8b").cache_elements_per_layer(1)
        256
        """
        if self.is_latent:
            return self.kv_lora_rank + self.rope_head_dim
        heads = self.n_kv_heads if kv_heads is None else kv_heads
        return 2 * heads * self.head_dim

    @property
    def mlp_params(self) -> float:
        """The MLP's matrices of one layer (with their biases, if any)."""
        d, f = float(self.d_model), float(self.d_ff)
        biases = (self.mlp_matrices - 1) * f + d if self.biases else 0.0
        return self.mlp_matrices * d * f + biases

    @property
    def is_moe(self) -> bool:
        """Whether some layers are a mixture of experts."""
        return self.n_experts > 0

    @property
    def n_moe_layers(self) -> int:
        """Layers whose MLP is a mixture of experts.

        >>> transformer_shape("mixtral-8x7b").n_moe_layers, transformer_shape("llama-3.1-8b").n_moe_layers
        (32, 0)
        """
        if not self.is_moe or self.first_dense_layers >= self.n_layers:
            return 0
        return -(-(self.n_layers - self.first_dense_layers) // self.moe_every)

    @property
    def n_dense_layers(self) -> int:
        """Layers with a dense MLP of width ``d_ff``."""
        return self.n_layers - self.n_moe_layers

    @property
    def expert_width(self) -> int:
        """The hidden width of one expert: ``d_ff_expert``, or ``d_ff`` when that is 0."""
        return self.d_ff_expert or self.d_ff

    @property
    def expert_params(self) -> float:
        """One expert's matrices (gated: gate, up, down)."""
        return float(self.mlp_matrices) * self.d_model * self.expert_width

    @property
    def router_params(self) -> float:
        """The router of one MoE layer: a ``d_model x n_experts`` matrix."""
        return float(self.d_model) * self.n_experts

    def moe_mlp_params(self, experts: float | None = None) -> float:
        """One MoE layer's MLP: ``experts`` routed experts (default all of them), the shared
        experts and the router."""
        routed = self.n_experts if experts is None else experts
        return (routed + self.shared_experts) * self.expert_params + self.router_params

    @property
    def layer_params(self) -> float:
        """One dense layer: attention, MLP and the two norms before them."""
        return self.attention_params + self.mlp_params + 2 * self.norm_params

    def _layers_params(self, experts: float | None) -> float:
        """All layers, the MoE layers with ``experts`` routed experts each (None: all)."""
        moe = self.attention_params + self.moe_mlp_params(experts) + 2 * self.norm_params
        return self.n_dense_layers * self.layer_params + self.n_moe_layers * moe

    def experts_touched(self, tokens: Any) -> Any:
        """Expected distinct routed experts one MoE layer reads for ``tokens`` tokens.

        The routing assumption: each token picks ``experts_per_token`` distinct experts uniformly
        at random, independently of the other tokens. An expert is left out by one token with
        probability ``1 - k / E``, by all of them with ``(1 - k / E) ** tokens``; so
        ``E * (1 - (1 - k / E) ** tokens)`` experts are read, ``k`` for one token and nearly all
        ``E`` for many. A dense model reads its one MLP whatever the batch (0 here).

        >>> mixtral = transformer_shape("mixtral-8x7b")
        >>> [round(float(mixtral.experts_touched(t)), 3) for t in (1, 2, 4)]
        [2.0, 3.5, 5.469]
        """
        if not self.is_moe:
            return 0.0
        n = check_size("tokens", tokens)
        e, k = self.n_experts, self.experts_per_token
        return e * (1.0 - np.power(1.0 - k / e, n))

    @property
    def embedding_params(self) -> float:
        """The token embedding table, ``vocab * d_model``."""
        return float(self.vocab) * self.d_model

    @property
    def lm_head_params(self) -> float:
        """The output projection to the vocabulary: none of its own when tied to the embedding."""
        return 0.0 if self.tied_embeddings else self.embedding_params

    @property
    def params(self) -> float:
        """All parameters: the layers, the embedding, the LM head and the final norm."""
        return self._layers_params(None) + self.embedding_params + self.lm_head_params + self.norm_params

    @property
    def active_params(self) -> float:
        """Parameters one token uses: :attr:`params` with only ``experts_per_token`` routed
        experts in each MoE layer (all of them, for a dense model).

        >>> llama = transformer_shape("llama-3.1-8b")
        >>> llama.active_params == llama.params
        True
        """
        return (self._layers_params(self.experts_per_token) + self.embedding_params + self.lm_head_params
                + self.norm_params)

    @property
    def matmul_params(self) -> float:
        """Parameters every generated token multiplies: the layers' matrices (the experts it is
        routed to) and the LM head.

        About ``active_params`` minus the embedding table, whose rows a token only looks up.
        """
        norms = 2 * self.n_layers * self.norm_params
        return self._layers_params(self.experts_per_token) - norms + self.embedding_params

    def kv_cache_bytes_per_token(self, kv_dtype: str | DType = "bf16") -> float:
        """Bytes one token leaves in the KV cache: a key and a value per layer and KV head, or
        in latent attention the latent and the rotary key per layer.

        >>> transformer_shape("llama-2-7b").kv_cache_bytes_per_token("fp8")   # full MHA
        262144.0
        >>> transformer_shape("deepseek-v3").kv_cache_bytes_per_token("bf16")   # (512 + 64) x 61 x 2 B
        70272.0
        """
        elements = self.cache_elements_per_layer()
        return float(self.n_layers * elements) * dtype_bytes(kv_dtype, "kv_dtype")

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON output.

        >>> transformer_shape("pythia-6.9b").to_dict()["norm"]
        'layer'
        """
        return {
            "name": self.name,
            "n_layers": self.n_layers,
            "d_model": self.d_model,
            "n_heads": self.n_heads,
            "n_kv_heads": self.n_kv_heads,
            "head_dim": self.head_dim,
            "d_ff": self.d_ff,
            "vocab": self.vocab,
            "gated": self.gated,
            "tied_embeddings": self.tied_embeddings,
            "norm": self.norm,
            "biases": self.biases,
            "params": self.params,
            "published_params": self.published_params,
            "n_experts": self.n_experts,
            "experts_per_token": self.experts_per_token,
            "shared_experts": self.shared_experts,
            "expert_width": self.expert_width if self.is_moe else None,
            "moe_layers": self.n_moe_layers,
            "active_params": self.active_params,
            "published_active_params": self.published_active_params,
            "latent_attention": {"q_lora_rank": self.q_lora_rank, "kv_lora_rank": self.kv_lora_rank,
                                 "rope_head_dim": self.rope_head_dim, "v_head_dim": self.v_dim}
            if self.is_latent else None,
            "qk_norm": self.qk_norm,
            "sources": [{"title": s.title, "url": s.url} for s in self.sources],
            "notes": list(self.notes),
        }


LLAMA_3_PAPER = Source(
    "The Llama 3 Herd of Models (Llama Team, AI @ Meta, 2024), Table 3",
    "https://arxiv.org/abs/2407.21783",
    "paper",
)
PYTHIA_PAPER = Source(
    "Pythia: A Suite for Analyzing Large Language Models Across Training and Scaling "
    "(Biderman et al., 2023)",
    "https://arxiv.org/abs/2304.01373",
    "paper",
)
_HF = "https://huggingface.co/"
_HF_SIZE_NOTE = (
    "published_params is the model size its Hugging Face page gives "
    "(counted from the weight files, three significant figures)."
)


MIXTRAL_PAPER = Source(
    "Mixtral of Experts (Jiang et al., 2024), Table 1 and Section 2",
    "https://arxiv.org/abs/2401.04088",
    "paper",
)
MIXTRAL_ANNOUNCEMENT = Source(
    "Mixtral of experts (Mistral AI, 11 December 2023): 46.7B total parameters, 12.9B per token",
    "https://mistral.ai/news/mixtral-of-experts",
    "product page",
)


DEEPSEEK_V3_PAPER = Source(
    "DeepSeek-V3 Technical Report (DeepSeek-AI, 2024), Sections 2.1 and 4.2: 671B total "
    "parameters, 37B activated per token",
    "https://arxiv.org/abs/2412.19437",
    "paper",
)
DEEPSEEK_V2_PAPER = Source(
    "DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model "
    "(DeepSeek-AI, 2024), Section 2.1 and Appendix C: multi-head latent attention and its absorbed form",
    "https://arxiv.org/abs/2405.04434",
    "paper",
)
QWEN3_REPORT = Source(
    "Qwen3 Technical Report (Qwen Team, 2025), Table 2: the MoE models' layers, heads and experts",
    "https://arxiv.org/abs/2505.09388",
    "paper",
)
KERAS_HUB_QWEN3 = Source(
    "KerasHub's Qwen3 MoE presets (keras_hub/src/models/qwen3_moe/qwen3_moe_presets.py): exact "
    "parameter counts, checked at conversion against the Hugging Face weights",
    "https://github.com/keras-team/keras-hub/blob/master/keras_hub/src/models/qwen3_moe/qwen3_moe_presets.py",
    "product page",
)


def _hf(repo: str) -> Source:
    return Source(f"{repo} model card and config.json (Hugging Face)", _HF + repo, "product page")


def _qwen3_moe(name: str, n_layers: int, d_model: int, n_heads: int, d_ff: int, d_ff_expert: int,
               published: tuple[float, float], repo: str) -> TransformerShape:
    """Qwen3's mixtures of experts: 4 KV heads of 128, 128 experts, 8 a token, no shared expert,
    every layer MoE, RMSNorm on each head's queries and keys, untied tables."""
    return TransformerShape(
        name, n_layers=n_layers, d_model=d_model, n_heads=n_heads, n_kv_heads=4, head_dim=128,
        d_ff=d_ff, vocab=151936, n_experts=128, experts_per_token=8, d_ff_expert=d_ff_expert,
        qk_norm=True, published_params=published[0], published_active_params=published[1],
        sources=(_hf(repo), QWEN3_REPORT, KERAS_HUB_QWEN3),
        notes=(
            "published_params is the exact count of KerasHub's preset; the model card rounds it "
            "(and the active count, published_active_params) to three figures.",
            "config.json: mlp_only_layers is empty and decoder_sparse_step 1, so every layer is a "
            "mixture of experts; intermediate_size (d_ff) is used by no layer.",
            f"Queries are {n_heads} x 128 = {n_heads * 128} wide, wider than d_model ({d_model}).",
        ),
    )


def _llama_3_1(name: str, n_layers: int, d_model: int, n_heads: int, d_ff: int, published: float,
               repo: str) -> TransformerShape:
    """Llama 3.1: 8 KV heads of 128, a 128,256-token vocabulary, SwiGLU, RMSNorm, untied."""
    return TransformerShape(
        name, n_layers=n_layers, d_model=d_model, n_heads=n_heads, n_kv_heads=8, head_dim=128,
        d_ff=d_ff, vocab=128256, published_params=published,
        sources=(_hf(repo), LLAMA_3_PAPER), notes=(_HF_SIZE_NOTE,),
    )


TRANSFORMERS: Mapping[str, TransformerShape] = MappingProxyType(
    {
        m.name: m
        for m in (
            _llama_3_1("llama-3.1-8b", 32, 4096, 32, 14336, 8.03e9, "meta-llama/Llama-3.1-8B"),
            _llama_3_1("llama-3.1-70b", 80, 8192, 64, 28672, 70.6e9, "meta-llama/Llama-3.1-70B"),
            _llama_3_1("llama-3.1-405b", 126, 16384, 128, 53248, 406e9, "meta-llama/Llama-3.1-405B"),
            TransformerShape(
                "llama-3.2-1b", n_layers=16, d_model=2048, n_heads=32, n_kv_heads=8,
                head_dim=64, d_ff=8192, vocab=128256, tied_embeddings=True,
                published_params=1.24e9,
                sources=(_hf("meta-llama/Llama-3.2-1B"),),
                notes=(_HF_SIZE_NOTE, "The LM head is the embedding table (tied)."),
            ),
            TransformerShape(
                "llama-2-7b", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=32,
                head_dim=128, d_ff=11008, vocab=32000,
                published_params=6.74e9,
                sources=(
                    _hf("meta-llama/Llama-2-7b-hf"),
                    Source("Llama 2: Open Foundation and Fine-Tuned Chat Models (Touvron et al., 2023)",
                           "https://arxiv.org/abs/2307.09288", "paper"),
                ),
                notes=(_HF_SIZE_NOTE, "Full multi-head attention: one KV head per query head."),
            ),
            TransformerShape(
                "pythia-6.9b", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=32,
                head_dim=128, d_ff=16384, vocab=50432, gated=False, norm="layer", biases=True,
                published_params=6_857_302_016,
                sources=(_hf("EleutherAI/pythia-6.9b"), PYTHIA_PAPER),
                notes=(
                    "published_params is the exact total in the model card's table of parameter counts.",
                    "Full multi-head attention, a plain GELU MLP, LayerNorm and biases (GPT-NeoX). "
                    "Its attention and MLP run in parallel from one residual stream, which changes "
                    "no operation's cost.",
                ),
            ),
            TransformerShape(
                "mixtral-8x7b", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8,
                head_dim=128, d_ff=14336, vocab=32000, n_experts=8, experts_per_token=2,
                published_params=46.7e9, published_active_params=12.9e9,
                sources=(MIXTRAL_PAPER, MIXTRAL_ANNOUNCEMENT, _hf("mistralai/Mixtral-8x7B-v0.1")),
                notes=(
                    "The paper's Table 1 gives the shape; its abstract and Section 2 round the sizes "
                    "to 47B total and 13B active parameters; Mistral AI's announcement gives 46.7B "
                    "and 12.9B.",
                    "Every layer is a mixture of 8 SwiGLU experts of width 14,336, 2 per token, with a "
                    "router; no shared expert.",
                ),
            ),
            TransformerShape(
                "deepseek-v3", n_layers=61, d_model=7168, n_heads=128, n_kv_heads=1, head_dim=128,
                d_ff=18432, vocab=129280, n_experts=256, experts_per_token=8, shared_experts=1,
                d_ff_expert=2048, first_dense_layers=3, q_lora_rank=1536, kv_lora_rank=512,
                rope_head_dim=64, v_head_dim=128,
                published_params=671e9, published_active_params=37e9,
                sources=(_hf("deepseek-ai/DeepSeek-V3"), DEEPSEEK_V3_PAPER, DEEPSEEK_V2_PAPER),
                notes=(
                    "config.json: hidden_size 7168, 61 layers, the first 3 (first_k_dense_replace) "
                    "dense of width 18,432, then 256 routed experts of width 2,048 (8 a token) and "
                    "1 shared; 128 heads; q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128 "
                    "(head_dim here), qk_rope_head_dim 64, v_head_dim 128; vocabulary 129,280.",
                    "Multi-head latent attention: a token leaves (512 + 64) values a layer in the "
                    "cache, shared by every head, so n_kv_heads is 1 here; config.json's "
                    "num_key_value_heads (128) counts the keys and values projected up from the latent.",
                    "Routing is taken to be uniform over the 256 routed experts "
                    "(TransformerShape.experts_touched); DeepSeek-V3's router first picks 4 of 8 groups "
                    "of experts (n_group, topk_group), which this model leaves out.",
                    "The counts are the main model's, as the report gives them: the multi-token "
                    "prediction module (num_nextn_predict_layers 1, about 14B more, which the "
                    "Hugging Face page's 685B includes) and the router's 256 bias terms a layer "
                    "are left out.",
                ),
            ),
            _qwen3_moe("qwen3-235b-a22b", 94, 4096, 64, 12288, 1536, (235_093_634_560, 22e9),
                       "Qwen/Qwen3-235B-A22B"),
            _qwen3_moe("qwen3-30b-a3b", 48, 2048, 32, 6144, 768, (30_532_122_624, 3.3e9),
                       "Qwen/Qwen3-30B-A3B"),
        )
    }
)


def transformer_shape(name: str | TransformerShape, argument: str = "model") -> TransformerShape:
    """Look up a model by name (case-insensitive); a ``TransformerShape`` passes through.

    >>> transformer_shape("Llama-3.1-8B").n_layers
    32
    >>> try:
    ...     transformer_shape("llama-3-8b")
    ... except KeyError as error:
    ...     print(error)   # doctest: +ELLIPSIS
    model must be one of llama-3.1-8b, llama-3.1-70b, ... (got 'llama-3-8b')
    """
    if isinstance(name, TransformerShape):
        return name
    if isinstance(name, str) and name.lower() in TRANSFORMERS:
        return TRANSFORMERS[name.lower()]
    raise UnknownNameError(argument, list(TRANSFORMERS), name)

