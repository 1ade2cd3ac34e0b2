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
from json.encoder import encode_basestring_ascii  # json.dumps's own string encoder (in C)
from typing import Any

import numpy as np

from ..engine import INT_MAX, LIMIT_FLAGS, Limit
from .serialize import (
    CSV_FIELDS,
    LIMITS_JSON,
    NVIDIA_CSV_FIELDS,
    RESULT_JSON,
    BatchAnswer,
    Figures,
    answer_json,
    answers_to_csv_rows,
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

        return cls(
            np.zeros(lines, dtype=bool),
            column(),
            column(),
            column(),
            column(),
            table(),
            column(),
            column(),
            column(),
            column(),
            column(),
            table(),
        )

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
        return list(
            zip(
                ab,
                aw,
                at_,
                mw,
                limits,
                self.binding[at].tolist(),
                self.registers[at].tolist(),
                self.shared_memory[at].tolist(),
                reasons,
                self.estimate_blocks[at].tolist(),
                self.estimate_warps[at].tolist(),
                estimate,
            )
        )


# ------------------------------------------------------------------------------------ JSON Lines
_ROW_LIMITS = LIMITS_JSON % (("%s",) * 5 + ("",))
ROW_JSON = RESULT_JSON % ("%s", "%s", "%s", "%s", _ROW_LIMITS, "%s", "%s", "%s", "%s", "%s", "%s", _ROW_LIMITS)
"""One answer with every figure a slot, made from ``serialize``'s own templates (so the text cannot drift)."""

_NUMBER_CODES = 1 << 13
_NUMBERS = [str(i) for i in range(_NUMBER_CODES)] + ["null"]
"""The text of the small figures, and ``null`` (where a limit does not apply) last."""


Around = tuple[str, str]
"""The template's text before and after a cell, written with it: a row is then a join of its cells alone
(20 strings, not 41: 1M rows' joins ~0.5 s less)."""
_AFFIXED: dict[tuple[int, str, str], np.ndarray] = {}


def _affixed(texts: list[str], around: Around) -> np.ndarray:
    """``texts`` (a module's table of cell texts) each with ``around``'s text on either side (made once), as
    an object array: ``table.take(codes).tolist()`` looks a column up in 8 ns a row, ``map`` in 20."""
    key = (id(texts), *around)
    table = _AFFIXED.get(key)
    if table is None:
        before, after = around
        table = _AFFIXED[key] = np.array([before + text + after for text in texts], dtype=object)
    return table


def _limit_texts(column: np.ndarray, numbers: list[str] = _NUMBERS, around: Around = ("", "")) -> list[str]:
    """A limit's figures as text: ``numbers[-1]`` (``null``) for ``INT_MAX``, small ones looked up, any
    other written."""
    codes = np.where(column >= INT_MAX, _NUMBER_CODES, column)
    odd = (column < 0) | ((column >= _NUMBER_CODES) & (column < INT_MAX))
    table = _affixed(numbers, around)
    if not odd.any():
        return table.take(codes).tolist()  # type: ignore[no-any-return]  # a list of str
    texts: list[str] = table.take(np.where(odd, 0, codes)).tolist()
    for i in np.flatnonzero(odd).tolist():
        texts[i] = around[0] + str(int(column[i])) + around[1]
    return texts


_WRITTEN: dict[Around, dict[int, str]] = {}
"""Figures beyond the table (allocated registers and shared memory), each written once with its surroundings."""


def _int_texts(column: np.ndarray, around: Around = ("", "")) -> list[str]:
    """Figures that always apply (never ``INT_MAX``) as text: looked up where all are small, else each
    distinct figure written once (a slice holds a few hundred distinct allocations in thousands of rows)."""
    if not column.size or (column.min() >= 0 and column.max() < _NUMBER_CODES):
        return _affixed(_NUMBERS, around).take(column).tolist()  # type: ignore[no-any-return]  # a list of str
    values = column.tolist()
    written = _WRITTEN.setdefault(around, {})
    texts = list(map(written.get, values))
    if None in texts:
        if len(written) > 1 << 16:
            written.clear()
        before, after = around
        for i in [i for i, text in enumerate(texts) if text is None]:
            texts[i] = written[values[i]] = before + str(values[i]) + after
    return texts  # type: ignore[return-value]  # every None was replaced


def _joined(columns: list[list[str]]) -> list[str]:
    """Each row's cells (their template text already around them) joined."""
    return list(map("".join, zip(*columns)))


def _arounds(template: str, slots: int) -> list[Around]:
    """Each slot's text around it in ``template``: the first slot takes the text before it, every slot the
    text after it."""
    pieces = template.split("%s")
    assert len(pieces) == slots + 1 and "%" not in template.replace("%s", "")
    return [(pieces[0] if k == 0 else "", pieces[k + 1]) for k in range(slots)]


_RATIOS: dict[str, dict[int, str]] = {}
_RATIO_SIDE = 128
"""Every SM has at most 64 warps today: ``repr(w / m)`` for ``w``, ``m`` below this is a table (one per
surrounding text, 16,384 entries made in ~5 ms), looked up as the other cells are."""
_RATIO_TABLES: dict[Around, np.ndarray] = {}


def _ratio_table(around: Around) -> np.ndarray:
    table = _RATIO_TABLES.get(around)
    if table is None:
        before, after = around
        table = _RATIO_TABLES[around] = np.array(
            [before + repr(w / m) + after if m else "" for w in range(_RATIO_SIDE) for m in range(_RATIO_SIDE)],
            dtype=object,
        )
    return table


def _ratio_texts(warps: np.ndarray, max_warps: np.ndarray, around: Around = ("", "")) -> list[str]:
    """``repr(warps / max_warps)`` per row; few distinct pairs occur, each is written once."""
    before, after = around
    if warps.size and warps.min() >= 0 and max_warps.min() >= 1 and max(warps.max(), max_warps.max()) < _RATIO_SIDE:
        return _ratio_table(around).take(warps * _RATIO_SIDE + max_warps).tolist()  # type: ignore[no-any-return]  # str
    if warps.size and (warps.min() < 0 or max(int(warps.max()), int(max_warps.max())) >= 1 << 20):
        return [before + repr(w / m) + after for w, m in zip(warps.tolist(), max_warps.tolist())]
    keys = ((warps << 20) | max_warps).tolist()
    ratios = _RATIOS.setdefault(before + "%s" + after, {})
    texts = list(map(ratios.get, keys))
    if None in texts:
        if len(ratios) > 1 << 16:
            ratios.clear()
        for i in [i for i, text in enumerate(texts) if text is None]:
            key = keys[i]
            texts[i] = ratios[key] = before + repr((key >> 20) / (key & ((1 << 20) - 1))) + after
    return texts  # type: ignore[return-value]  # every None was replaced


_FLAG_COUNT = max(LIMIT_FLAGS.values()) * 2
_BINDING_TEXTS = [json.dumps(list(binding_names(flags))) for flags in range(_FLAG_COUNT)]
_VIRTUAL = _LIMITS.index(Limit.VIRTUAL_RESOURCES)


Render = Callable[[list[tuple[str, ...]]], list[str]]
"""The texts of distinct reasons, all at once (the CSV writer quotes a slice's in one pass)."""


def _reason_texts(rows: ResultRows, at: np.ndarray, none: str, render: Render) -> list[str]:
    """The no-fit reasons of the rows at ``at``, ``render``-ed, ``none`` where a row has none."""
    texts = [none] * len(at)
    if rows.reasons:
        get = rows.reasons.get
        zero = np.flatnonzero(rows.active_blocks[at] == 0)  # only a row where no block fits has words
        found = [(i, words) for i, words in zip(zero.tolist(), map(get, at[zero].tolist())) if words]
        distinct = list(dict.fromkeys(words for _, words in found))  # rows share words (a block size off .reqntid)
        rendered = dict(zip(distinct, render(distinct)))
        for i, words in found:
            texts[i] = rendered[words]
    return texts


def _row_cells(
    rows: ResultRows,
    at: np.ndarray,
    arounds: list[Around],
    numbers: list[str],
    binding: list[str],
    reasons: tuple[str, Render],
) -> list[list[str]]:
    """The cells of the rows at ``at`` in ``RESULT_JSON``'s slot order, each with its template text around it;
    ``reasons`` is the text of a row without reasons and the rendering of the words of one with."""
    limits, estimate = rows.limits[at], rows.estimate_limits[at]
    max_warps, warps = rows.max_warps[at], rows.active_warps[at]
    a = iter(arounds)
    none, render = reasons
    cells = [
        _int_texts(rows.active_blocks[at], next(a)),
        _int_texts(warps, next(a)),
        _int_texts(rows.active_threads[at], next(a)),
        _ratio_texts(warps, max_warps, next(a)),
        *(_limit_texts(limits[:, k], numbers, next(a)) for k in range(5)),
    ]
    cells.append(_affixed(binding, next(a)).take(rows.binding[at]).tolist())
    cells += [_int_texts(rows.registers[at], next(a)), _int_texts(rows.shared_memory[at], next(a))]
    before, after = next(a)
    cells.append(
        _reason_texts(
            rows, at, before + none + after, lambda distinct: [before + text + after for text in render(distinct)]
        )
    )
    cells += [
        _int_texts(rows.estimate_blocks[at], next(a)),
        _ratio_texts(rows.estimate_warps[at], max_warps, next(a)),
        *(_limit_texts(estimate[:, k], numbers, next(a)) for k in range(5)),
    ]
    assert next(a, None) is None
    return cells


def _json_reasons(distinct: list[tuple[str, ...]]) -> list[str]:
    """``json.dumps(list(words))`` for each, without its generic machinery."""
    return ["[" + ", ".join(map(encode_basestring_ascii, words)) + "]" for words in distinct]


_JSON_AROUNDS = _arounds(ROW_JSON, ROW_JSON.count("%s"))


def rows_to_json(rows: ResultRows, at: np.ndarray) -> list[str]:
    """The rows at positions ``at`` as JSON text, exactly as ``serialize.answer_json`` writes their figures."""
    # json.dumps(list(words)), without its generic machinery
    reasons = ("[]", _json_reasons)
    texts = _joined(_row_cells(rows, at, _JSON_AROUNDS, _NUMBERS, _BINDING_TEXTS, reasons))
    for i in np.flatnonzero(rows.limits[at, _VIRTUAL] < INT_MAX).tolist():  # a virtual-resource limit: its own key
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
_CSV_ROW = ",".join(["%s"] * len(NVIDIA_CSV_FIELDS)) + "," * (len(CSV_FIELDS) - len(NVIDIA_CSV_FIELDS)) + "\r\n"
"""One answer's CSV row: every NVIDIA column a slot; the AMD columns and the last (``error``) are empty."""
_CELLS = [*_NUMBERS[:-1], ""]
_BINDING_CELLS = ["; ".join(binding_names(flags)) for flags in range(_FLAG_COUNT)]


def _csv_reasons(distinct: list[tuple[str, ...]]) -> list[str]:
    """Each reasons' words joined by "; " as the csv module writes the cell in a row of several (quoted where
    it must be): one writer for all, each cell cut at the offsets it reports (2.5 µs a cell with a
    writer each)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    ends = []
    for words in distinct:
        writer.writerow(["; ".join(words), ""])
        ends.append(buffer.tell())
    text = buffer.getvalue()
    return [text[start : end - 3] for start, end in zip([0, *ends], ends)]  # less the row's ",\r\n"


_CSV_AROUNDS = _arounds(_CSV_ROW, _CSV_ROW.count("%s"))


def rows_to_csv(rows: ResultRows, at: np.ndarray, numbers: list[int]) -> list[str]:
    """The rows at positions ``at`` as CSV rows, exactly as ``serialize.answers_to_csv`` writes their figures;
    ``numbers`` are their input line numbers."""
    first, *arounds = _CSV_AROUNDS
    line = [first[0] + str(n) + first[1] for n in numbers]
    cells = _row_cells(rows, at, arounds, _CELLS, _BINDING_CELLS, ("", _csv_reasons))
    return _joined([line, *cells])


def chunk_to_csv(numbers: list[int], answers: list[BatchAnswer | None], rows: ResultRows, lo: int, hi: int) -> str:
    """Lines ``lo..hi-1`` of a chunk as CSV rows (``serialize.CSV_HEADER``'s columns)."""
    texts: list[str | None] = [None] * (hi - lo)
    others = np.flatnonzero(~rows.answered[lo:hi]).tolist()  # a line without a row has its answer
    written = answers_to_csv_rows([numbers[lo + p] for p in others], [answers[lo + p] for p in others])
    for p, text in zip(others, written):
        texts[p] = text
    at = rows.within(lo, hi)
    for p, text in zip((at - lo).tolist(), rows_to_csv(rows, at, [numbers[p] for p in at.tolist()])):
        texts[p] = text
    assert None not in texts
    return "".join(texts)  # type: ignore[arg-type]  # every slot is filled by now
