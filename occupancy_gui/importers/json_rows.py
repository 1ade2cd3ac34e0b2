"""``occupancy import --json``'s rows: one msgspec struct per record, keys in a fixed order.

Kept apart from :mod:`.records` (what a record is) because only the command writes JSON: the window
never loads msgspec.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable
from itertools import repeat
from typing import Any

from .records import KernelRecord, built_states, demangled_names, impossible_figures

JSON_ALWAYS = ("name", "demangled", "kind", "arch", "registers", "static_smem", "local_bytes", "spill_stores",
                "spill_loads", "barriers", "const_bytes", "max_threads", "min_blocks", "reserved_smem",
                "relocatable", "embedded", "copies", "source", "threads_per_block", "dynamic_smem", "launch_source")
JSON_OPTIONAL = ("block_size", "grid_size", "theoretical_occupancy", "achieved_occupancy", "waves_per_sm",
                  "device_name", "req_threads", "cluster_dims", "max_registers", "impossible")
"""The keys of a record's JSON, in order: those always written, then those written where not null
(the launch, which only a Triton cache or a profiler knows; ``.reqntid``, the compile-time cluster and
the register cap, which only some kernels have; why a figure is impossible)."""
_KIND = {True: "kernel", False: "device_function"}


@functools.cache
def _json_type() -> Any:
    """The JSON row type (msgspec, imported here: the window need not load it)."""
    import msgspec  # noqa: PLC0415 - lazy: see above

    fields_ = [(key, Any) for key in JSON_ALWAYS] + [(key, Any, msgspec.UNSET) for key in JSON_OPTIONAL]
    return msgspec.defstruct("JsonRecord", fields_, gc=False)


def json_records(records: list[KernelRecord], reasons: list[str | None] | None = None) -> list[Any]:
    """The records' JSON rows (msgspec structs; keys left UNSET are not written), made column by
    column in C (``map``): libcusparse's 40,667 records took 0.3 s of ``to_json`` and
    ``impossible_figure`` one by one.  ``reasons``: :func:`impossible_figures`, if already known."""
    import msgspec  # noqa: PLC0415 - lazy: as in _json_type

    states = built_states(records)
    if reasons is None:
        reasons = impossible_figures(records)

    def column(key: str) -> list[Any]:
        return list(map(operator.itemgetter(key), states))

    def optional(values: list[Any]) -> Iterable[Any]:
        if not any(value is not None for value in values):
            return repeat(msgspec.UNSET)
        return [msgspec.UNSET if value is None else value for value in values]

    names = column("name")
    demangled = demangled_names(states)
    columns: list[Iterable[Any]] = [
        names, demangled, list(map(_KIND.__getitem__, column("is_kernel"))),
        *(column(key) for key in JSON_ALWAYS[3:18]),
        column("block_size"), column("dynamic_smem"),
        list(map(operator.methodcaller("get", "launch_source"), states)),
        *(optional(column(key)) for key in JSON_OPTIONAL[:-4]),
        # Bulk importers' dicts may leave these out where no kernel has them.
        *(optional(list(map(operator.methodcaller("get", key), states))) for key in JSON_OPTIONAL[-4:-1]),
        optional(reasons)]
    return list(map(_json_type(), *columns))


def record_json(rec: KernelRecord) -> dict[str, Any]:
    """One record as ``occupancy import --json`` writes it, as JSON reads it back (lists, no unset keys)."""
    import msgspec  # noqa: PLC0415 - lazy: as in _json_type

    items = msgspec.structs.asdict(json_records([rec])[0]).items()
    return {key: list(value) if isinstance(value, tuple) else value
            for key, value in items if value is not msgspec.UNSET}  # fmt: skip
