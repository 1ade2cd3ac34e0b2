"""The ``occupancy`` command line: calc, batch, devices, suggest, import."""
