"""The Audit screen: the screen (open an audit file, see its parts, run it, get its report) and
the rows and lines it shows."""

from diptych.tui.screens.audit.rows import estimate_cells
from diptych.tui.screens.audit.screen import AuditScreen

__all__ = ["AuditScreen", "estimate_cells"]
