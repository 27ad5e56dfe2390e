"""The agent's findings as the report lists them: each session that scored one of the report's
runs, its ranked findings with the search figure and the held-out re-test side by side.

A session is included when at least one run it scored is among the report's runs (not when
only its target model is audited): the report then holds the evidence the finding rests on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from diptych.core.report.charts import Chart, ChartPoint, ChartRow
from diptych.core.report.formatting import fmt, interval

#: How the report explains what a finding's figures mean.
METHOD = (
    "Agent findings are proposals of an agent model, scored by the probe's own metrics on runs "
    "of the target model (STS for an identity pair, the change in STS an intervention makes), "
    "each with its 95% bootstrap interval, then re-measured on seeds and identities the search "
    "never used (the held-out re-test). A session is listed when a run it scored is among this "
    "report's runs. A finding the held-out re-test does not bear out may be an artefact of the "
    "search."
)


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str) and value in ("inf", "-inf"):
        return float(value)
    return float(value) if isinstance(value, int | float) else None


def _figure(data: Any) -> dict[str, Any]:
    return dict(data) if isinstance(data, Mapping) else {}


@dataclass
class AgentFinding:
    """One ranked finding: what was proposed, its search and held-out figures."""

    id: str
    what: str
    status: str
    search: dict[str, Any]
    heldout: dict[str, Any]
    reason: str = ""
    #: Benjamini–Hochberg q-value over the session's proposals and the held-out p-value,
    #: where the session recorded them.
    q_value: float | None = None
    p_value: float | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    lineage: list[str] = field(default_factory=list)
    runs: dict[str, Any] = field(default_factory=dict)

    @property
    def search_value(self) -> str:
        return fmt(self.search.get("value"))

    @property
    def search_interval(self) -> str:
        return interval(self.search)

    @property
    def heldout_value(self) -> str:
        return fmt(self.heldout.get("value"))

    @property
    def heldout_interval(self) -> str:
        """The held-out interval, or each held-out part's (an identity pair is re-tested one
        identity at a time) when the figure has no single one."""
        whole = interval(self.heldout)
        parts = [dict(p) for p in self.heldout.get("parts") or [] if isinstance(p, Mapping)]
        if whole != "—" or not parts:
            return whole
        return "; ".join(
            f"{p.get('identity', '')} {fmt(p.get('value'))} {interval(p)}" for p in parts
        )

    @property
    def heldout_note(self) -> str:
        return str(self.heldout.get("unscored") or "")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentFinding:
        return cls(
            id=str(data.get("id", "")),
            what=str(data.get("what", "")),
            status=str(data.get("status", "")),
            search=_figure(data.get("search")),
            heldout=_figure(data.get("heldout")),
            reason=str(data.get("reason") or ""),
            q_value=_float(data.get("q_value")),
            p_value=_float(data.get("p_value")),
            evidence=_figure(data.get("evidence")),
            lineage=[str(x) for x in data.get("lineage") or []],
            runs=_figure(data.get("runs")),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "what": self.what,
            "status": self.status,
            "reason": self.reason,
            "q_value": self.q_value,
            "p_value": self.p_value,
            "search": self.search,
            "heldout": self.heldout,
            "evidence": self.evidence,
            "lineage": self.lineage,
            "runs": self.runs,
        }


@dataclass
class AgentSession:
    """One agent session's saved outcome."""

    session: str
    kind: str
    agent_model: str
    target: str
    figure: str
    findings: list[AgentFinding]
    rejected: int
    runs: list[str]
    stop_reason: str = ""
    #: "k findings of n proposals scored", where the session recorded its decision.
    decision: str = ""

    @property
    def anchor(self) -> str:
        return f"agent-{self.session}"

    def chart(self) -> Chart | None:
        """Each finding's search figure beside its held-out re-test, with their intervals."""
        rows = []
        for f in self.findings:
            points = [
                ChartPoint(
                    series,
                    _float(fig.get("value")),
                    _float(fig.get("ci_low")),
                    _float(fig.get("ci_high")),
                )  # fmt: skip
                for series, fig in (("held-out", f.heldout), ("search", f.search))
                if _float(fig.get("value")) is not None
            ]
            if points:
                rows.append(ChartRow(f.what[:60], points))
        if not rows:
            return None
        return Chart(
            name=f"{self.anchor}-findings",
            title=f"Agent findings of session {self.session}: held-out against search",
            axis=self.figure or "figure",
            rows=rows,
            row_kind="finding",
            note="Points: the figure; bars: 95% intervals. Held-out first, the search below.",
            source="agent",
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentSession:
        return cls(
            session=str(data.get("session", "")),
            kind=str(data.get("kind", "")),
            agent_model=str(data.get("agent_model", "")),
            target=str(data.get("target", "")),
            figure=str(data.get("figure", "")),
            findings=[
                AgentFinding.from_dict(f) for f in data.get("findings") or [] if isinstance(f, dict)
            ],
            rejected=int(data.get("rejected") or 0),
            runs=[str(r) for r in data.get("runs") or []],
            stop_reason=str(data.get("stop_reason") or ""),
            decision=str((data.get("decision") or {}).get("text") or "")
            if isinstance(data.get("decision"), Mapping)
            else "",
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "kind": self.kind,
            "agent_model": self.agent_model,
            "target": self.target,
            "figure": self.figure,
            "findings": [f.to_dict() for f in self.findings],
            "rejected": self.rejected,
            "runs": self.runs,
            "stop_reason": self.stop_reason,
            "decision": self.decision,
        }
