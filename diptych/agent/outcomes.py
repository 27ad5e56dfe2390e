"""What an agent session ends with: the report a front end shows and the findings are made of.

:func:`diptych.agent.session.search_identities` returns an :class:`IdentityReport` and
:func:`~diptych.agent.session.search_mitigations` a :class:`MitigationReport`;
:mod:`diptych.agent.findings` turns either into the records the audit report keeps.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from diptych.agent.proposals import Proposal

#: How statuses are ranked in the report: findings first, unscored last but never dropped; a
#: status not named here (a new outcome) comes after the measured ones, before unscored.
_ORDER = {
    "finding": 0,
    "finding on each side": 1,
    "masculine-side finding": 1,
    "feminine-side finding": 1,
    "not confirmed": 2,
    "no finding": 3,
    "screened out": 4,
    "unscored": 6,
}
_OTHER = 5


@dataclass
class IdentityReport:
    """An identity search's outcome: ranked pairs, rejected proposals, why it stopped."""

    session: str
    ranked: list[Proposal]
    rejected: list[Proposal]
    stop_reason: str
    budget: dict[str, Any]
    #: Each round's proposals by who made them and, where the agent model's reply held none,
    #: why (``{"round", "asked", "from_agent", "from_lexicon", "problem"}``).
    agent_rounds: list[dict[str, Any]] = field(default_factory=list)

    @property
    def agent_problems(self) -> list[dict[str, Any]]:
        """The rounds the agent model could not fill, each with its reason in one line."""
        return [r for r in self.agent_rounds if r.get("problem")]

    @property
    def from_agent(self) -> int:
        """How many proposals the agent model delivered over the session (its pairs; the
        lexicon's fill-ins not counted)."""
        return sum(int(r.get("from_agent") or 0) for r in self.agent_rounds)

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "ranked": [p.to_dict() for p in self.ranked],
            "rejected": [p.to_dict() for p in self.rejected],
            "stop_reason": self.stop_reason,
            "budget": self.budget,
            "agent_rounds": self.agent_rounds,
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
        agent_rounds=list(state.get("agent_rounds") or []),
    )


@dataclass
class MitigationReport:
    """A mitigation search's outcome: every intervention tried, the Pareto front with its
    held-out figures, and why it stopped."""

    session: str
    tried: list[dict[str, Any]]
    stop_reason: str
    budget: dict[str, Any]
    #: The stated power of its decisions (:mod:`diptych.agent.mitigation.power`), with
    #: ``statement``: what it can find, or that it cannot with the identities given.
    power: dict[str, Any] = field(default_factory=dict)

    @property
    def front(self) -> list[dict[str, Any]]:
        return sorted(
            (t for t in self.tried if t.get("pareto")),
            key=lambda t: t["score"]["difference"],
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
