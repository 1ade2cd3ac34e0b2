"""Triton / torch inductor / CuPy caches: real ``triton.compile`` output, checked against cuobjdump and ``calc``.

The committed cache (tests/data/importers/triton/cache) was written by ``make_fixtures.py`` with
Triton 3.9.0, no GPU; ``test_fresh_cache_built_now`` writes another one at test time where Triton is
installed (``pip install -e '.[test]'`` pins it), and ``test_older_triton_caches_read_alike`` one with
each of Triton 3.0.0, 3.2.0, 3.5.1 and 3.8.0, fetched from their wheels at test time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occupancy_gui.cli.devices import load_catalog
from occupancy_gui.cli.main import main as cli_main
from occupancy_gui.importers import ImportFailure, detect_format, import_file
from occupancy_gui.importers.json_rows import record_json
from occupancy_gui.importers.text.cuobjdump_text import parse_text
from occupancy_gui.record_launch import record_inputs
from occupancy_gui.session import Session
from tests.helpers import toolchains

from .conftest import DATA

TRITON = DATA / "triton"
CACHE = TRITON / "cache"
FOLDERS = sorted(p for p in CACHE.iterdir() if p.is_dir())


def _meta(folder: Path) -> dict:
    (path,) = folder.glob("*.json")
    return json.loads(path.read_text())


def _cuobjdump_records(cubin: Path, arch: str) -> dict:
    """cuobjdump's figures; a bare cubin's dump names no arch, so ``arch`` splits off sm_90+'s 1 KiB."""
    out = toolchains.run([toolchains.cuobjdump(), "--dump-resource-usage", cubin]).stdout
    return {r.name: r for r in parse_text(out, "cuobjdump", default_arch=arch)}


def _device_of(arch: str) -> str:
    return arch.rstrip("af")


def test_fixture_cache_covers_archs_warps_stages():
    metas = [_meta(f) for f in FOLDERS]
    assert {m["target"]["arch"] for m in metas} >= {80, 90, 120}
    assert len({m["num_warps"] for m in metas}) >= 3 and len({m["num_stages"] for m in metas}) >= 3
    assert any(m["shared"] > 48 << 10 for m in metas) and any(m["maxnreg"] for m in metas)


def test_cache_root_lists_every_kernel_folder():
    records = import_file(CACHE)
    assert len(records) == len(FOLDERS)
    assert {Path(r.launch_source).parent.name for r in records} == {f.name for f in FOLDERS}


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name[:8])
def test_record_matches_cuobjdump_and_json(folder):
    meta = _meta(folder)
    (rec,) = import_file(folder)  # one kernel folder
    cubin = folder / f"{meta['name']}.cubin"
    ref = _cuobjdump_records(cubin, f"sm_{meta['target']['arch']}")[meta["name"]]
    assert (rec.name, rec.registers, rec.static_smem) == (ref.name, ref.registers, ref.static_smem)
    assert rec.reserved_smem == ref.reserved_smem
    assert rec.arch_number == meta["target"]["arch"]  # cuobjdump names no arch for a bare cubin
    data = record_json(rec)
    assert data["threads_per_block"] == meta["num_warps"] * meta["warp_size"]
    assert data["dynamic_smem"] == meta["shared"]
    assert data["launch_source"].endswith(f"{folder.name}/{meta['name']}.json")
    if meta["maxnreg"]:
        assert rec.max_registers == meta["maxnreg"] and rec.registers <= meta["maxnreg"]
    # The same record from the NAME.json path alone.
    (again,) = import_file(folder / f"{meta['name']}.json")
    assert record_json(again) == {**data, "source": again.source, "launch_source": again.launch_source}


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name[:8])
def test_selected_record_occupancy_equals_calc(folder, capsys):
    """The inputs a record sets (every one of them) give the occupancy ``occupancy calc`` gives for the
    launch the JSON describes, read independently here."""
    meta = _meta(folder)
    (rec,) = import_file(folder)
    catalog = load_catalog()
    device = _device_of(rec.arch)
    profile = catalog.get(device)
    inputs = record_inputs(rec, profile.device_properties(), 256)  # a recorded launch: threads from the JSON
    session = Session(catalog, device=device, **inputs)
    assert session.result is not None, session.error
    threads = meta["num_warps"] * meta["warp_size"]
    argv = [
        "calc",
        "--device",
        device,
        "--threads",
        str(threads),
        "--registers",
        str(rec.registers),
        "--static-smem",
        str(rec.static_smem),
        "--dynamic-smem",
        str(meta["shared"]),
        "--barriers",
        str(rec.barriers),
        "--json",
    ]
    if meta["shared"] > 48 << 10:  # Triton's launcher: opt-in limit minus static, prefer shared
        optin = profile.device_properties().shared_mem_per_block_optin
        argv += ["--max-dynamic-smem", str(optin - rec.static_smem), "--cache-config", "shared"]
    assert cli_main(argv) == 0
    expected = json.loads(capsys.readouterr().out)
    assert session.inputs.threads == threads and session.inputs.dynamic_smem == meta["shared"]
    assert session.result.active_blocks == expected["active_blocks"]
    assert session.result.occupancy == expected["occupancy"]


def test_cli_import_json_carries_launch(capsys):
    assert cli_main(["import", "--json", str(CACHE)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == len(FOLDERS)
    assert all(isinstance(r["threads_per_block"], int) and r["launch_source"] for r in rows)


def test_cubin_alone_has_no_launch(capsys):
    folder = FOLDERS[0]
    (cubin,) = folder.glob("*.cubin")
    data = record_json(import_file(cubin)[0])
    assert (data["threads_per_block"], data["dynamic_smem"], data["launch_source"]) == (None, None, None)


def test_inductor_layout_and_other_json_files(tmp_path):
    # torch inductor: <cache>/triton/<device index>/<hash>/NAME.{json,cubin}, beside its own files.
    dst = tmp_path / "torchinductor_user" / "triton" / "0"
    shutil.copytree(CACHE, dst)
    (tmp_path / "torchinductor_user" / "fxgraph.json").write_text('{"not": "triton"}')
    (dst / "__grp__x.json").write_text('{"child_paths": {}}')
    records = import_file(tmp_path / "torchinductor_user")
    assert len(records) == len(FOLDERS)


def test_cupy_cache_files_read_by_content(tmp_path):
    cubin = next(CACHE.glob("*/add_kernel.cubin")).read_bytes()
    sha1 = tmp_path / "0123abcd_2.cubin"
    sha1.write_bytes(hashlib.sha1(cubin).hexdigest().encode() + cubin)
    md5 = tmp_path / "whatever-name.bin"
    md5.write_bytes(hashlib.md5(cubin).hexdigest().encode() + cubin)
    assert detect_format(md5, md5.read_bytes()[:100]) == "jit_cache"
    for path in (sha1, md5):
        (rec,) = import_file(path)
        assert rec.name == "add_kernel" and rec.registers > 0 and rec.block_size is None
    assert len(import_file(tmp_path)) == 1  # the folder: the .cubin one (the .bin is not scanned)
    bad = tmp_path / "bad.cubin"
    bad.write_bytes(b"0" * 40 + cubin)
    with pytest.raises(ImportFailure, match=r"bad\.cubin: at byte 0 .*sha1 digest .* does not match"):
        import_file(bad)


def test_bad_metadata_is_one_line(tmp_path):
    folder = tmp_path / "k"
    shutil.copytree(FOLDERS[0], folder)
    (meta,) = folder.glob("*.json")
    text = json.loads(meta.read_text())
    meta.write_text(json.dumps({**text, "num_warps": "four"}))
    with pytest.raises(ImportFailure, match=r"field 'num_warps': expected an integer >= 1, got 'four'"):
        import_file(folder)
    meta.write_text(json.dumps({**text, "num_warps": 64}))
    with pytest.raises(ImportFailure, match=r"64 warps of 32 threads is above CUDA's 1024"):
        import_file(meta)
    meta.write_text(json.dumps({**text, "shared": 1 << 40}))
    with pytest.raises(ImportFailure, match=r"field 'shared'"):
        import_file(meta)
    meta.write_text('{"num_warps": 4, "name": ' + "[" * 100000 + "]" * 100000 + "}")  # too deep for json
    with pytest.raises(ImportFailure, match="invalid JSON"):
        import_file(folder)
    meta.write_text('{"name": "x", "num_warps": 4,')
    with pytest.raises(ImportFailure, match=r"\.json:1: invalid JSON"):
        import_file(meta)
    (folder / f"{text['name']}.cubin").unlink()
    meta.write_text(json.dumps(text))
    with pytest.raises(ImportFailure, match=r"no \w+\.cubin beside it"):
        import_file(meta)
    with pytest.raises(ImportFailure, match="a directory with no Triton kernel folders"):
        import_file(tmp_path / "k")


def test_cluster_from_num_ctas_and_cluster_dims(tmp_path):
    from occupancy_gui.importers.jit.triton_cache import triton_launch

    base = {"name": "k", "num_warps": 4, "warp_size": 32, "shared": 0}
    assert triton_launch({**base, "num_ctas": 2}, "x")["cluster_dims"] == (2, 1, 1)
    assert triton_launch({**base, "cluster_dims": [1, 2, 1]}, "x")["cluster_dims"] == (1, 2, 1)
    assert "cluster_dims" not in triton_launch({**base, "num_ctas": 1, "cluster_dims": [1, 1, 1]}, "x")


def _built_and_checked(tmp_path: Path, builds: list, env: dict[str, str] | None = None) -> tuple[dict, str]:
    """``builds`` compiled into a fresh cache by ``make_fixtures`` in a child process (Triton stays out of
    this one; ``env`` picks which Triton), each kernel checked against cuobjdump and its metadata; the
    records by name and the child's last line of output (the Triton version it printed)."""
    script = (
        "import json, sys, triton; sys.path.insert(0, sys.argv[1]); from make_fixtures import build_cache; "
        "from pathlib import Path; build_cache(Path(sys.argv[2]), [tuple(b) for b in json.loads(sys.argv[3])]); "
        "print(triton.__version__)"
    )
    ran = toolchains.run([sys.executable, "-c", script, TRITON, tmp_path / "cache", json.dumps(builds)], env=env)
    folders = sorted(p for p in (tmp_path / "cache").iterdir() if p.is_dir())
    assert len(folders) == len(builds)
    records = {r.name: r for r in import_file(tmp_path / "cache")}
    for folder in folders:
        meta = _meta(folder)
        rec = records[meta["name"]]
        ref = _cuobjdump_records(folder / f"{meta['name']}.cubin", rec.arch)[meta["name"]]
        assert (rec.registers, rec.static_smem) == (ref.registers, ref.static_smem)
        assert rec.block_size == meta["num_warps"] * 32 and rec.dynamic_smem == meta["shared"]
    return records, ran.stdout.split()[-1]


@pytest.mark.skipif(
    importlib.util.find_spec("triton") is None, reason="triton not installed (pip install -e '.[test]')"
)
def test_fresh_cache_built_now(tmp_path):
    """A cache written now by the installed Triton reads like the committed one, checked with cuobjdump."""
    builds = [
        ["add_kernel", 90, {"num_warps": 8, "num_stages": 2}],
        ["matmul_kernel", 80, {"num_warps": 2, "num_stages": 3}],
    ]
    records, _ = _built_and_checked(tmp_path, builds)
    assert records["add_kernel"].block_size == 256 and records["matmul_kernel"].block_size == 64


OLDER_TRITON = ("3.0.0", "3.2.0", "3.5.1", "3.8.0")
"""Releases older than the pinned one, whose caches users still have (torch 2.4-2.6 bring 3.0-3.2:
``cluster_dims`` written for every kernel, ``num_ctas`` beside it).  3.1.0, 3.3.1, 3.4.0, 3.6.0 and 3.7.1
passed the same test by hand (each wheel is 0.5-0.9 GB unpacked)."""


@pytest.mark.slow
@pytest.mark.parametrize("version", OLDER_TRITON)
def test_older_triton_caches_read_alike(tmp_path, version):
    """A cache written by an older Triton (its wheel fetched at test time, run in a child process):
    each kernel's registers are cuobjdump's, its launch its metadata's, a two-CTA build a cluster."""
    site = toolchains.wheel_tree(f"triton=={version}")
    builds = [["add_kernel", 90, {"num_warps": 4, "num_ctas": 2}], ["transpose_kernel", 80, {"num_warps": 8}]]
    records, wrote = _built_and_checked(tmp_path, builds, env={**os.environ, "PYTHONPATH": str(site)})
    assert wrote == version  # that release wrote it, not the installed one
    assert records["add_kernel"].cluster_dims == (2, 1, 1) and records["transpose_kernel"].cluster_dims is None
    assert records["transpose_kernel"].dynamic_smem > 48 << 10  # the layout change goes through shared memory


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.text(max_size=5),
    st.lists(st.integers(-3, 5), max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers()),
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["num_warps", "warp_size", "shared", "num_ctas", "cluster_dims", "maxnreg", "target"]), _VALUES
    )
)
def test_any_metadata_gives_a_launch_or_one_line(meta):
    from occupancy_gui.importers.jit.triton_cache import triton_launch

    try:
        launch = triton_launch(meta, "k.json")
    except ImportFailure as exc:
        assert "\n" not in str(exc) and str(exc).startswith("k.json: ")
    else:
        assert 1 <= launch["block_size"] <= 1024 and 0 <= launch["dynamic_smem"] < 2**31


def test_nsight_compute_rows_name_their_launch_source():
    rows = [record_json(r) for r in import_file(DATA / "ncu" / "details_launchstats_occupancy.csv")]
    assert rows and all(r["threads_per_block"] is not None for r in rows)
    assert all(r["launch_source"].startswith("details_launchstats_occupancy.csv:") for r in rows)
