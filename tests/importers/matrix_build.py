"""Builds the toolkit matrix at test time: the fixture sources compiled by every ptxas a user may
have, for every arch each supports (``a``/``f`` targets included), whole-program and ``-rdc``,
with each compiler's own ``-v`` report kept beside what it wrote.

Older toolkits' wheels carry ptxas only, so their cubins are ptxas runs over the PTX that CUDA
13.5's nvcc writes, relabelled to the ISA version that ptxas accepts (the kernels use nothing
newer).  CUDA 13.5 builds with its own nvcc.  Linking uses CUDA 13.5's nvlink, which refuses
objects of CUDA 11.x ("must be recompiled with toolkit >= Cuda 12.0"): 11.7 and 11.8 have no
linked case.  13.0 is driven as the older ones are (its ptxas on the relabelled PTX).

Everything lands in ``toolchains.CACHE / "matrix-<hash of sources and this file>"``; a case is
built once and reused by later runs.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers import toolchains

SRC = Path(__file__).resolve().parents[1] / "data" / "importers" / "src"
SOURCES = ("matrix.cu", "rdc_a.cu", "rdc_b.cu", "rdc_main.cu")

# Per toolkit, the archs built (each within what that ptxas accepts).
ARCHS = {
    "11.7": ("sm_75", "sm_86", "sm_87"),
    "11.8": ("sm_75", "sm_80", "sm_86", "sm_90"),
    "12.0": ("sm_80", "sm_90", "sm_90a"),
    "12.1": ("sm_89", "sm_90a"),
    "12.2": ("sm_87", "sm_90"),
    "12.3": ("sm_80", "sm_90a"),
    "12.4": ("sm_89", "sm_90", "sm_90a"),
    "12.5": ("sm_86", "sm_90a"),
    "12.6": ("sm_80", "sm_89", "sm_90a"),
    "12.8": ("sm_90a", "sm_100", "sm_100a", "sm_120", "sm_120a"),
    "12.9": ("sm_90", "sm_100f", "sm_103f", "sm_120f"),
    "13.0": ("sm_80", "sm_90a", "sm_100a", "sm_103f", "sm_110f", "sm_121a"),
    "13.1": ("sm_88", "sm_100f", "sm_121a"),  # sm_88: new in CUDA 13 (ptxas 13.1 is the first pip offers with it)
    "13.2": ("sm_103a", "sm_110f"),
    "13.3": ("sm_88", "sm_120f"),
    "13.4": ("sm_90a", "sm_107", "sm_107a", "sm_107f"),  # sm_107: new in ptxas 13.4
    "13.5": ("sm_75", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_110f", "sm_120", "sm_121f"),
}
CASES = [(tk, arch) for tk, archs in ARCHS.items() for arch in archs]


@dataclass
class Figures:
    """What one ``-v`` report says of one function."""

    registers: int | None = None
    smem: int = 0
    stack: int | None = None
    barriers: int | None = None
    entry: bool = False


@dataclass
class Case:
    toolkit: str
    arch: str
    dir: Path
    whole: Path  # cubin of matrix.cu
    whole_log: dict[str, Figures]
    rdc: dict[str, Path] = field(default_factory=dict)  # unit -> relocatable cubin
    rdc_log: dict[str, Figures] = field(default_factory=dict)
    linked: Path | None = None  # nvlink's image of the two -rdc units
    link_log: dict[str, Figures] = field(default_factory=dict)


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"Function properties for '?([^':\s]+)'?:?\s*$")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?")
_NVLINK = re.compile(r"used (\d+) registers, (?:used (\d+) barriers, )?(\d+) stack, (\d+) bytes smem")


def parse_verbose(text: str) -> dict[str, Figures]:
    """ptxas/nvlink ``-v`` output -> name -> figures; written apart from the importer under test."""
    out: dict[str, Figures] = {}
    current: str | None = None  # the function whose properties follow
    entry: str | None = None  # the kernel being compiled: "Used N registers" is its line
    for line in text.splitlines():
        if m := _ENTRY.search(line):
            current = entry = m.group(1)
            out.setdefault(current, Figures()).entry = True
        elif m := _PROPS.search(line):
            current = m.group(1)
            out.setdefault(current, Figures())
        elif current and (m := _FRAME.search(line)):
            out[current].stack = int(m.group(1))
        elif current and (m := _NVLINK.search(line)):
            fig = out[current]
            fig.registers, fig.stack, fig.smem = int(m.group(1)), int(m.group(3)), int(m.group(4))
            fig.barriers = int(m.group(2)) if m.group(2) else None
            fig.entry = True
        elif entry and (m := _USED.search(line)):
            fig = out[entry]
            fig.registers = int(m.group(1))
            fig.barriers = int(m.group(2)) if m.group(2) else None
            fig.smem = int(m.group(3) or 0)
    return out


def _key() -> str:
    h = hashlib.sha256(Path(__file__).read_bytes())
    for name in SOURCES:
        h.update((SRC / name).read_bytes())
    h.update(repr(sorted(toolchains.PTXAS_WHEELS.items())).encode())
    return h.hexdigest()[:16]


def root() -> Path:
    """This matrix's folder; those of older sources or builders are removed on first use."""
    here = toolchains.CACHE / f"matrix-{_key()}"
    if not here.exists():
        for old in toolchains.CACHE.glob("matrix-*"):
            shutil.rmtree(old, ignore_errors=True)
        here.mkdir(parents=True)
    return here


def _ptx(arch: str, source: str, rdc: bool) -> Path:
    """CUDA 13.5's PTX of one source for one arch (shared by every older ptxas)."""
    out = root() / "ptx" / f"{Path(source).stem}{'_rdc' if rdc else ''}_{arch}.ptx"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        nvcc = toolchains.nvcc13_bin() / "nvcc"
        toolchains.run(
            [
                nvcc,
                "-ptx",
                f"-arch={arch}",
                *(["-rdc=true"] if rdc else []),
                SRC / source,
                "-o",
                out.with_suffix(".tmp"),
            ]
        )
        out.with_suffix(".tmp").rename(out)
    return out


def _ptxas(toolkit: str, arch: str, ptx: Path, out: Path, relocatable: bool) -> str:
    isa = toolchains.PTX_ISA[toolkit]
    text = re.sub(r"^\.version \S+", f".version {isa}", ptx.read_text(), count=1, flags=re.M)
    relabelled = out.with_suffix(".ptx")
    relabelled.write_text(text)
    proc = toolchains.run(
        [toolchains.ptxas(toolkit), "-v", f"-arch={arch}", *(["-c"] if relocatable else []), relabelled, "-o", out]
    )
    return proc.stdout + proc.stderr


def _cached(path: Path, log: Path, build) -> str:
    if not (path.exists() and log.exists()):
        log.write_text(build())
    return log.read_text()


def build_case(toolkit: str, arch: str) -> Case:
    d = root() / toolkit / arch
    d.mkdir(parents=True, exist_ok=True)
    whole = d / "matrix.cubin"
    rdc = {unit: d / f"{unit}.cubin" for unit in ("rdc_a", "rdc_b")}
    if toolkit == "13.5":
        nvcc = toolchains.nvcc13_bin() / "nvcc"

        def compile_whole() -> str:
            proc = toolchains.run([nvcc, "-cubin", f"-arch={arch}", "-Xptxas", "-v", SRC / "matrix.cu", "-o", whole])
            return proc.stdout + proc.stderr

        def compile_rdc(unit: str) -> str:
            proc = toolchains.run(
                [nvcc, "-cubin", "-rdc=true", f"-arch={arch}", "-Xptxas", "-v", SRC / f"{unit}.cu", "-o", rdc[unit]]
            )
            return proc.stdout + proc.stderr
    else:

        def compile_whole() -> str:
            return _ptxas(toolkit, arch, _ptx(arch, "matrix.cu", False), whole, False)

        def compile_rdc(unit: str) -> str:
            return _ptxas(toolkit, arch, _ptx(arch, f"{unit}.cu", True), rdc[unit], True)

    case = Case(toolkit, arch, d, whole, parse_verbose(_cached(whole, d / "matrix.log", compile_whole)))
    case.rdc = rdc
    for unit in rdc:
        case.rdc_log.update(parse_verbose(_cached(rdc[unit], d / f"{unit}.log", lambda u=unit: compile_rdc(u))))
    if not toolkit.startswith("11."):  # CUDA 13.5's nvlink refuses 11.x objects
        linked = d / "linked.cubin"

        def link() -> str:
            nvlink = toolchains.nvcc13_bin() / "nvlink"
            proc = toolchains.run([nvlink, "-v", f"-arch={arch}", rdc["rdc_a"], rdc["rdc_b"], "-o", linked])
            return proc.stdout + proc.stderr

        case.link_log = parse_verbose(_cached(linked, d / "link.log", link))
        case.linked = linked
    return case


def fatbin_of(cubin: Path, arch: str, compress: str) -> Path:
    """``cubin`` packed by CUDA 13.5's fatbinary: ``none``, ``lz4`` (-compress-mode=speed) or
    ``zstd`` (the -compress-all default)."""
    out = cubin.with_name(f"{cubin.stem}.{compress}.fatbin")
    if not out.exists():
        number = re.match(r"sm_(\d+)", arch).group(1)  # type: ignore[union-attr]  # archs are sm_NN
        flags = {"none": [], "lz4": ["-compress-all", "-compress-mode=speed"], "zstd": ["-compress-all"]}[compress]
        fatbinary = toolchains.nvcc13_bin() / "fatbinary"
        toolchains.run(
            [fatbinary, "--64", f"--create={out}.tmp", f"--image3=kind=elf,sm={number},file={cubin}", *flags]
        )
        Path(f"{out}.tmp").rename(out)
    return out


@dataclass
class HostBuild:
    """CUDA 13.x host-side builds: objects, a static library and a device-linked executable."""

    whole_o: Path
    rdc_a_o: Path
    library: Path
    executable: Path


HOST_ARCHS = ("sm_90a", "sm_120")  # each also a 13.5 case of the matrix, whose link gives the truth
HOST_GENCODE = tuple(f"-gencode=arch=compute_{a[3:]},code={a}" for a in HOST_ARCHS)
"""nvcc's options that build for each of :data:`HOST_ARCHS`."""


def build_dlink(version: str) -> tuple[Path, Path]:
    """A separate-compilation build as a make file runs it: the ``-rdc`` units compiled with
    ``-Xptxas -v``, then ``nvcc -dlink -Xnvlink -v`` for two archs at once; (its log, the device-linked
    object)."""
    d = root() / f"dlink-{version}"
    d.mkdir(parents=True, exist_ok=True)
    log, out = d / "build.log", d / "dlink.o"
    if not (log.exists() and out.exists()):
        nvcc = toolchains.nvcc13_bin(version) / "nvcc"
        text = ""
        for unit in ("rdc_a", "rdc_b"):
            proc = toolchains.run(
                [nvcc, "-c", "-rdc=true", "-Xptxas", "-v", *HOST_GENCODE, SRC / f"{unit}.cu", "-o", d / f"{unit}.o"]
            )
            text += proc.stdout + proc.stderr
        proc = toolchains.run(
            [nvcc, "-dlink", "-Xnvlink", "-v", *HOST_GENCODE, d / "rdc_a.o", d / "rdc_b.o", "-o", out]
        )
        log.write_text(text + proc.stdout + proc.stderr)
    return log, out


COMPRESS_MODES = ("default", "size", "speed", "balance", "none", "concat")
"""Every ``-compress-mode`` of nvcc 13.x, and 13.4+'s ``--concat`` (entries concatenated for
compression) with ``size``."""


def build_compressed(version: str, mode: str) -> Path:
    """``matrix.cu`` as a host object of one whole nvcc with one fatbin compression mode, for two archs
    and a PTX entry."""
    d = root() / f"compress-{version}"
    d.mkdir(parents=True, exist_ok=True)
    out = d / f"matrix_{mode}.o"
    if not out.exists():
        nvcc = toolchains.nvcc13_bin(version) / "nvcc"
        flags = ["--concat", "-compress-mode=size"] if mode == "concat" else [f"-compress-mode={mode}"]
        toolchains.run(
            [
                nvcc,
                "-c",
                *HOST_GENCODE,
                "-gencode=arch=compute_100,code=compute_100",
                *flags,
                SRC / "matrix.cu",
                "-o",
                out,
            ]
        )
    return out


def build_host(version: str = "13.5") -> HostBuild:
    """The host builds of one whole nvcc (a key of ``toolchains.NVCC_TOOLKITS``)."""
    d = root() / ("host" if version == "13.5" else f"host-{version}")
    d.mkdir(parents=True, exist_ok=True)
    nvcc = toolchains.nvcc13_bin(version) / "nvcc"
    whole_o, rdc_o = d / "matrix.o", {u: d / f"{u}.o" for u in ("rdc_a", "rdc_b", "rdc_main")}
    lib, exe = d / "librdc.a", d / "rdc_program"
    if not whole_o.exists():
        toolchains.run([nvcc, "-c", *HOST_GENCODE, SRC / "matrix.cu", "-o", whole_o])
    for unit, obj in rdc_o.items():
        if not obj.exists():
            toolchains.run([nvcc, "-c", "-rdc=true", *HOST_GENCODE, SRC / f"{unit}.cu", "-o", obj])
    if not lib.exists():
        subprocess.run([shutil.which("ar") or "ar", "rcs", lib, rdc_o["rdc_a"], rdc_o["rdc_b"]], check=True)
    if not exe.exists():
        # 13.0's nvcc.profile looks for the runtime in lib64, the 13.x wheels put it in lib
        toolchains.run(
            [nvcc, "-rdc=true", *HOST_GENCODE, *rdc_o.values(), f"-L{nvcc.parent.parent / 'lib'}", "-o", exe]
        )
    return HostBuild(whole_o, rdc_o["rdc_a"], lib, exe)
