"""The Rich console every command prints through: text from files and models (identity names,
groups, queries, answers) has its terminal control characters escaped before it is measured
and drawn, so a name holding ``ESC [ 2 J`` shows as ``\\x1b[2J`` instead of clearing the
screen. Rich's own styling is added after, and is not touched.

Where it writes to no terminal (a log file in CI, a pipe) and no width is asked for (no
``COLUMNS``), a sentence runs to its end on one line and a table takes the width its content
needs: rich's fallback of 80 columns would break prose mid-phrase and cut table cells in a file
nobody reads at 80 columns."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from diptych.cli.table_fit import fit_table
from diptych.core.safe_text import escape_controls, has_controls

#: The width of a console that writes to no terminal and is given none (no ``COLUMNS``): wider
#: than any line a command prints, so a table is measured at its content's width.
UNBOUNDED_WIDTH = 10_000


class SafeConsole(Console):
    """A ``rich.console.Console`` that escapes control characters in the text it renders, and
    does not wrap where it writes to no terminal."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        asked = kwargs.get("width") is not None or os.environ.get("COLUMNS", "").isdigit()
        if kwargs.get("force_terminal") is None and not asked and not _is_a_terminal(self.file):
            # A width asked for (``width=``, ``COLUMNS``) is a terminal's, wrapped to; with
            # none, prose is never wrapped into a file and a table takes what it needs.
            self.soft_wrap = True
            self.width = UNBOUNDED_WIDTH

    def print(self, *objects: Any, **kwargs: Any) -> None:
        # Every table is fitted to the width between words, or stacked where it cannot be.
        fitted = (fit_table(o, self) if isinstance(o, Table) else o for o in objects)
        super().print(*fitted, **kwargs)

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


def _is_a_terminal(file: object) -> bool:
    isatty = getattr(file, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except ValueError:  # a closed file
        return False
