"""What the keys of the matmul exercises (1 to 4) share: the ``B << D, F`` rule a student may
use where the question asks for the exact figure, and the reading that rules it out.

Exercises 1 to 3 ask for exact bytes and intensities, and for the critical batch of that rule;
a folder knows no other folder, so the rule lives here, once.

>>> float(approximate_intensity(64, 4096, 4096))
128.0
>>> round(critical(1.97e14, 8.2e11), 1), round(critical(1.97e14, 8.2e11, "bf16"), 1)
(120.1, 240.2)
>>> APPROXIMATE.ruled_out_by
'without assuming that B is small next to D and F'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from roofline_grading.authoring import FLOPS_PER_MULTIPLY_ADD, refused
from roofline_grading.misconceptions import APPROXIMATE_INTENSITY
from roofline_grading.questions import Reading
from rooflinekit.critical import matmul_critical_batch_approx
from rooflinekit.words import N_

__all__ = ["APPROXIMATE", "approximate_intensity", "critical"]


def approximate_intensity(B: Any, D: Any, F: Any) -> Any:
    """``2B / 1``: only the int8 weights' bytes counted (the ``B << D, F`` intensity)."""
    return FLOPS_PER_MULTIPLY_ADD * np.asarray(B, dtype=np.float64)


def critical(peak: float, bandwidth: float, weight: str = "int8") -> float:
    """The ``B << D, F`` critical batch at ``peak`` and ``bandwidth``, weights of type ``weight``."""
    return matmul_critical_batch_approx(peak=peak, bandwidth=bandwidth, w=weight)


APPROXIMATE: Reading = refused(
    "approximate",
    "the B << D, F intensity of the chapters, about 2B",
    approximate_intensity,
    N_("without assuming that B is small next to D and F"),
    APPROXIMATE_INTENSITY,
)
"""The intensity of the chapters' rule, which a question asking for the exact one rules out."""
