"""The distinct rows of an integer key matrix, and each row's among them: ``np.unique(keys, axis=0,
return_inverse=True)`` without its cost.

Pure numpy.  The kernel table computes occupancy once per distinct combination of a row's figures
(``kernel_table`` for NVIDIA rows, ``amd_rows`` for AMD rows); a ROCm library's 4 x 10^5 rows are keyed while the
window shows an import's first rows, where the row-wise unique held the GIL too long.
"""

from __future__ import annotations

import numpy as np


def distinct_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, axis=0, return_inverse=True)``, via packed int64 words.

    The row-wise unique sorts a structured dtype while holding the GIL (~120 ms for 10^5 NVIDIA rows; 445-690 ms
    for 250,000 AMD rows, whose twelve columns do not fit one word, felt as a stall by the window showing an
    import's first rows); packed words sort as plain integers in a few ms (``np.lexsort`` where several).
    """
    if not len(keys):
        return keys[:0], np.zeros(0, np.int64)
    # A column with negative values (an AMD row's WGP mode, -1 where not stated) is shifted to start at 0: the
    # order is the same.  Its width is reckoned in Python integers, before the shift (which could wrap in int64).
    low, high = np.minimum(keys.min(axis=0), 0), keys.max(axis=0)
    bits = [(int(high[j]) - int(low[j])).bit_length() for j in range(keys.shape[1])]
    if max(bits) > 62:
        combos, inverse = np.unique(keys, axis=0, return_inverse=True)
        return combos, inverse.reshape(-1)
    shifted = keys - low
    words: list[np.ndarray] = []
    used = 63
    for j, width in enumerate(bits):
        if used + width > 62:
            words.append(np.zeros(len(keys), dtype=np.int64))
            used = 0
        words[-1] = (words[-1] << width) | shifted[:, j]
        used += width
    if len(words) == 1:
        _values, first, inverse = np.unique(words[0], return_index=True, return_inverse=True)
        return keys[first], inverse.reshape(-1)
    order = np.lexsort(words[::-1])  # the first word most significant; stable: ties keep the file's order
    stacked = np.stack(words)[:, order]
    starts = np.concatenate([[True], (stacked[:, 1:] != stacked[:, :-1]).any(axis=0)])
    inverse = np.empty(len(keys), dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return keys[order[starts]], inverse
