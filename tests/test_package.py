"""The package as a whole: cheap to import, lazy parts load on use, public names resolve."""

from __future__ import annotations

import subprocess
import sys

import rooflinekit as rk


def test_import_stays_cheap_without_plotting_libraries() -> None:
    probe = (
        "import sys, rooflinekit; rooflinekit.serving_step; rooflinekit.network_critical_d;"
        "print(','.join(m for m in ('matplotlib', 'ipywidgets', 'argparse') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_every_public_name_resolves() -> None:
    for name in rk.__all__:
        assert getattr(rk, name) is not None, name
    assert set(rk.__all__) <= set(dir(rk))


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        rk.no_such_thing  # noqa: B018
    except AttributeError as error:
        assert "no_such_thing" in str(error)
    else:
        raise AssertionError("rooflinekit.no_such_thing should not exist")
