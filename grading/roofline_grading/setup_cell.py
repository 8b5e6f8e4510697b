"""The setup cell every exercise opens with, written by ``make exercises`` (never pasted).

:mod:`roofline_grading.fingerprints` writes it as each notebook's second cell (grade id
``<prefix>_setup``, locked): :data:`SETUP`, and :data:`PLOTTING` after it in an exercise that draws
a figure (its answer key's ``plots``). It is code a student reads and runs, plain Python: the
helpers the test cells call (``is_number``, ``uses_rooflinekit``) and the message ``NO_ROOFLINEKIT``;
its messages are translated in the Korean release like every code message of a notebook
(tools/exercise_translations.py).

>>> source(plots=False).startswith("import math"), source(plots=True).endswith(PLOTTING)
(True, True)
"""

# ruff: noqa: E501
# (SETUP and PLOTTING are the students' code, its lines as they read them.)
from __future__ import annotations

__all__ = ["PLOTTING", "SETUP", "source"]

SETUP = '''import math
import numbers
import sys
import types

import numpy as np


def is_number(value):
    """True for a real number of any type (int, float, Fraction, numpy's); False for anything else, bool included."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def uses_rooflinekit(function, _seen=None):
    """True if this notebook imported rooflinekit, or `function` (or a function it calls) uses it."""
    # An instructor's kernel running the hidden tests loads rooflinekit itself, to judge them.
    if "rooflinekit" in sys.modules and "roofline_grading.local" not in sys.modules:
        return True
    seen = set() if _seen is None else _seen
    code = getattr(function, "__code__", None)
    if code is None or id(function) in seen:
        return False
    seen.add(id(function))
    names = set(code.co_names)
    for constant in code.co_consts:
        names |= set(getattr(constant, "co_names", ()))
    for name in names:
        value = getattr(function, "__globals__", {}).get(name)
        home = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", "")
        if str(home).split(".")[0] == "rooflinekit" or uses_rooflinekit(value, seen):
            return True
    return False


NO_ROOFLINEKIT = (
    "answers may use Python, math and numpy (and matplotlib for the plot), not rooflinekit: the grading "
    "kernel does not have it; remove every use of rooflinekit from this notebook"
)'''
"""What every exercise's setup cell holds."""

PLOTTING = '''


import matplotlib.pyplot as plt
from matplotlib import font_manager
from matplotlib.figure import Figure

# Labels in Korean: matplotlib's own font has no Hangul. It takes each character that font lacks
# from the next family listed: a font with Hangul that this machine has (Windows, macOS, Linux).
HANGUL_FONTS = ("Malgun Gothic", "Apple SD Gothic Neo", "AppleGothic", "NanumGothic", "Noto Sans CJK KR")
installed_fonts = {font.name for font in font_manager.fontManager.ttflist}
plt.rcParams["font.family"] = ["sans-serif", *(name for name in HANGUL_FONTS if name in installed_fonts)]'''
"""What an exercise that draws a figure adds: matplotlib, with a font that has Hangul when the
machine has one."""


def source(*, plots: bool) -> str:
    """The setup cell's source (with :data:`PLOTTING` when the exercise ``plots``)."""
    return SETUP + PLOTTING if plots else SETUP
