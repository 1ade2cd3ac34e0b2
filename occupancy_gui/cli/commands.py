"""The ``occupancy`` subcommands that need the engine and the device profiles.

Kept apart from ``main`` so that ``occupancy import`` (and ``--help``) start without numpy or YAML.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from .. import fields
from ..engine import (
    DynamicSmem,
    OccupancyError,
    compute_occupancy,
    dynamic_smem_headroom,
    max_potential_block_size,
    min_blocks_shortfall,
)
from ..fields import AMD, MODE, NVIDIA, VENDOR_NAMES
from ..profiles import DeviceProfile, ProfileError
from .common import fail, not_for
from .devices import (
    DeviceLookupError,
    amd_catalog,
    amd_profile_to_json,
    amd_profiles_to_text,
    find_device,
    load_catalog,
    profile_to_json,
    profiles_to_text,
)
from .inputs import QueryError, kernel_query, parse_cache_config, parse_carveout
from .serialize import result_to_json, result_to_text

if TYPE_CHECKING:
    from ..profiles import AmdProfile

USER_ERRORS: tuple[type[Exception], ...] = (QueryError, OccupancyError, DeviceLookupError, ProfileError)
"""Errors a user's input causes: one line, exit 2 (``amd_answers`` words the AMD engine's as ``QueryError``; a
broken bundled AMD profile is a ``ProfileError``)."""


def _cache_code(value: Any) -> int:
    return int(parse_cache_config(value))


_READ: dict[str, Any] = {fields.CARVEOUT: parse_carveout, fields.CACHE: _cache_code}
"""A flag's text as a query value, for the kinds given by name (a carveout, a cache preference)."""


def _query_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The batch query the flags make (the field table's query keys)."""
    return {name: _READ.get(fields.FIELD[name].kind, _same)(getattr(args, name)) for name in fields.QUERY_KEYS}


def _same(value: Any) -> Any:
    return value


def _min_blocks(args: argparse.Namespace) -> int | None:
    """``--min-blocks-per-sm``: at least 1 where given."""
    value: int | None = args.min_blocks_per_sm
    if value is not None and value < 1:
        raise QueryError(f"--min-blocks-per-sm: expected at least 1, got {value}")
    return value


def _kernel_bounds(args: argparse.Namespace) -> dict[str, int]:
    """The kernel's own limits given on the command line, as JSON keys (absent where not given)."""
    given = {name: getattr(args, name) for name in fields.KERNEL_LIMITS}
    return {k: v for k, v in given.items() if v is not None}


SUGGEST_ONLY_NVIDIA = ("blocks", "smem_per_thread")
"""``occupancy suggest``'s own flags that only an NVIDIA device takes."""


def _check_flags(args: argparse.Namespace, vendor: str, device: str) -> None:
    """Every flag given is one ``vendor``'s devices take, and every one they need is given (one line naming the
    flag otherwise)."""
    for f in fields.FIELDS:
        value = getattr(args, f.name, None)
        if f.flag is None:
            continue
        if value is not None and vendor not in f.vendors:
            flag = f.off_flag if f.kind == MODE and value is False else f.flag
            raise QueryError(not_for(str(flag), device, vendor))
        if value is None and f.required and vendor in f.vendors and f.name != "threads":
            raise QueryError(f"{f.flag} is required for an {VENDOR_NAMES[vendor]} device ({device})")
    if vendor != NVIDIA:
        for name in SUGGEST_ONLY_NVIDIA:
            if getattr(args, name, None) is not None:
                raise QueryError(not_for("--" + name.replace("_", "-"), device, vendor))


def _device(args: argparse.Namespace) -> DeviceProfile | AmdProfile:
    """The ``--device`` profile of either vendor, its flags checked against it."""
    profile = find_device(args.device, load_catalog())
    _check_flags(args, NVIDIA if isinstance(profile, DeviceProfile) else AMD, profile.name)
    return profile


def _amd_query(args: argparse.Namespace) -> dict[str, Any]:
    """The AMD batch query the flags make."""
    return {name: getattr(args, name) for name in fields.query_keys(AMD)}


def _amd_calc(profile: AmdProfile, args: argparse.Namespace, out: TextIO) -> int:
    from .amd_answers import answer, answer_text  # noqa: PLC0415 - lazy: an NVIDIA device needs no AMD engine

    result = answer(profile, _amd_query(args))
    print(json.dumps(result.as_json()) if args.json else answer_text(result), file=out)
    return 0


def _amd_suggest(profile: AmdProfile, args: argparse.Namespace, out: TextIO) -> int:
    from .amd_answers import suggest, suggest_text  # noqa: PLC0415 - lazy: as _amd_calc

    answer = suggest(profile, _amd_query(args))
    print(json.dumps(answer) if args.json else suggest_text(answer), file=out)
    return 0


def _calc(args: argparse.Namespace, out: TextIO) -> int:
    profile = _device(args)
    if not isinstance(profile, DeviceProfile):
        return _amd_calc(profile, args, out)
    q = kernel_query(_query_from_args(args))
    min_blocks = _min_blocks(args)
    result = compute_occupancy(profile.device_properties(), q.func, q.launch, q.state)
    shortfall = min_blocks_shortfall(result.active_blocks, min_blocks)
    if args.json:
        notes = {"min_blocks_shortfall": shortfall} if min_blocks is not None else {}
        print(json.dumps({"device": profile.name, **_kernel_bounds(args), **result_to_json(result), **notes}), file=out)
    else:
        text = result_to_text(result, profile.name)
        print(text if shortfall is None else f"{text}\n\nNote: {shortfall}.", file=out)
    return 0


def _batch(args: argparse.Namespace, out: TextIO) -> int:
    from .batch import run_batch  # noqa: PLC0415 - lazy: only `batch` needs the chunked reader

    catalog = load_catalog()
    source = "<stdin>" if args.file == "-" else args.file
    try:
        stream = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")  # noqa: SIM115
    except OSError as exc:
        return fail("occupancy batch", f"{args.file}: {exc.strerror}")
    with stream:
        run_batch(stream, out, catalog, source, args.format, args.jobs)
    return 0


def _detect(out: TextIO) -> int:
    from ..detect import DetectionUnavailable, detect_devices, save_profile  # noqa: PLC0415 - lazy: only --detect reads GPUs
    from ..profiles import user_profile_dir  # noqa: PLC0415 - lazy: as above

    try:
        devices = detect_devices()
    except DetectionUnavailable as exc:
        return fail("occupancy devices --detect", str(exc))
    saved = [save_profile(device, user_profile_dir()) for device in devices]
    catalog = load_catalog()
    for device, path in zip(devices, saved):
        problems = [e for e in catalog.errors if str(path) in str(e)]
        status = f"error: {problems[0]}" if problems else "saved"
        print(
            f"{device.profile_name}: CC {device.compute_capability[0]}.{device.compute_capability[1]}, "
            f"{device.sm_count} SMs, driver {device.driver_version} -> {path} ({status})",
            file=out,
        )
    return 0


def _devices(args: argparse.Namespace, out: TextIO) -> int:
    if args.detect:
        return _detect(out)
    catalog = load_catalog()
    nvidia = catalog.profiles if args.vendor in (None, NVIDIA) else []
    amd = amd_catalog().profiles if args.vendor in (None, AMD) else []
    if args.json:
        listed = [profile_to_json(p) for p in nvidia] + [amd_profile_to_json(p) for p in amd]
        print(json.dumps(listed, indent=1), file=out)
    else:
        tables = ([profiles_to_text(nvidia)] if nvidia else []) + ([amd_profiles_to_text(amd)] if amd else [])
        print("\n\n".join(tables), file=out)
    for error in catalog.errors:
        print(f"occupancy devices: warning: {error}", file=sys.stderr)
    return 0


def _suggest(args: argparse.Namespace, out: TextIO) -> int:
    profile = _device(args)
    if not isinstance(profile, DeviceProfile):
        return _amd_suggest(profile, args, out)
    device = profile.device_properties()
    data = _query_from_args(args)
    data["threads"] = args.threads or 1
    q = kernel_query(data)
    smem = DynamicSmem(bytes=args.dynamic_smem or 0, per_thread=args.smem_per_thread or 0)
    suggestion = max_potential_block_size(device, q.func, smem, q.state)
    answer: dict[str, Any] = {
        "device": profile.name,
        "block_size": suggestion.block_size,
        "min_grid_size": suggestion.min_grid_size,
        "blocks_per_sm": suggestion.blocks_per_sm,
    }
    answer.update(_kernel_bounds(args))
    if profile.sm_count is None:
        answer["note"] = "CC profile without an SM count: min_grid_size is per SM"
    if args.blocks is not None:
        if args.threads is None:
            raise QueryError("--blocks needs --threads")
        headroom = dynamic_smem_headroom(device, q.func, args.blocks, args.threads, q.state)
        answer["dynamic_smem_reference"] = headroom.reference
        answer["dynamic_smem_exact"] = headroom.exact
    if args.json:
        print(json.dumps(answer), file=out)
    else:
        print("\n".join(f"{k}: {'-' if v is None else v}" for k, v in answer.items()), file=out)
    return 0


def _report_kernel(path: str, name: str | None) -> Any:
    from ..importers import import_file  # noqa: PLC0415 - lazy: only `report FILE` imports

    records = import_file(path)
    kernels = [r for r in records if r.is_kernel] or list(records)
    if name is not None:
        kernels = [r for r in kernels if name in r.name or name in (r.demangled or "")]
    if not kernels:
        raise QueryError(f"{path}: no kernel" + (f" whose name contains {name!r}" if name else ""))
    return kernels[0]


def _report(args: argparse.Namespace, out: TextIO) -> int:
    from ..report import provenance, record_inputs, render, report_data  # noqa: PLC0415 - lazy: only `report` renders
    from ..session import INPUT_RANGES, InputRefused, Session  # noqa: PLC0415 - lazy: as above
    from ..session.file import atomic_write_text  # noqa: PLC0415 - lazy: as above

    catalog = load_catalog()
    try:
        found = find_device(args.device, catalog)
    except KeyError as exc:
        return fail("occupancy report", str(exc.args[0]) if exc.args else str(exc))
    if not isinstance(found, DeviceProfile):
        return _amd_report(found, args, out)
    inputs: dict[str, Any] = {
        "threads": args.threads,
        "dynamic_smem": args.dynamic_smem,
        "max_dynamic_smem": args.max_dynamic_smem,
        "carveout": parse_carveout(args.carveout),
        "cache_config": parse_cache_config(args.cache_config),
    }
    record, kernel_source = None, None
    if args.file:
        try:
            record = _report_kernel(args.file, args.kernel)
        except ValueError as exc:  # ImportFailure names the file and the line
            return fail("occupancy report", str(exc))
        kernel_source = f"{args.file}:{record.demangled or record.name} ({record.arch})"
        try:
            device = (catalog.get(args.device) if args.device else catalog.profiles[0]).device_properties()
        except KeyError as exc:
            return fail("occupancy report", str(exc.args[0]) if exc.args else str(exc))
        inputs.update({k: v for k, v in record_inputs(record, device, args.threads).items() if k != "threads"})
    explicit = {name: getattr(args, name) for name in fields.NAMES if fields.FIELD[name].kernel}
    inputs.update({k: v for k, v in explicit.items() if v is not None})
    typed = frozenset(
        {"threads", *(k for k, v in explicit.items() if v is not None)}
        | ({"dynamic_smem"} if args.dynamic_smem else set())
    )
    if "registers" not in inputs:
        raise QueryError("--registers is required without FILE")
    for name, value in inputs.items():  # the window's ranges: beyond them its curves would overflow
        span = INPUT_RANGES.get(name)
        if span is not None and isinstance(value, int) and not span[0] <= value <= span[1]:
            return fail("occupancy report", f"{name}: expected {span[0]}..{span[1]}, got {value}")
    try:
        session = Session(catalog, device=args.device, **inputs)
    except InputRefused as exc:  # --threads above the kernel's launch bound, barriers above 16
        return fail("occupancy report", str(exc))
    if session.result is None:
        return fail("occupancy report", session.error or "no result")
    sources = provenance(session.inputs, record, kernel_source, typed, session.device)
    try:
        text = render(report_data(session, sources, kernel_source, record), args.output)
        atomic_write_text(args.output, text)
    except ValueError as exc:
        return fail("occupancy report", str(exc))
    except OSError as exc:
        return fail("occupancy report", f"{args.output}: {exc.strerror or exc}")
    print(f"wrote {args.output}", file=out)
    return 0


REPORT_DEFAULTS = {"carveout": "default", "cache_config": "none"}
"""``occupancy report``'s defaults of the NVIDIA flags that have one: not given, they say nothing of the device."""


def _amd_report(profile: AmdProfile, args: argparse.Namespace, out: TextIO) -> int:
    """``occupancy report`` for an AMD device: both answers (the window's File → Export of an AMD session)."""
    from ..report import amd_report_data, render_amd  # noqa: PLC0415 - lazy: only `report` renders
    from ..session import InputRefused, Session  # noqa: PLC0415 - lazy: as above
    from ..session.file import atomic_write_text  # noqa: PLC0415 - lazy: as above

    name = "occupancy report"
    if args.file:
        return fail(
            name,
            f"{args.file}: reading an AMD kernel into a report is not supported yet; give its figures "
            "(--vgprs, --sgprs, --lds, ...)",
        )
    for f in fields.only_for(NVIDIA):
        value = getattr(args, f.name, None)
        if f.flag is not None and value is not None and value != REPORT_DEFAULTS.get(f.name):
            return fail(name, not_for(f.flag, profile.name, AMD))
    values = {f.name: getattr(args, f.name) for f in fields.for_vendor(AMD) if getattr(args, f.name, None) is not None}
    if "vgprs" not in values:
        return fail(name, f"--vgprs is required for an AMD device ({profile.name})")
    from .amd_query import amd_query  # noqa: PLC0415 - lazy: as above

    try:
        amd_query(values, profile.target, profile.name)  # what calc refuses (wave32 on gfx9, ...), in its words
    except QueryError as exc:
        return fail(name, str(exc))
    try:
        session = Session(load_catalog(), device=profile.name, **values)
    except (InputRefused, TypeError) as exc:
        return fail(name, str(exc))
    try:
        atomic_write_text(args.output, render_amd(amd_report_data(session), args.output))
    except ValueError as exc:
        return fail(name, str(exc))
    except OSError as exc:
        return fail(name, f"{args.output}: {exc.strerror or exc}")
    print(f"wrote {args.output}", file=out)
    return 0


COMMANDS = {"calc": _calc, "batch": _batch, "devices": _devices, "suggest": _suggest, "report": _report}
