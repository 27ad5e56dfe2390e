"""The footer every screen shows: its keys, with Help and Quit always in view.

Textual's footer lists the keys left to right and cuts what the terminal has no room for, and
the app's own keys come last: at 60 columns "? Help" and "q Quit" were the ones cut. Here they
stand at the right end, where no number of screen keys pushes them out.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

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
        if pinned:
            pinned.sort(key=lambda k: PINNED.index(k.action))
            yield HorizontalGroup(*pinned, classes="pinned-keys")
