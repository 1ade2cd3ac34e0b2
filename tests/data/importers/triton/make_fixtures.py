"""Writes the committed Triton cache fixtures: real ``triton.compile`` output, no GPU needed.

    python tests/data/importers/triton/make_fixtures.py [OUT_DIR]

OUT_DIR (default: ``cache`` beside this file) becomes a ``TRITON_CACHE_DIR``: one folder per compiled
kernel.  Only each kernel's ``NAME.json``, ``NAME.cubin`` and ``NAME.ptx`` are kept (the IR stages are
large and nothing reads them; the matmuls' PTX is dropped too).  The same function, :func:`build_cache`,
makes a fresh cache at test time (in a child process).
"""

# ruff: noqa: N803 - Triton's constexpr parameters are spelt in capitals (BLOCK, BM), as Triton's own examples do

from __future__ import annotations

import os
import sys
from pathlib import Path

KEEP = (".json", ".cubin", ".ptx")
PTX_DROPPED = ("matmul_kernel",)  # its PTX is large and the PTX tests have the other kernels

# (kernel, arch, options): a few archs, num_warps / num_stages, a register cap and a two-CTA cluster.
BUILDS = (
    ("add_kernel", 90, {"num_warps": 4, "num_stages": 3}),
    ("add_kernel", 80, {"num_warps": 2, "num_stages": 2}),
    ("softmax_kernel", 90, {"num_warps": 8, "num_stages": 1, "maxnreg": 64}),
    ("matmul_kernel", 80, {"num_warps": 4, "num_stages": 4}),
    ("transpose_kernel", 80, {"num_warps": 8, "num_stages": 1}),  # over 48 KiB: launched with the opt-in
    ("matmul_kernel", 90, {"num_warps": 8, "num_stages": 3}),
    ("matmul_kernel", 120, {"num_warps": 4, "num_stages": 2}),
)


def _kernels():  # the Triton functions, defined only where triton is imported
    import triton
    import triton.language as tl

    # Triton 3.0-3.2 read a parameter's annotation ("tl.constexpr") in the function's module globals
    globals()["tl"] = tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)

    @triton.jit
    def matmul_kernel(
        a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
    ):
        pid_m, pid_n = tl.program_id(0), tl.program_id(1)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
        b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(tl.cdiv(K, BK)):
            acc += tl.dot(tl.load(a), tl.load(b))
            a += BK * sak
            b += BK * sbk
        tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))

    @triton.jit
    def transpose_kernel(src, dst, n, B: tl.constexpr):  # the layout change goes through shared memory
        r = tl.arange(0, B)
        tile = tl.load(src + r[:, None] * n + r[None, :])
        tl.store(dst + r[:, None] * n + r[None, :], tl.trans(tile))

    ptr = "*fp32"
    table = {
        "add_kernel": (
            add_kernel,
            {"x_ptr": ptr, "y_ptr": ptr, "out_ptr": ptr, "n": "i32", "BLOCK": "constexpr"},
            {"BLOCK": 1024},
        ),
        "softmax_kernel": (
            softmax_kernel,
            {"out_ptr": ptr, "in_ptr": ptr, "stride": "i32", "n_cols": "i32", "BLOCK": "constexpr"},
            {"BLOCK": 4096},
        ),
        "matmul_kernel": (
            matmul_kernel,
            {
                "a_ptr": "*fp16",
                "b_ptr": "*fp16",
                "c_ptr": "*fp16",
                **{k: "i32" for k in ("M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn")},
                "BM": "constexpr",
                "BN": "constexpr",
                "BK": "constexpr",
            },
            {"BM": 64, "BN": 64, "BK": 64},
        ),
    }
    table["transpose_kernel"] = (transpose_kernel, {"src": ptr, "dst": ptr, "n": "i32", "B": "constexpr"}, {"B": 128})
    return table


def _source(ast_source, fn, signature, constexprs):
    """Triton 3.3+ takes the constexprs in the signature and as ``constexprs``; 3.0-3.2 take them as
    ``constants`` and leave them out of the signature."""
    import inspect

    if "constexprs" in inspect.signature(ast_source).parameters:
        return ast_source(fn=fn, signature=signature, constexprs=constexprs)
    return ast_source(fn=fn, signature={k: v for k, v in signature.items() if v != "constexpr"}, constants=constexprs)


def build_cache(out: Path, builds=BUILDS) -> list[Path]:
    """Compile ``builds`` into the Triton cache ``out``; returns the kernel folders (IR stages removed)."""
    saved = {k: os.environ.get(k) for k in ("TRITON_CACHE_DIR", "TRITON_DEFAULT_FP_FUSION")}
    os.environ["TRITON_CACHE_DIR"] = str(out)
    os.environ["TRITON_DEFAULT_FP_FUSION"] = "1"  # Triton 3.9 warns when it is unset
    try:
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
        from triton.compiler import compile as triton_compile

        kernels = _kernels()
        for name, arch, options in builds:
            fn, signature, constexprs = kernels[name]
            triton_compile(
                _source(ASTSource, fn, signature, constexprs), target=GPUTarget("cuda", arch, 32), options=dict(options)
            )
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    folders = sorted(p for p in out.iterdir() if p.is_dir())
    for folder in folders:
        for f in folder.iterdir():
            if f.suffix not in KEEP or f.name.startswith("__grp__") or (f.suffix == ".ptx" and f.stem in PTX_DROPPED):
                f.unlink()
    return folders


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "cache"
    for folder in build_cache(target):
        print(folder.name, sorted(f.name for f in folder.iterdir()))
