"""``occupancy import --json``'s rows: one msgspec struct per record, keys in a fixed order.

Kept apart from :mod:`.records` (what a record is) because only the command writes JSON: the window
never loads msgspec.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any

from .record_list import built_states, demangled_names, impossible_in_states
from .records import STACK_UNKNOWN, KernelRecord, impossible_in_state, record_state

JSON_ALWAYS = (
    "name",
    "demangled",
    "kind",
    "arch",
    "registers",
    "static_smem",
    "stack_bytes",
    "local_bytes",
    "spill_stores",
    "spill_loads",
    "barriers",
    "const_bytes",
    "max_threads",
    "min_blocks",
    "reserved_smem",
    "relocatable",
    "embedded",
    "copies",
    "source",
    "threads_per_block",
    "dynamic_smem",
    "launch_source",
)
JSON_OPTIONAL = (
    "block_size",
    "grid_size",
    "theoretical_occupancy",
    "achieved_occupancy",
    "waves_per_sm",
    "device_name",
    "req_threads",
    "cluster_dims",
    "max_registers",
    "stack_note",
    "impossible",
)
"""The keys of a record's JSON, in order: those always written, then those written where not null
(the launch, which only a Triton cache or a profiler knows; ``.reqntid``, the compile-time cluster and
the register cap, which only some kernels have; why the stack is unknown; why a figure is impossible).

``stack_bytes`` is cuobjdump's STACK (``null``: unknown, ``stack_note`` says why); ``local_bytes`` is the
same value under its old name, kept for one release (it goes in 0.3)."""
_KIND = {True: "kernel", False: "device_function"}


@functools.cache
def _json_type() -> Any:
    """The JSON row type (msgspec, imported here: the window need not load it)."""
    import msgspec  # noqa: PLC0415 - lazy: see above

    fields_ = [(key, Any) for key in JSON_ALWAYS] + [(key, Any, None) for key in JSON_OPTIONAL]
    return msgspec.defstruct("JsonRecord", fields_, gc=False, omit_defaults=True)  # an optional None: not written


def json_records(records: Sequence[KernelRecord], reasons: list[str | None] | None = None) -> list[Any]:
    """The records' JSON rows (msgspec structs; an optional key that is ``None`` is not written), made
    column by column in C (``map``): libcusparse's 40,667 records took 0.3 s of ``to_json`` and
    ``impossible_figure`` one by one.  ``reasons``: :func:`impossible_figures`, if already known."""
    states = built_states(records)
    return _rows(states, reasons if reasons is not None else impossible_in_states(states))


def _rows(states: list[dict[str, Any]], reasons: list[str | None]) -> list[Any]:
    """The JSON rows of the records whose states are ``states`` (``reasons``: their impossible figures)."""

    def column(key: str) -> Iterable[Any]:
        return map(operator.itemgetter(key), states)

    def present(key: str) -> Iterable[Any]:  # bulk importers' dicts may leave it out where no kernel has it
        return map(operator.methodcaller("get", key), states)

    stacks = list(column("stack_bytes"))
    columns: list[Iterable[Any]] = [
        column("name"),
        demangled_names(states),
        map(_KIND.__getitem__, column("is_kernel")),
        *(column(key) for key in JSON_ALWAYS[3:6]),
        stacks,
        stacks,
        *(column(key) for key in JSON_ALWAYS[8:19]),
        column("block_size"),
        column("dynamic_smem"),
        present("launch_source"),
        *(column(key) for key in JSON_OPTIONAL[:6]),
        *(present(key) for key in JSON_OPTIONAL[6:9]),
        [STACK_UNKNOWN if stack is None else None for stack in stacks] if None in stacks else repeat(None),
        reasons,
    ]
    return list(map(_json_type(), *columns))


def record_json(rec: KernelRecord) -> dict[str, Any]:
    """One record as ``occupancy import --json`` writes it, as JSON reads it back (lists, no unset keys)."""
    import msgspec  # noqa: PLC0415 - lazy: as in _json_type

    state = record_state(rec)
    items = msgspec.structs.asdict(_rows([state], [impossible_in_state(state)])[0]).items()
    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in items
        if value is not None or key not in _OPTIONAL
    }


_OPTIONAL = frozenset(JSON_OPTIONAL)
