"""The interactive roofline explorer: ``explorer()`` as the last line of a notebook cell.

Pick a catalog chip or set the peak and bandwidth with sliders, choose operations, a token
batch ``B`` and a width ``D = F``, and see where each operation lands on the roofline.

One module a job:

- :mod:`~rooflinekit.explorer.model`: what it shows (operations, slider positions, settings,
  each operation placed on a chip, the data the static page embeds);
- :mod:`~rooflinekit.explorer.static`: the kernel-free HTML page, with its script and styles
  in ``assets/``;
- :mod:`~rooflinekit.explorer.widget`: the live ipywidgets face, and the object a cell displays.

Importing it loads neither matplotlib nor ipywidgets; the live face loads them when shown.

>>> explorer("h100-sxm", B=512, D=4096).points()[0].bound
'compute'
"""

from rooflinekit.explorer.model import ExplorerSettings, Point, evaluate, grid_data
from rooflinekit.explorer.static import explorer_html
from rooflinekit.explorer.widget import WIDGET_VIEW, Explorer, explorer, roofline_png, table_html

__all__ = [
    "WIDGET_VIEW",
    "Explorer",
    "ExplorerSettings",
    "Point",
    "evaluate",
    "explorer",
    "explorer_html",
    "grid_data",
    "roofline_png",
    "table_html",
]
