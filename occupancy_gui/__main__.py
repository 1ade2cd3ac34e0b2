"""``python -m occupancy_gui`` and the ``occupancy-gui`` script: start the GUI."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from .ui.app import main as gui_main  # noqa: PLC0415 - lazy: `python -m occupancy_gui --help` loads Qt only to start

    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main())
