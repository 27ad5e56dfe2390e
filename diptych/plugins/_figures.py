"""Drawing a probe's figures as PNG bytes, shared by the probes that draw them.

matplotlib is imported only when a figure is drawn: planning and running never need it.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure as MplFigure


def png(fig: MplFigure) -> bytes:
    """``fig`` as PNG bytes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    # A Figure with its own Agg canvas, not pyplot: no global backend or figure registry is
    # touched, so this is safe in a TUI worker thread and leaks nothing.
    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def png_later(fig: MplFigure) -> Callable[[], bytes]:
    """``fig`` drawn as PNG bytes when the caller first asks (``Figure(draw=...)``): most
    reports show the numbers as their own charts and never need the drawing."""
    return lambda: png(fig)


def new_figure(width: float, height: float) -> MplFigure:
    """An empty figure of ``width`` × ``height`` inches with a constrained layout."""
    from matplotlib.figure import Figure as MplFigure

    return MplFigure(figsize=(width, height), layout="constrained")
