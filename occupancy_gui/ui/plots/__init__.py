"""Step curves of occupancy against each input (pyqtgraph)."""
