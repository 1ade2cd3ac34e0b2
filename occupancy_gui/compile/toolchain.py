"""Where the CUDA compilers are: ``--cuda-bin DIR``, the ``CUDA_HOME`` / ``CUDA_PATH`` toolkit, ``PATH``,
or the pip wheel ``nvidia-cuda-nvcc`` (``pip install 'occupancy_gui[compile]'``), in that order."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

HOW_TO_GET = (
    "pass --cuda-bin DIR, set CUDA_HOME to a CUDA toolkit, put its bin folder on PATH, "
    "or pip install 'occupancy_gui[compile]'"
)


class CompilerNotFound(LookupError):
    """No ``ptxas`` / ``nvcc``; the message is one line saying how to get one."""


def _exe(name: str) -> str:
    return name + (".exe" if sys.platform == "win32" else "")


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _wheel_bins() -> list[Path]:
    """``nvidia/cu*/bin`` folders of the pip CUDA wheels importable from this Python."""
    found = []
    for entry in sys.path:
        base = Path(entry or ".") / "nvidia"
        if base.is_dir():
            found += sorted(base.glob("cu*/bin"), reverse=True)  # cu13 before cu12
            found += [p for p in (base / "cuda_nvcc" / "bin",) if p.is_dir()]  # the CUDA 12 wheel's layout
    return found


def find_tool(name: str, cuda_bin: str | os.PathLike[str] | None = None) -> Path:
    """The ``name`` executable (``ptxas`` or ``nvcc``), looked for in the documented order."""
    exe = _exe(name)
    if cuda_bin is not None:
        candidate = Path(cuda_bin) / exe
        if _runnable(candidate):
            return candidate
        raise CompilerNotFound(f"{name} not found in --cuda-bin {os.fspath(cuda_bin)}")
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if home and _runnable(Path(home) / "bin" / exe):
            return Path(home) / "bin" / exe
    on_path = shutil.which(name)
    if on_path:
        return Path(on_path)
    for folder in _wheel_bins():
        if _runnable(folder / exe):
            return folder / exe
    raise CompilerNotFound(f"{name} not found: {HOW_TO_GET}")


@functools.lru_cache(maxsize=16)
def tool_version(tool: Path) -> str:
    """The compiler's own version line (``Cuda compilation tools, release 13.5, V13.5.37``): part of
    every cached result's key, so a new toolkit recompiles."""
    try:
        proc = subprocess.run([str(tool), "--version"], check=False, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CompilerNotFound(f"{tool}: cannot run: {exc}") from None
    lines = [line.strip() for line in proc.stdout.splitlines() if "release" in line or line.startswith("Build")]
    return " ".join(lines) or proc.stdout.strip()[-200:]


@functools.lru_cache(maxsize=16)
def supported_archs(tool: Path) -> tuple[str, ...]:
    """The real architectures the toolkit of ``tool`` compiles for (``sm_75``, ``sm_80``, ...), lowest first, from
    ``nvcc --list-gpu-code`` beside it; empty where there is no nvcc there to ask (a bare ptxas)."""
    nvcc = tool.with_name(_exe("nvcc"))
    if not _runnable(nvcc):
        return ()
    try:
        proc = subprocess.run([str(nvcc), "--list-gpu-code"], check=False, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    found = {line.strip() for line in proc.stdout.splitlines() if line.strip().startswith("sm_")}
    return tuple(sorted(found, key=_arch_key))


def _arch_key(arch: str) -> tuple[int, str]:
    digits = "".join(ch for ch in arch[3:] if ch.isdigit())
    return (int(digits or 0), arch)
