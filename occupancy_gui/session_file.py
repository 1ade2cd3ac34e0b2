"""Session files: the calculator's whole question saved as YAML, and written atomically.

Pure Python (no Qt).  A session file is a small YAML mapping whose first key marks its format::

    occupancy_session: 1          # format version (required; a newer version is refused)
    device: H100 SXM5             # profile name (any spelling the catalog accepts when read)
    inputs:                       # the device's vendor's inputs; missing ones take the Inputs defaults
      threads: 256
      registers: 64
      static_smem: 24576          # bytes
      dynamic_smem: 0
      max_dynamic_smem: null      # null: the runtime's default attribute value
      barriers: 1                 # 0..16
      carveout: -1                # -1 (no preference) or 0..100 percent
      cache_config: none          # none | shared | l1 | equal (CC 3.x only)
      max_threads_per_block: null # the kernel's launch bound; null: none
      required_block_size: null   # the kernel's .reqntid (threads must equal it); null: none
      min_blocks_per_sm: null     # __launch_bounds__'s min blocks per SM (a hint); null: none
    import:                       # optional: the compiler output the kernel came from
      path: /abs/path/kernel.log
      kernel: _Z6kernelPf
    compare:                      # optional: configuration A pinned for comparison
      device: sm_90
      inputs: {threads: 128, ...}

Version 2 adds AMD devices (``device: AMD Instinct MI300X``, or ``MI300X``, ``gfx942``) and their inputs, the
field table's AMD rows: ``threads``, ``vgprs``, ``agprs``, ``sgprs``, ``lds`` (static LDS, bytes), ``dynamic_smem``
(dynamic LDS), ``wave_size`` (32, 64 or null: the target's), ``wgp_mode`` (true, false or null: the device's),
``max_flat_workgroup_size``, ``waves_per_eu`` (N or [N, M]) and ``allocated_vgprs``.  A file holds the inputs of its
device's vendor only (the other vendor's are refused by name), and is written as the lowest version that holds it:
an NVIDIA session stays version 1, readable by the programs before AMD support.

Reading is strict (unknown keys, wrong types, values outside ``VALUE_RANGES`` and unknown
devices are :class:`SessionFileError`s naming the file, the line and the field) because a silently
ignored typo would change a result.  Session files travel between people, so the YAML goes through
the hardened reader of ``profiles.safe_yaml`` (no anchors or aliases, bounded depth and size, no
duplicate keys, no over-long numbers) and messages cut long values.  A relative ``import.path`` is
relative to the session file's folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import fields
from .device_choice import amd_of
from .engine import CacheConfig
from .fields import AMD, NVIDIA, VENDOR_NAMES
from .session import INPUT_RANGES, OPTIONAL_FIELDS, Inputs, input_problem

if TYPE_CHECKING:
    from collections.abc import Callable

    from .profiles import AmdCatalog, Catalog
    from .session import Session

FORMAT_KEY = "occupancy_session"
FORMAT_VERSION = 2
"""The newest format this program reads; 2 added AMD devices and their inputs."""
AMD_VERSION = 2
"""The first version that holds an AMD device."""
VENDOR_INPUTS = {vendor: tuple(f.name for f in fields.for_vendor(vendor)) for vendor in fields.VENDORS}
"""The input keys a file holds for a device of each vendor, in the table's order."""
SUFFIX = ".occsession"
YAML_SUFFIXES = (".yaml", ".yml")
MAX_BYTES = 1 << 20
"""A session is a few hundred bytes; anything larger is not one (and is refused before parsing)."""

CACHE_NAMES = {CacheConfig(i): name for i, name in enumerate(fields.CACHE_NAMES)}
TOP_KEYS = (FORMAT_KEY, "device", "inputs", "import", "compare")
VALUE_RANGES: dict[str, tuple[int, int]] = {name: INPUT_RANGES[name] for name in VENDOR_INPUTS[NVIDIA]
                                             if fields.FIELD[name].kind != fields.CACHE}  # fmt: skip
"""Every NVIDIA number's range (carveout's -1..100 included); a cache preference is read by name."""
AMD_VALUE_RANGES: dict[str, tuple[int, int]] = {name: INPUT_RANGES[name] for name in VENDOR_INPUTS[AMD]
                                                 if name in INPUT_RANGES}  # fmt: skip
"""Every AMD number's range (a mode and a minimum-maximum are read by their kind)."""
MAX_DEVICE_NAME = 256
"""Longest device name looked up (profile names are far shorter); a longer one is refused unread."""


class SessionFileError(ValueError):
    """A session file that cannot be used: ``path:line: field: message`` on one line."""

    def __init__(self, path: str, line: int | None, field: str | None, message: str) -> None:
        self.path, self.line, self.field = str(path), line, field
        self.message = " ".join(str(message).split())
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {field}: {self.message}" if field else f"{where}: {self.message}")


@dataclass(frozen=True)
class SessionState:
    """What a session file holds.

    ``source`` is ``(imported file path, selected kernel name)``; ``pinned`` the inputs of
    comparison A; ``vendor`` and ``pinned_vendor`` whose devices those are (which inputs apply).
    """

    inputs: Inputs
    source: tuple[str, str] | None = None
    pinned: Inputs | None = None
    vendor: str = NVIDIA
    pinned_vendor: str = NVIDIA


# ----------------------------------------------------------------------------- writing
def inputs_to_dict(inputs: Inputs, vendor: str = NVIDIA) -> dict[str, Any]:
    """``vendor``'s inputs as plain YAML/JSON data (cache config by name, a minimum-maximum as a list)."""
    out: dict[str, Any] = {}
    for name in VENDOR_INPUTS[vendor]:
        value = getattr(inputs, name)
        if name == "cache_config":
            value = CACHE_NAMES[CacheConfig(value)]
        elif isinstance(value, tuple):
            value = list(value) if value[1] is not None else value[0]
        out[name] = value
    return out


def state_to_dict(state: SessionState) -> dict[str, Any]:
    """The session file's mapping (see the module docstring for the schema), as the lowest version that holds it."""
    amd = AMD in (state.vendor, state.pinned_vendor if state.pinned is not None else NVIDIA)
    data: dict[str, Any] = {FORMAT_KEY: AMD_VERSION if amd else 1, "device": state.inputs.device,
                            "inputs": inputs_to_dict(state.inputs, state.vendor)}  # fmt: skip
    if state.source is not None:
        data["import"] = {"path": state.source[0], "kernel": state.source[1]}
    if state.pinned is not None:
        data["compare"] = {"device": state.pinned.device, "inputs": inputs_to_dict(state.pinned, state.pinned_vendor)}
    return data


def dumps(state: SessionState) -> str:
    """The YAML text of a session file."""
    import yaml  # noqa: PLC0415 - lazy: only when a session is written or read: start-up stays free of it

    return yaml.safe_dump(state_to_dict(state), sort_keys=False, default_flow_style=False, allow_unicode=True)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) so that ``path`` holds either its old content or all of the new."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` so that ``path`` holds either its old content or all of the new, never a part.

    The bytes go to a temporary file in the same directory, are flushed and fsync'ed, and then
    ``os.replace`` swaps the file in (atomic on POSIX and Windows).  On any failure the temporary
    file is removed and the old file is left as it was.  A missing directory is an error
    (``FileNotFoundError``), never created: a mistyped folder must not appear on the user's disk.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        _chmod_as_new_file(fd)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(target.parent)


def _chmod_as_new_file(fd: int) -> None:
    """Give the temporary file the mode ``open()`` would: 0666 less the umask (``mkstemp`` makes 0600).

    The umask can only be read by setting it; it is put back at once.
    """
    if not hasattr(os, "fchmod"):
        return  # Windows: no POSIX modes
    umask = os.umask(0o022)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable where the platform allows it (POSIX; a no-op on Windows)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def save(path: str | os.PathLike[str], state: SessionState) -> None:
    """Write ``state`` to ``path`` atomically."""
    atomic_write_text(path, dumps(state))


def state_of(session: Session, source: tuple[str, str] | None = None, pinned: Inputs | None = None,
             pinned_vendor: str = NVIDIA) -> SessionState:  # fmt: skip
    """The state of a live session, with the import source and pinned A (of ``pinned_vendor``) the caller keeps."""
    return SessionState(session.inputs, source, pinned, session.vendor, pinned_vendor)


def apply_inputs(session: Session, inputs: Inputs, vendor: str = NVIDIA) -> bool:
    """Set the device and ``vendor``'s inputs of ``session`` in one batch (one recompute); ``True`` if anything
    changed.  The other vendor's inputs stay as the session holds them."""
    with session.batch():
        return session.replace(device=inputs.device, **{name: getattr(inputs, name) for name in VENDOR_INPUTS[vendor]})


# ----------------------------------------------------------------------------- reading
def is_session_file(path: str | os.PathLike[str]) -> bool:
    """``.occsession``, or a ``.yaml``/``.yml`` whose top level has ``occupancy_session:``."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == SUFFIX:
        return True
    if suffix not in YAML_SUFFIXES:
        return False
    try:
        with open(p, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return re.search(rf"^{FORMAT_KEY}\s*:", head, re.MULTILINE) is not None


def load(path: str | os.PathLike[str], catalog: Catalog, amd: Callable[[], AmdCatalog] | None = None) -> SessionState:
    """Read and validate a session file; every problem is a :class:`SessionFileError`.

    A relative ``import.path`` comes back joined to the session file's folder."""
    name = os.fspath(path)
    try:
        size = os.path.getsize(name)
        if size > MAX_BYTES:
            raise SessionFileError(name, None, None, f"{size} bytes is too large for a session file")
        with open(name, encoding="utf-8") as fh:
            text = fh.read()
    except UnicodeDecodeError as exc:
        raise SessionFileError(name, None, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise SessionFileError(name, None, None, exc.strerror or str(exc)) from None
    state = loads(text, catalog, name, amd)
    if state.source is not None and not os.path.isabs(state.source[0]):
        # A relative import path is relative to the session file, wherever the program was started.
        folder = os.path.dirname(os.path.abspath(name))
        state = dataclasses.replace(state, source=(os.path.join(folder, state.source[0]), state.source[1]))
    return state


def loads(text: str, catalog: Catalog, source: str = "<session>",
          amd: Callable[[], AmdCatalog] | None = None) -> SessionState:  # fmt: skip
    """Parse session YAML ``text`` (``source`` names it in errors); an AMD device is looked up in ``amd()`` (the
    bundled AMD profiles by default), read only for a name NVIDIA's profiles do not have."""
    reader = _Reader(text, catalog, source, amd)
    return reader.state()


def _shown(value: Any) -> str:
    """A file's value for a message, cut (see ``safe_yaml.shown``)."""
    from .profiles.safe_yaml import shown  # noqa: PLC0415 - lazy: with the reader, not at start-up

    return shown(value)


class _Reader:
    """Validation of one document; errors carry the line of the offending key where it can be found."""

    def __init__(self, text: str, catalog: Catalog, source: str, amd: Callable[[], AmdCatalog] | None) -> None:
        self.text, self.catalog, self.source, self.amd = text, catalog, source, amd
        self.version = 1
        self.lines = text.splitlines()
        from .profiles import safe_yaml  # noqa: PLC0415 - lazy: YAML loads with the first session read

        try:
            node = safe_yaml.compose(text)
            self.data = safe_yaml.construct(node) if node is not None else None
        except safe_yaml.YamlRefused as exc:
            raise SessionFileError(source, exc.line, exc.field, exc.message) from None

    def fail(self, field: str, message: str) -> SessionFileError:
        shown_field = field if len(field) <= 120 else field[:119] + "…"
        return SessionFileError(self.source, self._line_of(field), shown_field, message)

    def _line_of(self, field: str) -> int | None:
        """The line of ``a.b.c``'s key: each part searched at a deeper indentation after its parent."""
        if len(field) > 200:  # an unknown key a megabyte long: not worth a regex of its size
            return None
        start, indent = 0, -1
        for part in field.split("."):
            pattern = re.compile(rf"^(\s*)(?:-\s+)?['\"]?{re.escape(part)}['\"]?\s*:")
            for i in range(start, len(self.lines)):
                match = pattern.match(self.lines[i])
                if match and len(match.group(1)) > indent:
                    start, indent = i + 1, len(match.group(1))
                    break
            else:
                return None
        return start

    def state(self) -> SessionState:
        data = self.data
        if not isinstance(data, dict):
            kind = "an empty document" if data is None else type(data).__name__
            raise SessionFileError(self.source, 1, None, f"not a session file: the top level is {kind}, not a mapping")
        if FORMAT_KEY not in data:
            raise SessionFileError(self.source, 1, None, f"not a session file: no '{FORMAT_KEY}: {FORMAT_VERSION}' key")
        version = data[FORMAT_KEY]
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise self.fail(FORMAT_KEY, f"expected a format version number, got {_shown(version)}")
        if version > FORMAT_VERSION:
            raise self.fail(FORMAT_KEY, f"format version {version} is newer than this program reads ({FORMAT_VERSION})")
        self.version = version
        self._no_unknown(data, TOP_KEYS, "")
        inputs, vendor = self._inputs(data, "")
        source = self._source(data.get("import"))
        compare = data.get("compare")
        pinned, pinned_vendor = None, NVIDIA
        if compare is not None:
            if not isinstance(compare, dict):
                raise self.fail("compare", f"expected a mapping with device and inputs, got {_shown(compare)}")
            self._no_unknown(compare, ("device", "inputs"), "compare.")
            pinned, pinned_vendor = self._inputs(compare, "compare.")
        return SessionState(inputs, source, pinned, vendor, pinned_vendor)

    def _no_unknown(self, data: dict[Any, Any], known: tuple[str, ...], prefix: str) -> None:
        for key in data:
            if key not in known:
                raise self.fail(f"{prefix}{key}", f"unknown key; expected one of: {', '.join(known)}")

    def _device(self, name: str, field: str) -> Any:
        """The profile ``name`` finds, NVIDIA's first (a ``DeviceProfile``) and AMD's after (an ``AmdProfile``)."""
        try:
            return self.catalog.get(name)
        except KeyError as exc:
            nvidia_miss = str(exc.args[0]) if exc.args else f"unknown device {_shown(name)}"
        from .amd_question import bundled_catalog, find_device  # noqa: PLC0415 - lazy: an NVIDIA file needs no AMD

        try:
            return find_device(name, self.catalog, self.amd or bundled_catalog)
        except KeyError as exc:
            raise self.fail(field, str(exc.args[0]) if exc.args else nvidia_miss) from None

    def _inputs(self, data: dict[str, Any], prefix: str) -> tuple[Inputs, str]:
        device = data.get("device")
        if not isinstance(device, str) or not device.strip() or len(device) > MAX_DEVICE_NAME:
            raise self.fail(f"{prefix}device", f"expected a device profile name, got {_shown(device)}")
        profile = self._device(device, f"{prefix}device")
        vendor = NVIDIA if amd_of(profile) is None else AMD
        if vendor == AMD and self.version < AMD_VERSION:
            raise self.fail(f"{prefix}device", f"{profile.name} is an AMD device: AMD devices are format version "
                                               f"{AMD_VERSION} and later ({FORMAT_KEY}: {AMD_VERSION})")  # fmt: skip
        raw = data.get("inputs", {})
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise self.fail(f"{prefix}inputs", f"expected a mapping of input names to values, got {_shown(raw)}")
        names = VENDOR_INPUTS[vendor]
        other = set(VENDOR_INPUTS[NVIDIA if vendor == AMD else AMD]) - set(names)
        for key in raw:
            if key in other:
                raise self.fail(f"{prefix}inputs.{key}", f"for {VENDOR_NAMES[NVIDIA if vendor == AMD else AMD]} "
                                f"devices only; {profile.name} is an {VENDOR_NAMES[vendor]} device")  # fmt: skip
        self._no_unknown(raw, names, f"{prefix}inputs.")
        values: dict[str, Any] = {"device": profile.name}
        for name, value in raw.items():
            if vendor == AMD and name not in VALUE_RANGES:
                values[name] = self._amd_value(f"{prefix}inputs.{name}", name, value)
            else:
                values[name] = self._input_value(f"{prefix}inputs.{name}", name, value)
        inputs = Inputs(**values)
        if vendor == AMD:
            from .amd_question import inputs_problem  # noqa: PLC0415 - lazy: as _device

            problem = inputs_problem(inputs, profile)
        else:
            problem = input_problem(inputs)
        if problem is not None:
            raise self.fail(f"{prefix}inputs", problem)
        return inputs, vendor

    def _amd_value(self, field: str, name: str, value: Any) -> Any:
        """An AMD-only input: its kind's type, then its row of the table (range, choices, minimum <= maximum)."""
        spec = fields.FIELD[name]
        if value is None:
            if spec.optional:
                return None
            raise self.fail(field, f"expected a whole number, got {_shown(value)}")
        if spec.kind == fields.MODE:
            if not isinstance(value, bool):
                raise self.fail(field, f"expected true, false or null (the device's default), got {_shown(value)}")
        elif spec.kind == fields.MIN_MAX:
            parts = value if isinstance(value, list) else [value]
            if len(parts) > 2 or any(isinstance(p, bool) or not isinstance(p, int) for p in parts):
                raise self.fail(field, f"expected N or [N, M] (whole numbers), got {_shown(value)}")
            if len(parts) == 1:
                value = parts[0]
        elif isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(field, f"expected a whole number, got {_shown(value)}")
        from .amd_question import AmdFieldError, read_value  # noqa: PLC0415 - lazy: as _device

        try:
            return read_value(spec, value)
        except AmdFieldError as exc:
            raise self.fail(field, str(exc).removeprefix(f"{name}: ")) from None

    def _input_value(self, field: str, name: str, value: Any) -> Any:
        if name == "cache_config":
            by_name = {v: k for k, v in CACHE_NAMES.items()}
            if isinstance(value, str) and value.lower() in by_name:
                return by_name[value.lower()]
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
                return CacheConfig(value)
            raise self.fail(field, f"expected one of {', '.join(by_name)}, got {_shown(value)}")
        if name in OPTIONAL_FIELDS and value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(field, f"expected a whole number, got {_shown(value)}")
        low, high = VALUE_RANGES.get(name) or AMD_VALUE_RANGES[name]
        if not low <= value <= high:
            raise self.fail(field, f"expected {low}..{high}, got {_shown(value)}")
        return value

    def _source(self, raw: Any) -> tuple[str, str] | None:
        if raw is None:
            return None
        if not isinstance(raw, dict):
            raise self.fail("import", f"expected a mapping with path and kernel, got {_shown(raw)}")
        self._no_unknown(raw, ("path", "kernel"), "import.")
        path, kernel = raw.get("path"), raw.get("kernel", "")
        if not isinstance(path, str) or not path:
            raise self.fail("import.path", f"expected a file path, got {_shown(path)}")
        if kernel is None:
            kernel = ""
        if not isinstance(kernel, str):
            raise self.fail("import.kernel", f"expected a kernel name, got {_shown(kernel)}")
        return (path, kernel)

