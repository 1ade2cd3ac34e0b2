"""ptxas -v / --resource-usage / nvlink -v logs: real compiler output and hand-written variants."""

from __future__ import annotations

import codecs
import io

import pytest

from occupancy_gui.importers import ImportCancelled, ImportFailure, import_file
from occupancy_gui.importers.text.ptxas_log import import_ptxas_log, parse_bytes, parse_stream

from .conftest import GEN, HAND


def by_key(records):
    return {(r.name, r.arch): r for r in records}


def test_real_nvcc_log_all_archs():
    recs = by_key(import_file(GEN / "a_ptxas_v.log"))
    assert {arch for _, arch in recs} == {"sm_75", "sm_80", "sm_90", "sm_100", "sm_120"}
    k = recs[("_ZN3occ9tiled_sumILi512EEEvPKfPfi", "sm_80")]
    assert (k.registers, k.static_smem, k.barriers, k.const_bytes, k.spill_stores) == (10, 2048, 1, 372, 0)
    assert k.demangled == "void occ::tiled_sum<512>(float const*, float*, int)"
    assert k.source == "a_ptxas_v.log:23"
    nb = recs[("_Z14named_barriersPf", "sm_120")]
    assert (nb.registers, nb.static_smem, nb.barriers, nb.const_bytes) == (16, 512, 3, None)
    assert recs[("plain_c_kernel", "sm_90")].barriers == 0


def test_real_resource_usage_log_device_function_and_stack():
    recs = by_key(import_file(GEN / "b_resource_usage.log"))
    spill = recs[("_Z12spill_kernelPKfPfi", "sm_90")]
    assert (spill.registers, spill.local_bytes, spill.is_kernel) == (32, 144, True)
    heavy = recs[("_Z5heavyPKfi", "sm_90")]
    assert heavy.is_kernel is False
    assert heavy.spill_stores > 0 and heavy.spill_loads > 0
    assert recs[("_Z11local_arrayP4Pairi", "sm_90")].local_bytes == 400


def test_real_rdc_log_nvlink_overrides_ptxas():
    recs = by_key(import_file(GEN / "b_rdc_nvlink.log"))
    # ptxas said 24 registers for the separately compiled kernel; the linked figure is final.
    spill = recs[("_Z12spill_kernelPKfPfi", "sm_80")]
    assert spill.registers == 107 and spill.barriers == 1 and spill.const_bytes == 372
    # nvlink counts the sm_90 reserved 1 KiB in smem; static_smem stays the user's 128 bytes.
    cl = recs[("_Z14cluster_kernelPj", "sm_90")]
    assert (cl.static_smem, cl.reserved_smem, cl.registers) == (128, 1024, 12)
    # Device functions printed before their module's first entry get that module's arch.
    assert ("_Z5heavyPKfi$1", "sm_80") in recs and ("_Z5heavyPKfi$1", "sm_90") in recs


EXPECTED = {
    "cuda8_make.log": {
        ("_Z5saxpyifPKfPf", "sm_52"): dict(registers=8, static_smem=0, const_bytes=352, barriers=None),
        ("_Z9reduce256PKfPf", "sm_52"): dict(registers=14, static_smem=1024, local_bytes=32, const_bytes=336),
        ("_Z5saxpyifPKfPf", "sm_61"): dict(registers=10, const_bytes=352, const_banks={0: 352, 2: 24}),
        ("_Z9reduce256PKfPf", "sm_61"): dict(registers=16, spill_stores=12, spill_loads=20),
        ("_Z6helperff", "sm_52"): dict(is_kernel=False, local_bytes=8, spill_stores=4),
        ("_Z6helperff", "sm_61"): dict(is_kernel=False, spill_stores=0),
    },
    "cuda5_legacy.log": {
        ("_Z6kernelPi", "sm_20"): dict(registers=21, static_smem=2048, local_bytes=4, const_bytes=40),
    },
    "cuda11_ninja.log": {
        ("_ZN4gemm6kernelILi128ELi8EEEvPKfS2_Pfi", "sm_70"): dict(registers=64, static_smem=8192),
        ("_Z4scanPiS_i", "sm_80"): dict(registers=30, barriers=1, local_bytes=16, static_smem=4224),
        ("_Z7scan_v2PiS_i", "sm_90a"): dict(registers=40, barriers=2, static_smem=4096),
    },
    "msbuild_crlf.log": {("_Z6blur3dPKfPfiii", "sm_86"): dict(registers=37, barriers=1, static_smem=6144)},
    "msbuild_utf16.log": {("_Z6blur3dPKfPfiii", "sm_86"): dict(registers=37, barriers=1, static_smem=6144)},
    "colour_latin1.log": {("_Z3addPfS_", "sm_89"): dict(registers=12, barriers=0, const_bytes=368)},
    "parallel_interleaved.log": {
        ("_Z7kernelAPf", "sm_80"): dict(registers=11, barriers=1, static_smem=256, local_bytes=0),
        ("_Z7kernelBPf", "sm_90"): dict(registers=22, barriers=2, static_smem=512, local_bytes=24, spill_stores=8),
    },
    "cuda10_rdc_nvlink.log": {
        ("_Z4stepPf", "sm_70"): dict(registers=48, local_bytes=64),
        ("_Z4stepPf", "sm_80"): dict(registers=50, local_bytes=64),
    },
}


@pytest.mark.parametrize("fname", sorted(EXPECTED))
def test_handwritten_variants(fname):
    recs = by_key(import_file(HAND / fname))
    for key, fields in EXPECTED[fname].items():
        assert key in recs, f"{key} missing from {fname}: {sorted(recs)}"
        for attr, value in fields.items():
            assert getattr(recs[key], attr) == value, (fname, key, attr)
    assert len(recs) == len(EXPECTED[fname])


def test_msbuild_source_lines_count_crlf_and_utf16_alike():
    a = import_file(HAND / "msbuild_crlf.log")[0]
    b = import_file(HAND / "msbuild_utf16.log")[0]
    assert a.source.endswith(":6") and b.source.endswith(":6")


def test_utf16_big_endian_without_bom():
    text = (GEN / "a_ptxas_v.log").read_text()
    recs = parse_bytes(text.encode("utf-16-be"), "be.log")
    assert len(recs) == len(import_file(GEN / "a_ptxas_v.log"))


@pytest.mark.parametrize("chunk", [7, 64, 1000])
def test_chunk_boundaries_do_not_change_results(chunk):
    data = (GEN / "a_ptxas_v.log").read_bytes()
    whole = parse_bytes(data, "x.log")
    split = parse_stream(io.BytesIO(data), "x.log", len(data), chunk_size=chunk)
    assert split == whole
    utf16 = codecs.BOM_UTF16_LE + data.decode().encode("utf-16-le")
    assert parse_stream(io.BytesIO(utf16), "x.log", len(utf16), chunk_size=chunk + 1) == whole


def test_progress_and_cancel(tmp_path):
    path = tmp_path / "big.log"
    block = (GEN / "a_ptxas_v.log").read_bytes()
    path.write_bytes(block * 50)
    seen = []
    recs = import_ptxas_log(path, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (len(block) * 50, len(block) * 50)
    assert len(recs) == 20  # repeated builds collapse to one record per kernel and arch
    with pytest.raises(ImportCancelled):
        import_ptxas_log(path, cancel=lambda: True)


def test_log_without_resource_lines_fails_with_a_reason(tmp_path):
    path = tmp_path / "build.log"
    path.write_text("make: Nothing to be done for 'all'.\n")
    with pytest.raises(ImportFailure, match="no ptxas or nvlink"):
        import_file(path)


def test_long_line_without_newline_is_bounded():
    data = (
        b"x" * (3 << 20) + b"\nptxas info    : Compiling entry function 'k' for 'sm_80'\n"
        b"ptxas info    : Used 4 registers\n"
    )
    recs = parse_stream(io.BytesIO(data), "l.log", len(data), chunk_size=1 << 16)
    assert [(r.name, r.registers) for r in recs] == [("k", 4)]


def _all_fields(records):
    from dataclasses import fields

    return [tuple(getattr(r, f.name) for f in fields(r)) for r in records]


@pytest.mark.parametrize(
    "fname",
    [
        *(f"gen/{p.name}" for p in sorted(GEN.glob("*.log"))),
        *(f"handwritten/{p.name}" for p in sorted(HAND.glob("*.log"))),
        "bench",
    ],
)
def test_standard_block_shortcut_matches_the_state_machine(monkeypatch, fname):
    """The scanner's one-match-per-kernel path gives what the line-by-line state machine gives."""
    import re

    from occupancy_gui.importers.text import ptxas_log

    if fname == "bench":
        from tests.benchmarks.bench_import import noise_block, ptxas_block

        data = "".join(ptxas_block(i) + noise_block(i) for i in range(40)).encode()
        data += data.replace(b"\n", b"\r\n")  # CRLF: the same kernels again, from later lines
    else:
        data = (GEN.parent / fname).read_bytes()
    fast = parse_bytes(data, "x.log")
    monkeypatch.setattr(ptxas_log, "_SCAN", re.compile(rb"info[^\n]*"))  # every hit one line
    slow = parse_bytes(data, "x.log")
    assert _all_fields(fast) == _all_fields(slow)
    assert fast == slow


def test_lazy_records_behave_like_built_ones():
    import copy
    import dataclasses
    import pickle

    from occupancy_gui.importers.records import KernelRecord

    lazy = parse_bytes((GEN / "a_ptxas_v.log").read_bytes(), "a.log")[0]
    built = KernelRecord(**{f.name: getattr(lazy, f.name) for f in dataclasses.fields(lazy)})
    for other in (lazy, pickle.loads(pickle.dumps(lazy)), copy.deepcopy(lazy), copy.copy(lazy)):
        assert other == built and hash(other) == hash(built) and repr(other) == repr(built)
    assert dataclasses.replace(lazy, registers=99).registers == 99
    assert dataclasses.asdict(lazy) == dataclasses.asdict(built)
    with pytest.raises(dataclasses.FrozenInstanceError):
        lazy.registers = 1  # type: ignore[misc]  # the point: a frozen record refuses it


def test_cancel_midway_returns_nothing(tmp_path):
    path = tmp_path / "big.log"
    path.write_bytes((GEN / "a_ptxas_v.log").read_bytes() * 400)
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(ImportCancelled), path.open("rb") as fh:
        parse_stream(fh, "big.log", path.stat().st_size, cancel=cancel, chunk_size=4096)
    assert len(calls) == 3
    seen = []
    with path.open("rb") as fh:
        parse_stream(
            fh, "big.log", path.stat().st_size, chunk_size=4096, progress=lambda done, total: seen.append(done)
        )
    assert seen == sorted(seen) and seen[-1] == path.stat().st_size and len(seen) > 10


def test_gc_state_is_restored():
    import gc

    assert gc.isenabled()
    parse_bytes((GEN / "a_ptxas_v.log").read_bytes())
    assert gc.isenabled()
    gc.disable()
    try:
        parse_bytes((GEN / "a_ptxas_v.log").read_bytes())
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    "target,smem,want",
    [
        ("sm_90", 2048, (1024, 1024)),  # the window counted in nvlink's figure
        ("sm_90a", 1024, (0, 1024)),
        ("sm_100", 1024, (1024, 1024)),  # not counted, though the linked section starts with it
        ("sm_121f", 0, (0, 0)),  # an empty section has no window
        ("sm_80", 1024, (1024, 0)),
    ],
)
def test_nvlink_smem_is_split_as_the_linked_image_says(target, smem, want):
    """After an ``-rdc`` unit whose ptxas figure leaves out its file-scope ``__shared__`` variables (0 here)."""
    log = (
        f"ptxas info    : Compiling entry function 'k' for '{target}'\n"
        "ptxas info    : Function properties for k\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 12 registers\n"
        f"nvlink info    : Function properties for 'k': (target: {target})\n"
        f"nvlink info    : used 12 registers, used 1 barriers, 0 stack, {smem} bytes smem, 0 bytes lmem "
        f"(target: {target})\n"
    ).encode()
    (rec,) = parse_bytes(log)
    assert (rec.static_smem, rec.reserved_smem) == want
