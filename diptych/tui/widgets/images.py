"""The picture widget textual-image draws, chosen once for every screen that shows an image.

textual-image picks Kitty's graphics protocol or Sixel where the terminal supports them and
coloured half-block characters otherwise. ``DIPTYCH_TUI_IMAGES`` (``auto``, ``halfcell``,
``unicode``, ``sixel``, ``tgp``) or a screen's ``renderer`` argument forces one; the tests force
``halfcell`` so that screenshots do not depend on the terminal.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from textual.widget import Widget


class _NotATerminal:
    """sys.__stdout__ as textual-image sees it while it is imported under a running app."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _app_is_running() -> bool:
    # textual._context is Textual's own record of the app running on this thread; there is no
    # public way to ask.
    from textual._context import active_app

    return active_app.get(None) is not None


# textual-image asks the terminal which graphics it supports and how large a cell is when it is
# first imported. Imported before an app starts (as ``diptych tui`` should: import this module
# at start-up), it gets its answers. Imported while an app runs, Textual's input thread would
# read the terminal's answers as keystrokes (they would land in the reviewer-name box), so it is
# told there is no terminal to ask; "auto" then means half blocks, which every terminal draws.
IMPORTED_UNDER_APP = _app_is_running()
if IMPORTED_UNDER_APP and sys.__stdout__ is not None:
    _stdout = sys.__stdout__
    # setattr: typeshed declares sys.__stdout__ final; it is swapped back straight after.
    setattr(sys, "__stdout__", _NotATerminal(_stdout))  # noqa: B010
    try:
        from textual_image import widget as image_widgets
    finally:
        setattr(sys, "__stdout__", _stdout)  # noqa: B010
else:
    from textual_image import widget as image_widgets

RENDERER_ENV = "DIPTYCH_TUI_IMAGES"
RENDERERS: dict[str, type[Widget]] = {
    "auto": image_widgets.HalfcellImage if IMPORTED_UNDER_APP else image_widgets.Image,
    "halfcell": image_widgets.HalfcellImage,
    "unicode": image_widgets.UnicodeImage,
    "sixel": image_widgets.SixelImage,
    "tgp": image_widgets.TGPImage,
}


def image_widget_class(renderer: str | None = None) -> type[Widget]:
    """The textual-image widget for ``renderer`` (else ``$DIPTYCH_TUI_IMAGES``, else auto)."""
    name = (renderer or os.environ.get(RENDERER_ENV) or "auto").strip().lower()
    if name not in RENDERERS:
        known = ", ".join(RENDERERS)
        raise ValueError(f"unknown image renderer {name!r} ({RENDERER_ENV}); choose {known}")
    return RENDERERS[name]


def cell_pixels() -> tuple[int, int]:
    """(width, height) of a terminal cell in pixels, as textual-image measured it at import."""
    size = image_widgets.get_cell_size()
    return int(size.width), int(size.height)
