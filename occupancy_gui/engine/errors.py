"""The engine's one exception type, carrying the header's status code."""

from __future__ import annotations

from .types import OccError


class OccupancyError(ValueError):
    """Raised where ``cuda_occupancy.h`` would return an error status instead of a result.

    ``status`` is the header's ``cudaOccError`` so that callers (and the differential tests) can
    tell "invalid input" from "unknown device" exactly as the header does.
    """

    def __init__(self, status: OccError, message: str) -> None:
        super().__init__(message)
        self.status = status
