"""The hardware catalog: lookups, sources, dense vs sparse, derived chips."""

from __future__ import annotations

import datetime
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import rooflinekit as rk

SPEC_IDS = ["tpu-v5e", "tpu-v5p", "tpu-v6e", "h100-sxm", "h200-sxm", "b200"]


def test_catalog_holds_the_spec_chips() -> None:
    assert list(rk.CHIPS) == SPEC_IDS


@pytest.mark.parametrize("chip_id", SPEC_IDS)
def test_every_chip_names_a_vendor_source(chip_id: str) -> None:
    found = rk.chip(chip_id)
    assert found.sources, chip_id
    assert all(s.url.startswith("https://") for s in found.sources)
    vendor_domain = {"Google": "cloud.google.com", "NVIDIA": "nvidia.com"}[found.vendor]
    assert any(vendor_domain in s.url for s in found.sources)


@pytest.mark.parametrize("chip_id", SPEC_IDS)
def test_figures_are_positive_and_sparse_is_twice_dense(chip_id: str) -> None:
    found = rk.chip(chip_id)
    assert found.hbm_bandwidth > 0 and found.hbm_bytes > 0 and found.link_bandwidth > 0
    for name, sparse in found.sparse_flops.items():
        # 2:4 sparsity doubles the peak; datasheets round the dense half (1979 -> 989).
        assert sparse == pytest.approx(2 * found.dense_flops[name], rel=1e-3)


def test_gpu_datasheet_sparse_figure_is_kept_apart() -> None:
    h100 = rk.chip("h100-sxm")
    assert h100.peak("bf16") == 9.89e14
    assert h100.peak("bf16", sparse=True) == 1.979e15


def test_lookup_is_case_insensitive_and_passes_chips_through() -> None:
    assert rk.chip("TPU-V5E") is rk.chip("tpu-v5e")
    assert rk.chip(rk.chip("b200")) is rk.chip("b200")


def test_unknown_chip_lists_the_known_ones() -> None:
    with pytest.raises(rk.UnknownNameError) as raised:
        rk.chip("a100")
    message = str(raised.value)
    assert "'a100'" in message
    for chip_id in SPEC_IDS:
        assert chip_id in message
    assert isinstance(raised.value, KeyError)  # still caught by `except KeyError`


def test_missing_dtype_on_a_chip_names_what_it_has() -> None:
    with pytest.raises(rk.RooflineInputError, match=r"tpu-v5e.*bf16, int8.*'fp8'"):
        rk.chip("tpu-v5e").peak("fp8")


def test_derive_overrides_figures_and_leaves_the_original() -> None:
    original = rk.chip("tpu-v5e")
    slow = original.derive(hbm_bandwidth=8.1e11)
    assert slow.hbm_bandwidth == 8.1e11
    assert slow.peak("int8") == original.peak("int8")
    assert original.hbm_bandwidth == 8.2e11
    assert slow.id == "tpu-v5e-custom"
    assert "hbm_bandwidth" in slow.notes[-1]


def test_derive_with_new_peaks_drops_sparse_figures() -> None:
    derived = rk.chip("h100-sxm").derive(id="h100-80pct", peaks={"bf16": 0.8 * 9.89e14})
    assert derived.peak("bf16") == pytest.approx(7.912e14)
    assert derived.sparse_flops == {}


@pytest.mark.parametrize(
    ("changes", "argument"),
    [
        ({"hbm_bandwidth": 0}, "hbm_bandwidth"),
        ({"hbm_bandwidth": float("nan")}, "hbm_bandwidth"),
        ({"link_bandwidth": -1.0}, "link_bandwidth"),
        ({"peaks": {"bf16": float("inf")}}, "peaks"),
        ({"peaks": {"bf17": 1e14}}, "peaks key"),
        ({"peaks": [1e14]}, "peaks"),
    ],
)
def test_derive_refuses_bad_figures(changes: dict[str, object], argument: str) -> None:
    with pytest.raises(rk.RooflineInputError) as raised:
        rk.chip("tpu-v5e").derive(**changes)  # type: ignore[arg-type]
    assert str(raised.value).startswith(argument)


def test_custom_chip_from_two_figures() -> None:
    custom = rk.custom_chip(peak=2e14, hbm_bandwidth=1e12)
    assert custom.critical_intensity() == 200


def test_dtype_sizes() -> None:
    sizes = {name: rk.dtype_bytes(name) for name in ("fp32", "bf16", "fp16", "fp8", "int8", "int4")}
    assert sizes == {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1, "int4": 0.5}


def test_unknown_dtype_lists_the_known_ones() -> None:
    with pytest.raises(rk.UnknownNameError, match=r"^w must be one of fp64, fp32, .*int4 \(got 'int3'\)$"):
        rk.matmul_cost(1, 1, 1, w="int3")


@pytest.mark.parametrize("chip_id", SPEC_IDS)
def test_every_figure_has_a_source_a_kind_and_a_date(chip_id: str) -> None:
    found = rk.chip(chip_id)
    assert set(found.provenance) == set(found.figures())
    for where in found.provenance.values():
        assert where.source.url.startswith("https://") and where.source.title
        assert where.source.kind in ("datasheet", "product page", "paper", "course")
        assert datetime.date.fromisoformat(where.checked) <= datetime.date.today()


@pytest.mark.parametrize(
    ("chip_id", "figure", "vendor_says"),
    [("tpu-v5e", "hbm_bandwidth", "819 GB/s"), ("tpu-v5e", "dense_flops.int8", "393 TOP/s"),
     ("tpu-v6e", "dense_flops.bf16", "918 TFLOP/s"), ("h100-sxm", "dense_flops.bf16", "2:4 sparsity"),
     ("b200", "hbm_bandwidth", "7.7 TB/s"), ("h100-sxm", "link_bandwidth", "900 GB/s")],
)
def test_where_the_course_differs_from_the_vendor_a_note_says_so(
    chip_id: str, figure: str, vendor_says: str
) -> None:
    assert vendor_says in rk.chip(chip_id).provenance[figure].note


def test_the_chip_lists_the_pages_its_figures_cite_once_each() -> None:
    v5e = rk.chip("tpu-v5e")
    assert len(v5e.sources) == len(set(v5e.sources)) == 3
    assert {s.kind for s in v5e.sources} == {"datasheet", "paper"}


@pytest.mark.parametrize(
    ("provenance", "message"),
    [({"hbm_bandwith": "x"}, "provenance key must be one of the chip's figures"),
     ({"hbm_bandwidth": rk.Provenance(rk.Source("t", "u", "blog"), "2026-01-01")},
      "provenance.hbm_bandwidth kind must be one of datasheet"),
     ({"hbm_bandwidth": rk.Provenance(rk.Source("t", "u"), "01/01/2026")},
      "provenance.hbm_bandwidth checked must be a date, YYYY-MM-DD")],
)
def test_bad_provenance_is_named(provenance: dict[str, object], message: str) -> None:
    with pytest.raises(rk.RooflineInputError, match=message):
        rk.Chip("c", "c", "v", {"bf16": 1e14}, 1e12, 1e9, 1e9, "link", provenance=provenance)  # type: ignore[arg-type]


def test_derived_figures_lose_their_provenance_and_say_why() -> None:
    derived = rk.chip("h100-sxm").derive(peaks={"bf16": 8e14}, hbm_bandwidth=3e12)
    assert "dense_flops.bf16" not in derived.provenance and "hbm_bandwidth" not in derived.provenance
    assert "dense_flops.fp8" in derived.provenance
    assert not any(figure.startswith("sparse") for figure in derived.provenance)
    assert derived.notes[-1] == "derived from h100-sxm: hbm_bandwidth=3e12, dense_flops.bf16=8e14"


@pytest.mark.parametrize("chip_id", SPEC_IDS)
def test_slower_links_are_slower_and_sourced(chip_id: str) -> None:
    found = rk.chip(chip_id)
    for figure in ("pcie_bandwidth", "dcn_bandwidth"):
        value = getattr(found, figure)
        if value is None:
            assert figure not in found.figures() and figure not in found.provenance
            continue
        assert value < found.hbm_bandwidth
        assert found.figures()[figure] == value and found.provenance[figure].note
    if found.dcn_bandwidth is not None:
        assert found.dcn_bandwidth < found.link_bandwidth
    assert found.to_dict()["pcie_bandwidth"] == found.pcie_bandwidth


def test_every_vendor_has_an_achievable_share_with_its_source() -> None:
    from rooflinekit.catalog import ACHIEVABLE

    assert {c.vendor for c in rk.CHIPS.values()} == set(ACHIEVABLE)
    for share in ACHIEVABLE.values():
        assert 0 < share.low <= share.high <= 1
        assert share.provenance.source.url.startswith("https://") and share.provenance.note
    with pytest.raises(rk.RooflineInputError, match="vendor of custom"):
        rk.achievable(rk.custom_chip(1e14, 1e12))


def test_the_vector_unit_note_leaves_the_number_to_the_library() -> None:
    v5p = rk.chip("tpu-v5p")
    assert v5p.vector_critical_intensity == v5p.vector_flops / v5p.hbm_bandwidth
    # A rounded copy of a computed figure in a note is how "about 3" and "2.5" came to disagree.
    assert not any("critical intensity of" in note for note in v5p.notes)


@pytest.mark.parametrize("chip_id", [c.id for c in rk.CHIPS.values() if c.vendor == "Google"])
def test_a_chips_notes_quote_the_vendors_figures_as_its_provenance_does(chip_id: str) -> None:
    # The v6e's HBM was once 1,638 GB/s in one note and 1,640 in the other.
    import re

    c = rk.chip(chip_id)
    figure = r"\d[\d,]*(?:\.\d+)?(?:e\d+)?"
    quoted = {m for note in c.notes for m in re.findall(rf"({figure}) (?:GB/s|TB/s|TFLOP/s|TOP/s|B/s)", note)}
    sourced = {m for p in c.provenance.values() for m in re.findall(figure, p.note)}
    assert quoted and quoted <= sourced, quoted - sourced


def test_the_vector_unit_is_the_chips_as_the_source_divides_it() -> None:
    # The source: "The TPU v5p VPU can do roughly 7e12 FLOPs / second, so its critical intensity is
    # around 3": per chip, over the chip's bandwidth (not per core).
    v5p = rk.chip("tpu-v5p")
    words = " ".join([*v5p.notes, v5p.provenance["vector_flops"].note])
    assert "per core" not in words and "per chip" in words and "around 3" in words
    assert v5p.vector_critical_intensity is not None and 2 < v5p.vector_critical_intensity <= 3


# The catalog as data (issue 23): rooflinekit/data/, read by rooflinekit.chipformat like a chip file.

DATA = Path(rk.__file__).parent / "data"
def test_every_chip_has_its_file_and_every_source_is_cited_once() -> None:
    files = sorted(path.stem for path in (DATA / "chips").glob("*.toml"))
    assert sorted(rk.CHIPS) == files
    sources = tomllib.loads((DATA / "sources.toml").read_text(encoding="utf-8"))
    assert len({page["url"] for page in sources.values()}) == len(sources)  # each page once
    cited = {p.source for c in rk.CHIPS.values() for p in c.provenance.values()}
    cited |= {p.source for c in rk.CHIPS.values() for level in c.levels for p in level.provenance.values()}
    cited |= {a.provenance.source for a in rk.ACHIEVABLE.values()} | {rk.VMEM_OVER_HBM.provenance.source}
    cited |= {f.provenance.source for f in rk.FIGURES.values()}
    assert cited == set(rk.catalog.SOURCES.values())  # no page defined and never cited
    for path in (DATA / "chips").glob("*.toml"):  # the chips cite the shared pages, define none
        assert "sources" not in tomllib.loads(path.read_text(encoding="utf-8")), path.name


def test_every_figure_of_a_chip_file_says_its_unit() -> None:
    for path in (DATA / "chips").glob("*.toml"):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for name, written in data.items():
            if name in ("dense_flops", "sparse_flops"):
                entries = [v for k, v in written.items() if k not in ("unit", "source", "checked", "note")]
                assert all(isinstance(v, dict) and "unit" in v for v in entries) or "unit" in written, name
            elif isinstance(written, dict) and "value" in written:
                assert "unit" in written, f"{path.name}: {name}"


@pytest.mark.parametrize("chip_id", ["tpu-v5e", "tpu-v5p", "tpu-v6e"])
def test_a_tpus_network_share_is_the_hosts_over_its_chips_as_its_note_says(chip_id: str) -> None:
    # Written as a number in the chip file; the note says how it was derived: checked here.
    import re

    found = rk.chip(chip_id)
    note = found.provenance["dcn_bandwidth"].note
    written = re.search(r"about ([\d.e]+) B/s of data-center network per host.* serves (\d+) chips", note)
    assert written is not None, note
    host, chips = written.groups()
    assert found.dcn_bandwidth == float(host) / int(chips)


def test_import_rooflinekit_reads_no_data_file() -> None:
    # The catalog is read when first used: importing rooflinekit loads neither the reader nor the files.
    loaded = "('tomllib', 'decimal', 'rooflinekit.chipformat')"
    probe = (f"import sys, rooflinekit; print(sorted(m for m in {loaded} if m in sys.modules));"
             " rooflinekit.chip('b200'); print('tomllib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          timeout=60)
    assert done.stdout.split("\n")[:2] == ["[]", "True"]


def test_a_catalog_chip_file_lacking_a_source_is_refused(tmp_path: Path) -> None:
    from rooflinekit.chipformat import chip_from_data

    data = tomllib.loads((DATA / "chips" / "tpu-v5e.toml").read_text(encoding="utf-8"))
    del data["hbm_bytes"]["source"]
    with pytest.raises(rk.RooflineInputError, match=r"^tpu-v5e.toml: hbm_bytes.source must be given"):
        chip_from_data(data, "tpu-v5e.toml", sources=rk.catalog.SOURCES, complete=True)
