"""The one size cap of the user cache folders: the least recently used entries go first.

Both caches there (imports' records, ``importers.record_cache``; register-cap compiles, ``compile.regcap``) hold
files that can be made again, and would otherwise grow with every file a user opens or sweeps.  An
entry's modification time is its last use (a cache :func:`touch`-es what it reads), so entries are
removed oldest first until the folder holds at most the cap.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path


def trim(directory: Path, cap: int, is_entry: Callable[[str], bool]) -> None:
    """Remove the least recently used entries (files whose name ``is_entry``) until those left hold at
    most ``cap`` bytes; a folder that cannot be listed is left as it is."""
    entries = []
    try:
        with os.scandir(directory) as listing:  # closed however the listing ends
            for item in listing:
                try:
                    if not (is_entry(item.name) and item.is_file(follow_symlinks=False)):
                        continue
                    st = item.stat(follow_symlinks=False)
                except OSError:  # removed meanwhile by another process sharing the cache: not an entry any more
                    continue
                entries.append((st.st_mtime_ns, st.st_size, item.path))
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    for _, size, name in sorted(entries):
        if total <= cap:
            break
        remove(Path(name))
        total -= size


def touch(path: Path) -> None:
    """Mark ``path`` used now (the cap evicts the least recently used)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def remove(path: Path) -> None:
    """Remove ``path`` if it is there (another process may have removed it first)."""
    with contextlib.suppress(OSError):
        path.unlink()
