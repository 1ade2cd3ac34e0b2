"""``GpuDataModel``: every device profile's limits side by side, each value with its source.

One row per profile (named in the vertical header), one column per figure: the profile's own limits
(the schema's ``LIMIT_FIELDS``, whatever a vendor's schema lists) and the facts the model takes from the
architecture tables (``engine.device_facts``).  A cell's tooltip is where its value comes from — the
profile's ``source:`` text, or the rule of the occupancy model — so no figure is shown unsourced.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ... import REFERENCE_HEADER, units
from ...engine import FACT_SPECS, DeviceFact, device_facts
from ...profiles import LIMIT_FIELDS, Catalog, DeviceProfile
from .profile_sheet import NOT_APPLICABLE, Cell, ProfileSheet, wrap_header


@dataclass(frozen=True)
class Column:
    header: str
    tip: str
    cell: Callable[[DeviceProfile, tuple[DeviceFact, ...]], Cell]


def _value_text(value: int, unit: str) -> str:
    return units.kib(value) if unit in ("byte", "bytes") else units.group(value)


def _exact(value: int, unit: str) -> str:
    return f" ({units.bytes_tooltip(value)})" if unit in ("byte", "bytes") and value >= units.KIB else ""


def _tip(profile: DeviceProfile, label: str, value: str, source: str) -> str:
    """Rich text, so that Qt wraps a long source instead of drawing one screen-wide line."""
    return f"<b>{html.escape(label)}</b> of {html.escape(profile.name)}: {html.escape(value)}<br>Source: {html.escape(source)}"


def _limit_column(name: str, label: str, unit: str, description: str) -> Column:
    def cell(profile: DeviceProfile, _facts: tuple[DeviceFact, ...]) -> Cell:
        value = profile.values.get(name)
        if value is None:
            return Cell(NOT_APPLICABLE, -1, _tip(profile, label, "not stated", "the profile does not state it"))
        source = profile.sources.get(name, "no source recorded")
        return Cell(
            _value_text(value, unit),
            value,
            _tip(profile, label, _value_text(value, unit) + _exact(value, unit), source),
        )

    return Column(wrap_header(label), description, cell)


def _fact_column(index: int) -> Column:
    spec = FACT_SPECS[index]
    model = f"the occupancy model ({REFERENCE_HEADER}): {spec.source}"

    def cell(profile: DeviceProfile, facts: tuple[DeviceFact, ...]) -> Cell:
        value = facts[index].value
        if value is None:
            return Cell(NOT_APPLICABLE, -1, _tip(profile, spec.label, "does not apply to this architecture", model))
        if isinstance(value, tuple):
            sizes = ", ".join(_value_text(v, spec.unit) for v in value)
            text = f"{_value_text(value[0], spec.unit)}–{_value_text(value[-1], spec.unit)} ({len(value)} sizes)"
            return Cell(text, value[-1], _tip(profile, spec.label, sizes, model))
        text = _value_text(value, spec.unit)
        return Cell(text, value, _tip(profile, spec.label, text + _exact(value, spec.unit), model))

    return Column(wrap_header(spec.label), f"{spec.label}: from {model}", cell)


def _cc(profile: DeviceProfile, _facts: tuple[DeviceFact, ...]) -> Cell:
    major, minor = profile.compute_capability
    source = (
        f"the profile's compute_capability ({profile.path})"
        if profile.kind == "compute_capability"
        else f"inherited from sm_{major}{minor}"
    )
    return Cell(profile.cc_string, major * 100 + minor, _tip(profile, "Compute capability", profile.cc_string, source))


def _architecture(profile: DeviceProfile, _facts: tuple[DeviceFact, ...]) -> Cell:
    return Cell(profile.architecture, 0, _tip(profile, "Architecture", profile.architecture, profile.path))


def _sm_count(profile: DeviceProfile, _facts: tuple[DeviceFact, ...]) -> Cell:
    if profile.sm_count is None:
        return Cell(NOT_APPLICABLE, -1, _tip(profile, "SMs", "none", "a compute capability profile has no SM count"))
    source = profile.sources.get("sm_count", "no source recorded")
    return Cell(
        units.group(profile.sm_count), profile.sm_count, _tip(profile, "SMs", units.group(profile.sm_count), source)
    )


COLUMNS: tuple[Column, ...] = (
    Column("CC", "Compute capability", _cc),
    Column("Architecture", "Architecture (generation)", _architecture),
    Column("SMs", "Streaming multiprocessors on the GPU (a compute capability profile has none)", _sm_count),
    *(_limit_column(f.name, f.label or f.name, f.unit, f.description) for f in LIMIT_FIELDS),
    *(_fact_column(i) for i in range(len(FACT_SPECS))),
)
ARCHITECTURE_COLUMN = 1


def search_text(profile: DeviceProfile) -> str:
    """What the filter matches: name, aliases, title, ``9.0`` / ``sm_90``, architecture, segment, kind."""
    major, minor = profile.compute_capability
    words = [
        profile.name,
        *profile.aliases,
        profile.title,
        profile.cc_string,
        f"sm_{major}{minor}",
        profile.architecture,
        profile.segment or "",
        profile.kind.replace("_", " "),
        str(profile.info.get("chip", "")),
    ]
    return " ".join(words).casefold()


class GpuDataModel(ProfileSheet[DeviceProfile]):
    """Read-only: NVIDIA's profiles as rows, their limits and the model's architecture facts as columns."""

    HEADERS = tuple((c.header, c.tip) for c in COLUMNS)
    TEXT_COLUMNS = frozenset({ARCHITECTURE_COLUMN})

    def __init__(self, catalog: Catalog, selected: str, parent: Any = None) -> None:
        super().__init__(selected, parent)
        self._set_rows(catalog)

    def _set_rows(self, catalog: Catalog) -> None:
        self.catalog = catalog
        profiles = list(catalog.profiles)
        cells = [[column.cell(p, device_facts(p.device_properties())) for column in COLUMNS] for p in profiles]
        self._set_sheet(profiles, cells, [search_text(p) for p in profiles])

    def set_catalog(self, catalog: Catalog) -> None:
        if catalog is self.catalog:
            return
        self.beginResetModel()
        self._set_rows(catalog)
        self.endResetModel()
