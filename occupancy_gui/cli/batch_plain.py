"""``occupancy batch``'s fast screen: the lines whose JSON is plain, decoded straight into int64 columns.

A line is plain when it is one flat JSON object (no array, no nested object) of a sane length whose
device is a name and whose query keys are ints, ``null`` or absent (``cache_config`` and ``carveout``
also as the strings ``kernel_query`` accepts, which are looked up once each).  msgspec checks all of
that in C while it decodes, so a plain line costs about a microsecond and no dict.  Everything else —
invalid JSON, a wrong type, a mapping device, a figure beyond int64, a value ``kernel_query`` would
refuse in words — is left to the batch's exact per-line path, so every error text stays the one
``json`` and ``kernel_query`` give.

The screens are there because msgspec accepts a little that ``json`` refuses: integers of more digits
than ``sys.get_int_max_str_digits()`` and nesting deeper than Python's recursion limit, both only
inside keys the batch ignores.  A line shorter than the digit limit cannot hold such an integer; a
line of a few hundred characters cannot nest deeper than a few hundred, and a longer line without
``[`` and with one ``{`` nests one deep.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import attrgetter, is_, is_not
from typing import Any, cast

import msgspec
import msgspec.json
import numpy as np

from .. import fields
from ..engine import INT_MAX
from ..fields import BYTES, CACHE, CARVEOUT, COUNT, FIELD
from .inputs import QueryError, parse_cache_config, parse_carveout

MAX_PLAIN_CHARS = 2048
"""A plain query is a few hundred characters; a longer line is read by the exact path."""
MAX_SHALLOW_CHARS = 512
"""Lines up to this long skip the nesting screen (it cost a sixth of the decoding: 1M lines ~0.1 s)."""


_PLAIN_TYPES: dict[str, Any] = {
    COUNT: int | None,
    BYTES: int | None,
    CARVEOUT: int | str | None,
    CACHE: int | str | None,
}
"""What a plain line may hold for each kind of input: an int or ``null`` (a carveout and a cache preference also
by name)."""
_AMD_ONLY = tuple(f.name for f in fields.only_for(fields.AMD) if f.query)
PlainQuery = msgspec.defstruct(
    "PlainQuery",
    [
        ("device", str | None, None),
        *((name, _PLAIN_TYPES[FIELD[name].kind], None) for name in fields.QUERY_KEYS),
        *((name, None, None) for name in _AMD_ONLY),
    ],
    gc=False,
)
"""The keys of a plain query line as msgspec decodes them (the field table's NVIDIA query keys and the device);
keys it does not name are skipped.  A key only AMD devices take is plain only as ``null``: a line giving one
(an AMD device's line, or an NVIDIA line to refuse) is the exact path's."""

QUERY_KEYS = frozenset(PlainQuery.__struct_fields__) - {"device", *_AMD_ONLY}
_decode = msgspec.json.Decoder(PlainQuery).decode
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _max_chars() -> int:
    digits = sys.get_int_max_str_digits()
    return min(MAX_PLAIN_CHARS, digits) if digits else MAX_PLAIN_CHARS


def _shallow_chars() -> int:
    """The longest line that cannot nest deeply enough for ``json`` to give up: valid JSON nested ``d`` deep
    has ``2d`` brackets, and ``json`` nests as deep as the recursion limit allows (less the batch's own
    frames)."""
    return max(0, min(MAX_SHALLOW_CHARS, sys.getrecursionlimit() // 2 - 100))


def decode_plain(texts: Sequence[str | None]) -> tuple[list[int], list[msgspec.Struct]]:
    """The positions of the lines that decode as plain queries, and their queries.

    The screens and the decoding run as ``map`` calls, so a line costs no Python bytecode of its own;
    a line msgspec refuses ends one ``map`` and the next resumes after it.
    """
    count = len(texts)
    # An overlong line (None) becomes "[", which fails the screens.
    lines = [text or "[" for text in texts] if None in texts else cast(list[str], texts)
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=count)
    screened = lengths <= _max_chars()
    deep = np.flatnonzero(screened & (lengths > _shallow_chars()))  # only these could nest deeply
    for i in deep.tolist():
        screened[i] = lines[i].count("{") == 1 and "[" not in lines[i]
    candidates = np.flatnonzero(screened)
    decoded: list[msgspec.Struct | None] = []
    pending = compress(lines, screened.tolist())
    while True:
        try:
            decoded.extend(map(_decode, pending))
            break
        except (msgspec.DecodeError, RecursionError, ValueError):
            decoded.append(None)
    kept = np.fromiter(map(is_not, decoded, repeat(None)), dtype=np.bool_, count=len(decoded))
    return candidates[kept].tolist(), cast(list[msgspec.Struct], list(compress(decoded, kept.tolist())))


def _is_none(values: list[Any]) -> np.ndarray:
    return np.fromiter(map(is_, values, repeat(None)), dtype=np.bool_, count=len(values))


def _ints(values: list[Any], default: int | None, defer: np.ndarray) -> np.ndarray:
    """``values`` (ints and ``None``) as int64, ``None`` as ``default``; ``defer`` marks ``None`` where
    there is no default and every figure beyond int64 (the exact path words their refusal)."""
    if None in values:
        if default is None:
            defer |= _is_none(values)
            default = 0
        values = list(map({None: default}.get, values, values))  # an int is no key: it maps to itself
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:  # compared as Python ints, but in numpy's loops
        lo, hi = _INT64
        objects = np.array(values, dtype=object)
        beyond = (objects < lo) | (objects > hi)
        defer |= beyond.astype(bool)
        objects[beyond] = 0
        return objects.astype(np.int64)


_Parse = Callable[[object], int]
_WORDS: dict[_Parse, dict[object, int]] = {}
_WORDS_CAP = 4096


def _spelled(values: list[Any], parse: _Parse, lo: int, hi: int, defer: np.ndarray) -> np.ndarray:
    """A key that may be an int in ``lo..hi``, ``null`` or a word: each word (and ``null``) is read once
    by ``kernel_query``'s own parser; anything it refuses, and an int out of range, is deferred."""
    words = _WORDS.setdefault(parse, {})
    refused = lo - 1
    distinct = set(values)  # few distinct values: the words are found among them, not among the rows
    if any(type(v) is not int for v in distinct):
        for word in [v for v in distinct if type(v) is not int and v not in words]:
            try:
                value = int(parse(word))
            except QueryError:
                value = refused
            if len(words) < _WORDS_CAP:
                words[word] = value
            else:  # a flood of distinct words: they all take the exact path
                words = {**words, word: refused}
        values = list(map(words.get, values, values))  # an int is no key: it maps to itself
    try:
        column = np.array(values, dtype=np.int64)
    except OverflowError:  # an int beyond int64: compared as Python ints, but in numpy's loops
        objects = np.array(values, dtype=object)
        objects[(objects < lo) | (objects > hi)] = refused
        column = objects.astype(np.int64)
    defer |= (column < lo) | (column > hi)
    return column


def _parse_cache(value: object) -> int:
    return int(parse_cache_config(value))


_CACHE_PARSE: _Parse = _parse_cache
_CARVEOUT_PARSE: _Parse = parse_carveout


def plain_columns(queries: list[msgspec.Struct]) -> tuple[list[str | None], dict[str, np.ndarray], np.ndarray]:
    """The queries' devices, their fields as the batch's int64 columns, and the mask of those to defer.

    The fields read as ``batch._plain`` reads a dict: absent and ``null`` are the defaults, a carveout
    outside -1..100, a cache config outside 0..3, a launch bound below 1 and a required block size below 1 are
    ``kernel_query``'s to refuse.
    """
    defer = np.zeros(len(queries), dtype=bool)

    def field(name: str) -> list[Any]:
        return list(map(attrgetter(name), queries))

    max_dynamic = field("max_dynamic_smem")
    has_max = ~_is_none(max_dynamic)
    bound = _ints(field("max_threads_per_block"), INT_MAX, defer)
    defer |= bound < 1
    required_given = field("required_block_size")
    required = _ints(required_given, 0, defer)
    defer |= (required < 0) | ((required == 0) & ~_is_none(required_given))  # kernel_query words these
    columns = {
        "threads": _ints(field("threads"), None, defer),
        "registers": _ints(field("registers"), None, defer),
        "static_smem": _ints(field("static_smem"), 0, defer),
        "dynamic_smem": _ints(field("dynamic_smem"), 0, defer),
        "barriers": _ints(field("barriers"), 1, defer),
        "max_dynamic_smem": _ints(max_dynamic, 0, defer),
        "has_max_dynamic_smem": has_max.astype(np.int64),
        "carveout": _spelled(field("carveout"), _CARVEOUT_PARSE, -1, 100, defer),
        "cache_config": _spelled(field("cache_config"), _CACHE_PARSE, 0, 3, defer),
        "max_threads_per_block": bound,
        "required_block_size": required,
    }
    devices = field("device")
    return devices, columns, defer
