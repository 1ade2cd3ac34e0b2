"""Compiles Triton kernels for HIP targets into a fresh Triton cache, no GPU needed (run in a child process).

    python -m tests.importers.amd.triton_build OUT_DIR '[["add_kernel", "gfx942", 64, {"num_warps": 4}], ...]'

The kernels are those of the NVIDIA cache fixtures (``tests/data/importers/triton/make_fixtures.py``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "data" / "importers" / "triton"))


def build(out: Path, builds: list) -> None:
    os.environ["TRITON_CACHE_DIR"] = str(out)
    os.environ["TRITON_DEFAULT_FP_FUSION"] = "1"
    from make_fixtures import _kernels, _source
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler import compile as triton_compile

    kernels = _kernels()
    for name, arch, warp_size, options in builds:
        fn, signature, constexprs = kernels[name]
        triton_compile(
            _source(ASTSource, fn, signature, constexprs),
            target=GPUTarget("hip", arch, warp_size),
            options=dict(options),
        )


if __name__ == "__main__":
    build(Path(sys.argv[1]), json.loads(sys.argv[2]))
