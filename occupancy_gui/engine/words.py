"""How the engine writes a count in its sentences: ``"1 warp"``, ``"8 warps"`` (the display layer groups digits)."""

from __future__ import annotations


def count(value: int, word: str, plural: str | None = None) -> str:
    """``value`` and ``word``, plural unless the value is 1."""
    return f"{value} {word if value == 1 else (plural or word + 's')}"
