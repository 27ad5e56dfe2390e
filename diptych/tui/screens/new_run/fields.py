"""Where the New-run screen points when it refuses: the first field marked in red, brought
into view with its reason under it, and the panes put back once the form holds."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from diptych.tui.screens.new_run.panes import Pane, TwoPanes, in_view_beside_focus
from diptych.tui.widgets.params_form import INVALID, ParamsForm
from diptych.tui.widgets.ticks import TickList


class PointsAtFields(TwoPanes):
    """The New-run screen's fields, as its refusals point at them."""

    def first_invalid(self) -> tuple[str, Widget] | None:
        """The first field marked in red, top to bottom (the model list first), as its name
        and the widget that takes its input."""
        if str(self.query_one("#models-error", Static).render()):
            return f"{INVALID} Models", self.query_one("#models", TickList)
        for form in self.query(ParamsForm):
            marked = form.marked_field()
            if marked is not None:
                name, widget = marked
                return f"{name} of {form.title}", widget
        return None

    def _into_view(self, field: Widget, *, focus: Widget | None = None) -> None:
        """Scroll ``field`` into view, and the Models list's refusal under it with it: left
        at the pane's edge, its first line read as the whole of it ("choose at least"); a
        form field's reason under it likewise ("Input should be greater than"). The field
        the keys go to (``focus``, else the focused one) stays in view where they share a
        pane and both do not fit."""
        focus = focus or self.focused
        # A form's field with its name (over it, in a narrow pane): the input alone left the
        # "✗ name" marking it cut off above.
        row = field.parent
        in_view_beside_focus(
            row if isinstance(row, Widget) and row.has_class("field-row") else field, focus
        )
        if field.id is not None:
            # The Models list's hint (why a search left it empty) is a reason too.
            for reason in self.query(f"#{field.id}-error, #{field.id}-hint"):
                if reason.display:
                    over = reason.id == f"{field.id}-hint"
                    in_view_beside_focus(reason, focus, over_focus=over)

    def on_resize(self) -> None:
        # The plan names the field marked in red: a new size must not leave it out of view.
        first = self.first_invalid()
        if first is not None:
            self.call_after_refresh(self._into_view, first[1])

    def on_pane_resized(self, message: Pane.Resized) -> None:
        # A pane made shorter (a line said above the plan, the plan grown) keeps the field the
        # plan names in view, as a new terminal size does; TwoPanes' handler, which Textual
        # calls after this one, then keeps the focused field in view, and wins a pane they
        # share. While the user types in a form, the focus stays where it is, as in _replan.
        first = self.first_invalid()
        if first is not None and self._pane_of(first[1]) is message.pane:
            if not self._typing_in_a_form():
                self.call_after_refresh(self._into_view, first[1])

    def _pane_scrolls(self) -> dict[str, float]:
        return {p.id: p.scroll_y for p in self.query(VerticalScroll) if p.id is not None}

    def _typing_in_a_form(self) -> bool:
        focused = self.focused
        return focused is not None and any(isinstance(a, ParamsForm) for a in focused.ancestors)
