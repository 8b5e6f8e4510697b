"""The interactive roofline explorer: ``explorer()`` as the last line of a notebook cell.

Pick a catalog chip or set the peak and bandwidth with sliders, choose operations, a token
batch ``B`` and a width ``D = F``, and see where each operation lands on the roofline, at the
datasheet's peak or at the share of it real kernels reach (the achieved control).

One module a job:

- :mod:`~rooflinekit.explorer.model`: what it shows (operations, slider positions, settings,
  each operation placed on a chip, the data the static page embeds);
- :mod:`~rooflinekit.explorer.static`: the kernel-free HTML page, with its script and styles
  in ``assets/``;
- :mod:`~rooflinekit.explorer.widget`: the live ipywidgets face, and the object a cell displays;
- the transformer view, :func:`transformer_explorer`: one step of a model, every operation on
  the roofline, with a phase toggle and batch and context sliders, in the same three parts
  (:mod:`~rooflinekit.explorer.transformer_view`, :mod:`~rooflinekit.explorer.transformer_static`
  with :mod:`~rooflinekit.explorer.transformer_figure`, :mod:`~rooflinekit.explorer.transformer_widget`);
- :mod:`~rooflinekit.explorer.labels`: their words in every language of the course
  (``explorer(language="ko")``, ``transformer_explorer(language="ko")``; a kernel-free page
  speaks the page's language);
- :mod:`~rooflinekit.explorer.page`: what every kernel-free view's HTML needs.

Importing it loads neither matplotlib nor ipywidgets; the live face loads them when shown.

>>> explorer("h100-sxm", B=512, D=4096).points()[0].bound
'compute'
"""

from rooflinekit.explorer.model import ExplorerSettings, Point, evaluate, grid_data
from rooflinekit.explorer.page import WIDGET_VIEW
from rooflinekit.explorer.static import explorer_html
from rooflinekit.explorer.transformer_widget import TransformerExplorer, transformer_explorer
from rooflinekit.explorer.widget import Explorer, explorer, roofline_png, table_html

__all__ = [
    "WIDGET_VIEW",
    "Explorer",
    "ExplorerSettings",
    "Point",
    "TransformerExplorer",
    "evaluate",
    "explorer",
    "explorer_html",
    "grid_data",
    "roofline_png",
    "table_html",
    "transformer_explorer",
]
