"""The Review screen: its queue, drawing, panels, writes and its measurement mode (``measure``)."""
