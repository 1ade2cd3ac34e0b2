"""Views that plug into the main window through ``ui.extensions``."""
