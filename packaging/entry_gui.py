"""PyInstaller entry point of the ``occupancy-gui`` executable (the desktop GUI)."""

import sys

from occupancy_gui._process.child_process import run_worker

if __name__ == "__main__":
    if run_worker(sys.argv):  # a worker process of this executable (see occupancy_gui._process.child_process)
        sys.exit(0)
    from occupancy_gui.__main__ import main

    sys.exit(main())
