"""The browser on a module's JupyterLab: each module that drives one defines its ``lab`` fixture
(tests/support/jupyterlab.py's :func:`~tests.support.jupyterlab.lab_with`), and this is its chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.jupyterlab import Browser, Lab, browse


@pytest.fixture(scope="module")
def browser(lab: Lab, tmp_path_factory: pytest.TempPathFactory, playwright_session: Any) -> Iterator[Browser]:
    """Chromium on the module's ``lab``, with a fresh profile; every request to another address is
    noted (``blocked``: the browser reaches 127.0.0.1 alone), and the console's errors too (``errors``)."""
    with browse(lab, tmp_path_factory.mktemp("chromium-profile"), playwright_session) as seen:
        yield seen
