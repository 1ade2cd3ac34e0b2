"""``occupancy batch``'s answers as text: JSON Lines or CSV rows, written from the engine's columns.

A chunk's answers are the engine's result columns for the lines it answered (``ResultRows``) plus a
finished dict for every other line (an error, or an answer of ``compute_occupancy``).  JSON Lines are
written with one ``%`` template per answer over whole columns (the ``limits`` objects, the binding
lists and the occupancies, of which few distinct ones occur, each written once), exactly as
``json.dumps(result_to_json(...))`` writes them; the tests hold it to that byte for byte.  CSV goes
through the figures of each answer (``serialize.answers_to_csv``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from ..engine import INT_MAX, Limit
from ..engine.types import LIMIT_FLAGS
from .serialize import LIMITS_JSON, RESULT_JSON, BatchAnswer, Figures, answer_json, answers_to_csv, binding_names

_LIMITS = tuple(Limit)


@dataclass
class ResultRows:
    """The engine's figures for some lines of a chunk, one row each, in the order of ``position``.

    ``limits`` and ``estimate_limits`` have one column per ``Limit`` (in its order), ``INT_MAX`` where a
    limit does not apply; ``reasons`` holds the words of the rows where no block fits, by position.
    """

    position: np.ndarray
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
    def concatenate(cls, parts: list[ResultRows]) -> ResultRows:
        """The rows of every part, sorted by position."""
        if not parts:
            return empty_rows()
        names = [f for f in cls.__dataclass_fields__ if f != "reasons"]
        joined = {name: np.concatenate([getattr(p, name) for p in parts]) for name in names}
        order = np.argsort(joined["position"], kind="stable")
        reasons: dict[int, tuple[str, ...]] = {}
        for p in parts:
            reasons.update(p.reasons)
        return cls(**{name: a[order] for name, a in joined.items()}, reasons=reasons)

    def span(self, lo: int, hi: int) -> tuple[int, int]:
        """The rows whose positions lie in ``lo..hi-1``."""
        a, b = np.searchsorted(self.position, (lo, hi))
        return int(a), int(b)

    def figures(self, a: int, b: int) -> list[Figures]:
        """Rows ``a..b-1`` as ``serialize.Figures`` tuples."""
        cols = (self.active_blocks, self.active_warps, self.active_threads, self.max_warps)
        ab, aw, at, mw = (c[a:b].tolist() for c in cols)
        limits = list(map(tuple, self.limits[a:b].tolist()))
        estimate = list(map(tuple, self.estimate_limits[a:b].tolist()))
        reasons = [self.reasons.get(p, ()) for p in self.position[a:b].tolist()]
        return list(zip(ab, aw, at, mw, limits, self.binding[a:b].tolist(), self.registers[a:b].tolist(),
                        self.shared_memory[a:b].tolist(), reasons, self.estimate_blocks[a:b].tolist(),
                        self.estimate_warps[a:b].tolist(), estimate))  # fmt: skip


def empty_rows() -> ResultRows:
    none = np.zeros(0, dtype=np.int64)
    table = np.zeros((0, len(_LIMITS)), dtype=np.int64)
    return ResultRows(none, none, none, none, none, table, none, none, none, none, none, table)


# ------------------------------------------------------------------------------------ JSON Lines
_ROW_LIMITS = LIMITS_JSON % (("%s",) * 5 + ("",))
ROW_JSON = RESULT_JSON % ("%s", "%s", "%s", "%s", _ROW_LIMITS, "%s", "%s", "%s", "%s", "%s", "%s", _ROW_LIMITS)
"""One answer with every figure a slot, made from ``serialize``'s own templates (so the text cannot drift)."""

_NUMBER_CODES = 1 << 13
_NUMBERS = [str(i) for i in range(_NUMBER_CODES)] + ["null"]
"""The text of the small figures, and ``null`` (where a limit does not apply) last."""


def _limit_texts(column: np.ndarray) -> list[str]:
    """A limit's figures as JSON: ``null`` for ``INT_MAX``, small ones looked up, any other written."""
    codes = np.where(column >= INT_MAX, _NUMBER_CODES, column)
    odd = (column < 0) | ((column >= _NUMBER_CODES) & (column < INT_MAX))
    if not odd.any():
        return list(map(_NUMBERS.__getitem__, codes.tolist()))
    texts = list(map(_NUMBERS.__getitem__, np.where(odd, 0, codes).tolist()))
    for i in np.flatnonzero(odd).tolist():
        texts[i] = str(int(column[i]))
    return texts


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


def rows_to_json(rows: ResultRows, a: int, b: int) -> list[str]:
    """Rows ``a..b-1`` as JSON text, exactly as ``serialize.answer_json`` writes their figures."""
    limits, estimate = rows.limits[a:b], rows.estimate_limits[a:b]
    max_warps = rows.max_warps[a:b]
    reasons = ["[]"] * (b - a)
    if rows.reasons:
        for i, p in enumerate(rows.position[a:b].tolist()):
            words = rows.reasons.get(p)
            if words:
                reasons[i] = json.dumps(list(words))
    columns = zip(
        rows.active_blocks[a:b].tolist(), rows.active_warps[a:b].tolist(), rows.active_threads[a:b].tolist(),
        _ratio_texts(rows.active_warps[a:b], max_warps), *(_limit_texts(limits[:, k]) for k in range(5)),
        [_BINDING_TEXTS[f] for f in rows.binding[a:b].tolist()], rows.registers[a:b].tolist(),
        rows.shared_memory[a:b].tolist(), reasons, rows.estimate_blocks[a:b].tolist(),
        _ratio_texts(rows.estimate_warps[a:b], max_warps), *(_limit_texts(estimate[:, k]) for k in range(5)),
    )  # fmt: skip
    texts = list(map(ROW_JSON.__mod__, columns))
    for i in np.flatnonzero(limits[:, _VIRTUAL] < INT_MAX).tolist():  # a virtual-resource limit: its own key
        texts[i] = answer_json(rows.figures(a + i, a + i + 1)[0])
    return texts


def _merged(answers: list[BatchAnswer | None], rows: ResultRows, lo: int, hi: int,
            rows_text: list[str]) -> list[str]:  # fmt: skip
    """Lines ``lo..hi-1``: each row's text at its position, every other line's answer as JSON."""
    texts: list[str | None] = [None if a is None else answer_json(a) for a in answers[lo:hi]]
    a, b = rows.span(lo, hi)
    for p, text in zip((rows.position[a:b] - lo).tolist(), rows_text):
        texts[p] = text
    assert None not in texts
    return texts  # type: ignore[return-value]  # every slot is filled by now


def chunk_to_jsonl(answers: list[BatchAnswer | None], rows: ResultRows, lo: int, hi: int) -> str:
    """Lines ``lo..hi-1`` of a chunk as JSON Lines."""
    if hi <= lo:
        return ""
    a, b = rows.span(lo, hi)
    return "\n".join(_merged(answers, rows, lo, hi, rows_to_json(rows, a, b))) + "\n"


def chunk_to_csv(numbers: list[int], answers: list[BatchAnswer | None], rows: ResultRows, lo: int, hi: int) -> str:
    """Lines ``lo..hi-1`` of a chunk as CSV rows (``serialize.CSV_HEADER``'s columns)."""
    a, b = rows.span(lo, hi)
    full: list[BatchAnswer | None] = list(answers[lo:hi])
    for p, figures in zip((rows.position[a:b] - lo).tolist(), rows.figures(a, b)):
        full[p] = figures
    assert None not in full
    return answers_to_csv(numbers[lo:hi], full)  # type: ignore[arg-type]  # every slot is filled by now
