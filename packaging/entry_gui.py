"""PyInstaller entry point of the ``occupancy-gui`` executable (the desktop GUI)."""

import sys

from occupancy_gui.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
