"""State shared by the commands: the workspace path and the debug switch."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from diptych.core.store import Store, default_store_path, open_store


@dataclass
class State:
    store_path: Path | None = None
    debug: bool = False

    def open_store(self) -> Store:
        return open_store(self.store_path or default_store_path())


def state(ctx: typer.Context) -> State:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, State) else State()
