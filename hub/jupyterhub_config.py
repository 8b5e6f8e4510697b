"""JupyterHub's configuration for the class on one machine: ``make hub`` starts the hub with it.

Everything is set by hub/roofline_hub.py's ``configure``, from the settings make hub passes
(the address, the hub's folder, the course folder, the exchange); see that module and the
instructor's guide, "A class on a JupyterHub".
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from roofline_hub import Settings, configure

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (JupyterHub provides get_config)
configure(c, Settings.from_environment())
