"""The ``NT_AMDGPU_METADATA`` note of code objects v3+: msgpack, decoded by ``msgspec`` into typed structs.

Only the keys the records need are typed (AMDGPUUsage, "Code Object V3 to V6 Metadata"); everything else
(``.args``, ``.language``, vendor keys such as ``.gfx1250_revision``) is skipped by msgspec's C decoder
without being built.  The note is decoded under budgets, so that a crafted one costs bounded time and
memory:

* size: a note larger than :data:`MAX_NOTE` is refused before decoding (the largest real one met, in
  ``xla_rocm_plugin.so``, is 1.4 MB for 1,116 kernels);
* declared lengths: msgspec checks each map/array/string length against the bytes left before it
  allocates, so a 5-byte header declaring 2^32 entries fails at once;
* depth: msgspec stops at the interpreter's recursion limit (~1,000 levels; real notes nest 5), which is
  reported as the note nesting too deeply, never as a traceback;
* kernels: every kernel entry must carry the required keys below, so that a note of N bytes cannot
  make more than N / 60 kernel structs; and :data:`MAX_KERNELS` bounds the list.

A value of the wrong type or out of range is an error naming the key path (``$.amdhsa.kernels[3]..vgpr_count``).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

MAX_NOTE = 32 << 20
"""The largest metadata note decoded (bytes)."""
MAX_KERNELS = 1 << 20

U32 = Annotated[int, msgspec.Meta(ge=0, le=0xFFFFFFFF)]


def _dotted(name: str) -> str:
    return "." + name


class KernelMeta(msgspec.Struct, rename=_dotted, frozen=True, gc=False):
    """One entry of ``amdhsa.kernels``: the keys AMDGPUUsage marks required, and the optional ones read."""

    name: str
    symbol: str
    group_segment_fixed_size: U32
    private_segment_fixed_size: U32
    wavefront_size: U32
    sgpr_count: U32
    vgpr_count: U32
    max_flat_workgroup_size: U32
    agpr_count: U32 | None = None
    sgpr_spill_count: U32 | None = None
    vgpr_spill_count: U32 | None = None
    reqd_workgroup_size: tuple[U32, U32, U32] | None = None
    workgroup_processor_mode: bool | U32 | None = None  # AMDGPUUsage says boolean; LLVM writes 0 or 1
    uses_dynamic_stack: bool | None = None
    kind: str | None = None


class Metadata(
    msgspec.Struct,
    rename={"kernels": "amdhsa.kernels", "target": "amdhsa.target", "version": "amdhsa.version"},
    frozen=True,
    gc=False,
):
    """The note's top-level map (code object v3+)."""

    kernels: list[KernelMeta] = []
    target: str | None = None
    version: list[int] | None = None


_DECODER = msgspec.msgpack.Decoder(Metadata)


class MetadataError(ValueError):
    """A note that cannot be decoded; the message is one line."""


def decode_metadata(data: bytes | memoryview) -> Metadata:
    """The note's description bytes decoded; :class:`MetadataError` says what is wrong."""
    if len(data) > MAX_NOTE:
        raise MetadataError(f"metadata note of {len(data)} bytes is over the reader's budget of {MAX_NOTE}")
    try:
        meta = _DECODER.decode(data)
    except msgspec.ValidationError as exc:
        raise MetadataError(f"metadata: {exc}") from None
    except msgspec.DecodeError as exc:
        raise MetadataError(f"metadata is not valid msgpack ({exc})") from None
    except UnicodeDecodeError as exc:  # msgspec decodes a msgpack str as UTF-8
        raise MetadataError(
            f"metadata holds a string that is not UTF-8 ({exc.reason} at its byte {exc.start})"
        ) from None
    except RecursionError:
        raise MetadataError("metadata nests too deeply (a crafted note: real ones nest 5 levels)") from None
    if len(meta.kernels) > MAX_KERNELS:
        raise MetadataError(f"metadata lists {len(meta.kernels)} kernels, over the reader's budget of {MAX_KERNELS}")
    return meta
