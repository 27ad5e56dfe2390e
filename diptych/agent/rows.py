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
    #: The Benjamini–Hochberg q-value and the held-out figure, where the session has them;
    #: how many identities' held-out tests the q-value was corrected across.
    q_value: float | None = None
    heldout: float | None = None
    q_across: int | None = None
    #: Why the row is or is not a finding, in a few words ("inside the placebo band"), shown in
    #: the row itself; ``reason`` says it whole.
    why: str = ""

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
    across = (p.heldout or {}).get("identities_scored")
    row.q_across = across if isinstance(across, int) else None
    row.why = pair_why(p)
    return row


def pair_why(p: Proposal) -> str:
    """Why ``p`` is or is not a finding, in a few words: what its decision turned on (the
    placebo band, the side, the false discovery rate, the search interval, the budget)."""
    held = p.heldout or {}
    if p.status == "no finding":
        return "search not above placebo"
    if p.status == "unscored":
        said = f"{p.reason or ''} {held.get('unscored') or ''}"
        return "over budget" if "over budget" in said else "not measured"
    if p.status == "rejected":
        return _head(p.reason or "")
    parts = [part for part in held.get("parts") or [] if part.get("status")]
    if not parts:
        return ""
    fdr = held.get("fdr")
    whys = [_part_why(part, fdr) for part in parts]
    if len(set(whys)) == 1:
        return whys[0]
    # The sides differ (a side finding): each named by its side.
    return "; ".join(f"{part.get('side', '')} {why}" for part, why in zip(parts, whys, strict=True))


def _part_why(part: dict[str, Any], fdr: Any) -> str:
    """One re-tested identity's outcome in a few words, as ``decision._part_reason`` says it."""
    if part["status"] == "finding":
        return "outside placebo band"
    value, band = _number(part.get("value")), part.get("placebo")
    if value is None or value <= 0:
        return "other side"
    if not band:
        return "no placebo band"
    if value <= float(band["high"]):
        return "inside placebo band"
    return f"q > {fdr:g}" if isinstance(fdr, int | float) else "q too large"


def _head(reason: str) -> str:
    """A reason's first clause ("near-duplicate of p0.1"), whole words."""
    for stop in (":", ";", " — ", " ("):
        reason = reason.split(stop)[0]
    return reason.strip()


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
    row.why = _head(str(item.get("reason") or "")) if row.status != "finding" else ""
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
