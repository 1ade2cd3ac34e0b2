"""README's two set-up commands work on a fresh Debian machine exactly as written.

Always: each command updates apt's package lists before installing, and its apt steps run through sudo
where sudo is installed and straight where it is not (the command's own text run by ``sh`` and ``bash``
against stand-in ``apt-get`` and ``sudo`` programs that log their calls).  With
``OCCUPANCY_GUI_TEST_INSTALLER=1`` (as root, as CI runs): ``packaging/check_readme_commands.sh`` runs
both commands in fresh Debian 12 debootstrap roots, as root without sudo and as a user with sudo.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALLER_ENV = "OCCUPANCY_GUI_TEST_INSTALLER"
SUDO = "$(command -v sudo)"


def readme_block(marker: str) -> str:
    """The ``sh`` block after ``<!-- marker -->`` in README.md (as .ci/run and the check script read it)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(f"<!-- {marker} -->")
    assert lines[start + 1] == "```sh", f"no ```sh block after <!-- {marker} -->"
    end = lines.index("```", start + 2)
    return "\n".join(lines[start + 2 : end])


COMMANDS = ("app-command", "test-command")


@pytest.mark.parametrize("marker", COMMANDS)
def test_command_updates_the_package_lists_first(marker: str) -> None:
    command = readme_block(marker)
    assert "\n" not in command, "one command, one line"
    steps = command.split(" && ")
    assert steps[0] == f"{SUDO} apt-get update", steps[0]
    assert steps[1].startswith(f"{SUDO} apt-get install -y "), steps[1]
    assert not re.search(r"\bsudo\b", command.replace(SUDO, "")), "a bare sudo: absent when root in a container"


def _run_apt_steps(tmp_path: Path, marker: str, shell: str, with_sudo: bool) -> list[str]:
    """Run a README command's apt steps (the rest is cut off) with stand-ins on PATH; return their log."""
    bin_dir = tmp_path / f"bin-{shell}-{with_sudo}"
    bin_dir.mkdir()
    log = tmp_path / f"log-{shell}-{with_sudo}"
    stand_ins = {"apt-get": f'echo "apt-get $*" >> {log}\n'}
    if with_sudo:
        stand_ins["sudo"] = f'echo "sudo $1" >> {log}\nexec "$@"\n'
    for name, body in stand_ins.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}", encoding="utf-8")
        (bin_dir / name).chmod(0o755)
    apt_steps = " && ".join(s for s in readme_block(marker).split(" && ") if "apt-get" in s)
    # PATH holds only the stand-ins: no real sudo or apt-get can be reached.
    shell_path = shutil.which(shell)
    assert shell_path, shell
    proc = subprocess.run([shell_path, "-c", apt_steps], env={"PATH": str(bin_dir)}, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return log.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("marker", COMMANDS)
@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_apt_steps_use_sudo_only_where_it_exists(tmp_path: Path, marker: str, shell: str) -> None:
    as_root = _run_apt_steps(tmp_path, marker, shell, with_sudo=False)
    assert [line.split()[:2] for line in as_root] == [["apt-get", "update"], ["apt-get", "install"]]
    with_sudo = _run_apt_steps(tmp_path, marker, shell, with_sudo=True)
    assert [line.split()[:2] for line in with_sudo] == [
        ["sudo", "apt-get"],
        ["apt-get", "update"],
        ["sudo", "apt-get"],
        ["apt-get", "install"],
    ]


def test_ci_runs_the_readme_test_command_without_preparing_apt() -> None:
    """.ci/run evaluates README's test command and neither updates apt's lists nor stands in for sudo, so
    CI exercises the command as a fresh machine would."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "<!-- test-command -->" in ci
    code = [line for line in ci.splitlines() if not line.lstrip().startswith("#")]
    assert not [line for line in code if "apt-get" in line or re.search(r"\bsudo\b", line)], "CI prepares apt itself"


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get(INSTALLER_ENV) != "1",
    reason=f"the fresh-Debian check of README's commands needs {INSTALLER_ENV}=1 (slow, root)",
)
def test_readme_commands_on_a_fresh_debian_12() -> None:
    if shutil.which("apt-get") is None or shutil.which("chroot") is None:
        pytest.skip("the check needs a Debian-family Linux (apt-get, chroot) to make debootstrap roots")
    if os.geteuid() != 0:
        pytest.fail(f"{INSTALLER_ENV}=1 but not running as root: the check makes debootstrap roots")
    # Its own session, so a time-out stops the script and everything it started; SIGTERM first, so its
    # trap stops the command running in a root and deletes the roots.
    proc = subprocess.Popen(
        ["bash", str(ROOT / "packaging" / "check_readme_commands.sh"), "bookworm"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=75 * 60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            output, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
        pytest.fail(f"check_readme_commands.sh ran over 75 minutes:\n{output[-6000:]}")
    assert proc.returncode == 0, output[-8000:]
    assert "check_readme_commands: PASSED (bookworm)" in output
    for line in (
        "app command as root without sudo: exit 0",
        "test command's apt part as root without sudo: exit 0",
        "test command as a user with sudo: exit 0",
        "app command as a user with sudo: exit 0",
    ):
        assert f"readme: {line}" in output, line
    assert not list((ROOT / "build").glob("readme-check.*")), "the check left a working root behind"
