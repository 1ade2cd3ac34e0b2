"""``AmdGpuDataModel``: every AMD profile's values side by side — targets and products — each with its source.

One row per profile (named in the vertical header): the target it runs, its CUs as the hardware has them and as HIP
reports ``multiProcessorCount`` (WGPs in WGP mode), the WGP-mode default, then every limit of the target's schema
(``profiles.amd_schema.TARGET_FIELDS``: SIMDs per CU, granules, VGPRs and SGPRs per SIMD, LDS, the runtime's and the
hardware's wave caps, default wave size, …).  A cell's tooltip is the profile's ``source:`` text for that value,
so no figure is shown unsourced.  The cells reuse NVIDIA's sheet's roles (sort, search) and marks.
"""

from __future__ import annotations

import html
from typing import Any

from ... import units
from ...profiles import AmdCatalog, AmdProfile
from ...profiles.amd_schema import TARGET_FIELDS, AmdField
from .profile_sheet import NOT_APPLICABLE, Cell, ProfileSheet, wrap_header

TEXT_COLUMNS = frozenset({0, 1})
"""Target and architecture: sorted as text, left-aligned."""


def _tip(profile: AmdProfile, label: str, value: str, source: str) -> str:
    """Rich text, so that Qt wraps a long source."""
    return f"<b>{html.escape(label)}</b> of {html.escape(profile.name)}: {html.escape(value)}<br>Source: {html.escape(source)}"


def _value(value: object, unit: str, choices: tuple[str, ...] = ()) -> tuple[str, float]:
    """The cell's text and sort key: sizes in KiB, flags yes/no, a choice by its place in the schema's list."""
    if value is None:
        return NOT_APPLICABLE, -1
    if isinstance(value, bool):
        return ("yes" if value else "no"), float(value)
    if isinstance(value, int):
        return (units.kib(value) if unit == "bytes" else units.group(value)), value
    return str(value), choices.index(str(value)) if str(value) in choices else 0


def _field_cell(profile: AmdProfile, f: AmdField) -> Cell:
    text, sort = _value(getattr(profile.target, f.name), f.unit, f.choices)
    source = profile.sources.get(f.name, "no source recorded")
    exact = f" ({units.bytes_tooltip(int(sort))})" if f.unit == "bytes" and sort >= units.KIB else ""
    return Cell(text, sort, _tip(profile, f.name.replace("_", " "), text + exact, source))


def _count_cell(profile: AmdProfile, name: str, label: str, value: int | None) -> Cell:
    if value is None:
        return Cell(NOT_APPLICABLE, -1, _tip(profile, label, "none", "a gfx target profile has no CU count"))
    return Cell(
        units.group(value),
        value,
        _tip(profile, label, units.group(value), profile.sources.get(name, "no source recorded")),
    )


def _row(p: AmdProfile) -> list[Cell]:
    target = p.target
    wgp = target.has_wgp
    return [
        Cell(target.name, 0, _tip(p, "Target", target.name, p.path)),
        Cell(p.architecture, 0, _tip(p, "Architecture", p.architecture, p.path)),
        _count_cell(p, "compute_units", "CUs (hardware)", p.compute_units),
        _count_cell(p, "hip_multiprocessor_count", "multiProcessorCount (HIP)", p.hip_multiprocessor_count),
        Cell(
            "WGP" if wgp else "CU",
            float(wgp),
            _tip(
                p,
                "Default mode",
                "WGP mode" if wgp else "CU mode (no WGPs)",
                "ROCclr enableWgpMode_ (GPU_ENABLE_WGP_MODE): on by default on gfx10 and later; "
                + p.sources.get("has_wgp", "no source recorded"),
            ),
        ),
        *(_field_cell(p, f) for f in TARGET_FIELDS),
    ]


HEADERS: tuple[tuple[str, str], ...] = (
    ("Target", "The gfx target (LLVM's processor name)"),
    ("Architecture", "Architecture (generation)"),
    ("CUs", "Compute units as the hardware has them (one GCD of an MI250X: 110)"),
    ("HIP multi-\nprocessors", "hipDeviceProp_t::multiProcessorCount: CUs, halved in WGP mode on RDNA"),
    ("Default\nmode", "WGP or CU mode as the driver runs the device by default"),
    *(
        (wrap_header(f.name.replace("_", " ")), f"{f.description} ({f.unit})" if f.unit else f.description)
        for f in TARGET_FIELDS
    ),
)


def search_text(profile: AmdProfile) -> str:
    """What the filter matches: names, aliases, title, target, architecture, segment, kind."""
    words = [
        *profile.lookup_names(),
        profile.title,
        profile.target.name,
        profile.architecture,
        profile.segment or "",
        profile.kind.replace("_", " "),
    ]
    return " ".join(words).casefold()


class AmdGpuDataModel(ProfileSheet[AmdProfile]):
    """Read-only: AMD profiles as rows, their values as columns; the selected device's row is marked."""

    HEADERS = HEADERS
    TEXT_COLUMNS = TEXT_COLUMNS

    def __init__(self, catalog: AmdCatalog, selected: str, parent: Any = None) -> None:
        super().__init__(selected, parent)
        self.catalog = catalog
        profiles = list(catalog)
        self._set_sheet(profiles, [_row(p) for p in profiles], [search_text(p) for p in profiles])
