"""The occupancy terms in plain words: one text per term, for tooltips and for Help → Occupancy terms.

Plain text, no Qt: the panels, the tables and the help page all read it here, so a term is explained
the same way wherever it appears.  ``tip`` is a tooltip's short form (a sentence or three); ``body`` the
help page's fuller form (HTML).
"""

from __future__ import annotations

from dataclasses import dataclass

MORE = "More: Help → Occupancy terms."


@dataclass(frozen=True)
class Term:
    key: str
    """The help page's anchor (``#key``)."""
    title: str
    tip: str
    body: str


TERMS: tuple[Term, ...] = (
    Term(
        "occupancy",
        "Theoretical and achieved occupancy",
        "Theoretical occupancy: how many warps this launch can keep on one SM at once, as a share of the most "
        "an SM can hold. It is a ceiling worked out from the launch and the kernel's resources; what a profiler "
        "measures while the kernel runs (achieved occupancy) is usually lower.",
        "<p><b>Theoretical occupancy</b> is the number of warps the resident blocks bring to one SM, divided "
        "by the most warps that SM can hold (64 on data-center GPUs, 48 on many others). It follows from the launch and the "
        "kernel's resources alone, before anything runs: blocks per SM × warps per block ÷ warps per SM.</p>"
        "<p><b>Achieved occupancy</b> is what Nsight Compute measures during the run: the average number of "
        "warps really resident. It is lower when the grid has too few blocks to fill every SM, when the "
        "last wave is only partly full, or when blocks finish at different times.</p>"
        "<p>Neither number tells how many of those warps are ready to issue an instruction. More resident "
        "warps help hide memory latency up to a point; beyond it they buy nothing, and squeezing registers "
        "to get them can cause spills that make the kernel slower. Use the figure as a limit to check, and "
        "measure the speed.</p>",
    ),
    Term(
        "binding",
        "Binding limit (★)",
        "Each resource (warps, block slots, registers, shared memory, barriers) allows some number of whole "
        "blocks on one SM; the smallest of these numbers is the answer, and that resource binds (★). Only "
        "lowering the binding resource's use gains a block; ties are all marked.",
        "<p>An SM takes a block only whole, and only when every resource has room for all of it. So each "
        "resource gives its own ceiling — the blocks it alone would allow — and the number of resident "
        "blocks is the smallest ceiling. The resource with that ceiling is the <b>binding limit</b>, marked "
        "★ in the window. Several can tie, and all are marked.</p>"
        "<p>The ceilings are not added or averaged: a change to a resource that does not bind changes "
        "nothing until it becomes the smallest. The Utilization dock shows the same thing as space: the "
        "part of each resource left empty because another one binds.</p>",
    ),
    Term(
        "estimate",
        "First-pass estimate",
        "The calculation by hand: threads × registers per block and the shared memory as declared, no "
        "rounding, each divided into what the SM has. Real allocation rounds up, so near a step the exact "
        "answer can be a block lower; rows where that happens are marked ≠ estimate.",
        "<p>The <b>first-pass estimate</b> is the textbook calculation: a block needs T·R registers "
        "(threads × registers per thread) and S bytes of shared memory, and each resource allows "
        "⌊what the SM has ÷ what a block needs⌋ blocks. It is quick and usually right.</p>"
        "<p>The hardware allocates in units, though: registers per warp are rounded up to 256, the register "
        "file is split between the SM's sub-partitions (four on most), shared memory is rounded up to 128 or 256 bytes "
        "and carries the reserved 1 KiB, and a partial warp takes a whole warp slot. Near a step this can "
        "cost a block. The window shows the estimate beside the exact figure, and the constraint table marks "
        "every row where rounding moved a ceiling.</p>",
    ),
    Term(
        "carveout",
        "Shared memory carveout",
        "From Volta on, one block of on-chip memory is split between L1 cache and shared memory. The carveout "
        "is the kernel's preferred share for shared memory; the driver rounds it up to a size the SM supports "
        "and grows it when one block needs more. Less shared memory per SM may mean fewer blocks.",
        "<p>On Volta and later GPUs, L1 cache and shared memory are one piece of on-chip memory, split per "
        "kernel. The <b>carveout</b> (<code>cudaFuncAttributePreferredSharedMemoryCarveout</code>) is the "
        "kernel's preference for the shared-memory side, in percent of the most the SM can give. The "
        "driver takes the next size the SM really supports (the GPU data dock lists them), and if even one "
        "block needs more, it grows to the next size that holds it.</p>"
        "<p>A small carveout leaves more L1 cache but may fit fewer blocks; the default lets the driver "
        "choose. Kepler split the memory by a cache-config preference instead; Maxwell and Pascal always "
        "give shared memory all of it.</p>",
    ),
    Term(
        "barriers",
        "Block barriers",
        "The named hardware barriers a block uses (__syncthreads() takes one). From compute capability 9.0 an "
        "SM has a fixed number of them, so a kernel that uses many per block can fit fewer blocks.",
        "<p>A block synchronises its threads on hardware <b>barriers</b>: <code>__syncthreads()</code> uses "
        "one, and code that names more (PTX <code>bar.sync</code> with an id) uses more. ptxas and "
        "cuobjdump report the count. The barriers stay with the block while it is resident.</p>"
        "<p>From compute capability 9.0 the occupancy model counts them: each SM has one or two barriers "
        "per block slot, depending on the architecture, so a kernel with many barriers per block runs fewer "
        "blocks at once. Earlier GPUs are not limited by them in the model.</p>",
    ),
    Term(
        "reserved",
        "The reserved 1 KiB of shared memory",
        "From compute capability 8.0 the driver keeps 1 KiB of shared memory per block for itself. It counts "
        "against the SM in every block, even one that declares no shared memory: a 24 KiB block takes 25 KiB.",
        "<p>From compute capability 8.0 (Ampere) the CUDA driver sets aside 1 KiB of shared memory in every "
        "block for its own use (<code>reservedSharedMemPerBlock</code>). A block's share of the SM is "
        "therefore its static and dynamic shared memory <i>plus 1 KiB</i>, rounded up to the allocation "
        "unit: a kernel with 24 KiB takes 25 KiB, and one with none still takes 1 KiB.</p>"
        "<p>The per-block limits a kernel sees (48 KiB without opt-in, more with the opt-in attribute) are "
        "what it may use on top of the reserved part; that is why an SM with 228 KiB lets one block use at "
        "most 227 KiB.</p>",
    ),
    Term(
        "launch_bounds",
        "Launch bounds, required block size, min blocks per SM",
        "__launch_bounds__(max threads, min blocks) tells the compiler the largest block the kernel will be "
        "launched with — a larger launch fails — and, optionally, how many blocks it should fit per SM, which "
        "makes the compiler cap registers. A required block size (PTX .reqntid) allows that size only.",
        "<p><code>__launch_bounds__(maxThreadsPerBlock, minBlocksPerMultiprocessor)</code> gives the "
        "compiler two promises about the kernel's launches.</p>"
        "<ul><li><b>Max threads per block</b> (<code>.maxntid</code>): the largest block the kernel will be "
        "launched with. It is enforced: a launch with a larger block fails, so the window gives it 0 "
        "blocks and says why.</li>"
        "<li><b>Min blocks per SM</b> (<code>.minnctapersm</code>): a hint. The compiler limits registers "
        "per thread so that this many blocks of the maximum size fit on an SM. A launch that fits fewer "
        "wastes the registers given up (the window warns).</li>"
        "<li><b>Required block size</b> (<code>.reqntid</code>, set by some compilers): the kernel may be "
        "launched with exactly this block size and no other.</li></ul>"
        "<p>A log from ptxas does not record the bounds; a cubin, an object file or the source does.</p>",
    ),
    Term(
        "waves",
        "Waves",
        "A grid runs in waves: at most (blocks per SM × SMs) blocks run at once, and the others wait for a "
        "free place. A last wave that is only partly full leaves most of the GPU idle while it runs.",
        "<p>All of a grid's blocks do not run at once: each SM holds its resident blocks, so at most "
        "<i>blocks per SM × number of SMs</i> run together — one <b>wave</b>. The rest start as places "
        "free up.</p>"
        "<p>A grid of 1.1 waves runs one full wave and then a short one in which most SMs have nothing to "
        "do, and that tail can take nearly as long as a full wave. A grid of whole waves, or of many waves, "
        "avoids it. The Grid and waves dock counts the waves of your grid and the nearest whole-wave sizes.</p>",
    ),
    Term(
        "utilization",
        "Utilization of one SM",
        "For each resource of one SM: the part the resident blocks hold, the part left empty because another "
        "resource binds, and the remainder too small (or, for registers, too split up) for one more block.",
        "<p>The Utilization dock splits each resource of one SM in three, as Nsight Compute does:</p>"
        "<ul><li><b>Allocated</b>: what the resident blocks hold (resident blocks × per block).</li>"
        "<li><b>Unusable</b>: room for more blocks by this resource alone, left empty because another "
        "resource binds. A large unusable share means the resource is not the problem.</li>"
        "<li><b>Remainder</b>: what is left after the last block this resource allows, too little for one "
        "more. For registers it can look large enough and still not fit, because the register file is split "
        "between sub-partitions and a warp's registers must sit in one.</li></ul>"
        "<p>The three add up to what the SM has. For the binding resource the unusable part is zero.</p>",
    ),
)
TERMS_BY_KEY: dict[str, Term] = {t.key: t for t in TERMS}


def tip(key: str) -> str:
    """A tooltip's plain-words explanation of term ``key``, pointing at the help page."""
    return f"{TERMS_BY_KEY[key].tip}\n{MORE}"
