"""The AMD engine's exception for inputs no rule can take (a wave size the target lacks, negative counts)."""

from __future__ import annotations


class AmdInputError(ValueError):
    """An AMD input outside what the target or the rules accept; the message is one line naming the field."""
