"""Drawing a probe's figures as PNG bytes, shared by the probes that draw them.

matplotlib is imported only when a figure is drawn: planning and running never need it.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as MplFigure
    from matplotlib.text import Annotation
    from matplotlib.transforms import Bbox


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


def place_labels(
    ax: Axes, labels: Sequence[tuple[str, float, float]], fontsize: float = 7.0
) -> list[Annotation]:
    """Each ``(text, x, y)`` written beside its point — right of it, else left — moved up or
    down a line (with a thin leader) where it would cover a label placed before it or leave
    the axes: two occupations at one point (nurse and receptionist both at 90% women, 100%
    feminine) are both read.

    Placement needs the finished layout, so it belongs inside the drawing (``png_later``):
    the layout is fixed first and the labels take no part in it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    fig = ax.get_figure(root=True)
    assert fig is not None
    FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    frame = ax.get_window_extent(renderer)
    step = fontsize + 1.5
    placed: list[Bbox] = []
    out: list[Annotation] = []
    candidates = [(side, shift) for shift in _SHIFTS for side in (1, -1)]
    for text, x, y in labels:
        for side, shift in candidates:
            note = ax.annotate(
                text,
                (x, y),
                xytext=(3 * side, 2 + shift * step),
                textcoords="offset points",
                ha="left" if side > 0 else "right",
                fontsize=fontsize,
                annotation_clip=False,
                arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "#777"} if shift else None,
            )
            note.set_in_layout(False)
            # The text's own box (an Annotation's would include its leader line), once the
            # annotation has placed its text.
            note.update_positions(renderer)
            box = Text.get_window_extent(note, renderer).expanded(1.04, 1.1)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0
            free = inside and box.y1 <= frame.y1 and not any(box.overlaps(o) for o in placed)
            if free or (side, shift) == candidates[-1]:
                break
            note.remove()
        placed.append(box)
        out.append(note)
    return out


#: Lines a label may move, nearest first (up before down).
_SHIFTS = (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7, 8, -8)
