"""The window's docks and their views; the main window builds them (see ``main_window.py``)."""
