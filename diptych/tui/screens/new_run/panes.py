"""The New-run screen's scrolled panes, and the key that goes from one to the other."""

from __future__ import annotations

from textual import events
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from diptych.tui.jobs import RunRequest


class Pane(VerticalScroll, can_focus=False):
    """A pane that tells its screen when its size changes: the plan at the foot grows, or a
    line is said above it, and the field in view at the pane's foot is pushed out of it."""

    class Resized(Message):
        def __init__(self, pane: Pane) -> None:
            super().__init__()
            self.pane = pane

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized(self))

    def watch_show_vertical_scrollbar(self) -> None:
        # The scrollbar takes two columns of the same size: the description above the Models
        # list wraps onto one more line and pushes the list (or its reason) down as a resize.
        self.post_message(self.Resized(self))


class FormsScroll(Pane):
    """The parameter forms: scrolled by the focused field, never a tab stop of its own (one
    would take the keys typed for the next field)."""


class ChoicesScroll(Pane):
    """The probe, its description and the Models list: scrolled (by the focused field, or to
    the field refused) when a long description leaves the list no room, never cut."""


def in_view_beside_focus(
    widget: Widget, focus: Widget | None = None, *, over_focus: bool = False
) -> None:
    """Scroll ``widget`` into view now, then ``focus`` (the focused field, by default) back
    into view if that took it out: a sentence the screen points at is brought to the user,
    but never takes the field the keys go to out of sight (the Probe above a long Models
    list and its refusal). ``over_focus``: a sentence the user must read to go on (why the
    Models list is empty) wins where both do not fit, the focused field kept only beside it.
    Both scrolls now, one after the other: deferred, each would be reckoned from the same
    offset and the later would undo the earlier."""
    focus = focus or widget.screen.focused
    if focus is widget:
        focus = None
    if over_focus and focus is not None:
        keep_in_view(focus)
    widget.scroll_visible(animate=False, immediate=True)
    if not over_focus and focus is not None:
        keep_in_view(focus)


def keep_in_view(focus: Widget) -> None:
    """Scroll the field the keys go to into its pane's view now, with the heading that names
    it where one stands over it ("Probe"); one taller than its pane (the Models list) is in
    view by the rows it shows, and scrolled to its top would push the line under it out.
    A sentence the user must read to go on, shown in the same pane, is scrolled in after it
    (see ``must_read_in_view``)."""
    pane = next((a for a in focus.ancestors if isinstance(a, Pane)), None)
    if pane is None:
        return
    if focus.outer_size.height <= pane.scrollable_content_region.height:
        siblings = list(focus.parent.children) if focus.parent is not None else [focus]
        at = siblings.index(focus)
        if at and siblings[at - 1].has_class("heading"):
            siblings[at - 1].scroll_visible(animate=False, immediate=True)
        focus.scroll_visible(animate=False, immediate=True)
    must_read_in_view(pane)


def must_read_in_view(pane: Widget) -> None:
    """Scroll the sentence the user must read to go on (why the Models list is empty), where
    ``pane`` shows one, whole into view now. Every scroll that keeps the focused field in view
    ends here: the refusal under the list, the plan or a new size of the pane, landing after
    the hint in whatever order a busy machine takes them, each scrolled back to the Probe and
    left the hint cut at the pane's edge, with nothing after to scroll it back."""
    for hint in pane.query(ModelsHint):
        if hint.over_focus and hint.display and str(hint.render()).strip():
            hint.scroll_visible(animate=False, immediate=True)


class ModelsHint(Static):
    """Why the Models list is empty: brought into view whole each time its size settles (a
    scroll asked for as it is filled would read the height it had before, and cut it). It is
    all the list says, so it wins over the focused field where both do not fit."""

    #: Whether it is brought into view over the focused field (see ``in_view_beside_focus``).
    over_focus = True

    def on_resize(self, event: events.Resize) -> None:
        if self.display and event.size.height and str(self.render()).strip():
            # After the refresh that gives the pane its new height to scroll in.
            self.call_after_refresh(in_view_beside_focus, self, over_focus=self.over_focus)


class ModelsReason(ModelsHint):
    """Why the Models list is refused ("tick one or more"), likewise: a scrollbar come into the
    pane as it shrinks wraps it onto a second line, under the pane's edge. It stands under the
    list, which the user sees, so the focused field (the Probe above) keeps its place."""

    over_focus = False


class TwoPanes(Screen[RunRequest | None]):
    """A screen of the two panes above: the focused field is always in its pane's view, and
    ``action_other_pane`` goes to the field last focused in the other pane (its first field at
    first), so that the probe is one key away from any parameter, never a run of Shift+Tabs
    through fields out of view."""

    def __init__(self) -> None:
        super().__init__()
        self._last_in: dict[type[VerticalScroll], Widget] = {}

    def _pane_of(self, widget: Widget | None) -> VerticalScroll | None:
        panes = (ChoicesScroll, FormsScroll)
        return next((a for a in widget.ancestors if isinstance(a, panes)), None) if widget else None

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        pane = self._pane_of(event.widget)
        if pane is not None:
            self._last_in[type(pane)] = event.widget
            self.call_after_refresh(self._kept_in_view, event.widget, pane)

    def on_pane_resized(self, message: Pane.Resized) -> None:
        # Focus moves nothing here, so the pane's new size alone must not leave the field the
        # keys go to out of its view; a pane anchored to its end keeps the Models hint whole
        # under the search instead (``NewRunScreen._show_models``): its new height (a
        # scrollbar come into it, the plan grown) can cut the hint without resizing it.
        focused = self.focused
        pane = message.pane
        if pane.is_anchored:
            self.call_after_refresh(must_read_in_view, pane)
        elif focused is not None and self._pane_of(focused) is pane:
            self.call_after_refresh(self._kept_in_view, focused, pane)

    def _kept_in_view(self, widget: Widget, pane: VerticalScroll) -> None:
        # Where the focus moved by itself (a pane relaid out under it), it is brought back,
        # with the name it is marked by (a form's row: the name over its input at 60 columns).
        parent = widget.parent
        row = parent if isinstance(parent, Widget) and parent.has_class("field-row") else widget
        if widget.has_focus and not pane.region.contains_region(row.region):
            pane.scroll_to_widget(row, animate=False)

    def action_other_pane(self) -> None:
        here = self._pane_of(self.focused)
        there = self.query_one(FormsScroll if isinstance(here, ChoicesScroll) else ChoicesScroll)
        last = self._last_in.get(type(there))
        if last is None or not last.is_attached or not last.focusable:
            last = next((w for w in there.query("*") if w.focusable), None)
        if last is not None:
            last.focus()
