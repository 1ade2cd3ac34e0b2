"""``@triton.jit`` kernels the compiler-model test compiles for AMD targets: register pressure that grows
with a constexpr (``pressure``'s ``rows``), matrix products that use MFMA / WMMA and AGPRs (``dot``), and a kernel
whose live values spill to scratch at high ``rows``."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def pressure(x, o, n, rows: tl.constexpr, block: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * block + tl.arange(0, block)
    acc = tl.zeros([block], dtype=tl.float32)
    for i in tl.static_range(rows):
        v = tl.load(x + offs + i * n, mask=offs < n, other=0.0)
        acc = acc * v + tl.sqrt(v + i)
    tl.store(o + offs, acc, mask=offs < n)


@triton.jit
def dot(a, b, c, size_m: tl.constexpr, size_n: tl.constexpr, size_k: tl.constexpr):
    rm = tl.arange(0, size_m)
    rn = tl.arange(0, size_n)
    rk = tl.arange(0, size_k)
    left = tl.load(a + rm[:, None] * size_k + rk[None, :])
    right = tl.load(b + rk[:, None] * size_n + rn[None, :])
    tl.store(c + rm[:, None] * size_n + rn[None, :], tl.dot(left, right))


KERNELS = {
    "pressure": (pressure, {"x": "*fp32", "o": "*fp32", "n": "i32"}),
    "dot": (dot, {"a": "*fp16", "b": "*fp16", "c": "*fp32"}),
}
