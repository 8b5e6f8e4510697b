"""What exercise 10's statement gives: the target and draft models, the chip, the draft length,
the acceptance rate and the context it asks about.

No answer: the statement prints these figures, and the key asks its questions at them.

>>> TARGET.name, DRAFT.name, CHIP.id
('llama-3.1-8b', 'llama-3.2-1b', 'h100-sxm')
>>> K, ALPHA, CONTEXT, MAX_K
(4, 0.8, 512, 16)
"""

from __future__ import annotations

from rooflinekit.catalog import Chip, chip
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.speculative import MAX_DRAFT

TARGET: TransformerShape = transformer_shape("llama-3.1-8b")
"""The model served: its parameters and its KV cache's bytes per token (bf16)."""
DRAFT: TransformerShape = transformer_shape("llama-3.2-1b")
"""The draft model that guesses: the same tokenizer, about a sixth of the parameters."""
CHIP: Chip = chip("h100-sxm")
"""One H100 SXM: its dense bf16 peak, HBM bandwidth and HBM capacity from the catalog."""
TARGET_PARAMS = TARGET.params
DRAFT_PARAMS = DRAFT.params
TARGET_KV = TARGET.kv_cache_bytes_per_token("bf16")
"""Bytes a token leaves in the target's cache (bf16)."""
DRAFT_KV = DRAFT.kv_cache_bytes_per_token("bf16")
"""Bytes a token leaves in the draft's cache (bf16)."""
K = 4
"""The draft length the statement asks about first."""
ALPHA = 0.8
"""The acceptance rate: the chance the target accepts a drafted token."""
CONTEXT = 512
"""Tokens already in each sequence's cache."""
MAX_K = MAX_DRAFT
"""The longest draft part (d) tries."""
