"""The binary reader against the compilers themselves, on every toolkit a user may have.

For each (toolkit, arch) of ``matrix_build.CASES`` — ptxas 11.7, 11.8, every 12.x line but 12.7 (there is
none), 13.0 to 13.4 and CUDA 13.5, sm_75 to sm_121f with ``a`` and ``f`` targets, sm_88 and sm_107 — the
fixture sources are compiled at test time and what the compiler's ``-v`` said of each function is the
truth: registers, static shared memory (never the sm_90+ reserved window), stack frame, barriers (where that ptxas prints them),
the arch with its suffix, and whether it is a kernel.  The same images packed in fatbins (plain,
LZ4, zstd), relocatable ``-rdc`` images, nvlink's linked images, and CUDA 13.0, 13.2, 13.4 and 13.5 host
objects (every ``-compress-mode``, and ``--concat``), a static library and a device-linked executable
are read too, and the compilers' own ``-v`` logs go through the log importer.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter

import pytest

from occupancy_gui.cli.import_command import run_import
from occupancy_gui.importers import import_file, import_file_detailed
from occupancy_gui.importers.text.cuobjdump_text import parse_text
from tests.helpers import toolchains
from tests.importers import matrix_build as mb

pytestmark = pytest.mark.slow
CASE_IDS = [f"{tk}-{arch}" for tk, arch in mb.CASES]


@pytest.fixture(scope="module", params=mb.CASES, ids=CASE_IDS)
def case(request) -> mb.Case:
    return mb.build_case(*request.param)


def cuobjdump_refuses(case: mb.Case) -> bool:
    """Whether cuobjdump 13.5 says "does not contain device code" of the case's whole-program cubin: it does
    of ptxas 12.0-12.2's sm_90 and sm_90a cubins (measured; 12.3's it reads).  ptxas itself is the truth there."""
    return case.toolkit in ("12.0", "12.1", "12.2") and case.arch in ("sm_90", "sm_90a")


def _refused(case: mb.Case, path, proc: subprocess.CompletedProcess[str]) -> bool:
    """Whether cuobjdump refused ``path``, failing the test where it refuses an image it should read."""
    refused = bool(proc.returncode) and "does not contain device code" in proc.stdout + proc.stderr
    assert not refused or (path == case.whole and cuobjdump_refuses(case)), f"cuobjdump refused {path}"
    return refused


def arch_number(arch: str) -> int:
    return int(re.match(r"sm_(\d+)", arch).group(1))  # type: ignore[union-attr]  # archs are sm_NN


def nvlink_window(arch: str) -> int:
    """What CUDA 13.5's nvlink, run on its own, counts of the reserved window in "bytes smem":
    all of it for sm_90/sm_90a (the section size, as cuobjdump does), none for sm_100+ (as
    ptxas -v and nvcc -dlink do).  Measured; the sections themselves are laid out alike."""
    return 1024 if arch_number(arch) // 10 == 9 else 0


def by_name(records):
    out = {}
    for rec in records:
        assert rec.name not in out, f"{rec.name} listed twice: {rec.source} and {out[rec.name].source}"
        out[rec.name] = rec
    return out


def check_against(records, log: dict[str, mb.Figures], arch: str, *, smem_extra=None) -> None:
    """Every function of ``log`` is a record with the compiler's figures; nothing else is listed."""
    got = by_name(records)
    kernels = {name for name, fig in log.items() if fig.entry}
    assert {n for n, r in got.items() if r.is_kernel} == kernels
    for name, fig in log.items():
        rec = got.get(name)
        if rec is None:
            assert not fig.entry
            continue  # a device function ptxas reports but that left no symbol of its own
        assert rec.arch == arch, name
        if not fig.entry:
            assert rec.kind == "device_function", name
            continue
        assert rec.kind == "kernel"
        assert rec.registers == fig.registers, name
        expected_smem = fig.smem + (smem_extra(name) if smem_extra else 0)
        assert rec.static_smem == expected_smem, name
        assert rec.local_bytes == fig.stack, name
        if fig.barriers is not None:
            assert (rec.barriers or 0) == fig.barriers, name
    for name, rec in got.items():
        assert name in log or not rec.is_kernel, f"{name}: a kernel the compiler did not report"


def test_cubin_reads_as_ptxas_says(case):
    records = import_file(case.whole)
    check_against(records, case.whole_log, case.arch)
    got = by_name(records)
    assert got["_Z21calls_device_functionPy"].max_threads == 128
    assert got["_Z9smem_6000Pd"].max_threads == 256
    number = int(re.match(r"sm_(\d+)", case.arch).group(1))
    reserved = 1024 if number >= 90 else 0
    for name in ("_Z8smem_256Pf", "_Z9smem_1024Pf", "_Z9smem_6000Pd"):
        assert got[name].reserved_smem == reserved, name  # split off, never counted as the kernel's
    assert got["_Z12empty_kernelv"].static_smem == 0
    assert got["_Z14named_barriersPf"].barriers == 4  # bar.sync 3: barriers 0-3


@pytest.mark.parametrize("compress", ["none", "lz4", "zstd"])
def test_fatbin_reads_as_the_cubin(case, compress):
    def figures(records):
        return sorted(
            (
                r.name,
                r.arch,
                r.registers,
                r.static_smem,
                r.reserved_smem,
                r.local_bytes,
                r.barriers,
                r.is_kernel,
                r.max_threads,
            )
            for r in records
        )

    packed = mb.fatbin_of(case.whole, case.arch, compress)
    records = import_file(packed)
    assert figures(records) == figures(import_file(case.whole))
    assert all(re.search(r"container 1 @0x0: fatbin entry 1 \(ELF sm_\d+\) @0x10: ", r.source) for r in records)


def test_relocatable_images_read_as_ptxas_says(case):
    """A ``-rdc`` image before nvlink: ptxas's registers and stack; shared memory is the kernel's
    own plus the file-scope ``__shared__`` variables of its unit that it (or its callees) use."""
    unit_vars = {"_Z10rdc_callerPKfPfi": 512 + 1024, "_Z9rdc_localPf": 512, "_Z12rdc_b_kernelPf": 1024}
    records = [r for unit in case.rdc.values() for r in import_file(unit)]
    assert all(r.relocatable for r in records)
    check_against(records, case.rdc_log, case.arch, smem_extra=unit_vars.get)


# CUDA 13.5's nvlink links no CUDA 11.x objects ("must be recompiled with toolkit >= Cuda 12.0").
LINKED = [(tk, arch) for tk, arch in mb.CASES if not tk.startswith("11.")]


@pytest.mark.parametrize("toolkit,arch", LINKED, ids=[f"{tk}-{arch}" for tk, arch in LINKED])
def test_linked_image_reads_as_nvlink_says(toolkit, arch):
    case = mb.build_case(toolkit, arch)
    assert case.linked is not None
    records = import_file(case.linked)
    assert not any(r.relocatable for r in records)
    got = by_name(records)
    assert case.link_log, "nvlink -v reported no function"
    window = 1024 if arch_number(case.arch) >= 90 else 0  # every linked sm_90+ section starts with it
    reported = nvlink_window(case.arch)
    for name, fig in case.link_log.items():
        rec = got[name]
        assert rec.kind == "kernel" and rec.arch == case.arch
        assert rec.reserved_smem == window
        want = (fig.registers, fig.smem - reported, fig.stack)
        assert (rec.registers, rec.static_smem, rec.local_bytes) == want, name
        if fig.barriers is not None:
            assert (rec.barriers or 0) == fig.barriers
    # The kernel that calls into the other unit: nvlink's figures, not ptxas's pre-link ones.
    caller = "_Z10rdc_callerPKfPfi"
    assert got[caller].registers >= case.rdc_log[caller].registers
    assert got[caller].static_smem == 512 + 1024 + 1024  # tile_a, counts_a and far_work's tile_b
    # nvlink lays the units' shared variables out once for all kernels: a kernel's section reaches
    # the end of the last variable it uses, so the pre-link figure is a floor.
    pre = by_name(import_file(case.rdc["rdc_a"]))
    assert pre["_Z9rdc_localPf"].static_smem <= got["_Z9rdc_localPf"].static_smem


def _log_records(text: str, tmp_path, name: str):
    log = tmp_path / name
    log.write_text(text)
    return import_file(log)


def test_build_log_reads_as_ptxas_says(case, tmp_path):
    """The log importer on that toolkit's own ``-v`` output: the same figures as the compiler's, for the
    whole-program build and for each ``-rdc`` unit (its own shared memory: the log knows no other)."""
    check_against(
        _log_records((case.dir / "matrix.log").read_text(), tmp_path, "matrix.log"), case.whole_log, case.arch
    )
    for unit in case.rdc:
        check_against(
            _log_records((case.dir / f"{unit}.log").read_text(), tmp_path, f"{unit}.log"),
            mb.parse_verbose((case.dir / f"{unit}.log").read_text()),
            case.arch,
        )


@pytest.mark.parametrize("toolkit,arch", LINKED, ids=[f"{tk}-{arch}" for tk, arch in LINKED])
def test_link_log_reads_as_the_linked_image(toolkit, arch, tmp_path):
    """``nvlink -v`` after the units' ``ptxas -v`` output, as a build prints it: the linked image's
    figures (nvlink counts the sm_90 reserved window in its "bytes smem", not sm_100+'s).  nvlink run
    on its own names no target: alone, its lines still give registers, stack and barriers."""
    case = mb.build_case(toolkit, arch)
    linked = by_name(import_file(case.linked))
    link_text = (case.dir / "link.log").read_text()
    units_text = "".join((case.dir / f"{unit}.log").read_text() for unit in case.rdc)
    build = by_name(r for r in _log_records(units_text + link_text, tmp_path, "build.log") if r.is_kernel)
    alone = by_name(r for r in _log_records(link_text, tmp_path, "link.log") if r.is_kernel)
    assert set(build) == set(alone) == set(case.link_log)
    for name, want in ((name, linked[name]) for name in case.link_log):
        rec = build[name]
        assert (rec.arch, rec.registers, rec.static_smem, rec.reserved_smem, rec.local_bytes, rec.barriers) == (
            want.arch,
            want.registers,
            want.static_smem,
            want.reserved_smem,
            want.local_bytes,
            want.barriers,
        ), name
        rec = alone[name]
        assert (rec.registers, rec.local_bytes, rec.barriers) == (want.registers, want.local_bytes, want.barriers)


# CUDA 13.5 host-side builds: what a developer opens most often.


@pytest.fixture(scope="module")
def host() -> mb.HostBuild:
    return mb.build_host()


def linked_truth(arch: str) -> dict[str, mb.Figures]:
    return mb.build_case("13.5", arch).link_log


def test_executable_gives_the_linked_figures_only(host):
    records = import_file(host.executable)
    assert not any(r.relocatable for r in records), "a pre-link copy listed beside the linked image"
    for arch in mb.HOST_ARCHS:
        got = by_name([r for r in records if r.arch == arch])
        for name, fig in linked_truth(arch).items():
            want = (fig.registers, fig.smem - nvlink_window(arch))
            assert (got[name].registers, got[name].static_smem) == want, (arch, name)
    assert all(".nv_fatbin container" in r.source for r in records)


def test_rdc_object_and_static_library(host):
    for path in (host.rdc_a_o, host.library):
        records = import_file(path)
        assert records and all(r.relocatable for r in records)
        assert {r.arch for r in records} == set(mb.HOST_ARCHS)
        caller = [r for r in records if r.name == "_Z10rdc_callerPKfPfi"]
        assert {r.static_smem for r in caller} == {512 + 1024}
        assert all("__nv_relfatbin container" in r.source for r in records)


def test_whole_program_object_matches_cubins(host):
    records = import_file(host.whole_o)
    for arch in mb.HOST_ARCHS:
        cubin = mb.build_case("13.5", arch).whole
        want = sorted((r.name, r.registers, r.static_smem, r.local_bytes) for r in import_file(cubin))
        assert sorted((r.name, r.registers, r.static_smem, r.local_bytes) for r in records if r.arch == arch) == want


@pytest.mark.parametrize("version", sorted(toolchains.NVCC_TOOLKITS))
def test_host_builds_equal_cuobjdump(version):
    """Every host file a whole nvcc writes (an object, an -rdc object, a static library, a
    device-linked executable), read whole and compared with cuobjdump of the same file, record for
    record (as the NVIDIA libraries are: ``test_vendor_libraries.compare``)."""
    from tests.importers.test_vendor_libraries import compare, cuobjdump

    built = mb.build_host(version)
    for path in (built.whole_o, built.executable):
        records = import_file_detailed(path).records
        assert {r.arch for r in records} == set(mb.HOST_ARCHS), path.name
        rc, text = cuobjdump(path)
        assert rc == 0, text[-500:]
        compare(records, text, f"{version} {path.name}")
    # Relocatable images: our shared memory counts the unit's file-scope __shared__ variables, which
    # cuobjdump leaves out (test_rdc_object_and_static_library checks them): names and registers here.
    for path in (built.rdc_a_o, built.library):
        records = import_file_detailed(path).records
        assert records and all(r.relocatable for r in records)
        rc, text = cuobjdump(path)
        assert rc == 0, text[-500:]
        ours = Counter((r.name, r.arch, r.registers) for r in records if r.is_kernel for _ in range(r.copies))
        theirs = Counter(
            (r.name, r.arch, r.registers)
            for r in parse_text(text, path.name)
            if r.key in {k.key for k in records if k.is_kernel}
        )
        assert ours == theirs, f"{version} {path.name}"


@pytest.mark.parametrize("version", sorted(toolchains.NVCC_TOOLKITS))
def test_dlink_build_log_reads_as_the_linked_object(version):
    """``nvcc -dlink -Xnvlink -v`` for two archs after the units' ``-Xptxas -v``: the log's records are
    the device-linked object's, figure for figure (sm_90a's nvlink counts the window, sm_120's not)."""
    log, linked = mb.build_dlink(version)

    def figures(path):
        return sorted(
            (r.name, r.arch, r.registers, r.static_smem, r.reserved_smem, r.local_bytes, r.barriers)
            for r in import_file(path)
            if r.is_kernel
        )

    want = figures(linked)
    assert {f[1] for f in want} == set(mb.HOST_ARCHS) and len(want) == 6
    assert figures(log) == want


COMPRESSED = [
    (v, m)
    for v in sorted(toolchains.NVCC_TOOLKITS)
    for m in mb.COMPRESS_MODES
    if not (m == "concat" and tuple(map(int, v.split("."))) < (13, 4))
]  # --concat is new in 13.4


@pytest.mark.parametrize("version,mode", COMPRESSED, ids=[f"{v}-{m}" for v, m in COMPRESSED])
def test_every_compression_mode_equals_cuobjdump(version, mode):
    from tests.importers.test_vendor_libraries import compare, cuobjdump

    path = mb.build_compressed(version, mode)
    records = import_file_detailed(path).records
    assert {r.arch for r in records} == set(mb.HOST_ARCHS)
    rc, text = cuobjdump(path)
    assert rc == 0, text[-500:]
    compare(records, text, f"{version} {path.name}")


def test_elf_images_without_functions_are_named(tmp_path, capsys):
    """A translation unit without device functions still gets an ELF image (and PTX) per target, as cuDSS's
    communication layers have: a valid file with no kernel, listed as cuobjdump lists it (exit 0, nothing)
    with a note saying the images hold no function (not that there are none)."""
    from tests.importers.test_vendor_libraries import cuobjdump

    nvcc = toolchains.nvcc13_bin() / "nvcc"
    source = tmp_path / "host_only.cu"
    source.write_text("int host_only(int x) { return x + 1; }\n")
    fatbin, host = tmp_path / "empty.fatbin", tmp_path / "empty.o"
    gencode = ["-gencode=arch=compute_75,code=[sm_75,compute_75]", "-gencode=arch=compute_90,code=sm_90"]
    toolchains.run([nvcc, "-fatbin", *gencode, source, "-o", fatbin])
    toolchains.run([nvcc, "-c", *gencode, source, "-o", host])
    for path in (fatbin, host):
        result = import_file_detailed(path)
        assert result.records == [] and result.no_functions
        assert re.search(
            r": no function in the fatbin's 2 CUDA ELF images; beside them, 1 PTX entry: registers and "
            r"shared memory are decided when PTX is compiled",
            result.notes[0],
        ), result.notes
        assert run_import([str(path), "--json", "--no-cache"]) == 0
        out, err = capsys.readouterr()
        assert json.loads(out) == [] and "no function in the fatbin's 2 CUDA ELF images" in err
        assert run_import([str(path), "--no-cache"]) == 0
        assert "regs" in capsys.readouterr().out  # the table's head, no row
        rc, text = cuobjdump(path)
        assert rc == 0 and "Function" not in text and text.count("arch = sm_") == 3, text


def test_lto_ir_entries_are_named(tmp_path):
    """nvcc -dlto keeps NVVM IR (fatbin entry kind 8) with no figures before the device link: alone it fails
    saying so; beside SASS the SASS reads as cuobjdump says and the IR is skipped as cuobjdump skips it."""
    from occupancy_gui.importers import ImportFailure
    from tests.importers.test_vendor_libraries import cuobjdump

    nvcc = toolchains.nvcc13_bin() / "nvcc"
    only, both = tmp_path / "lto_only.o", tmp_path / "lto_and_sass.o"
    toolchains.run([nvcc, "-c", "-rdc=true", "-gencode=arch=compute_90,code=lto_90", mb.SRC / "rdc_a.cu", "-o", only])
    with pytest.raises(ImportFailure, match=r"only 1 LTO IR entry: .*device link of an nvcc -dlto build"):
        import_file(only)
    toolchains.run(
        [nvcc, "-c", "-rdc=true", "-gencode=arch=compute_90,code=[sm_90,lto_90]", mb.SRC / "rdc_a.cu", "-o", both]
    )
    records = import_file(both)
    assert {r.arch for r in records} == {"sm_90"}
    rc, text = cuobjdump(both)
    assert rc == 0, text[-500:]
    # A relocatable image: shared memory is ptxas's (see test_relocatable_images_read_as_ptxas_says), not the dump's.
    assert sorted((r.name, r.registers) for r in records if r.is_kernel) == sorted(
        (r.name, r.registers) for r in parse_text(text, both.name) if r.is_kernel
    )


def test_cli_lists_kernels_unless_all_functions(case, capsys):
    assert run_import([str(case.whole), "--json"]) == 0
    kernels = json.loads(capsys.readouterr().out)
    assert {r["kind"] for r in kernels} == {"kernel"}
    assert {r["name"] for r in kernels} == {n for n, f in case.whole_log.items() if f.entry}
    assert all(r["arch"] == case.arch for r in kernels)
    # Its device functions are ptxas's copies inside the kernels, which cuobjdump does not list either.
    assert run_import([str(case.whole), "--json", "--all-functions"]) == 0
    assert json.loads(capsys.readouterr().out) == kernels


def test_cuobjdump_agrees(case):
    """cuobjdump, a second opinion on every function it lists, device functions and the local copies ptxas
    makes inside a kernel (``$kernel$__cuda_sm20_rem_u64``: not listed) included: the same functions,
    registers, SHARED less the reserved window, and STACK (``None``: unknown).  A relocatable unit's shared
    memory and stack are the translation unit's share (see ``test_relocatable_images_read_as_ptxas_says``):
    there the functions and registers are compared."""
    compared = 0
    for path in [case.whole, *case.rdc.values(), *(case.linked and [case.linked] or [])]:
        proc = subprocess.run(
            [str(toolchains.cuobjdump()), "--dump-resource-usage", str(path)], capture_output=True, text=True
        )
        if _refused(case, path, proc):
            continue
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout
        compared += 1
        ours_records = import_file(path)
        relocatable = any(r.relocatable for r in ours_records)
        theirs = Counter(
            (r.name, r.registers) + (() if relocatable else (r.static_smem, r.stack_bytes))
            for r in parse_text(out, path.name, default_arch=case.arch)
        )
        ours = Counter(
            (r.name, r.registers) + (() if relocatable else (r.static_smem, r.stack_bytes)) for r in ours_records
        )
        assert ours == theirs, (path.name, ours - theirs, theirs - ours)
    assert compared, "cuobjdump read none of this case's images"


def test_register_cap_and_cluster_read_as_the_source_sets_them(case):
    got = by_name(import_file(case.whole))
    capped = got["_Z16capped_registersPKdPdi"]
    assert capped.max_registers == 40 and capped.registers <= 40
    number = int(re.match(r"sm_(\d+)", case.arch).group(1))
    assert ("_Z12cluster_pairPf" in got) == (number >= 90)
    if number >= 90:
        assert got["_Z12cluster_pairPf"].cluster_dims == (2, 1, 1)
    assert all(rec.cluster_dims is None for name, rec in got.items() if name != "_Z12cluster_pairPf")


_ELF_ATTR = re.compile(r"Attribute:\s+(EIATTR_\w+)\s+Format:\s+\w+\s+(?:Value:\s+([^\n]*))?")


def cuobjdump_kernel_attributes(case: mb.Case, path) -> dict[str, dict[str, tuple[int, ...]]] | None:
    """``cuobjdump -elf``'s attributes of each function's ``.nv.info.<name>`` section, as integers (parsed
    apart from the importer); ``None`` where cuobjdump refuses the image (see :func:`cuobjdump_refuses`)."""
    proc = subprocess.run([str(toolchains.cuobjdump()), "-elf", str(path)], capture_output=True, text=True)
    if _refused(case, path, proc):
        return None
    assert proc.returncode == 0, proc.stderr
    out: dict[str, dict[str, tuple[int, ...]]] = {}
    for block in re.split(r"\n(?=\.nv\.info\.)", proc.stdout)[1:]:
        name = block.split(None, 1)[0][len(".nv.info.") :]
        block = re.split(r"\n(?=\.\w)", block, maxsplit=1)[0]  # up to the next section's dump
        attrs = out.setdefault(name, {})
        for attr, value in _ELF_ATTR.findall(block):
            if re.fullmatch(r"(?:0x[0-9a-f]+\s*)+", value.strip() or "x"):
                attrs[attr] = tuple(int(v, 16) for v in value.split())
    return out


def test_kernel_attributes_equal_cuobjdump_elf(case):
    """The launch attributes the engine is fed (register cap, launch bound, required block, cluster,
    barriers) equal cuobjdump's dump of each kernel's ``.nv.info`` section, for every toolkit."""
    compared = 0
    for path in [case.whole, *(case.linked and [case.linked] or [])]:
        theirs = cuobjdump_kernel_attributes(case, path)
        if theirs is None:
            continue
        for rec in import_file(path):
            if not rec.is_kernel:
                continue
            attrs = theirs[rec.name]
            compared += 1
            assert rec.max_registers == attrs.get("EIATTR_MAXREG_COUNT", (None,))[0], rec.name
            assert rec.cluster_dims == attrs.get("EIATTR_CTA_PER_CLUSTER"), rec.name
            assert rec.req_threads == attrs.get("EIATTR_REQNTID"), rec.name
            dims = attrs.get("EIATTR_MAX_THREADS")
            assert rec.max_threads == (dims[0] * max(dims[1], 1) * max(dims[2], 1) if dims else None), rec.name
            if "EIATTR_NUM_BARRIERS" in attrs:
                assert rec.barriers == attrs["EIATTR_NUM_BARRIERS"][0], rec.name
    if not cuobjdump_refuses(case):
        assert compared >= 8, f"{case.toolkit} {case.arch}: {compared} kernels compared"
