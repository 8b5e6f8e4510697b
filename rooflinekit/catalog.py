"""The hardware catalog: accelerators with their peaks, memory and links, and sources.

Figures are the ones the course's sources use (see ``Chip.notes`` where the vendor's
page gives a slightly different number). Dense and sparse (2:4 structured sparsity)
peaks are kept apart: the roofline model always uses the dense ones.

>>> v5e = chip("tpu-v5e")
>>> v5e.peak("bf16")
197000000000000.0
>>> round(v5e.critical_intensity("bf16"))
240
>>> slow = v5e.derive(hbm_bandwidth=8.1e11)
>>> round(slow.critical_intensity("int8") / 2, 1)
243.2
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, NamedTuple

from rooflinekit._validate import check_figure
from rooflinekit.dtypes import DType, dtype
from rooflinekit.errors import RooflineInputError, UnknownNameError
from rooflinekit.fmt import sci


class Source(NamedTuple):
    """A page a chip's figures come from: its title and its address."""

    title: str
    url: str


@dataclass(frozen=True)
class Chip:
    """One accelerator, with figures in SI units (FLOP/s, B/s, bytes).

    ``dense_flops`` and ``sparse_flops`` map a dtype name to the peak throughput for
    matrix math in that dtype. ``link_bandwidth`` is one direction of one chip's
    inter-chip link (ICI on TPUs, NVLink on GPUs). ``vector_flops`` is the peak of the
    unit that does elementwise work, where it differs from the matrix unit's.
    """

    id: str
    name: str
    vendor: str
    dense_flops: Mapping[str, float]
    hbm_bandwidth: float
    hbm_bytes: float
    link_bandwidth: float
    link_name: str
    sources: tuple[Source, ...]
    sparse_flops: Mapping[str, float] = field(default_factory=dict)
    vector_flops: float | None = None
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for figure in ("hbm_bandwidth", "hbm_bytes", "link_bandwidth"):
            object.__setattr__(self, figure, check_figure(figure, getattr(self, figure)))
        if self.vector_flops is not None:
            object.__setattr__(self, "vector_flops", check_figure("vector_flops", self.vector_flops))
        for table in ("dense_flops", "sparse_flops"):
            checked = {
                dtype(name, f"{table} key").name: check_figure(f"{table}[{name!r}]", value)
                for name, value in getattr(self, table).items()
            }
            object.__setattr__(self, table, MappingProxyType(checked))

    def peak(self, compute: str | DType = "bf16", *, sparse: bool = False) -> float:
        """Peak FLOP/s (or OP/s for integers) of matrix math in ``compute``.

        >>> chip("h100-sxm").peak("bf16"), chip("h100-sxm").peak("bf16", sparse=True)
        (989000000000000.0, 1979000000000000.0)
        """
        table = self.sparse_flops if sparse else self.dense_flops
        name = dtype(compute, "compute").name
        if name not in table:
            kind = "sparse" if sparse else "dense"
            raise UnknownNameError(f"compute dtype for {self.id} ({kind})", list(table), name)
        return table[name]

    def critical_intensity(self, compute: str | DType = "bf16", *, sparse: bool = False) -> float:
        """Peak FLOP/s over HBM bandwidth: the intensity above which work is compute-bound.

        >>> round(chip("h100-sxm").critical_intensity("bf16"), 1)
        295.2
        """
        return self.peak(compute, sparse=sparse) / self.hbm_bandwidth

    def derive(
        self,
        *,
        id: str | None = None,
        name: str | None = None,
        peaks: Mapping[str, float] | None = None,
        hbm_bandwidth: float | None = None,
        hbm_bytes: float | None = None,
        link_bandwidth: float | None = None,
    ) -> Chip:
        """A copy with some figures overridden, as an exercise states its own figures.

        ``peaks`` replaces or adds dense peaks per dtype; the sparse ones are dropped
        when any peak changes, since they no longer follow from the datasheet.

        >>> chip("tpu-v5e").derive(hbm_bandwidth=8.1e11).hbm_bandwidth
        810000000000.0
        """
        changes: dict[str, Any] = {}
        described = []
        for figure, value in (
            ("hbm_bandwidth", hbm_bandwidth),
            ("hbm_bytes", hbm_bytes),
            ("link_bandwidth", link_bandwidth),
        ):
            if value is not None:
                changes[figure] = check_figure(figure, value)
                described.append(f"{figure}={sci(changes[figure])}")
        if peaks is not None:
            if not isinstance(peaks, Mapping):
                raise RooflineInputError("peaks", "a mapping of dtype name to FLOP/s", peaks)
            dense = dict(self.dense_flops)
            for key, value in peaks.items():
                key_name = dtype(key, "peaks key").name
                dense[key_name] = check_figure(f"peaks[{key!r}]", value)
                described.append(f"{key_name} peak={sci(dense[key_name])}")
            changes["dense_flops"] = dense
            changes["sparse_flops"] = {}
        note = f"derived from {self.id}: " + (", ".join(described) or "no changes")
        return replace(
            self,
            id=id or f"{self.id}-custom",
            name=name or f"{self.name} (custom)",
            notes=(*self.notes, note),
            **changes,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON output.

        >>> chip("b200").to_dict()["link_name"]
        'NVLink'
        """
        return {
            "id": self.id,
            "name": self.name,
            "vendor": self.vendor,
            "dense_flops": dict(self.dense_flops),
            "sparse_flops": dict(self.sparse_flops),
            "hbm_bandwidth": self.hbm_bandwidth,
            "hbm_bytes": self.hbm_bytes,
            "link_bandwidth": self.link_bandwidth,
            "link_name": self.link_name,
            "vector_flops": self.vector_flops,
            "critical_intensity_bf16": (  # None for a chip without bf16, e.g. a measured CPU
                self.critical_intensity("bf16") if "bf16" in self.dense_flops else None
            ),
            "sources": [{"title": s.title, "url": s.url} for s in self.sources],
            "notes": list(self.notes),
        }


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
        sources=(),
        notes=("figures given by the user",),
    )


SCALING_BOOK = Source(
    "How to Scale Your Model (Austin et al., 2025), 'All About Rooflines' and 'How to Think About TPUs'",
    "https://jax-ml.github.io/scaling-book/roofline/",
)

_GIGA = 1e9

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
                sources=(
                    Source("Google Cloud TPU v5e", "https://cloud.google.com/tpu/docs/v5e"),
                    SCALING_BOOK,
                ),
                notes=(
                    "Vendor HBM bandwidth is 819 GB/s; the course's text rounds it to 8.2e11 B/s "
                    "and its first exercise uses 8.1e11 B/s.",
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
                sources=(
                    Source("Google Cloud TPU v5p", "https://cloud.google.com/tpu/docs/v5p"),
                    SCALING_BOOK,
                ),
                notes=(
                    "Vendor HBM bandwidth is 2,765 GB/s; the course rounds it to 2.8e12 B/s.",
                    "The vector unit does about 7e12 FLOP/s, so elementwise work has a critical "
                    "intensity of about 3, far below the matrix unit's.",
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
                sources=(
                    Source("Google Cloud TPU v6e", "https://cloud.google.com/tpu/docs/v6e"),
                    SCALING_BOOK,
                ),
                notes=(
                    "Vendor figures: 918 TFLOP/s bf16, 1,836 TOP/s int8, 1,640 GB/s HBM; the "
                    "course rounds them (and once writes 9.1e14 for bf16).",
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
                sources=(
                    Source("NVIDIA H100 Tensor Core GPU", "https://www.nvidia.com/en-us/data-center/h100/"),
                    SCALING_BOOK,
                ),
                notes=(
                    "The datasheet's tensor-core figures are with 2:4 sparsity; dense peaks are "
                    "half of them (bf16: 1,979 -> 989 TFLOP/s).",
                    "NVLink 4 moves 900 GB/s per GPU in both directions together: 450 GB/s one way.",
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
                sources=(
                    Source("NVIDIA H200 Tensor Core GPU", "https://www.nvidia.com/en-us/data-center/h200/"),
                    SCALING_BOOK,
                ),
                notes=("Same compute as the H100 SXM, with more and faster HBM (HBM3e).",),
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
                sources=(
                    Source("NVIDIA HGX platform (B200)", "https://www.nvidia.com/en-us/data-center/hgx/"),
                    SCALING_BOOK,
                ),
                notes=(
                    "Per-GPU figures of an HGX B200 board; the sparse figures are twice the dense.",
                    "NVLink 5 moves 1.8 TB/s per GPU in both directions together: 900 GB/s one way.",
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
