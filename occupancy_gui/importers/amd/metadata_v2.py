"""Code object v2's metadata: YAML text in an ``AMD`` note of type ``NT_AMD_HSA_METADATA`` (10).

Written by LLVM up to ROCm 3.x (and by Debian's hipcc 5.2 with ``-mcode-object-version=2``)::

    Kernels:
      - Name:            _Z5saxpyfPfS_i
        SymbolName:      '_Z5saxpyfPfS_i@kd'
        Attrs:           { ReqdWorkGroupSize: [ 64, 1, 1 ] }
        CodeProps:       { GroupSegmentFixedSize: 0, PrivateSegmentFixedSize: 0, WavefrontSize: 64,
                           NumSGPRs: 11, NumVGPRs: 4, MaxFlatWorkGroupSize: 1024, NumSpilledSGPRs: 0,
                           NumSpilledVGPRs: 0, IsDynamicCallStack: false }

Parsed with PyYAML's safe loader (pure Python: these notes are a few KiB) under a budget: at most
:data:`MAX_V2_NOTE` bytes, and no aliases (LLVM never writes one; a crafted note could use them to grow a
few bytes into gigabytes).
"""

from __future__ import annotations

from typing import Any

import yaml

from .metadata import MetadataError

MAX_V2_NOTE = 4 << 20


class _NoAliasLoader(yaml.SafeLoader):
    """The safe loader, refusing aliases (``*anchor``): see the module docstring."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]  # PyYAML has no annotations for it
            raise MetadataError(
                f"metadata (v2 YAML) uses an alias at line {event.start_mark.line + 1}, which LLVM never writes"
            )
        return super().compose_node(parent, index)


Entry = tuple[
    str,
    str,
    int,
    int,
    int,
    int | None,
    int | None,
    None,
    int | None,
    tuple[int | None, int | None],
    tuple[int, int, int] | None,
    None,
    bool | None,
]


def parse_yaml(data: bytes, limit: int = MAX_V2_NOTE) -> Any:
    """A metadata YAML document (v2's note, or the ``.amdgpu_metadata`` block of an assembly file), parsed
    under the size budget and without aliases."""
    if len(data) > limit:
        raise MetadataError(f"metadata of {len(data)} bytes is over the reader's budget of {limit}")
    try:
        return yaml.load(data.rstrip(b"\0").decode("utf-8"), Loader=_NoAliasLoader)
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as exc:
        raise MetadataError(f"metadata (YAML) does not parse: {' '.join(str(exc).split())}") from None


def decode_v2_metadata(data: bytes) -> list[Entry]:
    """The kernels of a v2 metadata note, as ``code_object._Kernel`` takes them."""
    doc = parse_yaml(data)
    kernels = doc.get("Kernels", []) if isinstance(doc, dict) else None
    if not isinstance(kernels, list):
        raise MetadataError("metadata (v2 YAML): no Kernels list")
    return [_entry(i, k) for i, k in enumerate(kernels)]


def _entry(i: int, kernel: object) -> Entry:
    where = f"Kernels[{i}]"
    if not isinstance(kernel, dict):
        raise MetadataError(f"metadata (v2 YAML): {where} is not a map")
    props = kernel.get("CodeProps", {})
    attrs = kernel.get("Attrs", {})
    if not isinstance(props, dict) or not isinstance(attrs, dict):
        raise MetadataError(f"metadata (v2 YAML): {where}.CodeProps or .Attrs is not a map")
    name = _text(kernel, "Name", where)
    symbol = _text(kernel, "SymbolName", where)
    block = attrs.get("ReqdWorkGroupSize")
    if block is not None and not (isinstance(block, list) and len(block) == 3 and all(_is_count(v) for v in block)):
        raise MetadataError(f"metadata (v2 YAML): {where}.Attrs.ReqdWorkGroupSize is not three counts")
    stack = props.get("IsDynamicCallStack")
    return (
        name,
        symbol,
        _count_or(props, "GroupSegmentFixedSize", where, 0),
        _count_or(props, "PrivateSegmentFixedSize", where, 0),
        _count_or(props, "WavefrontSize", where, 64),
        _count_or(props, "NumSGPRs", where, 0),
        _count_or(props, "NumVGPRs", where, 0),
        None,
        _count(props, "MaxFlatWorkGroupSize", where),
        (_count_or(props, "NumSpilledVGPRs", where, 0), _count_or(props, "NumSpilledSGPRs", where, 0)),
        (block[0], block[1], block[2]) if block is not None else None,
        None,
        stack if isinstance(stack, bool) else None,
    )


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0xFFFFFFFF


def _text(kernel: dict[Any, Any], key: str, where: str) -> str:
    value = kernel.get(key)
    if not isinstance(value, str):
        raise MetadataError(f"metadata (v2 YAML): {where}.{key} is missing or not text")
    return value


def _count_or(props: dict[Any, Any], key: str, where: str, default: int) -> int:
    """A count LLVM leaves out where it is ``default`` (its YAML mapping writes no default value)."""
    value = _count(props, key, where, default)
    return default if value is None else value


def _count(props: dict[Any, Any], key: str, where: str, default: int | None = None) -> int | None:
    value = props.get(key, default)
    if value is None:
        return None
    if not _is_count(value):
        raise MetadataError(f"metadata (v2 YAML): {where}.CodeProps.{key} is {value!r}, not a count")
    assert isinstance(value, int)
    return value
