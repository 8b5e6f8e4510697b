"""What exercise 7's statement gives: Llama 3.1 8B on one H100 SXM, a context, a batch and a prompt.

No answer: the statement prints these figures, and the key asks its questions at them. The model
and the context are the library's (:mod:`rooflinekit.exercises`), which the book quotes too.

>>> MODEL, CONTEXT, BATCH, PROMPT, SHAPE.n_kv_heads
('llama-3.1-8b', 4096, 64, 2048, 8)
"""

from __future__ import annotations

from rooflinekit.catalog import Chip, chip
from rooflinekit.exercises import EX7_CONTEXT as CONTEXT
from rooflinekit.exercises import EX7_MODEL as MODEL
from rooflinekit.models import TransformerShape, transformer_shape

__all__ = ["BATCH", "CHIP", "CONTEXT", "MODEL", "PROMPT", "SHAPE"]

SHAPE: TransformerShape = transformer_shape(MODEL)
"""The model's shape, from its config: layers, query and KV heads, head width, parameters."""
CHIP: Chip = chip("h100-sxm")
"""One H100 SXM: HBM, dense bf16 peak and bandwidth from NVIDIA's datasheet."""
BATCH = 64
"""The decode batch at which exercise 7 asks the step's time."""
PROMPT = 2048
"""Tokens of the prompt whose first token exercise 7 asks."""
