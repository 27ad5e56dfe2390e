"""What an agent session ends with: the report a front end shows and the findings are made of.

:func:`diptych.agent.session.search_identities` returns an :class:`IdentityReport` and
:func:`~diptych.agent.session.search_mitigations` a :class:`MitigationReport`;
:mod:`diptych.agent.findings` turns either into the records the audit report keeps.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from diptych.agent.proposals import Proposal

#: How statuses are ranked in the report: findings first, unscored last but never dropped; a
#: status not named here (a new outcome) comes after the measured ones, before unscored.
_ORDER = {"finding": 0, "not confirmed": 1, "no finding": 2, "screened out": 3, "unscored": 5}
_OTHER = 4


@dataclass
class IdentityReport:
    """An identity search's outcome: ranked pairs, rejected proposals, why it stopped."""

    session: str
    ranked: list[Proposal]
    rejected: list[Proposal]
    stop_reason: str
    budget: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "ranked": [p.to_dict() for p in self.ranked],
            "rejected": [p.to_dict() for p in self.rejected],
            "stop_reason": self.stop_reason,
            "budget": self.budget,
        }


def identity_report(session: str, state: dict[str, Any]) -> IdentityReport:
    """The report of an identity session's state: its proposals ranked, the rejected apart."""
    proposals = [Proposal.from_dict(p) for p in state.get("proposals", [])]
    ranked = sorted(
        (p for p in proposals if p.status != "rejected"),
        key=lambda p: (_ORDER.get(p.status, _OTHER), -((p.sts or {}).get("value") or 0.0)),
    )
    return IdentityReport(
        session=session,
        ranked=ranked,
        rejected=[p for p in proposals if p.status == "rejected"],
        stop_reason=state.get("stop_reason", ""),
        budget=state.get("budget", {}),
    )


@dataclass
class MitigationReport:
    """A mitigation search's outcome: every intervention tried, the Pareto front with its
    held-out figures, and why it stopped."""

    session: str
    tried: list[dict[str, Any]]
    stop_reason: str
    budget: dict[str, Any]

    @property
    def front(self) -> list[dict[str, Any]]:
        return sorted(
            (t for t in self.tried if t.get("pareto")),
            key=lambda t: t["score"]["difference"],
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
