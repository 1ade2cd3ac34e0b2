"""The installer: ``occupancy-gui --self-test`` from source, and (opt-in) the packages end to end.

With ``OCCUPANCY_GUI_TEST_INSTALLER=1`` (as root, as CI runs), ``packaging/check_deb.sh`` builds the
bundle, .deb, .rpm and .tar.gz in a Debian 11 root and installs, runs and removes the .deb and the
tarball in fresh Debian 11, 12 and 13 roots; the tests after it read the packages it built: the
glibc floor of every ELF file against the .deb's Depends, and the .rpm's file list, desktop files,
scripts and Requires against the .deb's.  Timings (2 cores): see docs/installer.md.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALLER_ENV = "OCCUPANCY_GUI_TEST_INSTALLER"
DIST = ROOT / "dist"
GLIBC_FLOOR = (2, 31)  # Debian 11, Ubuntu 20.04: the oldest glibc the packages promise
SUITES = ("bullseye", "bookworm", "trixie")


def _headless_env() -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def test_self_test_from_source() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "occupancy_gui", "--self-test"],
        cwd=ROOT,
        env=_headless_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "self-test passed (source)" in proc.stdout
    assert "4 blocks/SM, 50%, registers" in proc.stdout


def test_self_test_failure_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken bundled profile makes the self-test return 1 with exactly one line on stderr
    (it fails before any Qt object is made)."""
    import occupancy_gui.paths
    from occupancy_gui.ui import self_test

    (tmp_path / "broken.yaml").write_text("schema: 1\nname: broken\nkind: nonsense\n", encoding="utf-8")
    monkeypatch.setattr(occupancy_gui.paths, "data_dir", lambda name: tmp_path)

    class NoWindow:  # the profiles check fails first: no window may be built
        def create(self, argv: list[str]) -> object:
            raise AssertionError("the window was built after a failed check")

        def screenshot(self, window: object, path: Path) -> None:
            raise AssertionError("the window was rendered after a failed check")

    assert self_test.run(NoWindow()) == 1
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("occupancy-gui: self-test failed: bundled profile"), captured.err
    assert captured.out == ""


installer = pytest.mark.skipif(
    os.environ.get(INSTALLER_ENV) != "1",
    reason="installer check needs OCCUPANCY_GUI_TEST_INSTALLER=1 (slow, root)",
)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _is_elf(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(4) == b"\x7fELF"


def _glibc_needed(tree: Path) -> tuple[int, ...]:
    """The newest GLIBC_x.y symbol version any ELF file under tree imports."""
    elves = [str(p) for p in tree.rglob("*") if p.is_file() and not p.is_symlink() and _is_elf(p)]
    assert elves, f"no ELF files under {tree}"
    out = subprocess.run(["objdump", "-T", *elves], capture_output=True, text=True, check=False).stdout
    versions = {_version(v) for v in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", out)}
    return max(versions)


def _only(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    assert len(found) == 1, f"expected one dist/{pattern}, found {[p.name for p in found]}"
    return found[0]


@pytest.fixture(scope="module")
def check_output() -> str:
    """Run packaging/check_deb.sh once (build included) and return its output."""
    if sys.platform != "linux" or shutil.which("dpkg-deb") is None or shutil.which("apt-get") is None:
        pytest.skip("the installer check needs a Debian-family Linux with dpkg-deb and apt-get")
    if os.geteuid() != 0:
        pytest.fail(f"{INSTALLER_ENV}=1 but not running as root: the check makes debootstrap roots")
    proc = subprocess.run(
        ["bash", str(ROOT / "packaging" / "check_deb.sh")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60 * 60,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-8000:]
    return proc.stdout


@pytest.mark.slow
@installer
def test_packages_install_run_and_uninstall_on_debian_11_12_13(check_output: str) -> None:
    assert f"check_deb: PASSED ({' '.join(SUITES)})" in check_output
    for suite in SUITES:
        assert f"{suite}: passed in" in check_output
    assert check_output.count("nothing left: the root's") == len(SUITES)
    assert check_output.count("~/.local holds nothing of ours after --uninstall") == len(SUITES)


@pytest.mark.slow
@installer
def test_glibc_floor_of_deb_and_tarball(check_output: str, tmp_path: Path) -> None:
    deb = _only("occupancy-gui_*.deb")
    depends = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends"], capture_output=True, text=True, check=True).stdout
    match = re.search(r"libc6 \(>= (\d+\.\d+)\)", depends)
    assert match, depends
    subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp_path / "deb")], check=True)
    needed = _glibc_needed(tmp_path / "deb" / "opt" / "occupancy-gui")
    assert needed <= GLIBC_FLOOR, f"the .deb's files need glibc {needed}"
    assert _version(match.group(1)) == needed, f"Depends says libc6 >= {match.group(1)}, the files need {needed}"
    assert f"bundle needs glibc >= {match.group(1)}," in check_output

    tarball = _only("occupancy-gui-*-linux-*.tar.gz")
    (tmp_path / "tar").mkdir()
    subprocess.run(["tar", "-C", str(tmp_path / "tar"), "-xzf", str(tarball)], check=True)
    (bundle,) = (tmp_path / "tar").iterdir()
    assert _glibc_needed(bundle) == needed


def _rpm_query(rpm: Path, *args: str) -> list[str]:
    proc = subprocess.run(["rpm", "-qp", *args, str(rpm)], capture_output=True, text=True, check=True)
    return proc.stdout.splitlines()


@pytest.mark.slow
@installer
def test_rpm_has_the_debs_files_desktop_entry_and_requires(check_output: str, tmp_path: Path) -> None:
    rpm, deb = _only("occupancy-gui-*.rpm"), _only("occupancy-gui_*.deb")
    listing = _rpm_query(rpm, "--qf", "[%{FILEMODES:perms} %{FILENAMES}\n]")
    rpm_files = {line.split(" ", 1)[1] for line in listing if not line.startswith("d")}
    deb_listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    # "perms owner size date time ./path[ -> target]"; names may hold spaces (pyqtgraph's licence files).
    deb_files = {
        line.split(None, 5)[5].split(" -> ")[0].removeprefix(".")
        for line in deb_listing.splitlines()
        if not line.startswith("d")
    }
    assert rpm_files == deb_files, (sorted(rpm_files ^ deb_files))[:20]
    share = "/usr/share"
    for path in (
        "/usr/bin/occupancy-gui",
        "/usr/bin/occupancy",
        "/opt/occupancy-gui/occupancy-gui",
        f"{share}/applications/occupancy-gui.desktop",
        f"{share}/mime/packages/occupancy-gui.xml",
        f"{share}/icons/hicolor/scalable/apps/occupancy-gui.svg",
        f"{share}/icons/hicolor/256x256/apps/occupancy-gui.png",
    ):
        assert path in rpm_files, path

    # The desktop entry and MIME types are byte for byte the ones in packaging/linux.
    with rpm.open("rb") as package:
        payload = subprocess.run(["rpm2archive", "-"], stdin=package, capture_output=True, check=True).stdout
    linux = ROOT / "packaging" / "linux"
    with tarfile.open(fileobj=io.BytesIO(payload)) as tar:
        members = {m.name.lstrip("./"): m for m in tar.getmembers()}
        for member, source in (
            (f"{share}/applications/occupancy-gui.desktop", "occupancy-gui.desktop"),
            (f"{share}/mime/packages/occupancy-gui.xml", "occupancy-gui-mime.xml"),
        ):
            extracted = tar.extractfile(members[member.lstrip("/")])
            assert extracted is not None, member
            assert extracted.read() == (linux / source).read_bytes(), member

    scripts = "\n".join(_rpm_query(rpm, "--scripts"))
    assert "update-mime-database" in scripts and "update-desktop-database" in scripts

    # Requires: system libraries only (none the bundle carries), glibc no newer than the floor.
    requires = _rpm_query(rpm, "--requires")
    subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp_path / "deb")], check=True)
    bundled = {p.name for p in (tmp_path / "deb" / "opt").rglob("*.so*")}
    sonames = {r.split("(")[0] for r in requires if ".so" in r}
    assert "libc.so.6" in sonames and "libGL.so.1" in sonames, requires
    assert not sonames & bundled, sorted(sonames & bundled)
    glibc = [_version(v) for r in requires for v in re.findall(r"^libc\.so\.6\(GLIBC_(\d+(?:\.\d+)+)\)", r)]
    assert glibc and max(glibc) <= GLIBC_FLOOR, requires
    # Provides: the package itself only, never the bundle's private sonames.
    provides = _rpm_query(rpm, "--provides")
    assert not [p for p in provides if ".so" in p], provides
