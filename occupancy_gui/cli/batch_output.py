"""``occupancy batch``'s answers as text: JSON Lines or CSV rows, written from the engine's columns.

A chunk's answers are the engine's result columns for the lines it answered (``ResultRows``) plus a
finished dict for every other line (an error, or an answer of ``compute_occupancy``).  A row is
written from one template over whole columns (small figures and the binding lists looked up,
each distinct occupancy written once), exactly as ``json.dumps(result_to_json(...))`` writes it, and
as a CSV row exactly as ``serialize.answers_to_csv`` does; the tests hold both to that byte for byte.
The lines that are not rows are written by ``serialize`` itself.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat
from json.encoder import encode_basestring_ascii  # json.dumps's own string encoder (in C)
from typing import Any

import numpy as np

from ..engine import INT_MAX, Limit
from ..engine.types import LIMIT_FLAGS
from .serialize import (
    CSV_FIELDS,
    LIMITS_JSON,
    RESULT_JSON,
    BatchAnswer,
    Figures,
    answer_json,
    answers_to_csv,
    binding_names,
)

_LIMITS = tuple(Limit)


@dataclass
class ResultRows:
    """The engine's figures for the lines of a chunk it answered, by the line's position in the chunk.

    ``limits`` and ``estimate_limits`` have one column per ``Limit`` (in its order), ``INT_MAX`` where a
    limit does not apply; ``reasons`` holds the words of the rows where no block fits, by position.
    One array per figure for the whole chunk, filled a device at a time: nothing is copied to be sorted.
    """

    answered: np.ndarray
    active_blocks: np.ndarray
    active_warps: np.ndarray
    active_threads: np.ndarray
    max_warps: np.ndarray
    limits: np.ndarray
    binding: np.ndarray
    registers: np.ndarray
    shared_memory: np.ndarray
    estimate_blocks: np.ndarray
    estimate_warps: np.ndarray
    estimate_limits: np.ndarray
    reasons: dict[int, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def allocate(cls, lines: int) -> ResultRows:
        """Room for every line of a chunk, none answered yet."""
        def column() -> np.ndarray:
            return np.zeros(lines, dtype=np.int64)

        def table() -> np.ndarray:
            return np.zeros((lines, len(_LIMITS)), dtype=np.int64)

        return cls(np.zeros(lines, dtype=bool), column(), column(), column(), column(), table(), column(), column(),
                   column(), column(), column(), table())  # fmt: skip

    def within(self, lo: int, hi: int) -> np.ndarray:
        """The positions in ``lo..hi-1`` that have a row, in order."""
        return np.flatnonzero(self.answered[lo:hi]) + lo

    def figures(self, at: np.ndarray) -> list[Figures]:
        """The rows at positions ``at`` as ``serialize.Figures`` tuples."""
        cols = (self.active_blocks, self.active_warps, self.active_threads, self.max_warps)
        ab, aw, at_, mw = (c[at].tolist() for c in cols)
        limits = list(map(tuple, self.limits[at].tolist()))
        estimate = list(map(tuple, self.estimate_limits[at].tolist()))
        reasons = [self.reasons.get(p, ()) for p in at.tolist()]
        return list(zip(ab, aw, at_, mw, limits, self.binding[at].tolist(), self.registers[at].tolist(),
                        self.shared_memory[at].tolist(), reasons, self.estimate_blocks[at].tolist(),
                        self.estimate_warps[at].tolist(), estimate))  # fmt: skip


# ------------------------------------------------------------------------------------ JSON Lines
_ROW_LIMITS = LIMITS_JSON % (("%s",) * 5 + ("",))
ROW_JSON = RESULT_JSON % ("%s", "%s", "%s", "%s", _ROW_LIMITS, "%s", "%s", "%s", "%s", "%s", "%s", _ROW_LIMITS)
"""One answer with every figure a slot, made from ``serialize``'s own templates (so the text cannot drift)."""

_NUMBER_CODES = 1 << 13
_NUMBERS = [str(i) for i in range(_NUMBER_CODES)] + ["null"]
"""The text of the small figures, and ``null`` (where a limit does not apply) last."""


def _limit_texts(column: np.ndarray, numbers: list[str] = _NUMBERS) -> list[str]:
    """A limit's figures as text: ``numbers[-1]`` (``null``) for ``INT_MAX``, small ones looked up, any
    other written."""
    codes = np.where(column >= INT_MAX, _NUMBER_CODES, column)
    odd = (column < 0) | ((column >= _NUMBER_CODES) & (column < INT_MAX))
    if not odd.any():
        return list(map(numbers.__getitem__, codes.tolist()))
    texts = list(map(numbers.__getitem__, np.where(odd, 0, codes).tolist()))
    for i in np.flatnonzero(odd).tolist():
        texts[i] = str(int(column[i]))
    return texts


def _int_texts(column: np.ndarray) -> list[str]:
    """Figures that always apply (never ``INT_MAX``) as text: looked up where all are small."""
    if column.size and (column.min() < 0 or column.max() >= _NUMBER_CODES):
        return list(map(str, column.tolist()))
    return list(map(_NUMBERS.__getitem__, column.tolist()))


def _filled(template: str, columns: list[list[str]]) -> list[str]:
    """``template % row`` for each row of text ``columns``, by joining the template's pieces and the
    cells (a join of strings costs a third of ``%``'s formatting)."""
    pieces = template.split("%s")
    assert len(pieces) == len(columns) + 1 and "%" not in template.replace("%s", "")
    parts: list[Any] = []
    for piece, column in zip(pieces, columns):
        parts += [repeat(piece), column]
    parts.append(repeat(pieces[-1]))
    return list(map("".join, zip(*parts)))


_RATIOS: dict[int, str] = {}


def _ratio_texts(warps: np.ndarray, max_warps: np.ndarray) -> list[str]:
    """``repr(warps / max_warps)`` per row; few distinct pairs occur, each is written once."""
    if warps.size and (warps.min() < 0 or max(int(warps.max()), int(max_warps.max())) >= 1 << 20):
        return [repr(w / m) for w, m in zip(warps.tolist(), max_warps.tolist())]
    keys = ((warps << 20) | max_warps).tolist()
    ratios = _RATIOS
    if len(ratios) > 1 << 16:
        ratios.clear()
    for key in set(keys).difference(ratios):
        ratios[key] = repr((key >> 20) / (key & ((1 << 20) - 1)))
    return list(map(ratios.__getitem__, keys))


_FLAG_COUNT = max(LIMIT_FLAGS.values()) * 2
_BINDING_TEXTS = [json.dumps(list(binding_names(flags))) for flags in range(_FLAG_COUNT)]
_VIRTUAL = _LIMITS.index(Limit.VIRTUAL_RESOURCES)


def _reason_texts(rows: ResultRows, at: np.ndarray, none: str, render: Callable[[tuple[str, ...]], str]) -> list[str]:
    """The no-fit reasons of the rows at ``at``, each ``render``-ed, ``none`` where a row has none."""
    texts = [none] * len(at)
    if rows.reasons:
        for i, p in enumerate(at.tolist()):
            words = rows.reasons.get(p)
            if words:
                texts[i] = render(words)
    return texts


def rows_to_json(rows: ResultRows, at: np.ndarray) -> list[str]:
    """The rows at positions ``at`` as JSON text, exactly as ``serialize.answer_json`` writes their figures."""
    limits, estimate = rows.limits[at], rows.estimate_limits[at]
    max_warps, warps = rows.max_warps[at], rows.active_warps[at]
    # json.dumps(list(words)), without its generic machinery
    reasons = _reason_texts(rows, at, "[]", lambda words: "[" + ", ".join(map(encode_basestring_ascii, words)) + "]")
    columns = [
        _int_texts(rows.active_blocks[at]), _int_texts(warps), _int_texts(rows.active_threads[at]),
        _ratio_texts(warps, max_warps), *(_limit_texts(limits[:, k]) for k in range(5)),
        list(map(_BINDING_TEXTS.__getitem__, rows.binding[at].tolist())), _int_texts(rows.registers[at]),
        _int_texts(rows.shared_memory[at]), reasons, _int_texts(rows.estimate_blocks[at]),
        _ratio_texts(rows.estimate_warps[at], max_warps), *(_limit_texts(estimate[:, k]) for k in range(5)),
    ]  # fmt: skip
    texts = _filled(ROW_JSON, columns)
    for i in np.flatnonzero(limits[:, _VIRTUAL] < INT_MAX).tolist():  # a virtual-resource limit: its own key
        texts[i] = answer_json(rows.figures(at[i : i + 1])[0])
    return texts


def chunk_to_jsonl(answers: list[BatchAnswer | None], rows: ResultRows, lo: int, hi: int) -> str:
    """Lines ``lo..hi-1`` of a chunk as JSON Lines: each row's text at its position, every other line's
    answer as JSON."""
    if hi <= lo:
        return ""
    at = rows.within(lo, hi)
    texts: list[Any] = [None] * (hi - lo)
    for p in np.flatnonzero(~rows.answered[lo:hi]).tolist():
        texts[p] = answer_json(answers[lo + p])  # a line without a row has its answer
    for p, text in zip((at - lo).tolist(), rows_to_json(rows, at)):
        texts[p] = text
    assert None not in texts
    return "\n".join(texts) + "\n"


# ------------------------------------------------------------------------------------------- CSV
_CSV_ROW = ",".join(["%s"] * (len(CSV_FIELDS) - 1)) + ",\r\n"
"""One answer's CSV row: every column a slot but the last (``error``), which is empty."""
_CELLS = [*_NUMBERS[:-1], ""]
_BINDING_CELLS = ["; ".join(binding_names(flags)) for flags in range(_FLAG_COUNT)]


def _csv_cell(text: str) -> str:
    """``text`` as the csv module writes it in a row of several cells (quoted where it must be)."""
    buffer = io.StringIO()
    csv.writer(buffer).writerow([text, ""])
    return buffer.getvalue()[:-3]


def rows_to_csv(rows: ResultRows, at: np.ndarray, numbers: list[int]) -> list[str]:
    """The rows at positions ``at`` as CSV rows, exactly as ``serialize.answers_to_csv`` writes their figures;
    ``numbers`` are their input line numbers."""
    limits, estimate = rows.limits[at], rows.estimate_limits[at]
    max_warps, warps = rows.max_warps[at], rows.active_warps[at]
    reasons = _reason_texts(rows, at, "", lambda words: _csv_cell("; ".join(words)))
    columns = [
        list(map(str, numbers)), _int_texts(rows.active_blocks[at]), _int_texts(warps),
        _int_texts(rows.active_threads[at]), _ratio_texts(warps, max_warps),
        *(_limit_texts(limits[:, k], _CELLS) for k in range(5)),
        list(map(_BINDING_CELLS.__getitem__, rows.binding[at].tolist())), _int_texts(rows.registers[at]),
        _int_texts(rows.shared_memory[at]), reasons, _int_texts(rows.estimate_blocks[at]),
        _ratio_texts(rows.estimate_warps[at], max_warps), *(_limit_texts(estimate[:, k], _CELLS) for k in range(5)),
    ]  # fmt: skip
    return _filled(_CSV_ROW, columns)


def chunk_to_csv(numbers: list[int], answers: list[BatchAnswer | None], rows: ResultRows, lo: int, hi: int) -> str:
    """Lines ``lo..hi-1`` of a chunk as CSV rows (``serialize.CSV_HEADER``'s columns)."""
    texts: list[str | None] = [None if a is None else answers_to_csv([n], [a])
                               for n, a in zip(numbers[lo:hi], answers[lo:hi])]  # fmt: skip
    at = rows.within(lo, hi)
    for p, text in zip((at - lo).tolist(), rows_to_csv(rows, at, [numbers[p] for p in at.tolist()])):
        texts[p] = text
    assert None not in texts
    return "".join(texts)  # type: ignore[arg-type]  # every slot is filled by now
