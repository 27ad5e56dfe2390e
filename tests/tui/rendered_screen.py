"""The screen of a TUI test as the terminal would show it: its rows as text, its cells with
their colours (as Textual's own screenshot renders them), and the widgets drawn on it with the
region each is drawn in. The surface checks (``surface.py`` and its neighbours) read these."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.geometry import Region
from textual.widget import Widget


@dataclass(frozen=True)
class Cell:
    """One cell of the terminal: its character and its foreground colour."""

    char: str
    color: str | None


#: The screen drawn once for each app inside :func:`one_frame`: None until first read.
_frames: dict[int, list[list[Segment]] | None] = {}


@contextmanager
def one_frame(app: App[Any]) -> Iterator[None]:
    """Inside, every reading of ``app``'s screen is of one drawing of it: for checks that read
    it in turn and change nothing, with no ``await`` between them (nothing can move), where
    drawing it again for each check would be most of what they cost."""
    _frames[id(app)] = None
    try:
        yield
    finally:
        del _frames[id(app)]


def _render(app: App[Any]) -> list[list[Segment]]:
    if id(app) not in _frames:
        return _draw(app)
    frame = _frames[id(app)]
    if frame is None:
        frame = _frames[id(app)] = _draw(app)
    return frame


def _draw(app: App[Any]) -> list[list[Segment]]:
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    segments = list(console._record_buffer)
    lines = list(Segment.split_lines(segments))
    return lines[:height]


def screen_lines(app: App[Any]) -> list[str]:
    """The screen as the terminal shows it, one string per row."""
    width = app.size.width
    return [
        "".join(s.text for s in line if not s.control)[:width].ljust(width) for line in _render(app)
    ]


def screen_cells(app: App[Any]) -> list[list[Cell]]:
    """The screen cell by cell, each with its foreground colour (as ``#rrggbb``)."""
    out = []
    for line in _render(app):
        row: list[Cell] = []
        for segment in line:
            if segment.control:
                continue
            style = segment.style or Style()
            color = style.color.get_truecolor().hex if style.color is not None else None
            row.extend(Cell(ch, color) for ch in segment.text)
        out.append(row)
    return out


def region_lines(lines: list[str], region: Region) -> list[str]:
    """The text inside ``region`` of the screen, one string per row."""
    return [line[region.x : region.right] for line in lines[region.y : region.bottom]]


def visible_widgets(app: App[Any]) -> Iterator[tuple[Widget, Region]]:
    """Each widget drawn on the top screen, with the part of the screen it is drawn in."""
    for widget, (region, clip) in app.screen._compositor.visible_widgets.items():
        shown = region.intersection(clip)
        if shown.area and widget.display and widget.visible:
            yield widget, shown


def _where(widget: Widget) -> str:
    return f"{type(widget).__name__}#{widget.id}" if widget.id else type(widget).__name__
