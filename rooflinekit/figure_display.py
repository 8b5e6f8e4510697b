"""What a figure displayed in a notebook carries beside its image, from every part that adds to it.

IPython's display asks one function, per kind of object, for the metadata of its output: a second
function registered for matplotlib figures would replace the first. So the parts of the library
that add to a figure's output (its alt text, :mod:`rooflinekit.alt_text`; its drawings in the
book's other languages, :mod:`rooflinekit.figure_languages`) each :func:`contribute` a function
here, and this module registers one that merges what they all give into the metadata of each
image IPython makes of the figure. IPython and matplotlib are never imported here: outside a
running IPython nothing is registered.

>>> from IPython.core.interactiveshell import InteractiveShell
>>> InteractiveShell.clear_instance()  # no IPython here (myst-nb's glue, which a test calls, makes one)
>>> contribute("doctest", lambda figure: {"note": "a figure"})
False
>>> merged(object(), {"a": lambda figure: {"x": 1}, "b": lambda figure: 1 / 0})
{'x': 1}
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["IMAGE_TYPES", "contribute", "merged"]

IMAGE_TYPES = ("image/png", "image/svg+xml", "image/jpeg")
"""The kinds of image of a figure IPython may make, whose metadata carries what is contributed."""
Contribution = Callable[[Any], Mapping[str, Any]]
_CONTRIBUTIONS: dict[str, Contribution] = {}


def contribute(name: str, about: Contribution) -> bool:
    """Have every matplotlib figure IPython displays carry ``about(figure)`` in the metadata of its
    images, beside what the other contributions give (``name`` replaces an earlier contribution of
    the same name); False, registering nothing, outside a running IPython."""
    ipython = sys.modules.get("IPython")  # a kernel has it loaded; the library never imports it
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or not hasattr(shell, "display_formatter"):
        return False
    _CONTRIBUTIONS[name] = about
    display = shell.display_formatter
    bundle = functools.partial(_metadata, formatters=display.formatters)
    display.mimebundle_formatter.for_type_by_name("matplotlib.figure", "Figure", bundle)
    return True


def merged(figure: Any, contributions: Mapping[str, Contribution]) -> dict[str, Any]:
    """What every contribution gives for ``figure``, merged; one that fails gives nothing (a figure
    of a kind it does not read is shown without it, never with an error)."""
    found: dict[str, Any] = {}
    for about in contributions.values():
        try:
            found.update(about(figure))
        except Exception:  # the book's build names a figure that lacks what it needs
            continue
    return found


def _metadata(figure: Any, formatters: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """What IPython's display adds to a figure's output: no data of its own, and the merged
    contributions as the metadata of each image of the figure IPython's ``formatters`` make."""
    about = merged(figure, _CONTRIBUTIONS)
    if not about:
        return {}, {}
    made = [kind for kind in IMAGE_TYPES if kind in formatters and _makes(formatters[kind], figure)]
    return {}, {kind: dict(about) for kind in made}


def _makes(formatter: Any, figure: Any) -> bool:
    try:
        formatter.lookup(figure)
    except KeyError:
        return False
    return bool(formatter.enabled)
