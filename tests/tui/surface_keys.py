"""What a user can do with the keys a screen of the TUI offers, checked by class of defect (the
rendered screen's cells, as :mod:`surface` reads them):

- :func:`silent_keys`: a key of the screen (in the footer, or left to Help) that, pressed,
  changes nothing and says nothing; with ``offered``, a key Help lists (or a card names) that
  the screen does not take now (its ``check_action``: M, t on a run without images a model
  made) is pressed too: it must say why;
- :func:`refused_keys`: a key shown in the footer that, pressed, only says why not: a key the
  screen's mode (Review's tone keys) does not take;
- :func:`cut_footer_keys`: a key the footer holds whose key or label is cut ("r Revi") or
  hidden (pushed off its right end, or drawn over by another key);
- :func:`unreachable_keys`: a key of the screen the footer does not show while its "? Help +N
  keys" does not count it: N is the number of the screen's keys (those Help lists for it, and
  those the footer means to show) that the footer does not draw;
- :func:`footer_lacks`: a footer without ``Help`` and ``Quit`` (docs/tui.md promises both on
  every screen, a field being typed in too), or a footer key cut to no label;
- :func:`help_leads_with_purpose`: Help opened on a screen starts with what that screen is for,
  then its keys;
- :func:`unseen_focus`: a widget drawn the same focused and not: where the keys go is not seen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from surface import region_lines, screen_lines
from textual.app import App
from textual.binding import Binding
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# --- keys -----------------------------------------------------------------------------------


#: Actions that leave the screen: pressed last, and leaving is what they do.
LEAVING = ("back", "pop_screen", "dismiss", "leave", "cancel", "close")


def footer_keys(app: App[Any]) -> list[str]:
    """The keys the footer shows (Help and Quit aside, which every screen has); those that
    leave the screen last. A key the screen's ``footer_labels()`` leaves out is not shown."""
    labels = getattr(app.screen, "footer_labels", None)
    left_out = {a for a, label in (labels() if callable(labels) else {}).items() if label is None}
    keys = []
    for key, active in app.screen.active_bindings.items():
        binding = active.binding
        if binding.action in left_out or binding.action in ("help", "quit"):
            continue
        if binding.show and active.enabled:
            keys.append(key)
    return sorted(keys, key=lambda k: _leaves(app, k))


def screen_keys(app: App[Any], *, offered: bool = False) -> list[str]:
    """The footer's keys, then the screen's keys it leaves to Help (under "? Help +N keys", or
    never in the footer: Runs' m and e): a user reads them there and presses them as well. One
    key per action; those that leave the screen last. With ``offered``, the keys Help lists
    that the screen does not take now as well: Help still names them (a card may too), and a
    user presses them."""
    from textual.screen import ModalScreen, Screen

    from diptych.tui.screens.help import collect_bindings

    shown = footer_keys(app)
    actions = {app.screen.active_bindings[k].binding.action for k in shown}
    bindings = collect_bindings(type(app.screen), skip=(Screen, ModalScreen))
    listed = {b.action for b in bindings}
    hidden = []
    for key, active in app.screen.active_bindings.items():
        action = active.binding.action
        if action in listed and action not in actions and (active.enabled or offered):
            if action not in ("help", "quit"):
                actions.add(action)
                hidden.append(key)
    if offered:
        # A key the screen's check_action turns off is not among its active bindings at all.
        taken = {a.binding.action for a in app.screen.active_bindings.values()}
        for binding in bindings:
            if binding.action not in taken | actions | {"help", "quit"}:
                actions.add(binding.action)
                hidden.append(binding.key)
    # Help's keys first: a footer key may open a field (a filter) that takes the keys after it.
    return sorted(hidden + shown, key=lambda k: _leaves(app, k))


def _leaves(app: App[Any], key: str) -> bool:
    active = app.screen.active_bindings.get(key)
    return active is not None and any(word in active.binding.action for word in LEAVING)


def cut_footer_keys(app: App[Any]) -> list[str]:
    """The keys the footer holds that it does not draw whole: each key's own cells must
    read its key and label ("r Review"), not a part of them, nothing (a key scrolled off the
    footer's right end) or another key drawn over it."""
    lines = screen_lines(app)
    found = []
    for footer in app.screen.query(Footer):
        if not (footer.display and footer.visible) or not footer.is_mounted:
            continue
        for key in footer.query(FooterKey):
            label = " ".join(key.render().plain.split())
            region = key.region
            drawn = " ".join(" ".join(region_lines(lines, region)).split()) if region.area else ""
            if drawn != label or not footer.region.contains_region(region):
                row = region_lines(lines, footer.region)[:1]
                found.append(f"footer: the key {label!r} is drawn as {drawn!r} in {row!r}")
    return found


#: The footer's word that keys it had no room for are listed under Help.
MORE_KEYS = re.compile(r"\bHelp \+(\d+) keys?\b")


def unreachable_keys(app: App[Any]) -> list[str]:
    """The screen's keys the footer does not draw, unless its Help counts each of them ("?
    Help +3 keys"): the keys Help lists for the screen (a key never in the footer among them)
    and those the footer means to show, less those it draws, are N."""
    from textual.screen import ModalScreen, Screen

    from diptych.tui.screens.help import collect_bindings

    footers = [f for f in app.screen.query(Footer) if f.display and f.is_mounted]
    if not footers:
        return []
    listed = [b.action for b in collect_bindings(type(app.screen), skip=(Screen, ModalScreen))]
    # By action: a binding of two keys ("n,right") is one key of the footer.
    meant = [app.screen.active_bindings[k].binding.action for k in footer_keys(app)]
    wanted = [a for a in dict.fromkeys(listed + meant) if a not in ("help", "quit")]
    footer = footers[0]
    drawn = {k.action for k in footer.query(FooterKey) if footer.region.contains_region(k.region)}
    missing = [a for a in wanted if a not in drawn]
    row = region_lines(screen_lines(app), footer.region)[0] if footer.region.height else ""
    said = MORE_KEYS.search(row)
    counted = int(said.group(1)) if said else 0
    # Where the app has a Help (a test's host of one screen may not) it says how many more.
    has_help = any(b.action == "help" for b in Binding.make_bindings(type(app).BINDINGS))
    if has_help and counted != len(missing):
        return [
            f"footer: {len(missing)} keys not shown {missing!r}; {row.strip()!r} counts {counted}"
        ]
    return []


@dataclass
class _Seen:
    stack: tuple[int, ...]
    lines: list[str]
    #: What has been said: each toast (by its identity, so that one timing out between two
    #: looks is not read as nothing said) and each line of a said list (by its place).
    notes: frozenset[str]
    focused: Widget | None


def _seen(app: App[Any]) -> _Seen:
    from diptych.tui.widgets.said import SaidLine

    return _Seen(
        tuple(id(s) for s in app.screen_stack),
        screen_lines(app),
        # A toast, or a line of the screen's own (Review says what a key did above its figures,
        # every other screen above its footer).
        frozenset(
            [n.identity for n in app._notifications]
            + [f"screen {n}" for n in range(len(getattr(app.screen, "said", ())))]
            + [
                f"{id(line)} {n}"
                for line in app.screen.query(SaidLine)
                for n in range(len(line.said))
            ]
        ),
        app.focused,
    )


async def silent_keys(
    pilot: Pilot[Any],
    *,
    leave: Iterable[str] = (),
    settle: Callable[[Pilot[Any]], Any] | None = None,
    hidden: bool = True,
    offered: bool = False,
) -> list[str]:
    """The screen's keys (:func:`screen_keys`; with ``hidden`` False, the footer's only; with
    ``offered``, those Help lists that the screen does not take now too) that, pressed, change
    nothing a user sees and say nothing. Each key
    is pressed on the screen as it was; a screen it opens is closed again. ``leave``: keys not
    to press (one that starts a paid run, say), each tested elsewhere. What a key says must
    cover nothing the screen draws (:func:`surface_text.notes_over_content`; conftest has a
    surface test's app draw its toasts)."""
    from surface_text import notes_over_content

    app = pilot.app
    home = app.screen
    found = []
    pressed = screen_keys(app, offered=offered) if hidden else footer_keys(app)
    keys = [(key, _leaves(app, key)) for key in pressed]
    for key, leaving in keys:
        if key in leave or (key not in app.screen.active_bindings and not offered):
            continue
        if app.screen is not home:
            break
        before = _seen(app)
        await pilot.press(key)
        for _ in range(4):
            await pilot.pause()
        if settle is not None:
            await settle(pilot)
        after = _seen(app)
        same = (before.stack, before.lines, before.focused) == (
            after.stack,
            after.lines,
            after.focused,
        )
        if same and not after.notes - before.notes:
            found.append(f"{key}: nothing changed and nothing was said")
        await _toasts_drawn(pilot)
        found += [f"{key}: {problem}" for problem in notes_over_content(app)]
        if leaving and home not in app.screen_stack:
            break  # it went back, as it says
        while app.screen is not home and len(app.screen_stack) > 1:
            app.pop_screen()
            await pilot.pause()
        if app.screen is not home:
            found.append(f"{key}: left the screen for good")
            break
    return found


async def refused_keys(pilot: Pilot[Any], *, leave: Iterable[str] = ()) -> list[str]:
    """The footer's keys that, pressed, say something and change nothing else a user sees: a
    key the screen's mode does not take (Review's m while its tone keys are armed, which says
    so), where the footer must show the keys the mode takes. Each key is pressed on the screen
    as it is; ``leave``: keys not to press (one that leaves the mode, a key refused for the
    person shown, not for the mode: ← at the first), each tested elsewhere."""
    app = pilot.app
    home = app.screen
    found = []
    for key in footer_keys(app):
        if key in leave or _leaves(app, key) or key not in home.active_bindings:
            continue
        # Judged at the second press: what the first said is in view by then (a said line
        # shown moves the rows under it), and a key that acts acts again. A key that opens a
        # screen (a dialog) does something: it is closed again.
        seen = [_seen(app)]
        for _ in range(2):
            await pilot.press(key)
            for _ in range(4):
                await pilot.pause()
            await _toasts_drawn(pilot)
            seen.append(_seen(app))
            if app.screen is not home:
                break
        while app.screen is not home and len(app.screen_stack) > 1:
            app.pop_screen()
            await pilot.pause()
        before, after = seen[-2:]
        unchanged = (before.stack, before.focused) == (after.stack, after.focused)
        if unchanged and after.notes - before.notes and _unsaid(app, before) == _unsaid(app, after):
            found.append(f"{key}: the footer offers it, and pressed it only says why not")
    return found


def _unsaid(app: App[Any], seen: _Seen) -> list[str]:
    """The screen's rows as ``seen``, with what a toast or a said line (Review's
    ``#review-said``) draws blanked out."""
    from textual.widgets._toast import Toast

    from diptych.tui.widgets.said import SaidLine

    lines = list(seen.lines)
    notes = [r for w, r in _visible(app)
             if isinstance(w, Toast | SaidLine) or (w.id or "").endswith("said")]  # fmt: skip
    for region in notes:
        for y in range(region.y, min(region.bottom, len(lines))):
            line = lines[y]
            lines[y] = line[: region.x] + " " * region.width + line[region.right :]
    return lines


def _visible(app: App[Any]) -> list[tuple[Widget, Region]]:
    from surface import visible_widgets

    return list(visible_widgets(app))


async def _toasts_drawn(pilot: Pilot[Any]) -> None:
    """Let the toasts of what was just said be drawn (they are mounted a few frames after
    the message that asks for them)."""
    from textual.widgets._toast import Toast

    app = pilot.app
    for _ in range(20):
        if len(app.screen.query(Toast)) >= len(app._notifications):
            return
        await pilot.pause()


def footer_lacks(app: App[Any], *, labels: bool = True) -> list[str]:
    """What the footer, as drawn, does not show of what every screen promises: ``Help`` and
    ``Quit`` (whatever keys they take while a field takes the letters), and a label for each
    key it shows (a key with its label cut to nothing, or to a stub, tells nothing)."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    footers = [f for f in app.screen.query(Footer) if f.display]
    if not footers:
        return []
    lines = screen_lines(app)
    found = []
    footer = footers[0]
    row = lines[footer.region.y] if footer.region.height else ""
    # Help where the app has it (a test's host of one screen may not).
    has_help = any(b.action == "help" for b in Binding.make_bindings(type(app).BINDINGS))
    for word in ("Help", "Quit") if has_help else ("Quit",):
        if not re.search(rf"\S+ {word}\b", row):
            found.append(f"the footer shows no {word}: {row.strip()!r}")
    for key in footer.query(FooterKey) if labels else []:
        shown_at = key.region.intersection(footer.region)
        text = lines[shown_at.y][shown_at.x : shown_at.right].strip() if shown_at.area else ""
        label = key.description
        if label and label not in text and text:
            found.append(f"the footer cuts {label!r} to {text!r}")
    return found


# --- help -----------------------------------------------------------------------------------


def help_leads_with_purpose(lines: list[str], title: str, purpose: str) -> list[str]:
    """Help opened on a screen shows, first, the screen's section title, then what the screen
    is for (its first words at least), then its keys."""
    # The frame, the scrollbar and the blank cells around the text go.
    inside = [re.sub(r"[\u2580-\u259f│┃]", " ", line).strip() for line in lines[1:]]
    texts = [t for t in inside if t]
    if not texts or texts[0] != title:
        return [f"Help opens on {texts[:1]!r}, not on {title!r}"]
    after = " ".join(texts[1:4])
    head = " ".join(purpose.split()[:4])
    if head not in after:
        return [f"Help's {title!r} does not start with what the screen is for ({head!r})"]
    return []


def unsaid_dialog_keys(app: App[Any]) -> list[str]:
    """A dialog that does not say, in its own text, the keys that answer and cancel it: it
    stands over its screen's footer, whose keys are not the dialog's. Each of the dialog's own
    keys ("escape", "y") is named in the dialog's box, and "enter" where a field or a list
    takes it. Help, a screen of its own with its keys listed, is not a dialog; the key that
    opens it on a dialog is the footer's own "? Help", in view under the dialog."""
    from textual.screen import ModalScreen
    from textual.widgets import Input, OptionList

    from diptych.tui.screens.help import HelpScreen

    screen = app.screen
    if not isinstance(screen, ModalScreen) or isinstance(screen, HelpScreen):
        return []
    lines = screen_lines(app)
    boxes = [w for w in screen.children if w.display]
    said = " ".join(" ".join(region_lines(lines, w.region)) for w in boxes).lower()
    keys = [k.strip() for b in Binding.make_bindings(type(screen).BINDINGS)
            if b.action != "app.help" for k in b.key.split(",")]  # fmt: skip
    if screen.query(Input) or screen.query(OptionList):
        keys.append("enter")
    return [
        f"{type(screen).__name__}: the dialog does not say what {key!r} does: {said.strip()!r}"
        for key in dict.fromkeys(keys)
        if not re.search(rf"(?<!\w){re.escape(key)}(?!\w)", said)
    ]


async def out_of_reach(
    pilot: Pilot[Any],
    widget: Widget,
    values: Iterable[str],
    *,
    key: str = "down",
    presses: int = 40,
) -> list[str]:
    """The ``values`` (a part's trials, cost and status) that ``widget`` holds and never shows
    whole while ``key`` is pressed from where the screen left the focus: each must be drawn in
    the widget's part of the screen in view (read down its rows, so that a value wrapped over
    two lines reads whole) at one press or another. A value under the edge that no key brings
    up is a value the user cannot read."""
    from surface import visible_widgets

    app = pilot.app
    wanted = list(dict.fromkeys(values))
    seen: set[str] = set()
    for press in range(presses + 1):
        shown = dict(visible_widgets(app)).get(widget)
        if shown is not None:
            rows = region_lines(screen_lines(app), shown)
            drawn = " ".join(" ".join(rows).split())
            seen.update(v for v in wanted if " ".join(v.split()) in drawn)
        if len(seen) == len(wanted) or press == presses:
            break
        await pilot.press(key)
        await pilot.pause()
    return [f"{_name(widget)}: {v!r} never drawn whole, {key} pressed {presses} times"
            for v in wanted if v not in seen]  # fmt: skip


def _name(widget: Widget) -> str:
    return f"{type(widget).__name__}#{widget.id}" if widget.id else type(widget).__name__


def _drawn(app: App[Any], region: Region, text: bool) -> list[list[tuple[str, str]]]:
    """The cells of ``region``, each its character and its whole style (colours, bold), or
    its character alone (``text``)."""
    from rendered_screen import _render

    rows = []
    for line in _render(app)[region.y : region.bottom]:
        cells = [(ch, "" if text else str(seg.style))
                 for seg in line if not seg.control for ch in seg.text]  # fmt: skip
        rows.append(cells[region.x : region.right])
    return rows


async def unseen_focus(
    pilot: Pilot[Any], widgets: Iterable[Widget] = (), *, text: bool = False
) -> list[str]:
    """The widgets (else the focused one) drawn the same, characters and colours, focused and
    not: after Tab, or after ctrl+s pointed at a field, the user cannot see where the keys go.
    ``text``: the characters alone must differ (a list drawn without its frame, the New-run
    Models list at 60 columns, read in a monochrome capture). Each is focused, drawn, blurred
    and drawn again; the focus is given back where it was."""
    app = pilot.app
    was = app.focused
    found = []
    for widget in list(widgets) or ([was] if was is not None else []):
        widget.focus()
        for _ in range(3):
            await pilot.pause()
        region = widget.region
        focused = _drawn(app, region, text)
        app.set_focus(None)
        for _ in range(3):
            await pilot.pause()
        if _drawn(app, region, text) == focused:
            rows = region_lines(screen_lines(app), region)[:2]
            found.append(f"{_name(widget)}: drawn the same focused and not: {rows!r}")
    app.set_focus(was)
    await pilot.pause()
    return found
