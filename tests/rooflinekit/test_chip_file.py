"""A chip of your own from a TOML file: checked like the catalog's, usable in Python and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rooflinekit as rk
from tests.support.cli import Done, run_cli

GOOD = """\
id = "x1"
name = "ACME X1"
vendor = "ACME"
hbm_bandwidth = 2.0e12
hbm_bytes = 48e9
link_bandwidth = 1e11
link_name = "XLink"

[dense_flops]
bf16 = 4.0e14
int8 = 8.0e14

[source]
title = "ACME X1 datasheet"
url = "https://example.com/x1"
kind = "datasheet"
checked = 2026-11-20
"""


def write(tmp_path: Path, text: str, name: str = "x1.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def cli(*args: str) -> Done:
    return run_cli(*args)  # in this process: tests.support.cli


def test_a_good_file_gives_a_chip_like_the_catalogs(tmp_path: Path) -> None:
    x1 = rk.load_chip(write(tmp_path, GOOD))
    assert (x1.id, x1.name, x1.peak("int8"), x1.hbm_bandwidth) == ("x1", "ACME X1", 8e14, 2e12)
    assert x1.critical_intensity("bf16") == 200.0
    assert rk.analyze(rk.matmul_cost(256, 8192, 8192), x1).bound == "compute"
    assert set(x1.provenance) == set(x1.figures())
    where = x1.provenance["hbm_bandwidth"]
    assert (where.source.url, where.source.kind, where.checked) == ("https://example.com/x1", "datasheet",
                                                                     "2026-11-20")


def test_a_good_file_works_in_the_command_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    done = cli("matmul", "256", "8192", "8192", "--chip-file", str(path), "--w", "int8", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    x1 = rk.load_chip(path)
    assert out["t_lower"] == rk.analyze(rk.matmul_cost(256, 8192, 8192, w="int8"), x1).t_lower
    assert out["critical_batch"] == rk.matmul_critical_batch(8192, 8192, x1, w="int8")
    text = cli("matmul", "256", "8192", "8192", "--chip-file", str(path)).stdout
    assert "on ACME X1, bf16 compute" in text
    chips = cli("chips", "--chip-file", str(path)).stdout.splitlines()
    assert chips[-1].split()[:3] == ["x1", "ACME", "X1"] and len(chips) == len(rk.CHIPS) + 2


def test_placeholders_where_figures_are_not_given(tmp_path: Path) -> None:
    bare = 'id = "x1"\nname = "X1"\nhbm_bandwidth = 2e12\n[dense_flops]\nbf16 = 4e14\n'
    x1 = rk.load_chip(write(tmp_path, bare))
    assert (x1.hbm_bytes, x1.link_bandwidth) == (1.0, 1.0) and x1.provenance == {}


def test_a_file_may_give_the_slower_links(tmp_path: Path) -> None:
    more = 'link_name = "XLink"\npcie_bandwidth = 3.2e10\ndcn_bandwidth = 6e9'
    links = GOOD.replace('link_name = "XLink"', more)
    x1 = rk.load_chip(write(tmp_path, links))
    assert (x1.pcie_bandwidth, x1.dcn_bandwidth) == (3.2e10, 6e9)
    assert {"pcie_bandwidth", "dcn_bandwidth"} <= set(x1.provenance)
    bad = links.replace("dcn_bandwidth = 6e9", "dcn_bandwidth = 0")
    with pytest.raises(rk.RooflineInputError, match=r"^x1.toml: dcn_bandwidth must be a positive, finite"):
        rk.load_chip(write(tmp_path, bad))


MISTAKES = [
    (("hbm_bandwidth = 2.0e12", 'hbm_bandwidth = "fast"'),
     "x1.toml: hbm_bandwidth must be a positive, finite number (got 'fast')"),
    (("hbm_bandwidth = 2.0e12", "hbm_bandwidth = -2.0e12"),
     "x1.toml: hbm_bandwidth must be a positive, finite number (got -2000000000000.0)"),
    (("hbm_bandwidth = 2.0e12\n", ""),
     "x1.toml: hbm_bandwidth must be given: the HBM bandwidth in B/s (got nothing)"),
    (("hbm_bytes = 48e9", "hbm_byte = 48e9"),
     "x1.toml: field must be one of id, name, vendor, hbm_bandwidth"),
    (("bf16 = 4.0e14", "bf17 = 4.0e14"), "x1.toml: dense_flops key must be one of fp64, fp32"),
    (("int8 = 8.0e14", "int8 = 0"), "x1.toml: dense_flops.int8 must be a positive, finite number (got 0)"),
    (('kind = "datasheet"', 'kind = "blog"'),
     "x1.toml: source.kind must be one of datasheet, product page, paper, course, user, measured, "
     "vendor document (got 'blog')"),
    (("checked = 2026-11-20", 'checked = "20 Nov"'),
     "x1.toml: source.checked must be a date, YYYY-MM-DD (got '20 Nov')"),
    (('id = "x1"', 'id = "tpu-v5e"'), "x1.toml: id must be a name not in the catalog (tpu-v5e,"),
    (('name = "ACME X1"', "name = 3"), "x1.toml: name must be a non-empty string (got 3)"),
    (("hbm_bytes = 48e9", "hbm_bytes 48e9"), "x1.toml must be valid TOML (Expected '=' after a key"),
]


@pytest.mark.parametrize(("change", "message"), MISTAKES, ids=[m for (_, m), _ in MISTAKES])
def test_one_wrong_field_is_named_in_one_line(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    assert change[0] in GOOD
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(rk.RooflineInputError) as raised:
        rk.load_chip(path)
    assert str(raised.value).startswith(message)
    done = cli("dot", "8", "--chip-file", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"rooflinekit dot: error: argument --chip-file: {message}" in done.stderr


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    done = cli("dot", "8", "--chip-file", str(tmp_path / "nope.toml"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "argument --chip-file: chip file must be a readable TOML file (got" in done.stderr


# Per-figure provenance (issue 23): the catalog's own format, so a user's file may say where each
# figure comes from, in which unit, with a note.

PER_FIGURE = """\
id = "x1"
name = "ACME X1"
vendor = "ACME"
link_name = "XLink"
checked = 2026-11-20
notes = ["ACME quotes {hbm} for the HBM."]

[vendor_figures]
hbm = "2.05 TB/s"

[dense_flops]
unit = "TFLOP/s"
source = "acme"
bf16 = 400
int8 = { value = 800, unit = "TOP/s", note = "Twice bf16." }

[hbm_bandwidth]
value = 2
unit = "TB/s"
source = "acme"
note = "ACME gives {hbm}; rounded."

[hbm_bytes]
value = 48
unit = "GB"
source = "acme"
checked = 2026-11-21

[link_bandwidth]
value = 100
unit = "GB/s"
source = "scaling-book-gpus"

[sources.acme]
title = "ACME X1 datasheet"
url = "https://example.com/x1"
kind = "datasheet"
"""


def test_a_file_with_a_source_unit_and_note_for_each_figure(tmp_path: Path) -> None:
    x1 = rk.load_chip(write(tmp_path, PER_FIGURE))
    assert (x1.peak("bf16"), x1.peak("int8"), x1.hbm_bandwidth, x1.hbm_bytes, x1.link_bandwidth) == (
        4e14, 8e14, 2e12, 48e9, 1e11)
    acme = rk.Source("ACME X1 datasheet", "https://example.com/x1", "datasheet")
    rounded = rk.Provenance(acme, "2026-11-20", "ACME gives 2.05 TB/s; rounded.")
    assert x1.provenance["hbm_bandwidth"] == rounded
    assert x1.provenance["hbm_bytes"].checked == "2026-11-21"
    assert x1.provenance["dense_flops.int8"].note == "Twice bf16."
    assert x1.provenance["dense_flops.bf16"] == rk.Provenance(acme, "2026-11-20", "")
    # a page of the catalog's, cited by its key
    assert x1.provenance["link_bandwidth"].source == rk.catalog.SOURCES["scaling-book-gpus"]
    assert set(x1.provenance) == set(x1.figures())
    assert x1.notes[0] == "ACME quotes 2.05 TB/s for the HBM." and x1.notes[0].values == {"hbm": "2.05 TB/s"}
    assert x1.notes[-1] == "from the chip file x1.toml"


def test_the_catalogs_own_files_load_as_a_users_chip_file(tmp_path: Path) -> None:
    # One format: a catalog chip's file, under another id, is a chip file like any other.
    text = (Path(rk.__file__).parent / "data" / "chips" / "h100-sxm.toml").read_text(encoding="utf-8")
    mine = rk.load_chip(write(tmp_path, text.replace('id = "h100-sxm"', 'id = "my-h100"')))
    h100 = rk.chip("h100-sxm")
    assert (mine.figures(), dict(mine.provenance)) == (h100.figures(), dict(h100.provenance))


PER_FIGURE_MISTAKES = [
    (('unit = "TB/s"', 'unit = "TB"'),
     "x1.toml: hbm_bandwidth.unit must be one of B/s, kB/s, MB/s, GB/s, TB/s (got 'TB')"),
    (('unit = "TFLOP/s"', 'unit = "TFLOPS"'),
     "x1.toml: dense_flops.unit must be one of FLOP/s, GFLOP/s, TFLOP/s"),
    (("value = 2\n", ""),
     "x1.toml: hbm_bandwidth.value must be given: the figure, in B/s unless a unit is given"),
    (("value = 48\n", "valu = 48\n"),
     "x1.toml: hbm_bytes key must be one of value, unit, source, checked, note (got 'valu')"),
    (("value = 48\n", 'value = "48"\n'),
     "x1.toml: hbm_bytes.value must be a positive, finite number (got '48')"),
    (('source = "scaling-book-gpus"', 'source = "scaling-book"'),
     "x1.toml: link_bandwidth.source must be a key of [sources]: scaling-book-rooflines, "),
    (('note = "ACME gives {hbm}; rounded."', 'note = "ACME gives {hmb}; rounded."'),
     "x1.toml: hbm_bandwidth.note placeholder must be one of the [vendor_figures]: hbm (got 'hmb')"),
    (('notes = ["ACME quotes {hbm} for the HBM."]', 'notes = "ACME quotes it."'),
     "x1.toml: notes must be a list of strings (got 'ACME quotes it.')"),
    (('kind = "datasheet"', 'kind = "vendor"'),
     "x1.toml: sources.acme.kind must be one of datasheet, product page, paper, course, user, measured"),
    (("checked = 2026-11-21", 'checked = "yesterday"'),
     "x1.toml: hbm_bytes.checked must be a date, YYYY-MM-DD (got 'yesterday')"),
]


@pytest.mark.parametrize(("change", "message"), PER_FIGURE_MISTAKES,
                         ids=[m for (_, m), _ in PER_FIGURE_MISTAKES])
def test_one_wrong_figure_is_named_in_one_line(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    assert PER_FIGURE.count(change[0]) == 1
    path = write(tmp_path, PER_FIGURE.replace(*change))
    with pytest.raises(rk.RooflineInputError) as raised:
        rk.load_chip(path)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)
    done = cli("dot", "8", "--chip-file", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"argument --chip-file: {message}" in done.stderr


def test_a_note_without_a_source_is_refused(tmp_path: Path) -> None:
    bare = 'id = "x1"\nname = "X1"\nhbm_bandwidth = { value = 2e12, note = "rounded" }\n'
    bare += "[dense_flops]\nbf16 = 4e14\n"
    refused = r"^x1.toml: hbm_bandwidth.source must be given with a note"
    with pytest.raises(rk.RooflineInputError, match=refused):
        rk.load_chip(write(tmp_path, bare))
