"""The Review screen: its queue, drawing, panels, writes and measurement."""
