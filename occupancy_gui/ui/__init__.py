"""The desktop GUI: the only package that imports PySide6 and pyqtgraph.

The binding is pinned here, before anything imports pyqtgraph: pyqtgraph would otherwise pick
PyQt6 whenever it happens to be installed.
"""

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import PySide6.QtCore  # noqa: F401  (must come before pyqtgraph)

# isort: split
import pyqtgraph

# Plain cosmetic lines; antialiasing costs time on every repaint of a step curve.
pyqtgraph.setConfigOptions(antialias=False, useOpenGL=False, imageAxisOrder="row-major")
