"""``diptych tui``: the interactive terminal app on the workspace."""

from __future__ import annotations

import os
import select
import sys
import time
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
        try:
            stdin = sys.stdin.fileno()
        except (OSError, ValueError):  # a stand-in stdin (a test's runner) has no terminal
            stdin = -1
        if stdin >= 0:
            drop_early_input(stdin)
        DiptychApp(path).run()


def has_terminal() -> bool:
    """Whether standard input and output are a terminal (Textual cannot draw otherwise)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def drop_early_input(fd: int, *, quiet: float = 0.15, longest: float = 1.0) -> bytes:
    """Read and drop what the terminal holds for ``fd`` before the app takes it over, until it
    has been ``quiet`` for that many seconds (``longest`` at most), and return it.

    textual-image asks the terminal what it can draw at import, waiting a tenth of a second
    for each answer: a key pressed meanwhile ends its wait, and the answer still on its way
    ("ESC [ ? 62 ; 4 c") would reach the app as the keys [ ? 6 2 ; 4 c, whose ? opens Help
    and c cancels. Keys typed before the screen is drawn are dropped with it: the user has not
    yet seen what they would act on."""
    if sys.platform == "win32" or not os.isatty(fd):
        return b""
    import termios

    before = termios.tcgetattr(fd)
    raw = termios.tcgetattr(fd)
    # Byte by byte and unechoed: a reply is not a line, and a line-buffered one is not read.
    raw[3] &= ~(termios.ICANON | termios.ECHO)
    dropped = b""
    try:
        termios.tcsetattr(fd, termios.TCSANOW, raw)
        deadline = time.monotonic() + longest
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], quiet)
            if not ready:
                break
            chunk = os.read(fd, 1024)
            if not chunk:
                break
            dropped += chunk
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, before)
    return dropped
