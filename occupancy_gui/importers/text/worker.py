"""Entry point of the worker process of :mod:`.parallel`: ``python -m occupancy_gui.importers.text.worker
READ_FD WRITE_FD`` reads the tail of the log its parent names and sends its table back.  A module of its
own so that the reader is imported once, under its own name, not run as ``__main__``."""

from __future__ import annotations

import sys

from .parallel import serve

if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
