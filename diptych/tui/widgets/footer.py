"""The footer every screen shows: its keys, with Help and Quit always in view.

Textual's footer lists the keys left to right and cuts what the terminal has no room for, and
the app's own keys come last: at 60 columns "? Help" and "q Quit" were the ones cut. Here they
stand at the right end, where no number of screen keys pushes them out. While a field takes the
letters, ``q`` types a q: the footer then shows the key that still quits (ctrl+q).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalGroup
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: The key that quits wherever the focus is (Textual's own, a priority binding).
QUIT = Binding("ctrl+q", "quit", "Quit")
#: The app's actions kept in view.
PINNED = ("help", "quit")


class KeysFooter(Footer):
    """A footer whose Help and Quit keys are pinned to its right end."""

    DEFAULT_CSS = """
    KeysFooter .pinned-keys {
        dock: right;
        width: auto;
        height: 1;
        background: $footer-background;
    }
    KeysFooter .pinned-keys FooterKey {
        margin-left: 1;
    }
    """

    def compose(self) -> ComposeResult:
        keys = list(super().compose())
        pinned = [k for k in keys if isinstance(k, FooterKey) and k.action in PINNED]
        yield from (k for k in keys if k not in pinned)
        if not any(k.action == "quit" for k in pinned):
            # A focused field takes q (and ?, for which the footer shows F1): ctrl+q still quits.
            pinned.append(
                FooterKey("ctrl+q", self.app.get_key_display(QUIT), "Quit", "quit").data_bind(
                    compact=Footer.compact
                )
            )
        if pinned:
            pinned.sort(key=lambda k: PINNED.index(k.action))
            yield HorizontalGroup(*pinned, classes="pinned-keys")
