"""Agent outcomes as rows a front end lists (the TUI's Agent screen), one shape for both
searches, and accepting a row into the workspace's own lists.

A row is plain data: what it is (a pair or an intervention), its status, its score and interval,
and what accepting it would store. Whether the agent's output is shown or stored, it is text
only; nothing in it is executed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from diptych.agent.proposals import Proposal
from diptych.core.workspace import Workspace

#: Statuses of a pair that was measured (the auditor may accept it into the workspace list).
MEASURED = frozenset(
    {
        "finding",
        "masculine-side finding",
        "feminine-side finding",
        "finding on each side",
        "not confirmed",
        "no finding",
        "screened out",
        "scored",
    }
)


@dataclass
class AgentRow:
    """One proposal of a session, as listed."""

    id: str
    kind: str  # "pair" or "intervention"
    what: str
    status: str
    score: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    reason: str = ""
    #: What accepting stores: masculine/feminine for a pair, template/kind/text for an
    #: intervention.
    payload: dict[str, Any] = field(default_factory=dict)
    #: The Benjamini–Hochberg q-value and the held-out figure, where the session has them.
    q_value: float | None = None
    heldout: float | None = None

    @property
    def acceptable(self) -> bool:
        return self.status in MEASURED


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def pair_row(p: Proposal) -> AgentRow:
    sts = p.sts or {}
    data = p.to_dict()
    row = AgentRow(
        p.id,
        "pair",
        p.pair if p.masculine or p.feminine else "(malformed)",
        p.status,
        sts.get("value"),
        sts.get("ci_low"),
        sts.get("ci_high"),
        p.reason or "",
        {"masculine": p.masculine, "feminine": p.feminine},
    )
    row.q_value = _number(data.get("q_value"))
    row.heldout = _number((p.heldout or {}).get("value"))
    return row


def intervention_row(item: dict[str, Any]) -> AgentRow:
    score = item.get("score") or {}
    row = AgentRow(
        str(item.get("id", "")),
        "intervention",
        f"{item.get('kind', '')}: {item.get('text', '')}",
        str(item.get("status", "")),
        score.get("difference"),
        score.get("ci_low"),
        score.get("ci_high"),
        str(item.get("reason") or ""),
        {
            "template": item.get("prompt") or "",
            "kind": item.get("kind", ""),
            "text": item.get("text", ""),
            "score": {k: v for k, v in score.items() if isinstance(v, int | float | str)},
        },
    )
    row.q_value = _number(item.get("q_value", score.get("q_value")))
    row.heldout = _number((item.get("heldout") or {}).get("difference"))
    return row


def accept_row(ws: Workspace, row: AgentRow, session: str) -> bool:
    """Store ``row`` in the workspace's identity or intervention list; False when listed
    already. A row that was not measured is refused: accepting needs the probe's numbers."""
    if not row.acceptable:
        raise ValueError(f"{row.id} is {row.status}: only measured proposals can be accepted")
    source = f"agent session {session}, {row.id} ({row.status})"
    if row.kind == "pair":
        return ws.lists.accept_pair(
            row.payload["masculine"], row.payload["feminine"], source=source
        )
    return ws.lists.accept_intervention(
        row.payload["template"],
        kind=row.payload["kind"],
        text=row.payload["text"],
        source=source,
        score=row.payload["score"],
    )


def reject_row(ws: Workspace, row: AgentRow, session: str, reason: str = "") -> bool:
    """Record the auditor's rejection of ``row`` in the workspace; False when it is recorded
    already."""
    return ws.lists.reject(
        row.kind,
        row.what,
        source=f"agent session {session}, {row.id} ({row.status})",
        reason=reason or "rejected by the auditor",
    )
