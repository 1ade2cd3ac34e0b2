"""AMD GPU kernels: code objects, offload bundles, host binaries, Triton HIP caches and compiler logs.

Public API::

    AmdKernelRecord, Spills              # one kernel on one target (record.py): the fixed JSON contract
    sniff(path, head) -> str | None      # an AMD-only kind of file: "amd_code_object", "amd_bundle", "amd_log"
    read_amd(path, kind) -> AmdImport    # the records (identical copies merged) and notes
    iter_batches(path, kind, walk)       # the same, a code object at a time (first rows at once)

The modules, one concept each: ``target`` (e_flags, target ids, granules), ``metadata`` (the msgpack note,
budgeted), ``metadata_v2`` (code object v2's YAML), ``descriptor`` (kernel descriptors), ``code_object``
(the HSACO ELF), ``bundle`` (plain and compressed bundle headers), ``inflate`` (every decompression, under a
byte budget), ``bundles`` (walking bundles to code objects), ``host`` (objects, libraries, archives,
embedded code), ``triton`` (Triton HIP caches), ``logs`` (remarks, assembly), ``reader`` (entry points),
``dispatch`` (the hooks in ``importers.import_file_detailed``), ``json_rows`` (``occupancy import``'s rows).
"""

from __future__ import annotations

from .reader import AmdImport, iter_batches, read_amd, sniff
from .record import AmdKernelRecord, Spills

__all__ = ["AmdImport", "AmdKernelRecord", "Spills", "iter_batches", "read_amd", "sniff"]
