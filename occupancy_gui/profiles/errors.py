"""The one exception every profile problem is reported as.

A profile error must let a user fix the file without reading our code, so it always names the file,
the line and the dotted field, and it prints on one line (GUI status bars and CLI logs alike).
"""

from __future__ import annotations


class ProfileError(ValueError):
    """A device profile that cannot be used: ``path:line: field: message``."""

    def __init__(self, path: str, line: int | None, field: str | None, message: str) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.message = " ".join(message.split())
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        if self.field:
            return f"{where}: {self.field}: {self.message}"
        return f"{where}: {self.message}"

    def __reduce__(self) -> tuple[type[ProfileError], tuple[str, int | None, str | None, str]]:
        return (type(self), (self.path, self.line, self.field, self.message))
