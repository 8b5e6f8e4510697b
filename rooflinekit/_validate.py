"""Checks shared by every function a user can call.

Sizes are positive integers (or numpy arrays of them); figures are positive, finite
numbers. Each check returns the value as float64 (a Python float for scalars) so the
formulas never overflow integer arithmetic, and raises ``RooflineInputError`` otherwise.

>>> check_size("B", 4096)
4096.0
>>> check_size("B", 0)
Traceback (most recent call last):
...
rooflinekit.errors.RooflineInputError: B must be a positive integer or an array of positive integers (got 0)
"""

from __future__ import annotations

import math
import numbers
import sys
from typing import Any

import numpy as np

from rooflinekit.errors import RooflineInputError

SIZE_ACCEPTED = "a positive integer or an array of positive integers"
FIGURE_ACCEPTED = "a positive, finite number"
FIGURES_ACCEPTED = "a positive, finite number or an array of them"


def check_size(name: str, value: Any) -> Any:
    """Return ``value`` as float64 if it is a positive integer (scalar or array)."""
    if isinstance(value, (bool | np.bool_, str | bytes)):
        raise RooflineInputError(name, SIZE_ACCEPTED, value)
    if isinstance(value, numbers.Integral):
        if int(value) <= 0:
            raise RooflineInputError(name, SIZE_ACCEPTED, value)
        if int(value) > sys.float_info.max:  # the formulas compute in float64
            raise RooflineInputError(name, f"{SIZE_ACCEPTED} that a float64 can hold", value)
        return float(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if not (math.isfinite(number) and number > 0 and number.is_integer()):
            raise RooflineInputError(name, SIZE_ACCEPTED, value)
        return number
    array = _as_numeric_array(name, value, SIZE_ACCEPTED)
    if array.size == 0:
        raise RooflineInputError(name, SIZE_ACCEPTED, value)
    as_float = array.astype(np.float64)
    if not (np.all(np.isfinite(as_float)) and np.all(as_float > 0)):
        raise RooflineInputError(name, SIZE_ACCEPTED, value)
    if not np.all(as_float == np.floor(as_float)):
        raise RooflineInputError(name, SIZE_ACCEPTED, value)
    return as_float


def check_figure(name: str, value: Any, *, allow_array: bool = False, unit: str = "") -> Any:
    """Return ``value`` as a float if it is a positive, finite number (of ``unit``, if given).

    >>> check_figure("bandwidth", 8.1e11)
    810000000000.0
    >>> check_figure("budget", float("inf"), unit="seconds")
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: budget must be a positive, finite number of seconds (got inf)
    """
    accepted = FIGURES_ACCEPTED if allow_array else FIGURE_ACCEPTED
    accepted += f" of {unit}" if unit else ""
    if isinstance(value, (bool | np.bool_, str | bytes)):
        raise RooflineInputError(name, accepted, value)
    if isinstance(value, numbers.Real):
        try:
            number = float(value)
        except OverflowError as error:  # an integer beyond float64's range
            raise RooflineInputError(name, accepted, value) from error
        if not (math.isfinite(number) and number > 0):
            raise RooflineInputError(name, accepted, value)
        return number
    if not allow_array:
        raise RooflineInputError(name, accepted, value)
    array = _as_numeric_array(name, value, accepted).astype(np.float64)
    if array.size == 0 or not (np.all(np.isfinite(array)) and np.all(array > 0)):
        raise RooflineInputError(name, accepted, value)
    return array


def check_fraction(name: str, value: Any) -> float:
    """Return ``value`` as a float if it is a fraction in (0, 1], such as a share of a peak.

    >>> check_fraction("achieved", 0.8)
    0.8
    >>> check_fraction("achieved", 80)
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: achieved must be a fraction in (0, 1] (got 80)
    """
    accepted = "a fraction in (0, 1]"
    if isinstance(value, (bool | np.bool_)) or not isinstance(value, numbers.Real):
        raise RooflineInputError(name, accepted, value)
    number = float(value)
    if not (0 < number <= 1):
        raise RooflineInputError(name, accepted, value)
    return number


def is_integer(value: Any) -> bool:
    """True for Python and numpy integers, False for anything else (``True`` included).

    >>> is_integer(3), is_integer(3.0), is_integer(True)
    (True, False, False)
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def check_count(name: str, value: Any, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer from ``minimum`` (to ``maximum``, if given).

    >>> check_count("n_chips", 2, minimum=2)
    2
    >>> check_count("repeats", 0, maximum=1000)
    Traceback (most recent call last):
    ...
    rooflinekit.errors.RooflineInputError: repeats must be an integer from 1 to 1000 (got 0)
    """
    if maximum is None:
        accepted = f"an integer of at least {minimum}"
    else:
        accepted = f"an integer from {minimum} to {maximum}"
    if not is_integer(value) or int(value) < minimum or (maximum is not None and int(value) > maximum):
        raise RooflineInputError(name, accepted, value)
    return int(value)


def _as_numeric_array(name: str, value: Any, accepted: str) -> np.ndarray[Any, Any]:
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:  # ragged lists and the like
        raise RooflineInputError(name, accepted, value) from error
    if array.dtype.kind not in "iuf":
        raise RooflineInputError(name, accepted, value)
    return array
