"""Entry point of the worker processes of :mod:`.parallel`: ``python -m
occupancy_gui.importers.binary.worker READ_FD WRITE_FD`` reads the pieces its parent sends on one pipe
and answers on the other, until told to stop.  A module of its own so that the reader is imported
once, under its own name, not run as ``__main__``."""

from __future__ import annotations

import sys

from .parallel import serve

if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
