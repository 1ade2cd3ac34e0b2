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

import dataclasses
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic_write import atomic_write_bytes, atomic_write_text
from ..engine import CacheConfig
from ..fields import AMD, NVIDIA
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
from .file_reader import SessionFileReader
from .inputs import Inputs

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..profiles import AmdCatalog, Catalog
    from .model import Session

# Re-exported: the window, the command line and the tests use them from here, as before they had modules of their own.
__all__ = [
    "AMD_VALUE_RANGES",
    "AMD_VERSION",
    "CACHE_NAMES",
    "FORMAT_KEY",
    "FORMAT_VERSION",
    "MAX_BYTES",
    "MAX_DEVICE_NAME",
    "SUFFIX",
    "TOP_KEYS",
    "VALUE_RANGES",
    "VENDOR_INPUTS",
    "YAML_SUFFIXES",
    "SessionFileError",
    "SessionState",
    "apply_inputs",
    "atomic_write_bytes",
    "atomic_write_text",
    "dumps",
    "inputs_to_dict",
    "is_session_file",
    "load",
    "loads",
    "save",
    "state_of",
    "state_to_dict",
]

SUFFIX = ".occsession"
YAML_SUFFIXES = (".yaml", ".yml")
MAX_BYTES = 1 << 20
"""A session is a few hundred bytes; anything larger is not one (and is refused before parsing)."""


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
    data: dict[str, Any] = {
        FORMAT_KEY: AMD_VERSION if amd else 1,
        "device": state.inputs.device,
        "inputs": inputs_to_dict(state.inputs, state.vendor),
    }
    if state.source is not None:
        data["import"] = {"path": state.source[0], "kernel": state.source[1]}
    if state.pinned is not None:
        data["compare"] = {"device": state.pinned.device, "inputs": inputs_to_dict(state.pinned, state.pinned_vendor)}
    return data


def dumps(state: SessionState) -> str:
    """The YAML text of a session file."""
    import yaml  # noqa: PLC0415 - lazy: only when a session is written or read: start-up stays free of it

    return yaml.safe_dump(state_to_dict(state), sort_keys=False, default_flow_style=False, allow_unicode=True)


def save(path: str | os.PathLike[str], state: SessionState) -> None:
    """Write ``state`` to ``path`` atomically."""
    atomic_write_text(path, dumps(state))


def state_of(
    session: Session, source: tuple[str, str] | None = None, pinned: Inputs | None = None, pinned_vendor: str = NVIDIA
) -> SessionState:
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


def loads(
    text: str, catalog: Catalog, source: str = "<session>", amd: Callable[[], AmdCatalog] | None = None
) -> SessionState:
    """Parse session YAML ``text`` (``source`` names it in errors); an AMD device is looked up in ``amd()`` (the
    bundled AMD profiles by default), read only for a name NVIDIA's profiles do not have."""
    reader = SessionFileReader(text, catalog, source, amd)
    return reader.state()
