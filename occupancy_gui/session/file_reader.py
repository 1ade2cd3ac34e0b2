"""The strict reader of session files: every problem a :class:`SessionFileError` naming the file, line and field.

Unknown keys, wrong types, values outside ``VALUE_RANGES`` and unknown devices are refused (a silently ignored
typo would change a result); the YAML goes through ``profiles.safe_yaml`` (files travel between people).  The
format is in ``session_format``; ``session_file.loads`` is the entry point.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .. import fields
from ..device_choice import amd_of
from ..engine import CacheConfig
from ..fields import AMD, NVIDIA, VENDOR_NAMES
from .file_format import (
    AMD_VALUE_RANGES,
    AMD_VERSION,
    CACHE_NAMES,
    FORMAT_KEY,
    FORMAT_VERSION,
    MAX_DEVICE_NAME,
    TOP_KEYS,
    VALUE_RANGES,
    VENDOR_INPUTS,
    SessionFileError,
    SessionState,
)
from .inputs import OPTIONAL_FIELDS, Inputs, input_problem

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..profiles import AmdCatalog, Catalog


def _shown(value: Any) -> str:
    """A file's value for a message, cut (see ``safe_yaml.shown``)."""
    from ..profiles.safe_yaml import shown  # noqa: PLC0415 - lazy: with the reader, not at start-up

    return shown(value)


class SessionFileReader:
    """Validation of one document; errors carry the line of the offending key where it can be found."""

    def __init__(self, text: str, catalog: Catalog, source: str, amd: Callable[[], AmdCatalog] | None) -> None:
        self.text, self.catalog, self.source, self.amd = text, catalog, source, amd
        self.version = 1
        self.lines = text.splitlines()
        from ..profiles import safe_yaml  # noqa: PLC0415 - lazy: YAML loads with the first session read

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
        from ..amd_question import bundled_catalog, find_device  # noqa: PLC0415 - lazy: an NVIDIA file needs no AMD

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
            raise self.fail(
                f"{prefix}device",
                f"{profile.name} is an AMD device: AMD devices are format version "
                f"{AMD_VERSION} and later ({FORMAT_KEY}: {AMD_VERSION})",
            )
        raw = data.get("inputs", {})
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise self.fail(f"{prefix}inputs", f"expected a mapping of input names to values, got {_shown(raw)}")
        names = VENDOR_INPUTS[vendor]
        other = set(VENDOR_INPUTS[NVIDIA if vendor == AMD else AMD]) - set(names)
        for key in raw:
            if key in other:
                raise self.fail(
                    f"{prefix}inputs.{key}",
                    f"for {VENDOR_NAMES[NVIDIA if vendor == AMD else AMD]} "
                    f"devices only; {profile.name} is an {VENDOR_NAMES[vendor]} device",
                )
        self._no_unknown(raw, names, f"{prefix}inputs.")
        values: dict[str, Any] = {"device": profile.name}
        for name, value in raw.items():
            if vendor == AMD and name not in VALUE_RANGES:
                values[name] = self._amd_value(f"{prefix}inputs.{name}", name, value)
            else:
                values[name] = self._input_value(f"{prefix}inputs.{name}", name, value)
        inputs = Inputs(**values)
        if vendor == AMD:
            from ..amd_question import inputs_problem  # noqa: PLC0415 - lazy: as _device

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
        from ..field_values import AmdFieldError, read_value  # noqa: PLC0415 - lazy: as _device

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
