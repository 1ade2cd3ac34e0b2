"""PyInstaller entry point of the ``occupancy`` executable (the command line; no Qt)."""

import sys

from occupancy_gui.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
