"""``Workspace.lists``: the workspace's own lists beside the papers' — identity pairs and
prompt interventions an auditor accepted — and the agent proposals rejected (kept as
:mod:`.own_lists` describes)."""

from __future__ import annotations

from typing import Any

from diptych.core.workspace import own_lists
from diptych.core.workspace.base import Namespace


class Lists(Namespace):
    """The identity pairs and interventions an auditor accepted into this workspace (from the
    agent's proposals or by hand), and the proposals rejected."""

    def accept_pair(self, masculine: str, feminine: str, *, source: str = "") -> bool:
        """Add a masculine- and a feminine-stereotyped identity to the workspace's own list
        (e.g. an agent finding); False when the pair is listed already."""
        self._kernel.writing("accept an identity pair")
        return own_lists.accept_identity_pair(self._store, masculine, feminine, source=source)

    def identities(self) -> list[own_lists.IdentityPair]:
        """The identity pairs accepted into this workspace, in the order accepted."""
        return own_lists.identity_pairs(self._store)

    def identity_params(self) -> dict[str, Any]:
        """Parameters that run the accepted pairs through ``pst-text`` or ``pst``
        (``masculine``, ``feminine``, ``new_identities``); empty when none is accepted."""
        return own_lists.identity_params(self.identities())

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
        self._kernel.writing("accept an intervention")
        return own_lists.accept_intervention(
            self._store, template, kind=kind, text=text, source=source, score=score
        )

    def interventions(self) -> list[own_lists.Intervention]:
        """The interventions accepted into this workspace, in the order accepted."""
        return own_lists.interventions(self._store)

    def reject(self, kind: str, what: str, *, source: str = "", reason: str = "") -> bool:
        """Record an auditor's rejection of an agent proposal (``kind`` ``pair`` or
        ``intervention``); False when it is recorded already."""
        self._kernel.writing("reject an agent proposal")
        return own_lists.reject_proposal(self._store, kind, what, source=source, reason=reason)

    def rejections(self) -> list[own_lists.Rejection]:
        """The agent proposals rejected in this workspace, in the order rejected."""
        return own_lists.rejections(self._store)
