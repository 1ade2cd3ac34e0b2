"""``__launch_bounds__(maxThreadsPerBlock, minBlocksPerMultiprocessor)``: the second argument, checked.

``minBlocksPerMultiprocessor`` is a hint to the compiler, not a launch rule: ptxas caps the registers
per thread so that that many blocks of ``maxThreadsPerBlock`` threads could reside on one SM (PTX
``.minnctapersm``).  ``cuda_occupancy.h`` has no such attribute and the runtime never refuses a launch
for it.  A launch that leaves fewer blocks resident than the kernel asked for (a larger block, more
dynamic shared memory, another device) keeps the register cap but not its purpose; this says so.
"""

from __future__ import annotations


def min_blocks_shortfall(active_blocks: int, min_blocks: int | None) -> str | None:
    """Why the launch defeats the kernel's ``minBlocksPerMultiprocessor`` hint, or ``None`` where it does not."""
    if not min_blocks or active_blocks >= min_blocks:
        return None
    resident = f"{active_blocks} block{'' if active_blocks == 1 else 's'} per SM"
    return (
        f"Only {resident}, below the {min_blocks} the kernel asked for (__launch_bounds__ min blocks per SM): "
        f"the compiler capped registers to fit {min_blocks}, and this launch defeats that hint"
    )
