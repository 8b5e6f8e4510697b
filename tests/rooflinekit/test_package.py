"""The package as a whole: cheap to import, lazy parts load on use, public names resolve, the
README's examples hold."""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
from pathlib import Path

import rooflinekit as rk

README = Path(__file__).resolve().parents[2] / "README.md"


def test_import_stays_cheap_without_plotting_libraries_or_babel() -> None:
    probe = (
        "import sys, rooflinekit, rooflinekit.words;"
        "rooflinekit.three_clocks; rooflinekit.network_critical_d;"
        "print(','.join(m for m in ('matplotlib', 'ipywidgets', 'argparse', 'babel') if m in sys.modules))"
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


def test_the_readme_examples_print_what_the_readme_says() -> None:
    blocks = re.findall(r"^```pycon\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.S | re.M)
    assert blocks, "the README's library examples are ```pycon blocks"
    runner = doctest.DocTestRunner()
    for number, block in enumerate(blocks):
        runner.run(doctest.DocTestParser().get_doctest(block, {}, f"README block {number}", str(README), 0))
    results = runner.summarize(verbose=False)
    assert results.attempted >= 4 and results.failed == 0
