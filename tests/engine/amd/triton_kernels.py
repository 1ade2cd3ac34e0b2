"""``@triton.jit`` kernels the compiler-model test compiles for AMD targets: register pressure that grows
with a constexpr (``pressure``), matrix products that use MFMA / WMMA and AGPRs (``dot``), and a kernel
whose live array spills to scratch at high ``R``."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def pressure(x, o, n, R: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in tl.static_range(R):
        v = tl.load(x + offs + i * n, mask=offs < n, other=0.0)
        acc = acc * v + tl.sqrt(v + i)
    tl.store(o + offs, acc, mask=offs < n)


@triton.jit
def dot(a, b, c, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    left = tl.load(a + rm[:, None] * K + rk[None, :])
    right = tl.load(b + rk[:, None] * N + rn[None, :])
    tl.store(c + rm[:, None] * N + rn[None, :], tl.dot(left, right))


KERNELS = {
    "pressure": (pressure, {"x": "*fp32", "o": "*fp32", "n": "i32"}),
    "dot": (dot, {"a": "*fp16", "b": "*fp16", "c": "*fp32"}),
}
