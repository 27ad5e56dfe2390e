"""What the workspace keeps in its preferences table: what a front end remembers (the last
reviewer, the last run asked for) and the workspace's own identity and intervention lists."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from diptych.core.labels import HUMAN_PREFIX, human_annotator
from diptych.core.workspace import own_lists
from diptych.core.workspace.base import WorkspaceBase


class PreferenceSteps(WorkspaceBase):
    """Preferences offered again next time, and the lists an auditor accepted."""

    def last_reviewer(self) -> str | None:
        """The name the last review in this workspace was given under, if any."""
        name = self._store.preference("reviewer")
        return name if isinstance(name, str) else None

    def remember_reviewer(self, name: str) -> None:
        """Remember ``name`` as this workspace's reviewer (a bare name, not ``human:``)."""
        self._writing("remember the reviewer")
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
        self._writing("remember the last run")
        self._store.set_preference(
            "last_request",
            {
                "probe": probe,
                "params": list(params),
                "models": [[name, list(p)] for name, p in models],
            },
        )

    def accept_identity_pair(self, masculine: str, feminine: str, *, source: str = "") -> bool:
        """Add a masculine- and a feminine-stereotyped identity to the workspace's own list
        (e.g. an agent finding); False when the pair is listed already."""
        self._writing("accept an identity pair")
        return own_lists.accept_identity_pair(self._store, masculine, feminine, source=source)

    def workspace_identities(self) -> list[own_lists.IdentityPair]:
        """The identity pairs accepted into this workspace, in the order accepted."""
        return own_lists.identity_pairs(self._store)

    def workspace_identity_params(self) -> dict[str, Any]:
        """Parameters that run the accepted pairs through ``pst-text`` or ``pst``
        (``masculine``, ``feminine``, ``new_identities``); empty when none is accepted."""
        return own_lists.identity_params(self.workspace_identities())

    def accept_intervention(
        self,
        template: str,
        *,
        kind: str = "",
        text: str = "",
        source: str = "",
        score: dict[str, Any] | None = None,
    ) -> bool:
        """Add a prompt intervention (the paired template it makes) to the workspace's own
        list; False when that template is listed already."""
        self._writing("accept an intervention")
        return own_lists.accept_intervention(
            self._store, template, kind=kind, text=text, source=source, score=score
        )

    def workspace_interventions(self) -> list[own_lists.Intervention]:
        """The interventions accepted into this workspace, in the order accepted."""
        return own_lists.interventions(self._store)

    def reject_proposal(self, kind: str, what: str, *, source: str = "", reason: str = "") -> bool:
        """Record an auditor's rejection of an agent proposal (``kind`` ``pair`` or
        ``intervention``); False when it is recorded already."""
        self._writing("reject an agent proposal")
        return own_lists.reject_proposal(self._store, kind, what, source=source, reason=reason)

    def workspace_rejections(self) -> list[own_lists.Rejection]:
        """The agent proposals rejected in this workspace, in the order rejected."""
        return own_lists.rejections(self._store)
