"""``diptych tui``: the interactive terminal app on the workspace."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from diptych.cli.context import state
from diptych.cli.paths import store_path
from diptych.core.errors import MissingDependencyError, UsageError
from diptych.core.workspace import Workspace


def register(app: typer.Typer) -> None:
    @app.command("tui")
    def tui(
        ctx: typer.Context,
        store: Annotated[
            Path | None,
            typer.Option(
                "--store",
                envvar="DIPTYCH_STORE",
                metavar="PATH",
                parser=store_path,
                help="Workspace directory (default: the global --store, else ./.diptych).",
            ),
        ] = None,
    ) -> None:
        """Open the terminal app: runs, new runs, results, review and plugins."""
        if not has_terminal():
            raise UsageError(
                "diptych tui needs a terminal (its input and output are not one here): run it "
                "in a terminal, or use the other commands ('diptych --help') in scripts"
            )
        # Opened once here so that a workspace that cannot be used is one clear error before
        # the screen is taken over; the app's threads open their own.
        with Workspace.open(store or state(ctx).store_path) as ws:
            path = ws.path
            # Read too (what the first screen shows): a database damaged past its first page
            # is then one line here rather than an error inside the app.
            ws.runs.list()
        try:
            # Imported before the app takes over the terminal: textual-image asks the
            # terminal which graphics it supports (Kitty, Sixel) when it is imported, and the
            # answer must not land in the app's input.
            import diptych.tui.review.screen  # noqa: F401
            from diptych.tui.app import DiptychApp
        except ImportError as error:
            if error.name is None or not error.name.startswith("textual"):
                raise
            raise MissingDependencyError("textual", "tui", "diptych tui") from error
        DiptychApp(path).run()


def has_terminal() -> bool:
    """Whether standard input and output are a terminal (Textual cannot draw otherwise)."""
    return sys.stdin.isatty() and sys.stdout.isatty()
