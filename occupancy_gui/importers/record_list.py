"""Many records at once: :class:`Records` holds an import's records as their states and makes each
:class:`~.records.KernelRecord` where it is read; what is worked out over all of them (merging copies,
impossible figures, demangled names) reads the states' columns in C.

An import holds 10^4-10^5 records (libtorch_cuda: 143,409), of which a listing reads every figure and a user
reads a few whole.  Making every record costs ~3 us each (the frozen dataclass's ``__init__``), so a reader
gives each record's fields as a dict (its state, ``records.new_state``) and the container keeps those:

* a state may be a *build* still, ``(build, *args)``, whose call returns it: a log's blocks are read when
  first needed (a later block of a kernel replaces an earlier one unread), a record cache's rows a block of
  1,024 at a time (:class:`LazyRecords`);
* ``records[i]`` makes (once) the record of state ``i``; a slice is a ``Records`` sharing the states;
* :func:`built_states` gives the bulk readers (the JSON rows, the record cache, the window's table) the
  states themselves, every build done, to read column by column (``map(itemgetter(...))``); they must not
  change them, but for :func:`demangled_names`, which keeps each name it works out in its state.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from .names.demangle import demangle
from .records import FIELDS, IMPOSSIBLE_LIMITS, KernelRecord, impossible_in_state, make_record, record_state


class Records(Sequence[KernelRecord]):
    """An import's records, held as their states (or the builds that return them); see the module's docstring.

    A sequence of :class:`KernelRecord` to every reader; ``append``, ``extend`` and ``del records[i:j]`` change
    it as a list's would."""

    __slots__ = ("__weakref__", "_items", "_made", "_pending")

    def __init__(self, states: Iterable[dict[str, Any] | tuple[Any, ...]] = (), *, builds: bool = False):
        """``states``: the records' states (a list is taken over, not copied); ``builds``: some of them may be
        builds, ``(build, *args)`` tuples whose call returns the state."""
        self._items: list[Any] = states if type(states) is list else list(states)
        self._pending = builds
        self._made: dict[int, KernelRecord] = {}

    @classmethod
    def of(cls, records: Iterable[KernelRecord]) -> Records:
        """``records`` as a ``Records``: itself if it is one, else a new one holding their states."""
        if isinstance(records, Records):
            return records
        made = list(records)
        out = cls(list(map(record_state, made)))
        out._made = dict(enumerate(made))
        return out

    # -- the states ------------------------------------------------------------------------------------------
    def _build(self, lo: int, hi: int) -> None:
        """Make states ``lo`` to ``hi`` whole (a build's call may raise: a damaged file; the build is kept)."""
        if not self._pending:
            return
        items = self._items
        for i in range(lo, hi):
            item = items[i]
            if type(item) is tuple:
                items[i] = item[0](*item[1:])
        if lo == 0 and hi >= len(items):
            self._pending = False

    def states(self) -> list[dict[str, Any]]:
        """Every record's state, in order, every build done: the container's own dicts (see the module's docstring)."""
        self._build(0, len(self._items))
        return self._items

    def demangled(self) -> list[str]:
        """Every record's demangled name (:func:`demangled_names`)."""
        return demangled_names(self.states())

    def kernels(self) -> Records:
        """The records of entry functions (``is_kernel``), sharing their states."""
        states = self.states()
        return Records(list(filter(_get_is_kernel, states)) if not all(map(_get_is_kernel, states)) else states[:])

    # -- a sequence ------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> KernelRecord: ...

    @overload
    def __getitem__(self, index: slice) -> Records: ...

    def __getitem__(self, index: int | slice) -> KernelRecord | Records:
        n = len(self._items)
        if isinstance(index, slice):
            lo, hi, step = index.indices(n)
            if step != 1:
                return Records.of([self[i] for i in range(lo, hi, step)])
            self._build(lo, hi)
            return Records(self._items[lo:hi])
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError("record index out of range")
        made = self._made.get(i)
        if made is None:
            self._build(i, i + 1)
            made = self._made[i] = make_record(self._items[i])
        return made

    def __iter__(self) -> Iterator[KernelRecord]:
        self._build(0, len(self._items))
        made = self._made
        for i, state in enumerate(self._items):
            rec = made.get(i)
            if rec is None:
                rec = made[i] = make_record(state)
            yield rec

    def __delitem__(self, index: int | slice) -> None:
        lo = index.indices(len(self._items))[0] if isinstance(index, slice) else index % max(len(self._items), 1)
        self._build(0, len(self._items))  # later states move down: none is left a build that would not know it
        del self._items[index]
        if self._made:  # the records of the states that moved are made again when read
            self._made = {i: rec for i, rec in self._made.items() if i < lo}

    def append(self, rec: KernelRecord) -> None:
        self._made[len(self._items)] = rec
        self._items.append(record_state(rec))

    def extend(self, records: Iterable[KernelRecord]) -> None:
        if isinstance(records, Records):
            self._items.extend(records.states())
        else:
            for rec in records:
                self.append(rec)

    def __iadd__(self, records: Iterable[KernelRecord]) -> Records:
        self.extend(records)
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (Records, list, tuple)):
            return NotImplemented
        return len(self) == len(other) and all(map(operator.eq, self, other))

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list is

    def __repr__(self) -> str:
        return f"<Records: {len(self._items)} records>"


class LazyRecords(Records):
    """Records whose states are made a block at a time, the first time one of a block's records is read:
    ``block(number)`` returns the states of block ``number`` (``size`` records each, the last maybe fewer).
    The record cache's reopened entry: opening libcusparse's 40,667 records builds none of them."""

    __slots__ = ("_block", "_size")

    def __init__(self, count: int, size: int, block: Any):
        super().__init__()
        self._items = [None] * count  # a block's states, once decoded
        self._pending = count > 0
        self._size = size
        self._block = block

    def _build(self, lo: int, hi: int) -> None:
        if not self._pending:
            return
        items, size = self._items, self._size
        for number in range(lo // size, -(-hi // size)):
            at = number * size
            if items[at] is None:
                states = self._block(number)
                items[at : at + len(states)] = states
        if lo == 0 and hi >= len(items):
            self._pending = False
            self._block = None  # every block decoded: what decodes them is no longer needed


def built_states(records: Sequence[KernelRecord]) -> list[dict[str, Any]]:
    """The states of ``records``, every build done: a ``Records``' own (see the module's docstring), new
    dicts for other records."""
    return Records.of(records).states()


def demangled_names(states: list[dict[str, Any]]) -> list[str]:
    """The demangled name of each record whose state is in ``states``: known where a cache's row or an earlier
    read left it, else demangled here and kept in the state (a JSON listing, a cache entry and the window's
    table all want it)."""
    names = list(map(operator.methodcaller("get", "demangled"), states))
    for i in [i for i, text in enumerate(names) if text is None]:
        names[i] = states[i]["demangled"] = demangle(states[i]["name"])
    return names


def impossible_figures(records: Sequence[KernelRecord]) -> list[str | None]:
    """``records.impossible_figure`` of every record: each figure's column is checked with one ``min`` and one
    ``max`` in C, and only a column that breaks its limit is looked at per record (libcusparse's 40,667
    records: 2 ms, not 60 ms)."""
    return impossible_in_states(built_states(records))


def impossible_in_states(states: list[dict[str, Any]]) -> list[str | None]:
    """:func:`impossible_figures` of the records whose states are ``states``."""
    flagged: set[int] = set()
    for name, limit in IMPOSSIBLE_LIMITS:
        column = list(map(operator.itemgetter(name), states))
        present = list(filter(_not_none, column))
        if present and (min(present) < 0 or max(present) > limit):
            flagged.update(i for i, value in enumerate(column) if value is not None and not 0 <= value <= limit)
    reasons: list[str | None] = [None] * len(states)
    for i in flagged:
        reasons[i] = impossible_in_state(states[i])
    return reasons


_NOT_FIGURES = frozenset(("source", "copies", "demangled", "const_banks", "launch_source"))
_FIGURES = tuple(name for name in FIELDS if name not in _NOT_FIGURES)
_get_figures = operator.itemgetter(*_FIGURES)
_get_banks = operator.itemgetter("const_banks")
_get_relocatable = operator.itemgetter("relocatable")
_get_key = operator.itemgetter("name", "arch", "embedded")  # a record's (key, embedded)
_get_is_kernel = operator.itemgetter("is_kernel")
_not_none = functools.partial(operator.is_not, None)


def merge_records(records: Sequence[KernelRecord]) -> Records:
    """One record per distinct copy, in first-seen order: identical copies of a function (same
    name, arch and figures) become one record whose ``copies`` counts them and whose ``source``
    is the first; copies that differ in any figure are all kept, each with its own source.

    A relocatable copy (``-rdc``, before nvlink) is dropped when the input also holds a linked
    copy of the same function for the same arch: the linked image is what the GPU runs.  Embedded
    fatbins (which their library links and loads itself) and registered ones are apart here.

    The identities are made column-wise in C (``map``); only the dictionary step is Python
    (libcusparse's 66,478 records: 0.12 -> 0.04 s).  The first copy's state is the merged record's: its
    ``copies`` is added to in place (a worker of the parallel reader tells the kept states by identity).
    """
    source = Records.of(records)
    source._made.clear()  # a made record of a state whose copies change here would say the old count
    states = source.states()
    idents = zip(map(_get_figures, states), map(frozenset, map(dict.items, map(_get_banks, states))))
    kept: Iterable[tuple[dict[str, Any], Any]] = zip(states, idents)
    if any(map(_get_relocatable, states)):
        linked = {
            key for key, relocatable in zip(map(_get_key, states), map(_get_relocatable, states)) if not relocatable
        }
        kept = [(state, ident) for state, ident in kept if not (state["relocatable"] and _get_key(state) in linked)]
    out: dict[Any, dict[str, Any]] = {}
    first_of = out.setdefault
    for state, ident in kept:
        first = first_of(ident, state)
        if first is not state:
            first["copies"] += state["copies"]
    merged = Records(list(out.values()))
    while out:  # the identities freed a few at a time: all at once, libtorch_cuda's 143,409 held the GIL ~50 ms
        out.popitem()
    return merged
