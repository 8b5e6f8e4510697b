"""The misconceptions more than one exercise exists to catch, in the words a student reads.

An exercise folder's ``key.py`` (:mod:`roofline_grading.exercises`) names its own misconceptions and
imports these: a folder knows no other folder, so what two exercises share lives here, once, and the
feedback and the guide's table say it the same way for each.

>>> SPARSE_PEAK.name, HALVED_TWICE.name
('sparse-peak', 'halved-twice')
>>> sorted(m.name for m in SHARED)[:3]
['approximate-intensity', 'binary-terabytes', 'halved-twice']
"""

from __future__ import annotations

from roofline_grading.questions import Misconception
from rooflinekit.words import N_

__all__ = [
    "APPROXIMATE_INTENSITY",
    "BINARY_TERABYTES",
    "HALVED_TWICE",
    "INT8_PEAK_FOR_BF16",
    "INT8_TWO_BYTES",
    "NO_FACTOR_TWO",
    "SHARED",
    "SPARSE_PEAK",
]

INT8_TWO_BYTES = Misconception(
    "int8-two-bytes",
    N_(
        "This matches counting 2 bytes per int8 element. An int8 number takes 1 byte; 2 bytes is the size"
        " of a bf16 number."
    ),
)
NO_FACTOR_TWO = Misconception(
    "no-factor-two",
    N_(
        "This matches counting one operation per multiply-add. Each of the B*D*F products is a multiply "
        "and an add, so the matmul does 2*B*D*F operations."
    ),
)
APPROXIMATE_INTENSITY = Misconception(
    "approximate-intensity",
    N_(
        "This matches the B << D, F approximation (an intensity of about 2B). The question asks for the "
        "exact intensity: count every byte read and written, activations and output included."
    ),
)
INT8_PEAK_FOR_BF16 = Misconception(
    "int8-peak-for-bf16",
    N_(
        "This matches using the int8 peak. The weights are stored in int8, but the math is done in bf16, "
        "so the bf16 peak applies."
    ),
)
SPARSE_PEAK = Misconception(
    "sparse-peak",
    N_(
        "This matches using the datasheet's figure as it is. That figure assumes 2:4 structured sparsity;"
        " dense bf16 math runs at half of it."
    ),
)
BINARY_TERABYTES = Misconception(
    "binary-terabytes",
    N_(
        "This matches taking a terabyte as 2**40 bytes. Datasheets count in powers of ten: 1 TB/s is "
        "10**12 bytes per second."
    ),
)
HALVED_TWICE = Misconception(
    "halved-twice",
    N_(
        "This matches dividing by 2 x the bandwidth. For a bf16 matmul the 2 FLOPs per multiply-add and "
        "the 2 bytes per weight cancel: the critical batch is the dense peak over the bandwidth."
    ),
)
SHARED: tuple[Misconception, ...] = (
    INT8_TWO_BYTES,
    NO_FACTOR_TWO,
    APPROXIMATE_INTENSITY,
    INT8_PEAK_FOR_BF16,
    SPARSE_PEAK,
    BINARY_TERABYTES,
    HALVED_TWICE,
)
"""Every misconception here (two exercises or more name each)."""
