"""The Rich console every command prints through: text from files and models (identity names,
groups, queries, answers) has its terminal control characters escaped before it is measured
and drawn, so a name holding ``ESC [ 2 J`` shows as ``\\x1b[2J`` instead of clearing the
screen. Rich's own styling is added after, and is not touched."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from diptych.core.safe_text import escape_controls, has_controls


class SafeConsole(Console):
    """A ``rich.console.Console`` that escapes control characters in the text it renders."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        # Escaped before markup and measuring, so that table columns keep their widths.
        return super().render_str(escape_controls(text), **kwargs)

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            # A Text built directly (not from a str) reaches here unescaped; Rich's own
            # cursor and screen controls are control segments and pass as they are.
            if not segment.control and has_controls(segment.text):
                yield Segment(escape_controls(segment.text), segment.style)
            else:
                yield segment
