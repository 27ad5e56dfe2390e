"""The Help screen: what a screen is for, then its keys, read from the screens themselves.

Nothing here is written by hand: the screens are found among the classes of ``diptych.tui``,
their keys are their ``BINDINGS`` (and those they inherit) and what each is for is its
``HELP_PURPOSE`` (else its docstring's first paragraph), so a screen or a key added appears here
without anyone remembering to. Help opened on a screen shows that screen's section, then the
keys that work everywhere and in tables; no other screen's. Help opened on a dialog shows the
dialog's section only: no other key reaches past a dialog.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import replace
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Static

from diptych.tui.widgets.footer import collect_bindings

#: The screens in the order a user meets them; any other screen follows these, then the
#: dialogs, then Help itself.
FIRST = (
    "RunsScreen",
    "NewRunScreen",
    "RunDetailScreen",
    "ReviewScreen",
    "MeasureScreen",
    "AgentScreen",
    "AuditScreen",
    "PluginsScreen",
)
#: The app's keys and Textual's: a dialog (Help itself too) keeps the keys to itself.
EVERYWHERE = "Everywhere but in dialogs"
IN_TABLES = "In tables and lists"
#: Help opened on a dialog lists the dialog's keys only, and says where the others are.
DIALOG_CLOSED = "The screen's other keys work once this dialog is closed."


def screen_title(cls: type) -> str:
    """A screen's section title: its ``HELP_TITLE``, else from its name (``NewRunScreen`` ->
    ``New run screen``, ``NoteModal`` -> ``Note dialog``)."""
    own = getattr(cls, "HELP_TITLE", None)
    if isinstance(own, str):
        return own
    name = cls.__name__.removesuffix("Screen").removesuffix("Modal")
    words = " ".join(re.findall(r"[A-Z][a-z]*", name)).capitalize() or cls.__name__
    return f"{words} dialog" if issubclass(cls, ModalScreen) else f"{words} screen"


def screen_purpose(cls: type) -> str:
    """What a screen is for, in a sentence or two: its ``HELP_PURPOSE``, else the first
    paragraph of its docstring."""
    own = getattr(cls, "HELP_PURPOSE", None)
    if isinstance(own, str):
        return own
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    # A docstring's literals (``human:<name>``) read as their words on the screen.
    return " ".join(doc.replace("``", "").split())


def _subclasses(cls: type[Any]) -> list[type[Any]]:
    out: list[type[Any]] = []
    sub: type[Any]
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def _ours(cls: type) -> bool:
    return cls.__module__.startswith("diptych.tui.")


def screen_classes() -> list[type[Screen[Any]]]:
    """Every screen and dialog of the app (each class of ``diptych.tui`` that is a screen with
    keys of its own, or that none of the others extends), in the order a user meets them."""
    import diptych.tui.review
    import diptych.tui.screens

    # A screen of several modules is a package of tui/screens (screens/agent/): walk into it.
    for package in (diptych.tui.screens, diptych.tui.review):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
    found = [c for c in dict.fromkeys(_subclasses(Screen)) if _ours(c)]
    # A base that only draws for its subclasses (no keys of its own) is no screen of its own.
    shown: list[type[Screen[Any]]] = [
        c
        for c in found
        if "BINDINGS" in c.__dict__ or not any(_ours(sub) for sub in c.__subclasses__())
    ]

    def order(cls: type) -> tuple[int, int, str]:
        name = cls.__name__
        if name in FIRST:
            return (0, FIRST.index(name), name)
        if cls is HelpScreen:
            return (3, 0, name)
        return (2 if issubclass(cls, ModalScreen) else 1, 0, name)

    return sorted(shown, key=order)


def widget_classes() -> list[type[Widget]]:
    """Our widgets with keys of their own (tables, lists, the filter line)."""
    screen_classes()  # imports every screen, and with them the widgets they use
    widgets: list[type[Widget]] = _subclasses(Widget)
    return [
        c
        for c in dict.fromkeys(widgets)
        if _ours(c) and not issubclass(c, Screen) and c.__dict__.get("BINDINGS")
    ]


def key_names(app: App[Any], binding: Binding) -> list[str]:
    """Each key of ``binding`` as the keyboard names it (→, ←, Home), whatever the footer's
    ``key_display`` says for the first."""
    return [
        app.get_key_display(replace(binding, key=key, key_display=None))
        for key in binding.key.split(",")
    ]


def bindings_table(
    app: App[Any], bindings: list[Binding], notes: dict[str, str] | None = None
) -> Table:
    """One row per action (keys that do the same thing together), each key once; an action
    in ``notes`` (a key that does not apply to what the screen shows) says so after its
    label ("image runs only")."""
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=False)
    table.add_column("keys", style="bold cyan", no_wrap=True, min_width=10)
    table.add_column("action")
    grouped: dict[str, tuple[str, list[str]]] = {}
    for binding in bindings:
        label = binding.description or binding.action.replace("_", " ")
        if binding.tooltip:
            label = f"{label}: {binding.tooltip}"
        if (notes or {}).get(binding.action):
            label = f"{label} ({(notes or {})[binding.action]})"
        # One row per action: Textual's ctrl+q and our q both quit, and are one line.
        _, keys = grouped.setdefault(binding.action, (label, []))
        for name in key_names(app, binding):
            if name not in keys:
                keys.append(name)
    for label, keys in grouped.values():
        table.add_row(" ".join(keys), label)
    return table


def help_sections(app_class: type[App[Any]]) -> list[tuple[str, list[Binding]]]:
    """(title, bindings): the keys that work everywhere, those of tables and lists, then
    each screen's own."""
    base = (Screen, ModalScreen)
    everywhere = collect_bindings(app_class) + collect_bindings(Screen)
    tables = [b for w in widget_classes() for b in Binding.make_bindings(w.__dict__["BINDINGS"])]
    own = [(screen_title(s), collect_bindings(s, skip=base)) for s in screen_classes()]
    return [(EVERYWHERE, everywhere), (IN_TABLES, tables), *own]


#: What escape does in a list's filter line, as one row of a screen's keys says it.
FILTER_ESCAPE = "clear it"


def has_filter(own: list[Binding]) -> bool:
    """Whether a screen has a filter line: it binds ``/`` to open one (Runs, Run detail,
    Plugins); on any other screen escape never reaches a filter."""
    return any(b.action == "filter" for b in own)


def filter_keys() -> list[Binding]:
    """The filter line's own keys, which the tables' section lists among its keys."""
    from diptych.tui.widgets.tables import FilterBar

    return list(Binding.make_bindings(FilterBar.__dict__["BINDINGS"]))


def escape_once(own: list[Binding], tables: list[Binding]) -> tuple[list[Binding], list[Binding]]:
    """A screen's keys and the tables' with each key said once. A key the screen binds itself
    is said in the screen's section only (Review's g and G, the Runs screen's escape, which
    clears its filter as the filter line's does); where the screen's escape goes Back and its
    filter line clears, one row says what it does where. A screen with no filter line says
    nothing of one: its escape is what the screen does."""
    if not has_filter(own):
        filtering = {(b.key, b.action) for b in filter_keys()}
        tables = [b for b in tables if (b.key, b.action) not in filtering]
    mine = {b.description.lower() for b in own if b.key == "escape"}
    theirs = {b.description.lower() for b in tables if b.key == "escape"}
    if mine and theirs and mine != theirs:
        own = [
            b if b.key != "escape"
            else replace(b, description=f"in a list's filter: {FILTER_ESCAPE}; "
                                        f"elsewhere: {b.description}")
            for b in own
        ]  # fmt: skip
    bound = {key for b in own for key in b.key.split(",")}
    return own, [b for b in tables if not bound & set(b.key.split(","))]


def screen_sections(
    app_class: type[App[Any]], current: type[Screen[Any]] | None
) -> list[tuple[str, list[Binding]]]:
    """The sections Help shows. Opened on a screen: that screen's section first, then the keys
    that work on every screen; no other screen's (a short section ran on into the next one's,
    which read as its own). Opened on a dialog: its section only, as no other key reaches past
    it. Opened on none: every section."""
    sections = help_sections(app_class)
    if current is None:
        return sections
    title = screen_title(current)
    own = [s for s in sections if s[0] == title]
    if _is_dialog(current):
        return own
    rest = [s for s in sections if s[0] in (EVERYWHERE, IN_TABLES)]
    if not own:
        return rest
    # No key means two things on one screen: escape is said once, where it does each.
    tables = dict(rest).get(IN_TABLES, [])
    keys, tables = escape_once(own[0][1], tables)
    shown = [(t, tables if t == IN_TABLES else b) for t, b in rest]
    # A section whose every key the screen says itself is left out, not shown empty.
    return [(title, keys), *[(t, b) for t, b in shown if b]]


def _is_dialog(cls: type | None) -> bool:
    return cls is not None and issubclass(cls, ModalScreen) and cls is not HelpScreen


def section_id(title: str) -> str:
    return "help-" + re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


class HelpScreen(ModalScreen[None]):
    """The keys of the screen it was called from, then those of every screen."""

    HELP_TITLE = "Help"
    HELP_PURPOSE = (
        "What the screen you came from is for and its keys, then the keys that work on every "
        "screen."
    )
    CSS_PATH = "help.tcss"
    # A dialog: the app's keys (q Quit among them) do not reach past it, so q closes it too.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close help"),
    ]

    def __init__(
        self, current: type[Screen[Any]] | None = None, notes: dict[str, str] | None = None
    ) -> None:
        """``current``: the screen Help was opened on; ``notes``: what that screen says of
        its keys that do not apply to what it shows (its ``help_notes()``, by action)."""
        super().__init__()
        self.current = current
        self.notes = notes or {}

    def compose(self) -> ComposeResult:
        intro = Static(
            Text.assemble(
                ("Keys", "bold"),
                " — keyboard first; the mouse works too (click rows, lists, buttons). "
                "↑↓ / PgUp PgDn scroll this page; Escape or q closes it.",
            ),
            id="help-intro",
        )
        with VerticalScroll(id="help"):
            # Opened on a screen, what that screen is for comes first; the intro after it.
            if self.current is None:
                yield intro
            purposes = {screen_title(s): screen_purpose(s) for s in screen_classes()}
            for title, bindings in self._sections():
                yield Static(
                    Text(title, style="bold underline"), classes="help-title", id=section_id(title)
                )
                # What the screen is for comes before its keys: a key means little to someone
                # who does not know what the screen does.
                if purposes.get(title):
                    yield Static(purposes[title], classes="help-purpose")
                # The notes are the current screen's: a key of its own section only.
                notes = self.notes if self.current and title == screen_title(self.current) else {}
                yield Static(bindings_table(self.app, bindings, notes), classes="help-keys")
            if _is_dialog(self.current):
                yield Static(DIALOG_CLOSED, classes="help-purpose", id="help-dialog-closed")
            if self.current is not None:
                yield intro

    def _sections(self) -> list[tuple[str, list[Binding]]]:
        return screen_sections(type(self.app), self.current)

    def on_mount(self) -> None:
        self.query_one("#help").focus()
        if self.current is not None:
            self.call_after_refresh(self._scroll_to_section, screen_title(self.current))

    def _scroll_to_section(self, title: str) -> None:
        found = self.query(f"#{section_id(title)}")
        if found:
            self.query_one("#help", VerticalScroll).scroll_to_widget(
                found.first(), top=True, animate=False
            )

    def action_close(self) -> None:
        self.dismiss(None)
