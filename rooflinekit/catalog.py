"""The hardware catalog: accelerators with their peaks, memory and links, and where each figure comes from.

Figures are the ones the course's sources use. Each has a provenance: the page it comes from
(a vendor's datasheet or product page, or the course's source text), the day it was last
checked, and a note where the course's figure differs from the vendor's. Dense and sparse
(2:4 structured sparsity) peaks are kept apart: the roofline model always uses the dense ones.

>>> v5e = chip("tpu-v5e")
>>> v5e.peak("bf16")
197000000000000.0
>>> round(v5e.critical_intensity("bf16"))
240
>>> where = v5e.provenance["hbm_bandwidth"]
>>> where.source.kind, where.checked
('paper', '2026-11-22')
>>> print(where.note)
Google gives 819 GB/s; the course uses its source text's rounding, 8.2e11 B/s (exercise 1 states 8.1e11).
>>> slow = v5e.derive(hbm_bandwidth=8.1e11)
>>> round(slow.critical_intensity("int8") / 2, 1)
243.2
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from rooflinekit.chips import KINDS, Chip, Provenance, Source
from rooflinekit.dtypes import dtype
from rooflinekit.errors import UnknownNameError
from rooflinekit.messages import message

__all__ = [
    "ACHIEVABLE", "CHIPS", "KINDS", "VMEM_OVER_HBM", "Achievable", "Chip", "Provenance", "Source",
    "SourcedFigure", "achievable", "chip", "custom_chip",
]

CHECKED = "2026-11-22"
"""The day the catalog's figures were last compared with their sources."""


def _cite(source: Source, *figures: str, note: str = "") -> dict[str, Provenance]:
    return {figure: Provenance(source, CHECKED, note) for figure in figures}


def custom_chip(peak: float, hbm_bandwidth: float, compute: str = "bf16", name: str = "custom") -> Chip:
    """A chip known only by one peak and one bandwidth, as on the explorer's sliders.

    >>> custom_chip(1e14, 1e12).critical_intensity("bf16")
    100.0
    """
    return Chip(
        id=name,
        name=name,
        vendor="(custom)",
        dense_flops={dtype(compute, "compute").name: peak},
        hbm_bandwidth=hbm_bandwidth,
        hbm_bytes=1.0,
        link_bandwidth=1.0,
        link_name="link",
        notes=("figures given by the user",),
    )


SCALING_BOOK = Source(
    "How to Scale Your Model (Austin et al., 2025), 'All About Rooflines'",
    "https://jax-ml.github.io/scaling-book/roofline/",
    "paper",
)
SCALING_BOOK_TPUS = Source(
    "How to Scale Your Model (Austin et al., 2025), 'How to Think About TPUs'",
    "https://jax-ml.github.io/scaling-book/tpus/",
    "paper",
)
SCALING_BOOK_GPUS = Source(
    "How to Scale Your Model (Austin et al., 2025), 'How to Think About GPUs'",
    "https://jax-ml.github.io/scaling-book/gpus/",
    "paper",
)
V5E = Source("Google Cloud TPU v5e", "https://cloud.google.com/tpu/docs/v5e", "datasheet")
V5P = Source("Google Cloud TPU v5p", "https://cloud.google.com/tpu/docs/v5p", "datasheet")
V6E = Source("Google Cloud TPU v6e", "https://cloud.google.com/tpu/docs/v6e", "datasheet")
H100 = Source("NVIDIA H100 Tensor Core GPU", "https://www.nvidia.com/en-us/data-center/h100/", "product page")
H200 = Source("NVIDIA H200 Tensor Core GPU", "https://www.nvidia.com/en-us/data-center/h200/", "product page")
HGX = Source("NVIDIA HGX platform (B200)", "https://www.nvidia.com/en-us/data-center/hgx/", "product page")

_GIGA = 1e9
_ICI_NOTE = (
    "One way over one ICI link, the course's source's figure; Google gives bidirectional bandwidth per chip"
)
_SPARSE_HALVED = "The page's tensor-core figure is with 2:4 sparsity; the dense peak is half of it."
_NVLINK_NOTE = "NVIDIA gives {} per GPU in both directions together; one way is half of it."
_TPU_PCIE_NOTE = "The source's typical PCIe figure per chip, one way."
_TPU_DCN_NOTE = (
    "The source gives about 2.5e10 B/s of data-center network per host; a {} host serves {} chips,"
    " so each chip's share is that over {}."
)
_GPU_PCIE_NOTE = "NVIDIA gives PCIe Gen5 at 128 GB/s in both directions together; one way is half of it."
_GPU_DCN_NOTE = (
    "The source's reference systems give each GPU one 400 Gb/s InfiniBand NIC (node egress"
    " 400 GB/s for 8 GPUs): 50 GB/s each way."
)
_TPU_HOST_DCN = 2.5e10  # B/s per host, the source's figure; each chip gets its share

# Google's figures where the course uses its source's rounding, as Google's pages write them: each
# typed once, for the figure's provenance and for the chip's note alike.
_V5E_VENDOR_HBM = "819 GB/s"
_V5P_VENDOR_HBM = "2,765 GB/s"
_V6E_VENDOR = {"bf16": "918 TFLOP/s", "int8": "1,836 TOP/s", "hbm": "1,638 GB/s"}
_V5P_VECTOR_NOTE = (
    "The source's estimate for the chip's vector unit (VPU), 'roughly 7e12 FLOPs / second', which it"
    " divides by the chip's HBM bandwidth for a critical intensity 'around 3'; Google gives none."
)

# H100 SXM and H200 SXM share the Hopper GPU and its tensor-core peaks.
_HOPPER_DENSE = {
    "fp64": 6.7e13,
    "fp32": 6.7e13,
    "tf32": 4.945e14,
    "bf16": 9.89e14,
    "fp16": 9.89e14,
    "fp8": 1.979e15,
    "int8": 1.979e15,
}
_HOPPER_SPARSE = {"tf32": 9.89e14, "bf16": 1.979e15, "fp16": 1.979e15, "fp8": 3.958e15, "int8": 3.958e15}


def _hopper(page: Source) -> dict[str, Provenance]:
    """Where the Hopper peaks come from, on the H100's or the H200's page."""
    return {
        **_cite(page, "dense_flops.fp64", note="The page's FP64 Tensor Core figure."),
        **_cite(page, "dense_flops.fp32", note="The page's FP32 figure (CUDA cores; no fp32 tensor cores)."),
        **_cite(page, "dense_flops.tf32", "dense_flops.fp8", "dense_flops.int8", note=_SPARSE_HALVED),
        **_cite(page, "dense_flops.bf16", "dense_flops.fp16",
                note=_SPARSE_HALVED + " Half of 1,979 TFLOP/s is 989.5; the course and its source use 989."),
        **_cite(page, *(f"sparse_flops.{name}" for name in _HOPPER_SPARSE)),
    }


CHIPS: Mapping[str, Chip] = MappingProxyType(
    {
        c.id: c
        for c in (
            Chip(
                id="tpu-v5e",
                name="TPU v5e",
                vendor="Google",
                dense_flops={"bf16": 1.97e14, "int8": 3.94e14},
                hbm_bandwidth=8.2e11,
                hbm_bytes=16 * _GIGA,
                link_bandwidth=4.5e10,
                link_name="ICI",
                pcie_bandwidth=1.5e10,
                dcn_bandwidth=_TPU_HOST_DCN / 8,
                provenance={
                    **_cite(V5E, "dense_flops.bf16", "hbm_bytes"),
                    **_cite(SCALING_BOOK_TPUS, "pcie_bandwidth", note=_TPU_PCIE_NOTE),
                    **_cite(SCALING_BOOK_TPUS, "dcn_bandwidth", note=_TPU_DCN_NOTE.format("v5e", 8, 8)),
                    **_cite(SCALING_BOOK_TPUS, "dense_flops.int8",
                            note="Google gives 393 TOP/s; the course uses its source's 3.94e14, twice bf16."),
                    **_cite(SCALING_BOOK, "hbm_bandwidth",
                            note=f"Google gives {_V5E_VENDOR_HBM}; the course uses its source text's "
                            "rounding, 8.2e11 B/s (exercise 1 states 8.1e11)."),
                    **_cite(SCALING_BOOK_TPUS, "link_bandwidth", note=f"{_ICI_NOTE} (400 GB/s, 4 ports)."),
                },
                notes=(
                    message("Vendor HBM bandwidth is {hbm}; the course's text rounds it to 8.2e11 B/s "
                            "and its first exercise uses 8.1e11 B/s.", hbm=_V5E_VENDOR_HBM),
                ),
            ),
            Chip(
                id="tpu-v5p",
                name="TPU v5p",
                vendor="Google",
                dense_flops={"bf16": 4.59e14, "int8": 9.18e14},
                hbm_bandwidth=2.8e12,
                hbm_bytes=95 * _GIGA,
                link_bandwidth=9e10,
                link_name="ICI",
                vector_flops=7e12,
                pcie_bandwidth=1.5e10,
                dcn_bandwidth=_TPU_HOST_DCN / 4,
                provenance={
                    **_cite(V5P, "dense_flops.bf16", "hbm_bytes"),
                    **_cite(SCALING_BOOK_TPUS, "pcie_bandwidth", note=_TPU_PCIE_NOTE),
                    **_cite(SCALING_BOOK_TPUS, "dcn_bandwidth", note=_TPU_DCN_NOTE.format("v5p", 4, 4)),
                    **_cite(SCALING_BOOK_TPUS, "dense_flops.int8", note="Google's page gives no int8 peak."),
                    **_cite(SCALING_BOOK_TPUS, "hbm_bandwidth",
                            note=f"Google gives {_V5P_VENDOR_HBM}; the course, like its source, "
                            "uses 2.8e12 B/s."),
                    **_cite(SCALING_BOOK_TPUS, "link_bandwidth", note=f"{_ICI_NOTE} (1,200 GB/s)."),
                    **_cite(SCALING_BOOK, "vector_flops", note=_V5P_VECTOR_NOTE),
                },
                notes=(
                    message("Vendor HBM bandwidth is {hbm}; the course rounds it to 2.8e12 B/s.",
                            hbm=_V5P_VENDOR_HBM),
                    message("The chip's vector unit does about 7e12 FLOP/s (the source's estimate, per "
                            "chip), so elementwise work has a critical intensity (vector_flops / "
                            "hbm_bandwidth) far below the matrix unit's."),
                ),
            ),
            Chip(
                id="tpu-v6e",
                name="TPU v6e (Trillium)",
                vendor="Google",
                dense_flops={"bf16": 9.2e14, "int8": 1.84e15},
                hbm_bandwidth=1.6e12,
                hbm_bytes=32 * _GIGA,
                link_bandwidth=9e10,
                link_name="ICI",
                pcie_bandwidth=3.2e10,
                dcn_bandwidth=_TPU_HOST_DCN / 8,
                provenance={
                    **_cite(V6E, "hbm_bytes"),
                    **_cite(SCALING_BOOK_TPUS, "pcie_bandwidth",
                            note="The source: Trillium's PCIe moves 32 GB/s, about twice v5's."),
                    **_cite(SCALING_BOOK_TPUS, "dcn_bandwidth", note=_TPU_DCN_NOTE.format("v6e", 8, 8)),
                    **_cite(SCALING_BOOK_TPUS, "dense_flops.bf16",
                            note=f"Google gives {_V6E_VENDOR['bf16']}; the course uses its source's 9.2e14."),
                    **_cite(SCALING_BOOK_TPUS, "dense_flops.int8",
                            note=f"Google gives {_V6E_VENDOR['int8']}; the course uses its source's "
                            "1.84e15."),
                    **_cite(SCALING_BOOK_TPUS, "hbm_bandwidth",
                            note=f"Google gives {_V6E_VENDOR['hbm']}; the course uses its source's "
                            "1.6e12 B/s."),
                    **_cite(SCALING_BOOK_TPUS, "link_bandwidth", note=f"{_ICI_NOTE} (800 GB/s, 4 ports)."),
                },
                notes=(
                    message("Vendor figures: {bf16} bf16, {int8} int8, {hbm} HBM; the course rounds them "
                            "(and once writes 9.1e14 for bf16).", bf16=_V6E_VENDOR["bf16"],
                            int8=_V6E_VENDOR["int8"], hbm=_V6E_VENDOR["hbm"]),
                ),
            ),
            Chip(
                id="h100-sxm",
                name="NVIDIA H100 SXM",
                vendor="NVIDIA",
                dense_flops=_HOPPER_DENSE,
                sparse_flops=_HOPPER_SPARSE,
                hbm_bandwidth=3.35e12,
                hbm_bytes=80 * _GIGA,
                link_bandwidth=4.5e11,
                link_name="NVLink",
                pcie_bandwidth=6.4e10,
                dcn_bandwidth=5e10,
                provenance={
                    **_hopper(H100),
                    **_cite(H100, "hbm_bandwidth", "hbm_bytes"),
                    **_cite(H100, "pcie_bandwidth", note=_GPU_PCIE_NOTE),
                    **_cite(SCALING_BOOK_GPUS, "dcn_bandwidth", note=_GPU_DCN_NOTE),
                    **_cite(H100, "link_bandwidth", note=_NVLINK_NOTE.format("900 GB/s")),
                },
                notes=(
                    message("The datasheet's tensor-core figures are with 2:4 sparsity; dense peaks are "
                            "half of them (bf16: 1,979 -> 989 TFLOP/s)."),
                    message("NVLink 4 moves 900 GB/s per GPU in both directions together: 450 GB/s one way."),
                ),
            ),
            Chip(
                id="h200-sxm",
                name="NVIDIA H200 SXM",
                vendor="NVIDIA",
                dense_flops=_HOPPER_DENSE,
                sparse_flops=_HOPPER_SPARSE,
                hbm_bandwidth=4.8e12,
                hbm_bytes=141 * _GIGA,
                link_bandwidth=4.5e11,
                link_name="NVLink",
                pcie_bandwidth=6.4e10,
                provenance={
                    **_hopper(H200),
                    **_cite(H200, "hbm_bandwidth", "hbm_bytes"),
                    **_cite(H200, "pcie_bandwidth", note=_GPU_PCIE_NOTE),
                    **_cite(H200, "link_bandwidth", note=_NVLINK_NOTE.format("900 GB/s")),
                },
                notes=(message("Same compute as the H100 SXM, with more and faster HBM (HBM3e)."),),
            ),
            Chip(
                id="b200",
                name="NVIDIA B200",
                vendor="NVIDIA",
                dense_flops={
                    "fp64": 3.7e13,
                    "tf32": 1.125e15,
                    "bf16": 2.25e15,
                    "fp16": 2.25e15,
                    "fp8": 4.5e15,
                    "int8": 4.5e15,
                    "fp4": 9e15,
                },
                sparse_flops={
                    "tf32": 2.25e15,
                    "bf16": 4.5e15,
                    "fp16": 4.5e15,
                    "fp8": 9e15,
                    "int8": 9e15,
                    "fp4": 1.8e16,
                },
                hbm_bandwidth=8e12,
                hbm_bytes=180 * _GIGA,
                link_bandwidth=9e11,
                link_name="NVLink",
                dcn_bandwidth=5e10,
                provenance={
                    **_cite(HGX, "dense_flops.fp64", note="The page's FP64/FP64 Tensor Core figure per GPU."),
                    **_cite(HGX, "dense_flops.bf16", "dense_flops.fp16", "dense_flops.fp8",
                            "dense_flops.int8", "dense_flops.fp4", note=_SPARSE_HALVED),
                    **_cite(HGX, "sparse_flops.bf16", "sparse_flops.fp16", "sparse_flops.fp8",
                            "sparse_flops.int8", "sparse_flops.fp4"),
                    **_cite(HGX, "dense_flops.tf32", "sparse_flops.tf32",
                            note="NVIDIA gives 2.2 PFLOP/s with sparsity; the course takes half of bf16's,"
                            " 2.25e15 sparse and 1.125e15 dense."),
                    **_cite(HGX, "hbm_bandwidth",
                            note="The HGX page's per-GPU table gives 7.7 TB/s; the course uses 8e12 B/s,"
                            " the round figure commonly quoted for the B200."),
                    **_cite(HGX, "hbm_bytes"),
                    **_cite(HGX, "link_bandwidth", note=_NVLINK_NOTE.format("1.8 TB/s")),
                    **_cite(SCALING_BOOK_GPUS, "dcn_bandwidth", note=_GPU_DCN_NOTE),
                },
                notes=(
                    message("Per-GPU figures of an HGX B200 board; the sparse figures are twice the dense."),
                    message("NVLink 5 moves 1.8 TB/s per GPU in both directions together: 900 GB/s one way."),
                ),
            ),
        )
    }
)


def chip(chip_id: str | Chip, argument: str = "chip") -> Chip:
    """Look up a chip by id (case-insensitive); a ``Chip`` passes through.

    >>> chip("H100-SXM").name
    'NVIDIA H100 SXM'
    >>> try:
    ...     chip("h100")
    ... except KeyError as error:
    ...     print(error)
    chip must be one of tpu-v5e, tpu-v5p, tpu-v6e, h100-sxm, h200-sxm, b200 (got 'h100')
    """
    if isinstance(chip_id, Chip):
        return chip_id
    if isinstance(chip_id, str) and chip_id.lower() in CHIPS:
        return CHIPS[chip_id.lower()]
    raise UnknownNameError(argument, list(CHIPS), chip_id)


class Achievable(NamedTuple):
    """The share of the advertised peak FLOP/s that real matmul kernels typically reach: a
    range from ``low`` to ``high``, and where it comes from."""

    low: float
    high: float
    provenance: Provenance


ACHIEVABLE: Mapping[str, Achievable] = MappingProxyType(
    {
        "NVIDIA": Achievable(0.80, 0.85, Provenance(
            SCALING_BOOK, CHECKED,
            "The source: H100s and B200s usually reach only about this share of the claimed peak;"
            " the course applies it to every NVIDIA GPU of the catalog.",
        )),
        "Google": Achievable(0.95, 0.95, Provenance(
            SCALING_BOOK, CHECKED, "The source: TPUs get closer to this share in normal use.",
        )),
    }
)
"""By vendor: how much of the datasheet's peak FLOP/s real kernels reach, as the course's source
reports it. Use it with ``rk.hardware(chip, achieved=...)`` to see the roofline they live under."""


class SourcedFigure(NamedTuple):
    """A figure that belongs to no one chip of the catalog, and where it comes from."""

    value: float
    provenance: Provenance


VMEM_OVER_HBM = SourcedFigure(22.0, Provenance(
    SCALING_BOOK_TPUS, CHECKED,
    "The source: a TPU's VMEM, an on-chip scratchpad much smaller than HBM (128 MiB on a v5e), has"
    " a bandwidth to the matrix unit 'around 22x higher than HBM bandwidth', so parameters kept"
    " there make matmuls compute-bound at far smaller batches.",
))
"""How many times the HBM bandwidth a TPU's matrix unit reads from VMEM, its on-chip vector memory,
as the course's source estimates it: ``rk.hardware(chip, bandwidth=chip.hbm_bandwidth *
VMEM_OVER_HBM.value)`` is the roof of parameters kept in VMEM."""


def achievable(on: str | Chip) -> Achievable:
    """The typical achievable share of a catalog chip's peak, by its vendor.

    >>> achievable("h100-sxm")[:2], achievable("tpu-v5e")[:2]
    ((0.8, 0.85), (0.95, 0.95))
    """
    found = chip(on)
    if found.vendor not in ACHIEVABLE:
        raise UnknownNameError(f"vendor of {found.id} (for achievable peaks)", list(ACHIEVABLE), found.vendor)
    return ACHIEVABLE[found.vendor]
