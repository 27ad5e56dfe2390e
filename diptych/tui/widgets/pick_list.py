"""A searchable pick-list: a search box over a :class:`SelectionList` whose options it narrows.

What is picked survives the search: an option hidden by the search stays picked, so a reviewer
can search for one identity, pick it, search for another and pick that too. The picks, in the
order they were made, are :attr:`PickList.picked`; a :class:`PickList.Changed` tells the host.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, SelectionList

from diptych.tui.widgets.ticks import TickList


def matches(choices: Iterable[str], search: str) -> list[str]:
    """The choices that contain every word of ``search`` (any case), in their order."""
    words = search.lower().split()
    return [c for c in choices if all(w in c.lower() for w in words)]


class PickList(Vertical):
    """A search box and the options that match it; space or a click picks one."""

    DEFAULT_CSS = """
    PickList {
        height: auto;
    }
    PickList > Input {
        width: 100%;
    }
    PickList > SelectionList {
        height: auto;
        max-height: 6;
    }
    """

    class Changed(Message):
        """What is picked changed."""

        def __init__(self, pick_list: PickList) -> None:
            super().__init__()
            self.pick_list = pick_list

        @property
        def control(self) -> PickList:
            return self.pick_list

    def __init__(
        self,
        choices: Sequence[str],
        *,
        picked: Sequence[str] = (),
        placeholder: str = "search",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.choices = tuple(choices)
        self.picked: list[str] = [p for p in picked if p in self.choices]
        self._placeholder = placeholder
        self._syncing = False

    def compose(self) -> ComposeResult:
        yield Input(placeholder=self._placeholder, classes="pick-search", compact=True)
        yield TickList(
            *((c, c, c in self.picked) for c in self.choices), classes="pick-options", compact=True
        )

    @property
    def options(self) -> SelectionList[str]:
        return self.query_one(".pick-options", SelectionList)

    @property
    def shown(self) -> list[str]:
        """The options the search leaves in view."""
        options = self.options
        return [str(options.get_option_at_index(i).value) for i in range(options.option_count)]

    def _show(self, search: str) -> None:
        options = self.options
        self._syncing = True
        try:
            options.clear_options()
            options.add_options([(c, c, c in self.picked) for c in matches(self.choices, search)])
        finally:
            self._syncing = False

    def set_picked(self, picked: Sequence[str]) -> None:
        """Pick exactly ``picked`` (the choices among them), as if chosen by hand."""
        self.picked = [p for p in picked if p in self.choices]
        self._show(self.query_one(".pick-search", Input).value)

    @on(Input.Changed, ".pick-search")
    def _search(self, event: Input.Changed) -> None:
        event.stop()
        self._show(event.value)

    @on(Input.Submitted, ".pick-search")
    def _to_options(self, event: Input.Submitted) -> None:
        # Enter in the search box goes down to what it found.
        event.stop()
        self.options.focus()

    @on(SelectionList.SelectedChanged, ".pick-options")
    def _picked(self, event: SelectionList.SelectedChanged[str]) -> None:
        event.stop()
        if self._syncing:
            return
        selected = set(self.options.selected)
        shown = set(self.shown)
        # Hidden options keep their state; shown ones follow the list, new picks at the end.
        kept = [p for p in self.picked if p not in shown or p in selected]
        added = [c for c in self.shown if c in selected and c not in kept]
        self.picked = kept + added
        self.post_message(self.Changed(self))
