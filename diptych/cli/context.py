"""State shared by the commands: the workspace path, its chromadb server and the debug switch."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import typer

from diptych.core.errors import WorkspaceNotFoundError
from diptych.core.workspace import Workspace


@dataclass
class State:
    store_path: Path | None = None
    #: ``--chroma``: the chromadb server of the workspace's collections (None: the embedded one).
    chroma_url: str | None = None
    debug: bool = False

    def open_workspace(self, *, create: bool = False) -> Workspace:
        """The workspace of ``--store`` (else ``$DIPTYCH_STORE``, else ``./.diptych``).

        Only a command that stores a new run passes ``create=True``: one that reads, or
        continues what is stored, never leaves an empty workspace behind a mistyped path."""
        return Workspace.open(self.store_path, create=create, chroma_url=self.chroma_url)

    @contextmanager
    def workspace_to_plan(self) -> Iterator[Workspace]:
        """The workspace a plan reads (what is stored already), never made by reading it: a
        dry run or ``audit check`` where there is no workspace yet plans against an empty
        one that is thrown away after, and leaves nothing behind."""
        try:
            ws = self.open_workspace()
        except WorkspaceNotFoundError:
            with tempfile.TemporaryDirectory(prefix="diptych-plan-") as empty:
                with Workspace.open(Path(empty) / "ws", chroma_url=self.chroma_url) as ws:
                    yield ws
            return
        with ws:
            yield ws


def state(ctx: typer.Context) -> State:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, State) else State()
