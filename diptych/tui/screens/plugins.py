"""The Plugins screen: what is installed and what each plugin registers (``diptych plugins``)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Header, Label

from diptych.core.plugins import Registry
from diptych.core.probe import Probe
from diptych.core.workspace import Workspace
from diptych.tui.widgets.footer import KeysFooter
from diptych.tui.widgets.tables import FilterBar, ListTable


def describe(cls: type) -> str:
    """A probe's description, or the first line of a model's docstring (as the CLI)."""
    if issubclass(cls, Probe):
        return cls.description()
    text = (cls.__doc__ or "").strip()
    return text.splitlines()[0] if text else ""


class PluginsScreen(Screen[None]):
    """Each plugin with its package and version, then everything it registered."""

    CSS_PATH = "plugins.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("slash", "filter", "Filter"),
    ]

    def compose(self) -> ComposeResult:
        registry = Workspace.plugins.registry()
        yield Header()
        yield Label("Installed plugins", classes="heading")
        yield self._plugins_table(registry)
        yield Label("What they register", classes="heading")
        yield self._items_table(registry)
        yield FilterBar(id="filter")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#plugins", DataTable).focus()

    @staticmethod
    def _plugins_table(registry: Registry) -> ListTable:
        table = ListTable(id="plugins")
        table.add_columns("plugin", "package", "version", "registers")
        for info in registry.plugins:
            if info.error:
                registers: str | Text = Text(f"not loaded: {info.error}", style="red")
            else:
                n = len(info.probes) + len(info.models) + len(info.annotators)
                registers = f"{n} ({', '.join(info.probes + info.models + info.annotators)})"
            table.add_row(info.name, info.distribution, info.version, registers)
        return table

    @staticmethod
    def _items_table(registry: Registry) -> ListTable:
        table = ListTable(id="items")
        table.add_columns("kind", "name", "plugin", "description")
        kinds: list[tuple[str, dict[str, type]]] = [
            ("probe", dict(registry.probes)),
            ("model", dict(registry.models)),
            ("annotator", dict(registry.annotators)),
        ]
        for kind, items in kinds:
            for name, cls in sorted(items.items()):
                owner = registry.owner.get((kind, name), "")
                table.add_row(kind, name, owner, describe(cls))
        return table

    def action_filter(self) -> None:
        self.query_one(FilterBar).open()

    @on(FilterBar.Filtered)
    def _filtered(self, message: FilterBar.Filtered) -> None:
        for table in self.query(ListTable):
            table.filter_rows(message.text)

    def action_back(self) -> None:
        self.dismiss(None)
