"""Host binaries: the fatbins of a host ELF (``.o``, executable, ``.so``), a Windows PE file or any other
container, read where the CUDA runtime registers them and, marked embedded, where a library keeps its own; and
the NVIDIA images of clang's ``.llvm.offloading`` sections (``offload``)."""

from __future__ import annotations

import os

from ..base import ImportFailure, ImportResult
from . import offload
from .blob import Blob, FileImage
from .cubin import EM_CUDA, read_cubin
from .elf import ELF_MAGIC, SHT_NOBITS, Elf, Section
from .embedded import MagicScan, read_embedded
from .fatbin import read_container, read_fatbin_bytes
from .inflate import Decoding, inflate_pool
from .pe import pe_sections

_FAT_SECTIONS = (".nv_fatbin", "__nv_relfatbin", ".nvFatBinSegment_data")
# Sections of a host ELF that hold code or metadata, never data a library loads: not scanned (the AMD reader
# skips them too, importers.amd.host).
NOT_DATA_SECTIONS = (
    ".text",
    ".rel",
    ".dyn",
    ".symtab",
    ".strtab",
    ".shstrtab",
    ".eh_frame",
    ".gcc_except",
    ".debug",
    ".gnu",
    ".note",
    ".init",
    ".fini",
    ".plt",
    ".got",
    ".hash",
    ".interp",
    ".comment",
    ".ctors",
    ".dtors",
    ".tbss",
    ".tdata",
)


def read_host_binary(
    data: bytes | memoryview,
    path: str,
    base: int = 0,
    prefix: str | None = None,
    result: ImportResult | None = None,
    image: FileImage | None = None,
    work: Decoding | None = None,
) -> ImportResult:
    """Fatbins embedded in a host ELF (``.o``, executable, ``.so``) or any other container.

    In an ELF (and a Windows PE file, by ``pe``'s section table), the fatbin sections the CUDA
    runtime registers are read as cuobjdump reads them:
    ``.nv_fatbin`` (whole-program code and nvlink's linked images) and, only where there is no
    ``.nv_fatbin``, ``__nv_relfatbin`` (the relocatable ``-rdc`` copies nvlink consumed).  Fatbins
    elsewhere (libcublasLt's ``.cask_resource``, libcufft's ``.ldata``, libcusparse's ``.rodata``)
    are listed too, marked embedded, where their structure checks out end to end.

    ``base`` is the offset of ``data`` in the file (for messages), ``prefix`` names it in sources;
    ``image``: the file ``data`` is a window of, read as it is parsed.
    """
    result = result if result is not None else ImportResult()
    prefix = prefix if prefix is not None else os.path.basename(path)
    work = work if work is not None else Decoding(inflate_pool(), len(data))
    blob = Blob(data, path, base, image=image)
    blob.load(0, 64)
    if bytes(data[:4]) == ELF_MAGIC:
        order = "<" if len(data) > 5 and data[5] == 1 else ">"
        (machine,) = blob.unpack(order + "H", 18, "ELF header")
        if machine == EM_CUDA:
            result.records.extend(read_cubin(data, path, base, source_prefix=prefix, image=image))
            return result
        try:
            sections = Elf(blob).sections
        except ImportFailure:
            sections = None  # stripped or damaged section headers: fall back to the scan below
    else:
        sections = pe_sections(blob)
    if sections is not None:
        fat, data_sections = sections_to_read(sections)
        for sec in fat:
            read_fatbin_bytes(
                memoryview(data)[sec.offset : sec.offset + sec.size],
                path,
                base=base + sec.offset,
                prefix=f"{prefix}:{sec.name}",
                result=result,
                image=image,
                work=work,
            )
        offloading = offload_sections(sections)
        for sec in offloading:
            read_offload_section(blob, sec.offset, sec.offset + sec.size, result, f"{prefix}:{sec.name}", work)
        embedded = 0
        for sec in data_sections:
            embedded += read_embedded(blob, sec.offset, sec.offset + sec.size, result, f"{prefix}:{sec.name}", work)
        if fat or offloading or embedded:
            return result
        raise ImportFailure(
            path, "no CUDA fatbinary found (no .nv_fatbin section and no fatbin in any data section)", offset=base
        )
    # A container without sections to say where: scan it all, in chunks (never loaded whole).
    found = False
    scan = MagicScan(blob, 0, len(data), work)
    for pos in scan:
        found = True
        scan.skip_to(read_container(blob, pos, result, prefix, work=work))
    if not found:
        raise ImportFailure(
            path,
            "no CUDA fatbinary found (no .nv_fatbin section and no fatbin header anywhere in the file)",
            offset=base,
        )
    return result


def sections_to_read(sections: list[Section]) -> tuple[list[Section], list[Section]]:
    """A host ELF's fatbin sections, in the order they are read, and the data sections scanned for
    embedded fatbins after them (see :func:`read_host_binary`)."""
    fat = [sec for sec in sections if sec.name in _FAT_SECTIONS and sec.type != SHT_NOBITS and sec.size]
    if any(sec.name == ".nv_fatbin" for sec in fat):
        fat = [sec for sec in fat if sec.name != "__nv_relfatbin"]
    offloading = offload_sections(sections)
    data_sections = [
        sec
        for sec in sections
        if sec.type != SHT_NOBITS
        and sec.size >= 64
        and sec not in offloading
        and sec.name not in _FAT_SECTIONS
        and not sec.name.startswith(NOT_DATA_SECTIONS)
    ]
    return fat, data_sections


def offload_sections(sections: list[Section]) -> list[Section]:
    """A host ELF's LLVM offloading sections (by type, as LLVM finds them, or by name)."""
    return [
        sec
        for sec in sections
        if (sec.type == offload.SHT_LLVM_OFFLOADING or sec.name == offload.SECTION)
        and sec.type != SHT_NOBITS
        and sec.size
    ]


def read_offload_section(blob: Blob, lo: int, hi: int, result: ImportResult, prefix: str, work: Decoding) -> None:
    """The records of the NVIDIA images in an ``.llvm.offloading`` section (``[lo, hi)`` of ``blob``):
    cubins as any cubin, fatbinaries as any fatbin; PTX is counted as a fatbin's PTX is, and what has no
    figures yet (LLVM bitcode of ``-foffload-lto``) or is not NVIDIA's gets a note."""
    unread: dict[tuple[int, str], list[str]] = {}  # (image kind, triple) -> archs
    for image in offload.offload_images(blob, lo, hi, work.budget):
        work.step(blob.base + (image.at if image.blob is blob else lo))  # progress, and a cancel is heard
        nvidia = image.triple.startswith("nvptx")
        if nvidia and image.image_kind in (offload.IMAGE_OBJECT, offload.IMAGE_CUBIN, offload.IMAGE_FATBINARY):
            _read_offload_image(image, result, f"{prefix}: {image.label}", work)
        elif nvidia and image.image_kind == offload.IMAGE_PTX:
            work.skipped["PTX"] = work.skipped.get("PTX", 0) + 1
        else:
            unread.setdefault((image.image_kind, image.triple), []).append(image.arch or "?")
    for (kind, triple), archs in unread.items():
        why = (
            (
                "compiled with -foffload-lto: registers and shared memory are decided at the device link, so "
                "import the linked executable"
            )
            if kind == offload.IMAGE_BITCODE and triple.startswith("nvptx")
            else "not NVIDIA device code this reader can list"
        )
        what = offload.IMAGE_KINDS.get(kind, f"image kind {kind}")
        result.notes.append(
            f"{blob.path}: {len(archs)} {what} image{'s' if len(archs) != 1 else ''} for "
            f"{triple or 'no target'} ({', '.join(archs)}) in {prefix} skipped: {why}"
        )


def _read_offload_image(image: offload.OffloadImage, result: ImportResult, source: str, work: Decoding) -> None:
    src = image.blob  # read where parsed, as any fatbin entry's window (src.image: the file, where it is one)
    data = memoryview(src.data)[image.at : image.at + image.size]
    if image.image_kind == offload.IMAGE_FATBINARY:
        read_fatbin_bytes(
            data, src.path, base=src.base + image.at, prefix=source, result=result, image=src.image, work=work
        )
    else:
        result.records.extend(
            read_cubin(data, src.path, src.base + image.at, src.what, source_prefix=source, image=src.image)
        )
        work.images += 1
