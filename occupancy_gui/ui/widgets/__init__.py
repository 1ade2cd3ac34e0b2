"""Reusable input widgets."""
