"""The footer every screen shows: its keys, each drawn whole, with Help and Quit always in view.

Textual's footer lists the keys left to right and cuts what the terminal has no room for ("r
Revi", or a key gone off the right end without a word), and the app's own keys come last: at 60
columns "? Help" and "q Quit" were the ones cut. Here they stand at the right end, and the
screen's keys are fitted into the room left of them: in Textual's own spacing where they fit,
in its compact spacing where that is enough, and otherwise without the keys the screen can spare
first (its ``FOOTER_SPARE`` actions, then from the right). A key left out still works, and
Help, which stays in view, lists every key of the screen: "Help +N keys" counts those Help
lists that the footer does not show (the keys never in the footer among them). While a field
takes the letters, ``q`` types a q: the footer then shows the key that still quits (ctrl+q).

A screen whose keys act on what is selected (the Runs screen's u, p and c on the highlighted
run) names, in its ``footer_labels()``, the keys that cannot act there now (None: left out of
the footer; pressed all the same, the key says why) or what they do there.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.compose import compose
from textual.containers import HorizontalGroup
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: The key that quits wherever the focus is (Textual's own, a priority binding).
QUIT = Binding("ctrl+q", "quit", "Quit")
#: The app's actions kept in view.
PINNED = ("help", "quit")


def key_width(key: FooterKey, *, compact: bool, pinned: bool = False) -> int:
    """The cells a key takes in the footer, margins included (Textual's footer CSS: padding
    around the key and after the label, or in compact spacing one cell between them and a
    margin after; a pinned key has one cell of margin before it)."""
    text = cell_len(key.key_display) + cell_len(key.description)
    return text + (2 if compact else 3) + (1 if pinned else 0)


def fitted(
    keys: list[FooterKey],
    pinned: list[FooterKey],
    width: int,
    spare: Iterable[str],
    *,
    compact_only: bool = False,
) -> tuple[list[FooterKey], bool]:
    """The keys shown in ``width`` cells beside the pinned ones, and whether in compact
    spacing: all of them in Textual's spacing if they fit, else compact, else compact without
    the ``spare`` actions (in that order), then without the rightmost, until they fit."""
    for compact in (True,) if compact_only else (False, True):
        room = width - sum(key_width(k, compact=compact, pinned=True) for k in pinned)
        if sum(key_width(k, compact=compact) for k in keys) <= room:
            return keys, compact
    order = [k for a in spare for k in keys if k.action == a]
    order += [k for k in reversed(keys) if k not in order]
    shown = list(keys)
    for key in order:
        if sum(key_width(k, compact=True) for k in shown) <= room:
            break
        shown.remove(key)
    return shown, True


def collect_bindings(cls: type[DOMNode], *, skip: tuple[type, ...] = ()) -> list[Binding]:
    """The bindings a class has, its own and inherited (the nearest class wins a key), less
    those of the classes in ``skip`` (Textual's Screen keys, listed once under Everywhere)."""
    by_key: dict[str, Binding] = {}
    for base in reversed(cls.__mro__):
        if base in skip:
            continue
        for binding in Binding.make_bindings(base.__dict__.get("BINDINGS", [])):
            by_key[binding.key] = binding
    return [b for b in by_key.values() if not b.system]


def help_actions(screen: type[Screen[Any]]) -> list[str]:
    """The actions Help lists as the keys of ``screen`` (its own bindings and those it
    inherits, Textual's Screen keys and the pinned ones aside), each once."""
    bindings = collect_bindings(screen, skip=(Screen, ModalScreen))
    return list(dict.fromkeys(b.action for b in bindings if b.action not in PINNED))


def _tooltip(key: FooterKey) -> str:
    return key.tooltip if isinstance(key.tooltip, str) else ""


def _looks(keys: list[FooterKey]) -> tuple[tuple[object, ...], ...]:
    """What a user sees of each key: what it is, says and does, and whether it is enabled."""
    return tuple(
        (k.key, k.key_display, k.description, k.action, k._disabled, _tooltip(k), k.classes)
        for k in keys
    )


class KeysFooter(Footer):
    """A footer whose keys are drawn whole: Help and Quit pinned to its right end, the
    screen's keys fitted left of them (module docstring)."""

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

    _fitted_to = 0
    #: What the keys last composed show (:func:`_looks`, both groups, and the spacing).
    _drawn: object = None

    def __init__(self, *, compact: bool = False, show_command_palette: bool = True) -> None:
        super().__init__(compact=compact, show_command_palette=show_command_palette)
        self._always_compact = compact

    def compose(self) -> ComposeResult:
        keys = self._labelled([k for k in super().compose() if isinstance(k, FooterKey)])
        pinned = [k for k in keys if k.action in PINNED]
        own = [k for k in keys if k not in pinned]
        if not any(k.action == "quit" for k in pinned):
            # A focused field takes q (and ?, for which the footer shows F1): ctrl+q still quits.
            pinned.append(
                FooterKey("ctrl+q", self.app.get_key_display(QUIT), "Quit", "quit").data_bind(
                    compact=Footer.compact
                )
            )
        pinned.sort(key=lambda k: PINNED.index(k.action))
        self._fitted_to = self._width()
        spare = getattr(self.screen, "FOOTER_SPARE", ())
        shown, compact = fitted(
            own, pinned, self._fitted_to, spare, compact_only=self._always_compact
        )
        # Help says how many keys it lists for this screen besides those drawn ("? Help +3
        # keys"): the keys never in the footer (m, e on the Runs screen) and those left out
        # for want of room, so that a key not in view is known to be there. Its longer label
        # may leave out one key more: fitted again until the count holds.
        offered = {k.action for k in own}
        elsewhere = len([a for a in help_actions(type(self.screen)) if a not in offered])
        plain = pinned
        more = elsewhere + len(own) - len(shown)
        for _ in range(len(own) + 1):
            if not more:
                break
            pinned = [self._more_keys(k, more) for k in plain]
            shown, compact = fitted(
                own, pinned, self._fitted_to, spare, compact_only=self._always_compact
            )
            if elsewhere + len(own) - len(shown) == more:
                break
            more = elsewhere + len(own) - len(shown)
        # Before the keys are mounted: each takes the footer's spacing as it mounts.
        self.set_reactive(Footer.compact, compact)
        self.set_class(compact, "-compact")
        self._drawn = (_looks(shown), _looks(pinned), compact)
        yield from shown
        if pinned:
            yield HorizontalGroup(*pinned, classes="pinned-keys")

    @staticmethod
    def _more_keys(key: FooterKey, more: int) -> FooterKey:
        if key.action != "help":
            return key
        label = f"Help +{more} {'key' if more == 1 else 'keys'}"
        return FooterKey(
            key.key, key.key_display, label, key.action, tooltip=_tooltip(key)
        ).data_bind(compact=Footer.compact)

    def _labelled(self, keys: list[FooterKey]) -> list[FooterKey]:
        """The keys as the screen's state labels them (module docstring)."""
        labels = getattr(self.screen, "footer_labels", None)
        wanted: dict[str, str | None] = labels() if callable(labels) else {}
        out = []
        for key in keys:
            if key.action not in wanted:
                out.append(key)
            elif (label := wanted[key.action]) is not None:
                out.append(
                    FooterKey(
                        key.key, key.key_display, label, key.action, tooltip=_tooltip(key)
                    ).data_bind(compact=Footer.compact)
                )
        return out

    async def recompose(self) -> None:
        """Mount the keys again only where they would show something else: the bindings are
        signalled at each focus moved and row highlighted, mostly with the same keys, and each
        key mounted is styled anew (most of a key press's work)."""
        if not self.is_attached or self._pruning:
            return
        before = self._drawn
        keys = compose(self)
        if self._drawn == before and self.children:
            return
        async with self.batch():
            await self.query_children("*").exclude(".-textual-system").remove()
            if self.is_attached:
                await self.mount_all(keys)

    async def redraw(self) -> None:
        """Draw the screen's keys again now, from the handler that changed them: on the
        bindings refreshed, Textual's footer draws them again only after the next refresh, a
        frame or two after what changed them (the Runs screen's rows, just loaded). The
        screen's first bindings signal may not have come yet (Textual's footer composes no keys
        until it has): its bindings are known all the same once it is mounted."""
        self.set_reactive(Footer._bindings_ready, True)
        with self._context():  # the keys bind to the footer, as in its own handlers
            await self.recompose()

    def _width(self) -> int:
        return self.size.width or self.app.size.width

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._fitted_to:
            self.call_after_refresh(self.recompose)
