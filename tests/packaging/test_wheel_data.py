"""The wheel carries the top-level resources/ and device_profiles/ as occupancy_gui/_data/ (hatchling's
``sources`` mapping in pyproject.toml, no custom build command), ``paths.data_dir`` finds them there as
it finds them in a checkout, and the build backend says nothing to warn about."""

from __future__ import annotations

import email.parser
import importlib
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_checkout_data_dirs_resolve() -> None:
    from occupancy_gui.paths import data_dir

    assert (data_dir("device_profiles") / "sm_90.yaml").is_file()
    assert data_dir("resources").is_dir()


def test_wheel_contains_data_and_paths_resolve_from_it(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    wheel = next(tmp_path.glob("occupancy_gui-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    profiles = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "device_profiles").rglob("*.yaml"))
    assert any("/amd/" in name for name in profiles)  # the AMD profiles' sub-folder travels too
    assert all(f"occupancy_gui/_data/{name}" in names for name in profiles)
    resources = [p.relative_to(ROOT).as_posix() for p in (ROOT / "resources").rglob("*") if p.is_file()]
    assert all(f"occupancy_gui/_data/{r}" in names for r in resources)
    # Only the package and its data: no top-level folder of the checkout rides along.
    assert {name.split("/")[0] for name in names} == {"occupancy_gui", "occupancy_gui-0.1.0.dist-info"}
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import occupancy_gui.paths as p; d = p.data_dir('device_profiles'); "
        "assert '_data' in str(d), d; assert (d / 'sm_90.yaml').is_file(); print(d)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env={"PYTHONPATH": str(site)}, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr


def _build(kind: str, out: Path, source: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the project's build backend (named by pyproject.toml, as any frontend finds it) in a child
    process with every warning shown; ``kind`` is "wheel", "sdist" or "editable"."""
    code = (
        "import importlib, sys, tomllib\n"
        "with open('pyproject.toml', 'rb') as f:\n"
        "    backend = tomllib.load(f)['build-system']['build-backend']\n"
        f"print(getattr(importlib.import_module(backend), 'build_{kind}')(sys.argv[1]))\n"
    )
    return subprocess.run(
        [sys.executable, "-W", "default", "-c", code, str(out)], cwd=source, capture_output=True, text=True
    )


def test_builds_print_no_warning(tmp_path: Path) -> None:
    """A wheel, an sdist and an editable build print no warning of any kind (setuptools warned on every
    build of the SPDX-less ``license = {text = ...}``); the wheel names its licence as SPDX MIT and
    carries LICENSE."""
    for kind in ("wheel", "sdist", "editable"):
        proc = _build(kind, tmp_path / kind)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, output
        assert "warn" not in output.lower(), f"the {kind} build warned:\n{output}"
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        meta = email.parser.Parser().parsestr(zf.read("occupancy_gui-0.1.0.dist-info/METADATA").decode())
        assert zf.read("occupancy_gui-0.1.0.dist-info/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert meta["License"] is None  # the deprecated free-text field is gone
    assert "Copyright (c) 2026 The occupancy_gui authors" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_sdist_builds_the_same_wheel(tmp_path: Path) -> None:
    """The sdist holds what the wheel needs (the data folders at its top, LICENSE, README.md), and the wheel
    built from it has the same files as the one built from the checkout."""
    import tarfile

    assert _build("sdist", tmp_path).returncode == 0
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:  # the "data" filter where this Python has it (3.11.4 on; Debian 12: 3.11.2)
        tar.extractall(tmp_path / "unpacked", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    (source,) = (tmp_path / "unpacked").iterdir()
    assert {p.name for p in source.iterdir()} >= {
        "occupancy_gui",
        "resources",
        "device_profiles",
        "LICENSE",
        "README.md",
        "CHANGELOG.md",
        "pyproject.toml",
    }
    assert not (source / "tests").exists()
    assert _build("wheel", tmp_path / "from-sdist", source).returncode == 0
    assert _build("wheel", tmp_path / "from-checkout").returncode == 0
    listings = [
        sorted(zipfile.ZipFile(next((tmp_path / d).glob("*.whl"))).namelist()) for d in ("from-sdist", "from-checkout")
    ]
    assert listings[0] == listings[1]


def test_editable_install_is_a_path_to_the_checkout(tmp_path: Path) -> None:
    """An editable wheel is one .pth naming the checkout (where paths.py finds the data folders) and the
    metadata: no copy of the data folders that edits in the checkout would not reach."""
    assert _build("editable", tmp_path).returncode == 0
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        payload = [n for n in zf.namelist() if not n.startswith("occupancy_gui-0.1.0.dist-info/")]
        assert payload == ["_occupancy_gui.pth"]
        assert Path(zf.read("_occupancy_gui.pth").decode().strip()) == ROOT


def test_build_backend_is_pinned_and_importable() -> None:
    """The backend is pinned exactly, and the test extra pins the same one (the no-isolation build above
    uses the installed copy)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (requirement,) = config["build-system"]["requires"]
    name, _, version = requirement.partition("==")
    assert version, f"the build backend is not pinned exactly: {requirement}"
    assert requirement in config["project"]["optional-dependencies"]["test"]
    from importlib.metadata import version as installed

    assert installed(name) == version
    importlib.import_module(config["build-system"]["build-backend"])
    assert not (ROOT / "setup.py").exists() and not (ROOT / "MANIFEST.in").exists()
