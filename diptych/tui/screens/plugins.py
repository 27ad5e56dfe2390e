"""The Plugins screen: what is installed and what each plugin registers (``diptych plugins``)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Header, Label

from diptych.core.plugins import Registry
from diptych.core.probe import Probe
from diptych.core.workspace import Workspace
from diptych.tui.widgets.fit_table import FitTable
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
    HELP_PURPOSE = (
        "What is installed: each plugin with its package and version, and the probes, models and "
        "annotators it registered, with what each can do."
    )
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

    # Fitted to the width: what a plugin registers and what an item does wrap rather than run
    # off the right edge.
    @staticmethod
    def _plugins_table(registry: Registry) -> FitTable:
        rows = []
        for info in registry.plugins:
            if info.error:
                registers = f"not loaded: {info.error}"
            else:
                n = len(info.probes) + len(info.models) + len(info.annotators)
                registers = f"{n} ({', '.join(info.probes + info.models + info.annotators)})"
            rows.append([info.name, info.distribution, info.version, registers])
        return FitTable(["plugin", "package", "version", "registers"], rows, id="plugins")

    @staticmethod
    def _items_table(registry: Registry) -> FitTable:
        rows = []
        kinds: list[tuple[str, dict[str, type]]] = [
            ("probe", dict(registry.probes)),
            ("model", dict(registry.models)),
            ("annotator", dict(registry.annotators)),
        ]
        for kind, items in kinds:
            for name, cls in sorted(items.items()):
                owner = registry.owner.get((kind, name), "")
                rows.append([kind, name, owner, describe(cls)])
        return FitTable(["kind", "name", "plugin", "description"], rows, id="items")

    def action_filter(self) -> None:
        self.query_one(FilterBar).open()

    @on(FilterBar.Filtered)
    def _filtered(self, message: FilterBar.Filtered) -> None:
        for table in self.query(ListTable):
            table.filter_rows(message.text)

    def action_back(self) -> None:
        self.dismiss(None)
