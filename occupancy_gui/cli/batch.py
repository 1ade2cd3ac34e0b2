"""``occupancy batch``: JSON Lines queries in, one answer per line out, at the vectorised engine's speed.

Lines are read in chunks.  Most lines are plain (``batch_plain``: decoded by msgspec straight into
int64 columns); every other line is parsed by ``json`` and read by ``kernel_query`` one at a time (the
exact path), so its error text is the one it always was.  Both kinds are validated against the
engine's own table of checks (``engine.domain``, once per chunk), grouped by SM model
(``engine.occupancy.sm_model``: devices alike but for their SM count) and answered by one call of the
vectorised engine per model (``engine.columns``); the answers are written from the result columns in
input order (``batch_output``).  The answers are those of ``compute_occupancy`` line for line, and the
rare line the columns do not cover (a device the model does not know, a figure beyond 64 bits, a query
key only ``kernel_query`` knows) is answered by ``compute_occupancy`` itself.

Memory is bounded whatever the input: ``batch_input`` bounds a chunk and refuses an overlong line,
plain lines are decoded a slice at a time, answers are written a slice at a time, and the device
caches here are capped."""

from __future__ import annotations

import gc
import io
import json
import json.scanner
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from itertools import compress, repeat
from operator import is_, itemgetter
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

import numpy as np

from ..engine import (
    INT_MAX,
    KNOWN_MAJORS,
    DeviceProperties,
    DeviceState,
    DomainInputs,
    FunctionAttributes,
    Limit,
    OccupancyError,
    ReasonInputs,
    build_query,
    compute_occupancy,
    default_max_dynamic_smem,
    device_is_valid,
    first_violation,
    occupancy_columns,
    sm_model,
    status_error,
    violation_message,
    zero_block_reasons_many,
)
from ..fields import AMD, NVIDIA, only_for
from ..fields import QUERY_KEYS as QUERY_FIELDS
from ..profiles import Catalog
from .batch_input import CHUNK_LINES, FIRST_CHUNK_LINES, MAX_LINE_CHARS, Line, read_chunks
from .batch_output import ResultRows, chunk_to_csv, chunk_to_jsonl
from .batch_plain import QUERY_KEYS, decode_plain, plain_columns
from .common import not_for
from .devices import DeviceLookupError, device_from_query
from .inputs import CACHE_CONFIGS, QueryError, kernel_query
from .serialize import CSV_HEADER, BatchAnswer, result_to_json

if TYPE_CHECKING:
    from ..profiles import AmdProfile

CACHE_ENTRIES = 4096
FAST_PATH = True
"""Plain lines take ``batch_plain``'s columnar path; without it every line answers the same, slowly."""
DECODE_LINES = 16384
"""Plain lines are decoded this many at a time (their Python objects are the batch's largest transient)."""

_SCAN = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # the C scanner json.loads uses
_JSON_SPACE = " \t\n\r"
_ERRORS = (QueryError, OccupancyError, DeviceLookupError)
_DEFAULT_FUNC = FunctionAttributes(num_regs=0)
_AMD_ONLY = frozenset(f.name for f in only_for(AMD) if f.query)
"""Keys only an AMD device takes: an NVIDIA line holding one is refused, naming it (``batch_plain`` leaves every
such line to the exact path)."""
_COLUMN_KEYS = QUERY_FIELDS
"""The query keys the fast path reads itself (the field table's); everything else ``kernel_query`` decides."""


class _Recorder(dict[str, Any]):
    """A query that records which keys ``kernel_query`` looks at."""

    seen: set[str]

    def __contains__(self, key: object) -> bool:
        self.seen.add(str(key))
        return super().__contains__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.seen.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.seen.add(key)
        return super().__getitem__(key)


def _keys_kernel_query_reads() -> frozenset[str]:
    probe = _Recorder(threads=1, registers=0)
    probe.seen = set()
    kernel_query(probe)
    return frozenset(probe.seen)


_UNCOVERED = _keys_kernel_query_reads() - set(_COLUMN_KEYS)
"""Keys ``kernel_query`` knows and the fast path does not: a line with one goes to ``compute_occupancy``."""


# -------------------------------------------------------------------------------------- answering
_FIELDS = (
    "position",
    "group",
    "threads",
    "registers",
    "static_smem",
    "dynamic_smem",
    "barriers",
    "max_dynamic_smem",
    "has_max_dynamic_smem",
    "carveout",
    "cache_config",
    "max_threads_per_block",
    "required_block_size",
)
"""The fields of each query the fast path evaluates, in the order of the tuples ``_collect`` appends."""
_Columns = list[tuple[int, ...]]


_INT64 = (-(1 << 63), (1 << 63) - 1)
_CACHE_CODES = {name: int(value) for name, value in CACHE_CONFIGS.items()}


def _plain(data: dict[str, Any]) -> tuple[int, int, int, int, int, int | None, int, int, int, int] | None:
    """The query's fields where each is a plain int, absent or ``null`` (the default), else ``None``.

    Anything else (a string, a float, a bool, an out-of-range carveout...) is ``kernel_query``'s to
    read or refuse in words.
    """
    get = data.get
    threads, registers, static, dynamic = get("threads"), get("registers"), get("static_smem"), get("dynamic_smem")
    barriers, max_dynamic, carveout, cache = (
        get("barriers"),
        get("max_dynamic_smem"),
        get("carveout"),
        get("cache_config"),
    )
    if type(threads) is not int or type(registers) is not int:
        return None
    static = 0 if static is None else static
    dynamic = 0 if dynamic is None else dynamic
    barriers = 1 if barriers is None else barriers
    if type(static) is not int or type(dynamic) is not int or type(barriers) is not int:
        return None
    if max_dynamic is not None and type(max_dynamic) is not int:
        return None
    if carveout is None or carveout == "default":
        carveout = -1
    elif type(carveout) is not int or not -1 <= carveout <= 100:
        return None
    cache = 0 if cache is None else _CACHE_CODES.get(cache, -1) if type(cache) is str else cache
    if type(cache) is not int or not 0 <= cache <= 3:
        return None
    bound = get("max_threads_per_block")
    bound = INT_MAX if bound is None else bound
    if type(bound) is not int or bound < 1:
        return None  # kernel_query words the refusal
    required = get("required_block_size")
    required = 0 if required is None else required
    if type(required) is not int or required < 0 or (required == 0 and get("required_block_size") is not None):
        return None  # as above
    return threads, registers, static, dynamic, barriers, max_dynamic, carveout, cache, bound, required


class BatchAnswerer:
    """Answers chunks of lines; holds the device lookups between chunks (capped)."""

    def __init__(self, catalog: Catalog, source: str) -> None:
        self.catalog = catalog
        self.source = source
        self._named: dict[str, int | str | AmdProfile] = {}
        """A device name's group (an NVIDIA device), its AMD profile, or the lookup's error text."""
        self._mapped: dict[str, int] = {}
        self._groups: dict[DeviceProperties, int] = {}
        self.devices: list[DeviceProperties] = []
        self._models: dict[DeviceProperties, int] = {}
        self.models: list[DeviceProperties] = []
        """``engine.occupancy.sm_model`` of each device: the engine is asked once per model, not per device."""
        self._model_of: list[int] = []
        self.fast = FAST_PATH and not _UNCOVERED and set(_COLUMN_KEYS) == QUERY_KEYS

    # -- devices
    def _group(self, device: DeviceProperties) -> int:
        group = self._groups.get(device)
        if group is None:
            group = self._groups[device] = len(self.devices)
            self.devices.append(device)
            model = sm_model(device)
            self._model_of.append(self._models.setdefault(model, len(self.models)))
            if len(self.models) < len(self._models):
                self.models.append(model)
        return group

    def _device(self, value: object, number: int) -> int | str | AmdProfile:
        """The device's group (an NVIDIA device), its AMD profile, or the error text."""
        if type(value) is str:
            found = self._named.get(value)
            if found is None:
                try:
                    device = device_from_query(value, self.catalog, "")
                    found = self._group(device) if isinstance(device, DeviceProperties) else device
                except DeviceLookupError as exc:
                    found = str(exc)
                if len(self._named) < CACHE_ENTRIES:
                    self._named[value] = found
            return found
        if type(value) is dict:
            key = repr(value)
            group = self._mapped.get(key)
            if group is not None:
                return group
            try:
                mapped = device_from_query(value, self.catalog, f"{self.source}:{number}")
            except DeviceLookupError as exc:
                return str(exc)
            assert isinstance(mapped, DeviceProperties)  # a mapping is an NVIDIA profile
            group = self._group(mapped)
            if len(self._mapped) < CACHE_ENTRIES:
                self._mapped[key] = group
            return group
        try:
            device_from_query(value, self.catalog, f"{self.source}:{number}")
        except DeviceLookupError as exc:
            return str(exc)
        raise AssertionError("device_from_query accepted a device that is neither a name nor a mapping")

    # -- lines
    def _error(self, number: int, message: str) -> dict[str, Any]:
        return {"error": f"{self.source}:{number}: {message}"}

    @staticmethod
    def _parse(line: Line) -> dict[str, Any] | str:
        """The line's JSON object, or the error text (the ``json`` module's words for invalid JSON)."""
        _, text, terminated = line
        assert text is not None
        stripped = text.strip(_JSON_SPACE)
        try:
            data, end = _SCAN(stripped, 0)
            if end == len(stripped):
                return data if type(data) is dict else "expected a JSON object"
        except (StopIteration, ValueError):
            pass
        except RecursionError:  # json.loads, a few frames deeper, gives up no later: 95 µs a line saved
            return "invalid JSON: nested too deeply"
        try:  # what json.loads says, on the line as text mode reads it
            data = json.loads(text + ("\n" if terminated else ""))
        except json.JSONDecodeError as exc:
            return f"invalid JSON: {exc.msg} at column {exc.colno}"
        except RecursionError:
            return "invalid JSON: nested too deeply"
        except ValueError:  # CPython's limit on integer digits
            return f"invalid JSON: a number of more than {sys.get_int_max_str_digits()} digits"
        return data if type(data) is dict else "expected a JSON object"

    def _amd(self, number: int, data: dict[str, Any], profile: AmdProfile) -> dict[str, Any]:
        """One AMD line's answer: the calc JSON, or the error naming the field."""
        from .amd_answers import answer  # noqa: PLC0415 - lazy: an NVIDIA batch needs no AMD engine

        try:
            return answer(profile, data).as_json()
        except QueryError as exc:
            return self._error(number, str(exc))

    def _scalar(self, data: dict[str, Any], device: DeviceProperties, number: int) -> dict[str, Any]:
        """One line answered by ``compute_occupancy`` itself (the lines the fast path does not cover)."""
        try:
            q = kernel_query(data)
            return result_to_json(compute_occupancy(device, q.func, q.launch, q.state))
        except _ERRORS as exc:
            return self._error(number, str(exc))

    def answer(self, lines: list[Line]) -> ChunkAnswers:
        """Every line's answer: a finished dict, or its row of the engine's figures."""
        if len(self.devices) > CACHE_ENTRIES:  # between chunks only: a chunk's rows hold group numbers
            self._groups.clear()
            self._named.clear()
            self._mapped.clear()
            self.devices = []
            self._models.clear()
            self.models = []
            self._model_of = []
        answers: list[BatchAnswer | None] = [None] * len(lines)
        cols: _Columns = []
        scalar: list[tuple[int, dict[str, Any], int]] = []
        fast, exact = self._fast(lines, answers) if self.fast else (None, range(len(lines)))
        for position in exact:
            line = lines[position]
            try:
                answers[position] = self._collect(position, line, cols, scalar)
            except Exception as exc:  # noqa: BLE001 - one line's failure never stops the others
                answers[position] = self._error(line[0], f"unexpected error: {type(exc).__name__}: {exc}"[:500])
        rows = self._evaluate(lines, fast, cols, scalar, answers)
        for position, data, group in scalar:
            try:
                answers[position] = self._scalar(data, self.devices[group], lines[position][0])
            except Exception as exc:  # noqa: BLE001 - one line's failure never stops the others
                answers[position] = self._error(
                    lines[position][0], f"unexpected error: {type(exc).__name__}: {exc}"[:500]
                )
        return ChunkAnswers([line[0] for line in lines], answers, rows)

    def _fast(
        self, lines: list[Line], answers: list[BatchAnswer | None]
    ) -> tuple[dict[str, np.ndarray] | None, list[int]]:
        """The plain lines' columns (``batch_plain``) and the positions left to the exact path.

        Decoded a slice at a time, so that only one slice's queries are ever held as Python objects.
        Should anything fail, the whole chunk takes the exact path.
        """
        exact = np.ones(len(lines), dtype=bool)
        parts: list[dict[str, np.ndarray]] = []
        try:
            for lo in range(0, len(lines), DECODE_LINES):
                part = self._fast_slice(lines, lo, min(lo + DECODE_LINES, len(lines)), answers, exact)
                if part is not None:
                    parts.append(part)
        except Exception:  # noqa: BLE001 - the exact path answers (or words the failure of) every line
            for position in range(len(lines)):
                answers[position] = None
            return None, list(range(len(lines)))
        if not parts:
            return None, np.flatnonzero(exact).tolist()
        arrays = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
        return arrays, np.flatnonzero(exact).tolist()

    def _fast_slice(
        self, lines: list[Line], lo: int, hi: int, answers: list[BatchAnswer | None], exact: np.ndarray
    ) -> dict[str, np.ndarray] | None:
        """Lines ``lo..hi-1``: the plain ones' columns; ``exact`` is cleared for every line answered here.

        A line whose device is unknown is answered with the lookup's words, as the exact path would
        (it looks at the device first).
        """
        positions, queries = decode_plain(list(map(itemgetter(1), lines[lo:hi])))
        if not queries:
            return None
        devices, columns, defer = plain_columns(queries)
        del queries
        at = np.asarray(positions, dtype=np.int64) + lo
        groups: list[int | str | AmdProfile | None] = list(map(self._named.get, devices))  # type: ignore[arg-type]  # None finds nothing
        if None in groups:  # a name not looked up yet (or no device at all): only those rows are visited
            unknown = np.fromiter(map(is_, groups, repeat(None)), dtype=np.bool_, count=len(groups))
            for i in np.flatnonzero(unknown).tolist():
                if devices[i] is not None:
                    groups[i] = self._device(devices[i], lines[int(at[i])][0])
        fast = np.fromiter(map(is_, map(type, groups), repeat(int)), dtype=np.bool_, count=len(groups))
        for i in np.flatnonzero(~fast).tolist():  # an AMD device's line is left to the exact path
            group = groups[i]
            if type(group) is str:
                position = int(at[i])
                answers[position] = self._error(lines[position][0], group)
                exact[position] = False
        chosen = fast & ~defer
        arrays = {name: column[chosen] for name, column in columns.items()}
        arrays["position"] = at[chosen]
        arrays["group"] = np.fromiter(compress(groups, chosen.tolist()), dtype=np.int64, count=int(chosen.sum()))
        exact[arrays["position"]] = False
        return arrays

    def _collect(
        self, position: int, line: Line, cols: _Columns, scalar: list[tuple[int, dict[str, Any], int]]
    ) -> dict[str, Any] | None:
        """Parse and validate one line: an answer now (an error), or its fields appended for the engine."""
        number, text, _ = line
        if text is None:
            return self._error(number, f"line longer than {MAX_LINE_CHARS} characters, skipped")
        data = self._parse(line)
        if type(data) is str:
            return self._error(number, data)
        assert isinstance(data, dict)
        device = data.get("device")
        group = self._named.get(device) if isinstance(device, str) else None
        if group is None:
            group = self._device(device, number)
        if type(group) is str:
            return self._error(number, group)
        if type(group) is not int:  # an AMD device: its own rules answer, one line at a time
            return self._amd(number, data, group)  # type: ignore[arg-type]  # neither int nor str: an AmdProfile
        assert isinstance(group, int)
        if not _AMD_ONLY.isdisjoint(data):
            for key in _AMD_ONLY:
                if data.get(key) is not None:
                    name = device if isinstance(device, str) else "the line's device"
                    return self._error(number, not_for(key, name, NVIDIA))
        if _UNCOVERED and not _UNCOVERED.isdisjoint(data):
            scalar.append((position, data, group))
            return None
        plain = _plain(data)
        if plain is None:
            try:
                q = kernel_query(data)
            except QueryError as exc:
                return self._error(number, str(exc))
            f = q.func
            if (f.shmem_limit_config, f.partitioned_gc_config, f.virtual_resource_count) != (
                _DEFAULT_FUNC.shmem_limit_config,
                _DEFAULT_FUNC.partitioned_gc_config,
                _DEFAULT_FUNC.virtual_resource_count,
            ):
                scalar.append((position, data, group))
                return None
            plain = (
                q.launch.block_size,
                f.num_regs,
                f.shared_size_bytes,
                q.launch.dynamic_smem,
                f.num_block_barriers,
                f.max_dynamic_shared_size_bytes,
                q.state.carveout_config,
                int(q.state.cache_config),
                f.max_threads_per_block,
                f.reqntid,
            )
        threads, registers, static, dynamic, barriers, max_dynamic, carveout, cache, bound, required = plain
        if max_dynamic is None:
            cols.append(
                (position, group, threads, registers, static, dynamic, barriers, 0, 0, carveout, cache, bound, required)
            )
        else:
            cols.append(
                (
                    position,
                    group,
                    threads,
                    registers,
                    static,
                    dynamic,
                    barriers,
                    max_dynamic,
                    1,
                    carveout,
                    cache,
                    bound,
                    required,
                )
            )
        return None

    def _evaluate(
        self,
        lines: list[Line],
        fast: dict[str, np.ndarray] | None,
        cols: _Columns,
        scalar: list[tuple[int, dict[str, Any], int]],
        answers: list[BatchAnswer | None],
    ) -> ResultRows:
        """The engine's rows for the fast path's columns and the exact path's tuples, one call per SM model."""
        arrays: dict[str, np.ndarray] | None = None
        if cols:
            arrays, huge = _int64_columns(cols)
            for position, group in zip(arrays["position"][huge].tolist(), arrays["group"][huge].tolist()):
                data = self._parse(lines[position])  # a figure beyond int64: the scalar checks word its refusal
                assert isinstance(data, dict)
                scalar.append((position, data, group))
            if huge.any():
                arrays = {name: a[~huge] for name, a in arrays.items()}
        if fast is not None:
            arrays = fast if arrays is None else {name: np.concatenate([fast[name], a]) for name, a in arrays.items()}
        rows_out = ResultRows.allocate(len(lines))
        if arrays is None or not len(arrays["position"]):
            return rows_out
        for position, message in _out_of_domain(arrays):  # as compute_occupancy does, before the device counts
            answers[position] = self._error(lines[position][0], message)
        if not len(arrays["position"]):
            return rows_out
        models = np.asarray(self._model_of, dtype=np.int64)[arrays["group"]]
        order = np.argsort(models, kind="stable")
        bounds = np.flatnonzero(np.diff(models[order])) + 1
        for rows in np.split(order, bounds):
            device = self.models[int(models[rows[0]])]
            sub = {name: a[rows] for name, a in arrays.items()}
            if not device_is_valid(device) or device.compute_major not in KNOWN_MAJORS:
                self._to_scalar(lines, sub, scalar)
                continue
            try:
                errors = _answer_group(device, sub, rows_out)
            except Exception:  # noqa: BLE001 - an unknown minor version, say: compute_occupancy words it per line
                self._to_scalar(lines, sub, scalar)
                continue
            for position, message in errors:
                answers[position] = self._error(lines[position][0], message)
        return rows_out

    def _to_scalar(
        self, lines: list[Line], sub: dict[str, np.ndarray], scalar: list[tuple[int, dict[str, Any], int]]
    ) -> None:
        for position, group in zip(sub["position"].tolist(), sub["group"].tolist()):
            data = self._parse(lines[position])
            assert isinstance(data, dict)
            scalar.append((position, data, group))


def _int64_columns(cols: _Columns) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The columns as int64 arrays, and a mask of the queries holding a figure beyond int64 (set to 0)."""
    lo, hi = _INT64
    arrays: dict[str, np.ndarray] = {}
    huge = np.zeros(len(cols), dtype=bool)
    for name, values in zip(_FIELDS, zip(*cols)):
        try:
            arrays[name] = np.asarray(values, dtype=np.int64)
        except OverflowError:
            beyond = [i for i, v in enumerate(values) if not lo <= v <= hi]
            huge[beyond] = True
            arrays[name] = np.asarray([0 if not lo <= v <= hi else v for v in values], dtype=np.int64)
    return arrays, huge


def _out_of_domain(arrays: dict[str, np.ndarray]) -> list[tuple[int, str]]:
    """The (position, error text) of the queries ``engine.domain`` refuses (on any device), which leave
    ``arrays`` (changed in place); one check for the chunk."""
    domain = DomainInputs(
        block_size=arrays["threads"],
        num_regs=arrays["registers"],
        shared_size_bytes=arrays["static_smem"],
        dynamic_smem=arrays["dynamic_smem"],
        num_block_barriers=arrays["barriers"],
        virtual_resource_count=0,
        max_threads_per_block=arrays["max_threads_per_block"],
        reqntid=arrays["required_block_size"],
        carveout=arrays["carveout"],
        max_dynamic_smem=arrays["max_dynamic_smem"],
    )
    violation = first_violation(domain)
    refused = np.flatnonzero(violation >= 0)
    if not refused.size:
        return []
    values = {
        f.name: np.broadcast_to(getattr(domain, f.name), violation.shape)[refused].tolist()
        for f in fields(DomainInputs)
    }
    errors: list[tuple[int, str]] = []
    for k, (position, check) in enumerate(zip(arrays["position"][refused].tolist(), violation[refused].tolist())):
        errors.append((position, violation_message(check, DomainInputs(**{name: v[k] for name, v in values.items()}))))
    good = violation < 0
    for name, a in list(arrays.items()):
        arrays[name] = a[good]
    return errors


def _answer_group(device: DeviceProperties, g: dict[str, np.ndarray], out: ResultRows) -> list[tuple[int, str]]:
    """One model's queries (within the domain): the (position, error text) of those the engine refuses;
    the others' rows go to ``out``.

    Nothing is written to ``out`` before the engine has answered, so a failure leaves it as it was."""
    errors: list[tuple[int, str]] = []
    max_dynamic = np.where(
        g["has_max_dynamic_smem"] != 0, g["max_dynamic_smem"], default_max_dynamic_smem(device, g["static_smem"])
    )
    query = build_query(
        device,
        _DEFAULT_FUNC,
        DeviceState(),
        g["threads"],
        g["dynamic_smem"],
        num_regs=g["registers"],
        shared_size_bytes=g["static_smem"],
        max_dynamic_smem=max_dynamic,
        num_block_barriers=g["barriers"],
        cache_config=g["cache_config"],
        carveout=g["carveout"],
        func_max_threads_per_block=g["max_threads_per_block"],
        func_reqntid=g["required_block_size"],
    )
    c = occupancy_columns(device, query)
    status = c.arrays.status
    refused = np.flatnonzero(status != 0)
    for i in refused.tolist():
        errors.append(
            (int(g["position"][i]), str(status_error(device, int(status[i]), device.shared_mem_per_multiprocessor)))
        )
    ok: np.ndarray | slice = slice(None) if not refused.size else np.flatnonzero(status == 0)  # none refused: views
    at = g["position"][ok]
    limits = np.column_stack([c.limits[limit] for limit in _LIMITS])[ok]
    active = c.active_blocks[ok]
    shared_memory = c.arrays.allocated_shared_mem_per_block[ok]
    sm_smem = c.arrays.shared_mem_per_multiprocessor[ok]
    zero = np.flatnonzero(active == 0)
    rows = np.arange(len(status))[ok][zero]
    reasons = (
        _reasons(
            device, {name: a[rows] for name, a in g.items()}, at[zero], limits[zero], shared_memory[zero], sm_smem[zero]
        )
        if zero.size
        else {}
    )
    out.answered[at] = True
    out.active_blocks[at] = active
    out.active_warps[at] = c.active_warps[ok]
    out.active_threads[at] = c.active_threads[ok]
    out.max_warps[at] = device.max_warps_per_multiprocessor
    out.limits[at] = limits
    out.binding[at] = c.binding[ok]
    out.registers[at] = c.arrays.allocated_registers_per_block[ok]
    out.shared_memory[at] = shared_memory
    out.estimate_blocks[at] = c.estimate_active_blocks[ok]
    out.estimate_warps[at] = (c.estimate_active_blocks * c.warps_per_block)[ok]
    out.estimate_limits[at] = np.column_stack([c.estimate_limits[limit] for limit in _LIMITS])[ok]
    out.reasons.update(reasons)
    return errors


_LIMITS = tuple(Limit)


def _none(value: int) -> int | None:
    return None if value >= INT_MAX else value


def _reasons(
    device: DeviceProperties,
    g: dict[str, np.ndarray],
    at: np.ndarray,
    limits: np.ndarray,
    smem: np.ndarray,
    sm_smem: np.ndarray,
) -> dict[int, tuple[str, ...]]:
    """The engine's words for the rows where no block fits, by position."""

    def same(value: int) -> np.ndarray:
        return np.full(len(at), value, dtype=np.int64)

    inputs = ReasonInputs(
        block_size=g["threads"],
        dynamic_smem=g["dynamic_smem"],
        num_regs=g["registers"],
        shared_size_bytes=g["static_smem"],
        max_dynamic_smem=np.where(g["has_max_dynamic_smem"] != 0, g["max_dynamic_smem"], -1),
        shmem_limit_config=same(int(_DEFAULT_FUNC.shmem_limit_config)),
        num_block_barriers=g["barriers"],
        virtual_resource_count=same(_DEFAULT_FUNC.virtual_resource_count),
        max_threads_per_block=g["max_threads_per_block"],
        reqntid=g["required_block_size"],
        limits={limit: limits[:, k] for k, limit in enumerate(_LIMITS)},
        allocated_smem=smem,
        sm_smem=sm_smem,
    )
    return dict(zip(at.tolist(), zero_block_reasons_many(device, inputs)))


# ------------------------------------------------------------------------------------------ driver
GC_THRESHOLD = 100_000
WRITE_LINES = 4096
"""Answers are written in slices of this many lines, so a chunk's text never has to be held whole."""


@dataclass
class ChunkAnswers:
    """A chunk's answers: a finished dict per line, or ``None`` where the line's answer is a row of ``rows``."""

    numbers: list[int]
    answers: list[BatchAnswer | None]
    rows: ResultRows

    def text(self, fmt: str, lo: int, hi: int) -> str:
        """Lines ``lo..hi-1`` as JSON Lines or CSV rows."""
        if fmt == "csv":
            return chunk_to_csv(self.numbers, self.answers, self.rows, lo, hi)
        return chunk_to_jsonl(self.answers, self.rows, lo, hi)


def answer_stream(
    stream: BinaryIO,
    answerer: BatchAnswerer,
    fmt: str,
    write: Callable[[str], object],
    flush: Callable[[], object] = lambda: None,
    first_number: int = 0,
    first_chunk_lines: int = FIRST_CHUNK_LINES,
) -> None:
    """Answer every line of ``stream`` through ``write`` (a slice of answers at a time), in input order;
    lines numbered from ``first_number + 1``; ``flush`` after each chunk."""
    thresholds = gc.get_threshold()
    # A chunk holds ~10^5 live tuples and lists; at the default threshold the collector walks them every
    # 700 allocations (1M queries: 8.6 -> 7.6 s CPU with it off).  Rarer collections still free any cycle.
    gc.set_threshold(max(thresholds[0], GC_THRESHOLD), *thresholds[1:])
    try:
        for chunk in read_chunks(stream, first_number, first_chunk_lines):
            answered = answerer.answer(chunk)
            for lo in range(0, len(chunk), WRITE_LINES):
                write(answered.text(fmt, lo, min(lo + WRITE_LINES, len(chunk))))
            flush()
            del chunk, answered  # before the next chunk is read: one chunk is held at a time, not two
    finally:
        gc.set_threshold(*thresholds)


def run_batch(stream: BinaryIO, out: TextIO, catalog: Catalog, source: str, fmt: str = "json", jobs: int = 1) -> None:
    """Answer every line of ``stream`` on ``out`` (JSON Lines, or CSV with a header row), in input order.

    With ``jobs`` above 1, an input of more than one block is answered by that many worker processes
    (``batch_parallel``), the same answers byte for byte.
    """
    if fmt == "csv":
        out.write(CSV_HEADER)
    answerer = BatchAnswerer(catalog, source)
    if jobs > 1:
        from .batch_parallel import run_parallel  # noqa: PLC0415 - lazy: one process needs no pipes

        def here(block: bytes, first_number: int) -> list[str]:
            texts: list[str] = []
            answer_stream(
                io.BytesIO(block), answerer, fmt, texts.append, first_number=first_number, first_chunk_lines=CHUNK_LINES
            )
            return texts

        run_parallel(stream, out, jobs, here, (source, fmt))
    else:
        answer_stream(stream, answerer, fmt, out.write, out.flush)
