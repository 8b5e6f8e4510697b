"""Prefix caching: a prompt prefix every request shares (a system prompt), prefilled and cached once.

With a paged KV cache (vLLM's PagedAttention; SGLang's RadixAttention keeps such prefixes in a
tree), the blocks of a prefix many requests share are held once and a new request whose prompt
starts with it skips its prefill. Two things change on the roofline:

- **prefill**: only the ``prompt - shared`` new tokens are computed, attending over the cached
  prefix as well as themselves: a chunk after a prefix (:func:`~rooflinekit.transformer.mixed.prefix_prefill`,
  a mixed step with no decode tokens), not a whole prefill;
- **memory**: each chip holds the prefix's cache once, not once a sequence, so more sequences fit
  (``shared_prefix`` of :func:`~rooflinekit.transformer.setup.make_setup`, which every step takes).

What does not change, stated: a decode step still reads each sequence's whole cache, the shared
prefix included, once for each sequence (kernels that read a shared prefix once for a whole batch,
such as FlashInfer's cascade attention, are not modelled).

>>> s = prefix_savings("llama-3.1-70b", "h100-sxm", prompt=4096, shared=3072, output=512, n_chips=8)
>>> round(s.prefill_flops_share, 3), round(s.ttft_share, 3)     # a quarter of the prompt is new
(0.257, 0.255)
>>> s.max_batch, s.max_batch_shared
(330, 987)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rooflinekit._validate import check_count
from rooflinekit.catalog import Chip
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.memory import memory_for
from rooflinekit.transformer.mixed import prefix_prefill
from rooflinekit.transformer.step import transformer_step

__all__ = ["PrefixSavings", "prefix_prefill", "prefix_savings"]


@dataclass(frozen=True)
class PrefixSavings:
    """What a shared prefix saves: prefill FLOPs and time (shares of the whole prefill's), and the
    largest decode batch at the longest cache without and with the prefix held once."""

    prefill_flops_share: float
    ttft_share: float
    max_batch: int
    max_batch_shared: int

    def to_dict(self) -> dict[str, Any]:
        return {"prefill_flops_share": self.prefill_flops_share, "ttft_share": self.ttft_share,
                "max_batch": self.max_batch, "max_batch_shared": self.max_batch_shared}


def prefix_savings(model: str | TransformerShape, on: str | Chip, *, prompt: int, shared: int, output: int,
                   **settings: Any) -> PrefixSavings:
    """The savings of a ``shared``-token prefix for requests of ``prompt`` tokens in and ``output``
    out, on the chips of ``settings`` (:func:`~rooflinekit.transformer.step.transformer_step`'s).

    >>> prefix_savings("llama-3.1-8b", "h100-sxm", prompt=1024, shared=0, output=128).ttft_share
    1.0
    """
    shape = transformer_shape(model)
    whole = transformer_step(shape, on, phase="prefill", context=prompt, **settings)
    longest = prompt + check_count("output", output)
    plain = memory_for(shape, on, context=longest, **settings).max_batch
    if not shared:
        return PrefixSavings(1.0, 1.0, plain, plain)
    hit = prefix_prefill(shape, on, prompt=prompt, shared=shared, **settings)
    held_once = memory_for(shape, on, context=longest, shared_prefix=shared, **settings).max_batch
    flops, seconds = hit.step.flops / whole.flops, hit.t_sequential / whole.t_sequential
    return PrefixSavings(flops, seconds, plain, held_once)
