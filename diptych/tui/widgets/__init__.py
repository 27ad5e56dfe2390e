"""Widgets reused across screens (each with its own ``DEFAULT_CSS``)."""
