"""A mixed step: decode tokens and a chunk of a prompt in one step, on the roofline.

Chunked prefill (:mod:`rooflinekit.transformer.chunked`) and prefix caching
(:mod:`rooflinekit.transformer.prefix`) both run prompt tokens after tokens already cached: a chunk
after the prompt's earlier chunks, or the new tokens after a shared prefix. :func:`mixed_step`
places such a step, operation by operation, with the same per-operation model as every other step:
the matmuls, norms and collectives see ``decode_batch + chunk`` tokens at once (their weights read
once for all of them), and attention is the sum of the decode tokens' attention over their caches
and the chunk's attention over the prompt's earlier tokens and itself (causal), fused in one kernel
as engines run it. It sits below the serving searches, which take a shared prefix too.

>>> lone = transformer_step("llama-3.1-8b", "h100-sxm", batch=32, context=2048)
>>> mixed = mixed_step("llama-3.1-8b", "h100-sxm", decode_batch=32, context=2048, chunk=256)
>>> round(mixed.t_sequential / lone.t_sequential, 2)    # 256 prompt tokens ride along for 12 % more
1.12
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rooflinekit._validate import check_count, check_figure
from rooflinekit.catalog import Chip
from rooflinekit.costs import Cost
from rooflinekit.errors import RooflineInputError
from rooflinekit.models import TransformerShape, transformer_shape
from rooflinekit.transformer.op import Op
from rooflinekit.transformer.step import TransformerStep, place, transformer_step

HEAD = ("final norm", "LM head", "logits all-gather")
"""The operations of the model's head (:func:`~rooflinekit.transformer.operations.head_ops`)."""


@dataclass(frozen=True)
class MixedStep:
    """One mixed step: ``decode_batch`` decode tokens and a chunk of ``chunk`` prompt tokens.

    ``step`` holds the merged operations (placed on one chip's roofline) and the memory check of
    the decode sequences with the chunk's; its times are the mixed step's.
    """

    step: TransformerStep
    decode_batch: int
    context: int
    chunk: int
    prefix: int

    @property
    def t_sequential(self) -> float:
        """Seconds with the operations one after another: every decode token's TPOT in this step."""
        return self.step.t_sequential

    @property
    def t_collectives_hidden(self) -> float:
        return self.step.t_collectives_hidden

    @property
    def bound(self) -> str:
        return self.step.bound

    def to_dict(self) -> dict[str, Any]:
        return {"decode_batch": self.decode_batch, "context": self.context, "chunk": self.chunk,
                "prefix": self.prefix, "t_sequential": self.t_sequential,
                "t_collectives_hidden": self.t_collectives_hidden, "bound": self.bound,
                "step": self.step.to_dict()}


def _attention(step: TransformerStep | None) -> dict[str, Op]:
    return {} if step is None else {p.op.name: p.op for p in step.ops if p.op.kind == "attention"}


def _merged(a: Op, b: Op | None = None) -> Op:
    """Two operations of one name run as one kernel: their FLOPs and bytes add."""
    if b is None:
        return a
    cost = Cost(a.flops + b.flops, a.cost.bytes_read + b.cost.bytes_read,
                a.cost.bytes_written + b.cost.bytes_written, a.name)
    return Op(a.name, a.kind, cost, a.count)


def _chunk_step(shape: TransformerShape, on: str | Chip, chunk: int, prefix: int,
                settings: dict[str, Any]) -> TransformerStep | None:
    """The chunk alone: ``chunk`` new tokens over ``prefix`` cached ones of the same prompt (at least
    one, a first chunk counting one key too many); the mixed step takes its attention."""
    if not chunk:
        return None
    return transformer_step(shape, on, context=max(prefix, 1), step_tokens=chunk, **settings)


def mixed_step(model: str | TransformerShape, on: str | Chip, *, decode_batch: int, context: int,
               chunk: int, prefix: int = 0, **settings: Any) -> MixedStep:
    """A step with ``decode_batch`` sequences decoding over ``context`` cached tokens each and a chunk
    of ``chunk`` prompt tokens after ``prefix`` of the same prompt already prefilled.

    ``settings`` are :func:`~rooflinekit.transformer.step.transformer_step`'s (``n_chips``, dtypes,
    efficiency, collective latency). ``decode_batch`` or ``chunk`` may be 0, not both. Of them,
    ``shared_prefix`` counts in the memory check alone: the sequences and the prompt share that
    many first tokens, cached once a chip; every token still reads its whole cache.

    >>> mixed_step("llama-3.1-8b", "h100-sxm", decode_batch=0, context=1, chunk=0)
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: chunk must be at least 1 when decode_batch is 0 (got 0)
    """
    shape = transformer_shape(model)
    shared = settings.pop("shared_prefix", 0)
    for fixed in ("batch", "phase", "step_tokens"):
        if fixed in settings:
            raise RooflineInputError(fixed, "left out (a mixed step sets it)", settings[fixed])
    batch, chunk_tokens, done = (_count0(name, v) for name, v in
                                 (("decode_batch", decode_batch), ("chunk", chunk), ("prefix", prefix)))
    if not batch and not chunk_tokens:
        raise RooflineInputError("chunk", "at least 1 when decode_batch is 0", chunk)
    # Memory: the decoded sequences and the prompt being prefilled, each at its longest.
    longest = max(check_count("context", context), done + chunk_tokens)
    transformer_step(shape, on, batch=batch + (1 if chunk_tokens else 0), context=longest,
                     shared_prefix=shared, **settings)
    linear = transformer_step(shape, on, step_tokens=batch + chunk_tokens, context=1, **settings)
    decode = transformer_step(shape, on, batch=batch, context=context, **settings) if batch else None
    parts = (_attention(decode), _attention(_chunk_step(shape, on, chunk_tokens, done, settings)))
    names = list(dict.fromkeys([*parts[0], *parts[1]]))
    joined = [_merged(*[part[name] for part in parts if name in part]) for name in names]
    # Logits for the decode tokens and the chunk's last token only, as engines compute them.
    head = transformer_step(shape, on, batch=batch + (1 if chunk_tokens else 0), context=1, **settings)
    ops = [p.op for p in linear.ops if p.op.kind != "attention" and p.op.name not in HEAD]
    ops += [p.op for p in head.ops if p.op.name in HEAD]
    first = next(i for i, p in enumerate(linear.ops) if p.op.kind == "attention")
    ops[first:first] = joined
    setup = linear.setup
    step = TransformerStep(shape, setup, tuple(place(op, setup) for op in ops), linear.memory)
    return MixedStep(step, batch, context, chunk_tokens, done)


def _count0(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RooflineInputError(name, "an integer, 0 or more", value)
    return value


def largest_chunk(model: str | TransformerShape, on: str | Chip, *, tpot: float, decode_batch: int,
                  context: int, prompt: int, shared_prefix: int = 0, **settings: Any) -> int | None:
    """The largest chunk (at most the ``prompt`` tokens after its ``shared_prefix``, which is cached)
    whose mixed step with ``decode_batch`` decode tokens stays within ``tpot`` seconds, the chunk
    taken last in its prompt (attending over the rest of it, the slowest); ``None`` when even a
    chunk of one token misses the target.

    >>> largest_chunk("llama-3.1-70b", "h100-sxm", tpot=0.03, decode_batch=64, context=2048,
    ...               prompt=8192, n_chips=8)
    791
    """
    target = float(check_figure("tpot", tpot, unit="seconds"))
    length = check_count("prompt", prompt)
    shared = check_shared_prefix(shared_prefix, length)

    def meets(chunk: int) -> bool:
        step = mixed_step(model, on, decode_batch=decode_batch, context=context, chunk=chunk,
                          prefix=length - chunk, shared_prefix=shared, **settings)
        return step.t_sequential <= target

    if not meets(1):
        return None
    low, high = 1, length - shared
    if meets(high):
        return high
    while high - low > 1:  # meets(low), not meets(high)
        middle = (low + high) // 2
        low, high = (middle, high) if meets(middle) else (low, middle)
    return low


def check_shared_prefix(shared_prefix: int, prompt: int, name: str = "shared_prefix") -> int:
    """``shared_prefix``, if it is a number of a ``prompt``'s first tokens that leaves one to prefill
    (refused as the argument ``name``).

    >>> check_shared_prefix(1024, prompt=1024)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: shared_prefix must be a number of tokens from 0 to 1023 ...1024)
    """
    whole = isinstance(shared_prefix, int) and not isinstance(shared_prefix, bool)
    if not whole or not 0 <= shared_prefix < prompt:
        raise RooflineInputError(name, f"a number of tokens from 0 to {prompt - 1} (shorter than the prompt)",
                                 shared_prefix)
    return shared_prefix


def prefix_prefill(model: str | TransformerShape, on: str | Chip, *, prompt: int, shared: int,
                   **settings: Any) -> MixedStep:
    """The prefill of a ``prompt`` whose first ``shared`` tokens are already cached: its new tokens,
    a chunk attending over the prefix and itself.

    >>> whole = transformer_step("llama-3.1-8b", "h100-sxm", phase="prefill", context=2048)
    >>> hit = prefix_prefill("llama-3.1-8b", "h100-sxm", prompt=2048, shared=1024)
    >>> round(hit.step.flops / whole.flops, 2)
    0.51
    """
    length = check_count("prompt", prompt)
    cached = check_shared_prefix(shared, length, "shared")
    return mixed_step(model, on, decode_batch=0, context=1, chunk=length - cached, prefix=cached, **settings)
