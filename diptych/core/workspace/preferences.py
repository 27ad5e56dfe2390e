"""``Workspace.preferences``: what a front end remembers in the workspace (the last reviewer,
the last run asked for) to offer it again next time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from diptych.core.labels import HUMAN_PREFIX, human_annotator
from diptych.core.workspace.base import Namespace


class Preferences(Namespace):
    """Preferences offered again next time: the reviewer's name and the last run asked for."""

    def last_reviewer(self) -> str | None:
        """The name the last review in this workspace was given under, if any."""
        name = self._store.preference("reviewer")
        return name if isinstance(name, str) else None

    def remember_reviewer(self, name: str) -> None:
        """Remember ``name`` as this workspace's reviewer (a bare name, not ``human:``)."""
        self._kernel.writing("remember the reviewer")
        self._store.set_preference("reviewer", human_annotator(name).removeprefix(HUMAN_PREFIX))

    def last_request(self) -> dict[str, Any] | None:
        """The last run asked for in this workspace (``probe``, ``params``, ``models``)."""
        value = self._store.preference("last_request")
        return value if isinstance(value, dict) else None

    def remember_request(
        self, probe: str, params: Sequence[str], models: Sequence[tuple[str, Sequence[str]]]
    ) -> None:
        """Remember the probe, its ``key=value`` parameters and the models of a run asked for,
        to offer them again next time."""
        self._kernel.writing("remember the last run")
        self._store.set_preference(
            "last_request",
            {
                "probe": probe,
                "params": list(params),
                "models": [[name, list(p)] for name, p in models],
            },
        )
