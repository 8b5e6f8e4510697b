"""Keep scalars scalar: numpy reductions turn Python floats into numpy scalars.

>>> import numpy as np
>>> type(plain(np.maximum(1.0, 2.0)))
<class 'float'>
>>> plain(np.array([1.0, 2.0]))
array([1., 2.])
"""

from __future__ import annotations

from typing import Any

import numpy as np


def plain(value: Any) -> Any:
    """A 0-d result as a Python float (or str); arrays pass through unchanged."""
    if np.ndim(value) == 0:
        item = np.asarray(value).item()
        return item if isinstance(item, str) else float(item)
    return value
