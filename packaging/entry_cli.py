"""PyInstaller entry point of the ``occupancy`` executable (the command line; no Qt)."""

import sys

from occupancy_gui._process.child_process import run_worker

if __name__ == "__main__":
    if run_worker(sys.argv):  # a worker process of this executable (see occupancy_gui._process.child_process)
        sys.exit(0)
    from occupancy_gui.cli.main import main

    sys.exit(main())
