"""The line where a screen says what a key did, above its footer, in place of a toast.

A toast is drawn over the screen's bottom right corner: on the Runs screen at 60×20 it covered
the selected run's values, on New run the Start and Back buttons ("t", "k"). A screen's
:class:`SaidLine` takes a row of its own instead, so the rest of the screen gives it room and
nothing it draws is covered. The app's ``notify`` comes here (:func:`say`) on every screen: a
screen that places its line composes one (New run, above its plan); any other gets one docked
above its footer the first time it has something to say.

What is said stays for as long as it takes to read (an error longer than a note), until the
next thing said replaces it, or until the state it describes has changed (:meth:`SaidLine.unsay`:
a form fixed takes back "the run cannot start"). A note said to stay (``stays``: where Run detail
wrote the report, a path the user goes off to open and comes back to copy) has no time of its
own: it goes when the next thing is said or the next key acts (the app's ``run_action``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.notifications import Notification, SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer

from diptych.tui.widgets.whole_numbers import WholeNumbers

#: The least time a message stays, by severity (seconds): a warning or an error says what to
#: do, and is read to its end before it goes.
LEAST_SECONDS: dict[str, float] = {"information": 0.0, "warning": 8.0, "error": 12.0}

#: Reading speed for a long message (words per second), so that its end is read too.
WORDS_PER_SECOND = 3.0


def seconds_shown(message: str, severity: str, timeout: float) -> float:
    """How long ``message`` stays: ``timeout``, made long enough to read it whole."""
    reading = 2.0 + len(message.split()) / WORDS_PER_SECOND
    return max(timeout, reading, LEAST_SECONDS.get(severity, 0.0))


class SaidLine(WholeNumbers):
    """One message at a time, on a row of the screen's own; hidden while there is none."""

    DEFAULT_CSS: ClassVar[str] = """
    SaidLine {
        display: none;
        height: auto;
        max-height: 3;
        width: 100%;
        padding: 0 1;
        background: $panel;
        color: $text-success;
    }
    SaidLine.-docked {
        dock: bottom;
    }
    SaidLine.-warning {
        color: $text-warning;
    }
    SaidLine.-error {
        color: $text-error;
        text-style: bold;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        #: Everything said on this screen, oldest first.
        self.said: list[Notification] = []
        #: What the message shown now is about (``None``: nothing in particular).
        self.about: str | None = None
        self._out: Timer | None = None
        self._pending: tuple[Notification, float | None] | None = None

    def on_mount(self) -> None:
        if self._pending is not None:
            note, seconds = self._pending
            self._pending = None
            self._show(note, seconds)

    def say(self, note: Notification, *, about: str | None = None, stays: bool = False) -> None:
        """Show ``note`` in place of what was said before; ``about`` names the state it
        describes, for :meth:`unsay`; ``stays``: until the user moves on, not for a time."""
        self.said.append(note)
        self.about = about
        seconds = None if stays else seconds_shown(note.message, note.severity, note.timeout)
        if self.is_mounted:
            self._show(note, seconds)
        else:
            self._pending = (note, seconds)

    def unsay(self, about: str) -> None:
        """Take back the message shown if it is about ``about``: what it said holds no more."""
        if self.about == about:
            self._pending = None
            self._hide()

    def unsay_all(self) -> None:
        """Take back whatever is shown: the user has moved on to something it stood over."""
        self._pending = None
        self._hide()

    def _show(self, note: Notification, seconds: float | None) -> None:
        self.set_classes(f"-{note.severity}" + (" -docked" if self.has_class("-docked") else ""))
        if self.has_class("-docked"):
            self.styles.margin = (0, 0, _rows_docked_below(self), 0)
        self.update(Text(note.message))
        self.display = True
        if self._out is not None:
            self._out.stop()
        self._out = None if seconds is None else self.set_timer(seconds, self._hide)

    def _hide(self) -> None:
        self.about = None
        self.display = False


def _rows_docked_below(line: SaidLine) -> int:
    """The rows the screen's other bottom-docked widgets take now (the footer, a filter bar
    open above it): docked widgets at one edge are laid over each other, so the line sits
    above the highest of them."""
    parent = line.parent
    if parent is None:
        return 0
    rows = 0
    for widget in parent.children:
        if widget is line or not widget.display or widget.styles.dock != "bottom":
            continue
        rows = max(rows, widget.outer_size.height + widget.styles.margin.bottom)
    return rows


def said_line(screen: Screen[Any]) -> SaidLine:
    """``screen``'s line, docked above its footer if the screen has not placed one."""
    found = screen.query(SaidLine)
    if found:
        return found.first()
    line = SaidLine(classes="-docked")
    # Docked widgets at one edge are laid over each other: the line sits one row up from the
    # screen's bottom where a footer takes that row.
    footers = [f for f in screen.query_children(Footer) if f.styles.dock == "bottom"]
    line.styles.margin = (0, 0, 1 if footers else 0, 0)
    screen.mount(line)
    return line


def say(
    screen: Screen[Any],
    message: str,
    *,
    title: str = "",
    severity: SeverityLevel = "information",
    timeout: float = 5.0,
    about: str | None = None,
    stays: bool = False,
) -> SaidLine:
    """Say ``message`` on ``screen``'s line (a title, if any, leads it); ``stays``: until the
    user moves on (module docstring)."""
    text = f"{title}: {message}" if title else message
    line = said_line(screen)
    line.say(Notification(text, "", severity, timeout, markup=False), about=about, stays=stays)
    return line
